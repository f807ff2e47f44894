/**
 * The read-only MCP server (Model Context Protocol) of one published site, as one reader sees it:
 * tools to list the site's pages, search it and read a page as Markdown. Served over streamable
 * HTTP in stateless mode (each POST is answered on its own, as JSON; no session to keep), with the
 * official `@modelcontextprotocol/sdk`. The site's routes mount `handleMcpRequest` at
 * `<site>/~quire/mcp`, after `decideReader`, with a `SiteMcpSource` bound to that reader: the MCP
 * server sees exactly the pages the reader may see. `askQuestion` answers from those pages;
 * `sendFeedback`, the one tool that writes, rates a page as the page's feedback form does (same
 * rules: feedback enabled, the page readable, a bound per address).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyReply, FastifyRequest } from "fastify";
import * as z from "zod";
import { DomainError } from "../../lib/errors.js";

/** A page of the site as the MCP tools name it. */
export interface McpPage {
  title: string;
  /** Path of the page from the site's root (with the section and variant paths), without a leading slash. */
  path: string;
  /** The page's address on the site. */
  url: string;
  description?: string | undefined;
  /** Section (or variant) title, when the site has several. */
  section?: string | undefined;
}

export interface McpSearchHit {
  title: string;
  url: string;
  path: string;
  /** A few words of the page around what matched. */
  snippet: string;
}

/**
 * What the MCP server reads, bound to one site and one reader (the site's functions provide it):
 * every answer is already limited to what the reader may see.
 */
export interface SiteMcpSource {
  site: { title: string; url: string };
  /** Every page the reader may see, in the order of the site's navigation. */
  listPages(): Promise<McpPage[]>;
  /**
   * A page by its path from the site's root (no leading slash, no `.md`), or undefined when there is
   * none for this reader. `markdown` is the page as its `.md` address serves it (title heading first).
   */
  readPage(path: string): Promise<{ title: string; url: string; markdown: string } | undefined>;
  search(query: string, limit: number): Promise<McpSearchHit[]>;
  /** The answer to a question from the pages the reader sees (Markdown citing its sources). */
  ask(question: string): Promise<McpAnswer>;
  /** Records a rating of a page (the site's "Was this page helpful?"); a message when it is refused. */
  sendFeedback(path: string, rating: "good" | "ok" | "bad"): Promise<{ recorded: true } | { recorded: false; message: string }>;
}

export interface McpAnswer {
  answered: boolean;
  markdown: string;
  sources: { title: string; url: string }[];
}

const MAX_LIST = 2000;
const SERVER_VERSION = "1.0.0";

/**
 * The path from the site's root that a tool caller gave as a path, a site URL or a Markdown URL:
 * the site's own address, a leading slash, a trailing `.md`, a query and a fragment are taken off.
 */
