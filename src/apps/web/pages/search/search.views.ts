/** The search results page. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { emptyNote } from "../../common.views.js";

/** One page found, as the header's box and the results page show it. */
export interface FoundPage {
  id: string;
  title: string;
  /** The title, or "Title — Space / Parent / Title" when another result has the same title. */
  label: string;
  /** Where it is: "Space / Parent / Title". */
  trail: string;
  space: { id: string; title: string };
  url: string;
  /** Words of its best matching section around the match, as plain text. */
  snippet: string;
}

export function searchBody(view: { org: string; query: string; results: FoundPage[] }): SafeHtml {
  const results = view.results.map(
    (r) =>
      html`<li><a href="${r.url}">${r.label}</a><div class="muted small">${r.trail}</div>${r.snippet ? html`<p class="small">${r.snippet}</p>` : ""}</li>`,
  );
  return html`<h1>Search</h1>
    <form method="get" action="/app/o/${encodeURIComponent(view.org)}/search" role="search" class="actions">
      <input type="search" name="q" value="${view.query}" maxlength="512" aria-label="Search pages" size="40">
      <button type="submit">Search</button>
      <button type="submit" formaction="/app/o/${encodeURIComponent(view.org)}/ask">Ask</button></form>
    ${
      !view.query
        ? emptyNote("Type words to look for in the pages of the spaces you can read.")
        : results.length > 0
          ? html`<ul class="plain search-results">${results}</ul>`
          : emptyNote(`No page of the spaces you can read matches “${view.query}”.`)
    }`;
}

/** An answer of Ask, its text (Markdown citing [n]) and the sources it cites, in order. */
export interface AskedAnswer {
  answered: boolean;
  text: string;
  sources: { number: number; title: string; space: string; url: string }[];
}

/** The Ask page: the question, the answer as its paragraphs (shown as text), and its sources as links. */
export function askBody(view: { org: string; question: string; answer: AskedAnswer | undefined }): SafeHtml {
  const paragraphs = (view.answer?.text ?? "")
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => html`<p>${answerInlines(p)}</p>`);
  const sources = (view.answer?.sources ?? []).map(
    (s) =>
      html`<li value="${String(s.number)}" id="source-${String(s.number)}"><a href="${s.url}">${s.title}</a> <span class="muted small">${s.space}</span></li>`,
  );
  return html`<h1>Ask</h1>
    <form method="get" action="/app/o/${encodeURIComponent(view.org)}/ask" class="actions">
      <input type="search" name="q" value="${view.question}" maxlength="512" aria-label="Question" size="50">
      <button type="submit">Ask</button></form>
    ${
      !view.answer
        ? emptyNote("Ask a question: the answer is written from the pages of the spaces you can read, with its sources.")
        : html`<section class="ask-answer" aria-label="Answer">${paragraphs}</section>
          ${sources.length > 0 ? html`<h2>Sources</h2><ol class="ask-sources">${sources}</ol>` : ""}`
    }`;
}

/**
 * The inline Markdown an answer is written with: `**strong**`, citations `[n]` (a link to source n)
 * and backslash escapes; anything else stays text (escaped by `html`, so an answer never makes markup).
 */
function answerInlines(text: string): SafeHtml[] {
  const parts: SafeHtml[] = [];
  const unescaped = (t: string) => t.replace(/\\([\\`*_[\]<>#|])/g, "$1");
  const pattern = /\*\*((?:\\.|[^*\\])+)\*\*|\[(\d{1,2})\]/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index ?? 0;
    // A citation written escaped (`\[1\]`) is text.
    if (match[2] !== undefined && text[at - 1] === "\\") continue;
    parts.push(html`${unescaped(text.slice(last, at))}`);
    parts.push(
      match[1] !== undefined
        ? html`<strong>${unescaped(match[1])}</strong>`
        : html`<a href="#source-${match[2] as string}">[${match[2] as string}]</a>`,
    );
    last = at + match[0].length;
  }
  parts.push(html`${unescaped(text.slice(last))}`);
  return parts;
}
