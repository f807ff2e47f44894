/**
 * The site MCP server, driven by the SDK's own client over real HTTP: first over a source built from
 * real stored content (a space's pages, its Markdown and the search index, read through the API as
 * the space's owner), mounted by a probe route as the site routes mount it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { invalid } from "../../lib/errors.js";
import { handleMcpRequest, type McpPage, pagePathOf, type SiteMcpSource } from "./mcp.steps.js";

const SITE_URL = "http://docs.test/s/handbook";

interface ApiPage {
  title: string;
  path: string;
  type: string;
  description?: string;
  pages?: ApiPage[];
}

/** A source over a space's primary content through the content and search API, as its owner reads it. */
function apiSource(ctx: TestContext, user: TestUser, spaceId: string): SiteMcpSource {
  const flatten = (pages: ApiPage[]): McpPage[] =>
    pages.flatMap((p) => [
      ...(p.type === "document" ? [{ title: p.title, path: p.path, url: `${SITE_URL}/${p.path}`, description: p.description }] : []),
      ...flatten(p.pages ?? []),
    ]);
  return {
    site: { title: "Handbook", url: SITE_URL },
    async listPages() {
      const res = await ctx.as(user).get(`/v1/spaces/${spaceId}/content`);
      return flatten(res.body.pages);
    },
    async readPage(path) {
      if (path === "") return undefined;
      const res = await ctx.as(user).get(`/v1/spaces/${spaceId}/content/path/${path}?format=markdown`);
      if (res.status !== 200) return undefined;
      return { title: res.body.title, url: `${SITE_URL}/${res.body.path}`, markdown: `# ${res.body.title}\n\n${res.body.markdown}` };
    },
    async search(query, limit) {
      const res = await ctx.as(user).get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}&limit=${limit}`);
      return res.body.items.map((item: { title: string; path: string; sections: { body: string }[] }) => ({
        title: item.title,
        path: item.path,
        url: `${SITE_URL}/${item.path}`,
        snippet: item.sections.map((s) => s.body).join(" … "),
      }));
    },
    async ask(question) {
      // The tool's side only (formatting, errors): what a site answers is tested in ask.routes.test.ts.
      if (question.length > 300) throw invalid("The question is longer than 300 characters; ask it in fewer words.");
      const found = await this.search(question, 1);
      const first = found[0];
      if (!first) return { answered: false, markdown: "The documentation does not answer this question.", sources: [] };
      return { answered: true, markdown: `${first.snippet} [1]`, sources: [{ title: first.title, url: first.url }] };
    },
    async sendFeedback(path, rating) {
      ratings.push({ path, rating });
      return path === "missing" ? { recorded: false, message: "There is no such page for you on this site." } : { recorded: true };
    },
  };
}

const ratings: { path: string; rating: string }[] = [];

let ctx: TestContext;
let probe: FastifyInstance;
let endpoint: string;
let source: SiteMcpSource;

beforeAll(async () => {
  ctx = await createTestContext();
  const { owner, space } = await createOrgWithSpace(ctx, { title: "Handbook" });
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Welcome", paragraphs: ["Start here to learn the handbook."] },
      {
        title: "Guides",
        paragraphs: ["All the guides."],
        children: [{ title: "Install", paragraphs: ["Run the installer with sudo, then restart the gateway."] }],
      },
      { title: "Elsewhere", kind: "link", href: "https://example.com" },
    ],
  });
  await ctx.worker.drain();
  source = apiSource(ctx, owner, space.id);
  probe = Fastify();
  probe.all("/s/handbook/~quire/mcp", (request, reply) => handleMcpRequest(request, reply, source));
  endpoint = `${await probe.listen({ port: 0, host: "127.0.0.1" })}/s/handbook/~quire/mcp`;
}, 120_000);
afterAll(async () => {
  await probe.close();
  await ctx.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "quire-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text).join("\n");

describe("site MCP server", () => {
  it("answers a question with its sources, says when the docs do not answer, and refuses a question too long", async () => {
    const client = await connect();
    const answered = await client.callTool({ name: "askQuestion", arguments: { question: "installer gateway" } });
    expect(answered.isError).toBeFalsy();
    expect(textOf(answered)).toContain(`Sources:\n1. [Install](${SITE_URL}/guides/install)`);
    expect(answered.structuredContent).toMatchObject({ answered: true, sources: [{ title: "Install" }] });
    const unanswered = await client.callTool({ name: "askQuestion", arguments: { question: "zeppelin" } });
    expect(textOf(unanswered)).toBe("The documentation does not answer this question.");
    expect(unanswered.structuredContent).toMatchObject({ answered: false, sources: [] });
    const long = await client.callTool({ name: "askQuestion", arguments: { question: "why ".repeat(100) } });
    expect(long.isError).toBe(true);
    expect(textOf(long)).toContain("longer than 300 characters");
    const tooLong = await client.callTool({ name: "askQuestion", arguments: { question: "x".repeat(513) } });
    expect(tooLong.isError).toBe(true);
    await client.close();
  });

  it("rates a page by path or URL, and says when a rating is refused", async () => {
    const client = await connect();
    const ok = await client.callTool({ name: "sendFeedback", arguments: { path: `${SITE_URL}/guides/install.md`, rating: "good" } });
    expect(textOf(ok)).toContain('"good" was recorded');
    expect(ratings.at(-1)).toEqual({ path: "guides/install", rating: "good" });
    const refused = await client.callTool({ name: "sendFeedback", arguments: { path: "missing", rating: "bad" } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("no such page");
    const bad = await client.callTool({ name: "sendFeedback", arguments: { path: "welcome", rating: "great" } });
    expect(bad.isError).toBe(true);
    await client.close();
  });

  it("initializes and lists its read-only tools", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: "quire-site", title: "Handbook" });
    expect(client.getInstructions()).toContain(SITE_URL);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["askQuestion", "list_pages", "read_page", "search", "sendFeedback"]);
    // Every tool reads only, but the one that rates a page.
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(tool.name !== "sendFeedback");
    await client.close();
  });

  it("lists the pages, without link pages", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "list_pages", arguments: {} });
    const pages = (result.structuredContent as { pages: McpPage[] }).pages;
    expect(pages.map((p) => p.path)).toEqual(["welcome", "guides", "guides/install"]);
    expect(textOf(result)).toContain(`- [Install](${SITE_URL}/guides/install) \`guides/install\``);
    await client.close();
  });

  it("searches the stored content and reads a result as Markdown, by path or by URL", async () => {
    const client = await connect();
    const found = await client.callTool({ name: "search", arguments: { query: "installer gateway" } });
    const hits = (found.structuredContent as { results: { path: string; url: string; snippet: string }[] }).results;
    expect(hits[0]).toMatchObject({ path: "guides/install", url: `${SITE_URL}/guides/install` });
    expect(hits[0]?.snippet).toContain("installer");
    const page = await client.callTool({ name: "read_page", arguments: { path: hits[0]?.url as string } });
    expect(page.isError).toBeFalsy();
    expect(textOf(page)).toBe(
      `Source: ${SITE_URL}/guides/install\n\n# Install\n\nRun the installer with sudo, then restart the gateway.\n`,
    );
    expect(page.structuredContent).toEqual({ title: "Install", url: `${SITE_URL}/guides/install` });
    const byMd = await client.callTool({ name: "read_page", arguments: { path: `${SITE_URL}/guides/install.md` } });
    expect(textOf(byMd)).toContain("Run the installer");
    const byPath = await client.callTool({ name: "read_page", arguments: { path: "/welcome" } });
    expect(textOf(byPath)).toContain("Start here");
    const none = await client.callTool({ name: "search", arguments: { query: "zeppelin" } });
    expect(textOf(none)).toBe('No page of "Handbook" matches "zeppelin".');
    await client.close();
  });

  it("answers an unknown page as a tool error, and refuses bad arguments", async () => {
    const client = await connect();
    const missing = await client.callTool({ name: "read_page", arguments: { path: "nope" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('There is no page "nope"');
    const bad = await client.callTool({ name: "search", arguments: { query: "" } });
    expect(bad.isError).toBe(true);
    await client.close();
  });

  it("answers GET with 405 (stateless: no stream to open)", async () => {
    const res = await fetch(endpoint, { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("pagePathOf", () => {
  it("takes a path, a site URL or a Markdown URL to the path from the site's root", () => {
    expect(pagePathOf("guides/install", SITE_URL)).toBe("guides/install");
    expect(pagePathOf("/guides/install/", SITE_URL)).toBe("guides/install");
    expect(pagePathOf(`${SITE_URL}/guides/install.md`, SITE_URL)).toBe("guides/install");
    expect(pagePathOf(`${SITE_URL}/guides/install?x=1#part`, SITE_URL)).toBe("guides/install");
    expect(pagePathOf(`${SITE_URL}`, SITE_URL)).toBe("");
    expect(pagePathOf("guides/caf%C3%A9", SITE_URL)).toBe("guides/café");
  });
});