export function pagePathOf(input: string, siteUrl: string): string {
  let path = input.trim();
  const base = siteUrl.replace(/\/+$/, "");
  if (/^https?:\/\//i.test(path)) {
    try {
      const given = new URL(path);
      const site = new URL(base);
      path =
        given.origin === site.origin && given.pathname.startsWith(site.pathname)
          ? given.pathname.slice(site.pathname.length)
          : given.pathname;
    } catch {
      // Not a URL after all: read it as a path.
    }
  }
  path = path.replace(/[?#].*$/, "");
  try {
    path = decodeURIComponent(path);
  } catch {
    // Keep it as given: a malformed escape simply matches no page.
  }
  return path
    .replace(/^\/+|\/+$/g, "")
    .replace(/\.md$/i, "")
    .replace(/\/+$/g, "");
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** An MCP server over one site and reader. */
export function createSiteMcpServer(source: SiteMcpSource): McpServer {
  const server = new McpServer(
    { name: `quire-site`, title: source.site.title, version: SERVER_VERSION },
    {
      instructions: `Documentation of "${source.site.title}" (${source.site.url}). Use askQuestion for an answer with its sources, search to find pages, read_page to read one as Markdown, list_pages for the table of contents, sendFeedback to rate a page.`,
    },
  );

  server.registerTool(
    "search",
    {
      title: "Search the documentation",
      description: `Searches the pages of "${source.site.title}". Returns titles, URLs and snippets; read a result with read_page.`,
      inputSchema: {
        query: z
          .string()
          .min(1)
          .max(500)
          .describe("Words to look for (all must appear); -word leaves out pages with that word, word* matches words starting so"),
        limit: z.number().int().min(1).max(50).optional().describe("Most results to return (default 10)"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      let hits: McpSearchHit[];
      try {
        hits = await source.search(query, limit ?? 10);
      } catch (error) {
        // A query refused for its shape: the tool says what to change.
        if (error instanceof DomainError && error.kind === "invalid") return { ...text(error.message), isError: true };
        throw error;
      }
      if (hits.length === 0) return text(`No page of "${source.site.title}" matches "${query}".`);
      return {
        ...text(hits.map((h) => `## ${h.title}\n${h.url}\n\n${h.snippet}`).join("\n\n")),
        structuredContent: { results: hits },
      };
    },
  );

  server.registerTool(
    "read_page",
    {
      title: "Read a page",
      description: "Reads a page of the documentation as Markdown, by its path from the site's root or its URL.",
      inputSchema: { path: z.string().max(2000).describe("Page path (e.g. guides/install) or the page's URL") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path }) => {
      let page: Awaited<ReturnType<SiteMcpSource["readPage"]>>;
      try {
        page = await source.readPage(pagePathOf(path, source.site.url));
      } catch (error) {
        // A page too large to write in time: the tool says so.
        if (error instanceof DomainError && error.kind === "too-large") return { ...text(error.message), isError: true };
        throw error;
      }
      if (!page)
        return { ...text(`There is no page "${path}" on "${source.site.title}". Use list_pages or search to find one.`), isError: true };
      return { ...text(`Source: ${page.url}\n\n${page.markdown}`), structuredContent: { title: page.title, url: page.url } };
    },
  );

  server.registerTool(
    "askQuestion",
    {
      title: "Ask a question",
      description: `Answers a question from the pages of "${source.site.title}", citing the sections it comes from; says so when the documentation does not answer.`,
      inputSchema: { question: z.string().min(1).max(512).describe("The question, in a sentence") },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ question }) => {
      let answer: McpAnswer;
      try {
        answer = await source.ask(question);
      } catch (error) {
        if (error instanceof DomainError && error.kind === "invalid") return { ...text(error.message), isError: true };
        throw error;
      }
      const sources = answer.sources.map((s, i) => `${i + 1}. [${s.title}](${s.url})`).join("\n");
      return {
        ...text(sources ? `${answer.markdown}\n\nSources:\n${sources}` : answer.markdown),
        structuredContent: { answered: answer.answered, answer: answer.markdown, sources: answer.sources },
      };
    },
  );

  server.registerTool(
    "sendFeedback",
    {
      title: "Rate a page",
      description: `Tells the authors of "${source.site.title}" whether a page helped: good, ok or bad (the page's "Was this page helpful?").`,
      inputSchema: {
        path: z.string().max(2000).describe("Page path (e.g. guides/install) or the page's URL"),
        rating: z.enum(["good", "ok", "bad"]).describe("good: it answered; ok: partly; bad: it did not"),
      },
      annotations: { readOnlyHint: false, openWorldHint: false, idempotentHint: true },
    },
    async ({ path, rating }) => {
      const result = await source.sendFeedback(pagePathOf(path, source.site.url), rating);
      if (!result.recorded) return { ...text(result.message), isError: true };
      return text(`Thank you: "${rating}" was recorded for ${path}.`);
    },
  );

  server.registerTool(
    "list_pages",
    {
      title: "List pages",
      description: "Lists the pages of the documentation (title, path, URL), in the order of its navigation.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const pages = (await source.listPages()).slice(0, MAX_LIST);
      const lines = pages.map(
        (p) => `- [${p.title}](${p.url}) \`${p.path}\`${p.section ? ` (${p.section})` : ""}${p.description ? `: ${p.description}` : ""}`,
      );
      return { ...text(lines.join("\n") || "The site has no page."), structuredContent: { pages } };
    },
  );

  return server;
}

/**
 * Answers one MCP request (POST: a JSON-RPC message or batch; GET and DELETE: 405, as a stateless
 * server has no stream or session to open or end). Takes the reply over (`reply.hijack()`): the
 * SDK writes the answer itself.
 */
export async function handleMcpRequest(request: FastifyRequest, reply: FastifyReply, source: SiteMcpSource): Promise<void> {
  if (request.method !== "POST") {
    reply
      .code(405)
      .header("allow", "POST")
      .send({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this MCP server is stateless; send POST." }, id: null });
    return;
  }
  const server = createSiteMcpServer(source);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  reply.raw.on("close", () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    request.log.error({ err: error }, "MCP request failed");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }));
    }
  }
}
