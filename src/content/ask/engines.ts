/**
 * Ask's engines: what turns the sections retrieval found (retrieve.ts) into an answer. The offline
 * engine quotes the passages that answer, each with its citation; the chat engine asks any
 * OpenAI-compatible `/v1/chat/completions` endpoint, grounded with the same sections, and streams
 * its words. Both say plainly when the docs do not answer: no section above the threshold, no
 * answer (the model is not even asked).
 */
import type { AskSource, Retrieval } from "./retrieve.js";

export interface AskAnswer {
  /**
   * Whether the docs answered (a hook for insights: an unanswered question is what the docs lack).
   * False when no section reached the threshold, or the model said it could not answer.
   */
  answered: boolean;
  /** The answer as Markdown, citing sources as [1], [2]... (their order in `sources`). */
  markdown: string;
  /** The sections the answer cites, in citation order. */
  sources: AskSource[];
  followupQuestions: string[];
  /** Which engine answered ("offline" also when the chat endpoint failed and the passages were given instead). */
  engine: "offline" | "chat";
}

export interface AskOptions {
  /** Called with each piece of the answer's Markdown as it is written. */
  onText?: (text: string) => void;
  signal?: AbortSignal;
}

export interface AskEngine {
  answer(question: string, retrieval: Retrieval, options?: AskOptions): Promise<AskAnswer>;
}

/** What an answer says when the docs do not answer. */
export const UNANSWERED = "The documentation does not answer this question.";

function followups(retrieval: Retrieval, cited: readonly AskSource[]): string[] {
  const titles = new Set<string>();
  for (const source of retrieval.sources) {
    if (cited.includes(source)) continue;
    const title = source.sectionTitle || source.pageTitle;
    if (title) titles.add(`What does the documentation say about ${title}?`);
  }
  return [...titles].slice(0, 3);
}

function unanswered(options: AskOptions | undefined, engine: AskAnswer["engine"]): AskAnswer {
  options?.onText?.(UNANSWERED);
  return { answered: false, markdown: UNANSWERED, sources: [], followupQuestions: [], engine };
}

/** The passages that answer, one paragraph each, with their citation. */
function quotedAnswer(retrieval: Retrieval): string {
  return retrieval.sources
    .map((source, i) => {
      const where =
        source.sectionTitle && source.sectionTitle !== source.pageTitle ? `${source.pageTitle}, ${source.sectionTitle}` : source.pageTitle;
      return `**${escapeMarkdown(where)}**: ${escapeMarkdown(source.passage)} [${i + 1}]`;
    })
    .join("\n\n");
}

/** Text quoted into Markdown stays text: no link, image or HTML a page's words could make. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>#|])/g, "\\$1");
}

/** The offline engine: deterministic, needs no model. */
export const offlineEngine: AskEngine = {
  async answer(_question, retrieval, options) {
    if (retrieval.sources.length === 0) return unanswered(options, "offline");
    const markdown = quotedAnswer(retrieval);
    options?.onText?.(markdown);
    return {
      answered: true,
      markdown,
      sources: retrieval.sources,
      followupQuestions: followups(retrieval, retrieval.sources),
      engine: "offline",
    };
  },
};

export interface ChatEngineConfig {
  /** Base URL of the endpoint (`/v1/chat/completions` is appended unless the URL already ends with it). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
}

/** Characters of a model's answer kept; the rest is cut (a runaway completion must not grow without end). */
const MAX_ANSWER_CHARS = 16 * 1024;
/** What the model is told to say when the sections do not answer; seen in its answer, the question is unanswered. */
const MODEL_UNANSWERED = "I could not find the answer in the documentation.";

export function chatPrompt(question: string, retrieval: Retrieval) {
  const sources = retrieval.sources
    .map(
      (s, i) =>
        `[${i + 1}] ${s.pageTitle}${s.sectionTitle && s.sectionTitle !== s.pageTitle ? ` > ${s.sectionTitle}` : ""}\n${s.text || s.passage}`,
    )
    .join("\n\n");
  return [
    {
      role: "system",
      content:
        "You answer questions about a product's documentation using only the numbered sections below. " +
        "Cite the sections you use by their number in square brackets, like [1]. Answer in Markdown, briefly. " +
        `If the sections do not answer the question, answer exactly: ${MODEL_UNANSWERED}\n\n${sources}`,
    },
    { role: "user", content: question },
  ];
}

function completionsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  if (trimmed.endsWith("/chat/completions")) return trimmed;
  return trimmed.endsWith("/v1") ? `${trimmed}/chat/completions` : `${trimmed}/v1/chat/completions`;
}

/** The pieces of text of an OpenAI-style completion stream (`data: {...}` lines, ending with `data: [DONE]`). */
async function* completionText(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return;
      let parsed: { choices?: { delta?: { content?: unknown } }[] };
      try {
        parsed = JSON.parse(data);
      } catch {
        continue;
      }
      const content = parsed.choices?.[0]?.delta?.content;
      if (typeof content === "string" && content !== "") yield content;
    }
    if (buffered.length > MAX_ANSWER_CHARS) throw new Error("the chat endpoint sent a line longer than an answer may be");
  }
}

/**
 * The chat engine: the sections retrieval found are the model's only material, and its citations
 * (numbered as the model was given them, so that the [n] it wrote while streaming stay right). When the endpoint fails,
 * the offline answer is given instead (engine "offline"), the reader still gets the passages.
 */
export function chatEngine(config: ChatEngineConfig, fetchImpl: typeof fetch = fetch): AskEngine {
  return {
    async answer(question, retrieval, options) {
      if (retrieval.sources.length === 0) return unanswered(options, "chat");
      let text = "";
      try {
        const timeout = AbortSignal.timeout(config.timeoutMs);
        const response = await fetchImpl(completionsUrl(config.url), {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "text/event-stream",
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: config.model, stream: true, temperature: 0, messages: chatPrompt(question, retrieval) }),
          signal: options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
        });
        if (!response.ok || !response.body) throw new Error(`the chat endpoint answered ${response.status}`);
        for await (const piece of completionText(response.body)) {
          const room = MAX_ANSWER_CHARS - text.length;
          const kept = piece.slice(0, room);
          text += kept;
          if (kept) options?.onText?.(kept);
          if (room <= piece.length) break;
        }
      } catch (error) {
        if (options?.signal?.aborted) throw error;
        if (text === "") return offlineEngine.answer(question, retrieval, options);
        // Part of the answer was sent: it stays, marked as cut.
        const note = "\n\n(The answer was cut: the language model stopped answering.)";
        options?.onText?.(note);
        text += note;
      }
      if (text.trim() === "" || text.includes(MODEL_UNANSWERED)) {
        return { answered: false, markdown: text.trim() || UNANSWERED, sources: [], followupQuestions: [], engine: "chat" };
      }
      // Every section given is listed, in the numbering the model cited them by (its streamed [n] stay right).
      const sources = retrieval.sources;
      const markdown = text;
      return { answered: true, markdown, sources, followupQuestions: followups(retrieval, sources), engine: "chat" };
    },
  };
}

/** The engine the configuration names (QUIRE_ASK_*, src/config.ts). */
export function askEngineOf(config: {
  engine: "offline" | "chat";
  chatUrl?: string | undefined;
  chatModel?: string | undefined;
  chatKey?: string | undefined;
  chatTimeoutMs: number;
}): AskEngine {
  if (config.engine === "chat" && config.chatUrl && config.chatModel) {
    return chatEngine({ url: config.chatUrl, model: config.chatModel, apiKey: config.chatKey, timeoutMs: config.chatTimeoutMs });
  }
  return offlineEngine;
}
