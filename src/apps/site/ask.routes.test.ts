/**
 * Ask on a published site through the real routes: the streamed answer (`~quire/ask`), the
 * Markdown answer (`<page>.md?ask=`) and the MCP `askQuestion` tool, for readers who see different
 * things (conditional blocks, pages shown by a claim, share links).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, type TestPage } from "../../../test/helpers/content.factories.js";
import { block, doc, h, p } from "../../../test/helpers/render-documents.js";
import { createSite, publishWithVisitorAuth } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { saveDocument } from "../../content/revision/storage.js";

const server = {} as { ctx: TestContext; endpoint: string };
beforeAll(async () => {
  server.ctx = await createTestContext();
  server.endpoint = await server.ctx.listen();
}, 180_000);
afterAll(() => server.ctx.close(), 120_000);

const SECRET = "zq7kxv93";
const VAULT = doc(
  p("Everyone sees the vault instructions: open the vault with the front panel."),
  block("if", { expression: "visitor.claims.beta === true" }, [p(`The vault code is ${SECRET} for testers.`)]),
  h(2, "Rotating the keys"),
  p("Rotate the vault keys every month from the settings screen."),
);

const PAGES: TestPage[] = [
  { title: "Welcome", slug: "welcome", paragraphs: ["Start here to learn about the gateway."] },
  { title: "Install", slug: "install", paragraphs: ["Run the installer with sudo, then restart the gateway service."] },
  {
    title: "Beta program",
    slug: "beta",
    paragraphs: ["The beta program gives testers early access to the hovercraft module."],
    extra: { condition: "visitor.claims.beta === true" },
  },
];

const SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: { beta: { type: "boolean", description: "Beta tester" } },
};

async function scenario(visibility = "public") {
  const { ctx } = server;
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  const documentHash = await saveDocument(ctx.db, VAULT);
  await commitContent(ctx, base.space.id, { pages: [...PAGES, { title: "Vault", slug: "vault", extra: { documentHash } }] });
  await ctx.worker.drain();
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", visibility, spaces: [base.space.id] });
  const { url, key } = await publishWithVisitorAuth(ctx, base.owner, base.org.id, site.id, SCHEMA);
  const beta = await new SignJWT({ beta: true })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(new TextEncoder().encode(key));
  return { ...base, site, url, root: `/s/${site.basename}`, beta: { authorization: `Bearer ${beta}` } };
}

interface StreamedAnswer {
  status: number;
  raw: string;
  texts: string[];
  answer?: {
    answered: boolean;
    markdown: string;
    engine: string;
    citations: { title: string; section: string; href: string; passage: string }[];
  };
  done: boolean;
}

async function ask(root: string, question: string, headers: Record<string, string> = {}): Promise<StreamedAnswer> {
  const res = await server.ctx.anonymous.get(`${root}/~quire/ask?q=${encodeURIComponent(question)}`, { headers });
  const events = res.text
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) => ({
      event: /^event: (.*)$/m.exec(chunk)?.[1] ?? "message",
      data: JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? "null"),
    }));
  return {
    status: res.status,
    raw: res.text,
    texts: events.filter((e) => e.event === "text").map((e) => e.data.text),
    answer: events.find((e) => e.event === "answer")?.data,
    done: events.some((e) => e.event === "done"),
  };
}

describe("~quire/ask", () => {
  it("streams an answer quoting the section that answers, with its citation (page and anchor)", async () => {
    const s = await scenario();
    const res = await ask(s.root, "How do I rotate the vault keys?");
    expect(res.status).toBe(200);
    expect(res.done).toBe(true);
    expect(res.answer?.answered).toBe(true);
    expect(res.answer?.engine).toBe("offline");
    expect(res.answer?.citations[0]).toMatchObject({
      title: "Vault",
      section: "Rotating the keys",
      href: `${s.root}/vault#rotating-the-keys`,
    });
    expect(res.answer?.markdown).toContain("Rotate the vault keys every month from the settings screen. [1]");
    expect(res.texts.join("")).toBe(res.answer?.markdown);
    // Deterministic: the same question, the same answer.
    expect((await ask(s.root, "How do I rotate the vault keys?")).answer).toEqual(res.answer);
  });

  it("tolerates typos in the question", async () => {
    const s = await scenario();
    const res = await ask(s.root, "how to run the instaler and restrat the gatway");
    expect(res.answer?.answered).toBe(true);
    expect(res.answer?.citations[0]?.href).toBe(`${s.root}/install`);
  });

  it("says plainly when the docs do not answer, with no citation", async () => {
    const s = await scenario();
    const res = await ask(s.root, "What is the airspeed velocity of an unladen swallow?");
    expect(res.answer).toMatchObject({ answered: false, markdown: "The documentation does not answer this question.", citations: [] });
  });

  it("refuses an empty or too long question with a 400 saying what to change", async () => {
    const s = await scenario();
    const empty = await server.ctx.anonymous.get(`${s.root}/~quire/ask?q=%20`);
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toContain("`q` parameter");
    const long = await server.ctx.anonymous.get(`${s.root}/~quire/ask?q=${"why ".repeat(200)}`);
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain("longer than 512 characters");
  });

  it("never lets hidden text reach an answer or a citation, and shows it to readers whose claims allow it", async () => {
    const s = await scenario();
    for (const question of ["What is the vault code?", "What is the vault code for testers?"]) {
      const res = await ask(s.root, question);
      expect(res.raw, question).not.toContain(SECRET);
      expect(res.raw, question).not.toContain("code is");
    }
    // The hidden word itself finds nothing (the answer names only the question it was asked).
    const bySecret = await ask(s.root, `What is ${SECRET}?`);
    expect(bySecret.answer).toMatchObject({ answered: false, citations: [] });
    expect(bySecret.texts.join("")).not.toContain(SECRET);
    // A page shown only to beta testers (a page condition) is neither quoted nor cited.
    const hovercraft = await ask(s.root, "How do I get early access to the hovercraft module?");
    expect(hovercraft.answer?.answered).toBe(false);
    expect(hovercraft.raw).not.toContain("/beta");
    expect(hovercraft.raw).not.toContain("hovercraft module.");

    const code = await ask(s.root, "What is the vault code for testers?", s.beta);
    expect(code.answer?.answered).toBe(true);
    expect(code.answer?.markdown).toContain(SECRET);
    const early = await ask(s.root, "How do I get early access to the hovercraft module?", s.beta);
    expect(early.answer?.citations[0]?.href).toBe(`${s.root}/beta`);
  });

  it("answers on a share-link site only with its key", async () => {
    const s = await scenario("share-link");
    expect((await server.ctx.anonymous.get(`${s.root}/~quire/ask?q=install`)).status).toBe(404);
    const link = (await server.ctx.as(s.owner).post(`${s.url}/share-links`, { name: "Partners" })).body;
    const key = link.urls.published.split("/").pop() as string;
    const res = await ask(`${s.root}/${key}`, "How do I install it?");
    expect(res.answer?.citations[0]?.href).toBe(`${s.root}/${key}/install`);
  });
});

describe("<page>.md?ask=", () => {
  it("answers in Markdown with absolute source links; hidden text stays out", async () => {
    const s = await scenario();
    const res = await server.ctx.anonymous.get(`${s.root}/welcome.md?ask=${encodeURIComponent("How do I rotate the vault keys?")}`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toContain("text/markdown");
    expect(res.text).toContain("# How do I rotate the vault keys?");
    expect(res.text).toMatch(/## Sources\n\n1\. \[Vault › Rotating the keys\]\(http[^)]*\/vault#rotating-the-keys\)/);
    const hidden = await server.ctx.anonymous.get(`${s.root}/welcome.md?ask=${encodeURIComponent("What is the vault code?")}`);
    expect(hidden.text).not.toContain(SECRET);
    // The plain page's Markdown is unchanged, and a page the reader may not open answers no question.
    expect((await server.ctx.anonymous.get(`${s.root}/welcome.md`)).text).toContain("Start here");
    expect((await server.ctx.anonymous.get(`${s.root}/beta.md?ask=hovercraft`)).status).toBe(404);
    expect((await server.ctx.anonymous.get(`${s.root}/welcome.md?ask=`)).status).toBe(400);
  });
});

describe("MCP askQuestion", () => {
  it("answers with sources from what the reader sees", async () => {
    const s = await scenario();
    const client = new Client({ name: "quire-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.endpoint}${s.root}/~quire/mcp`)));
    const result = await client.callTool({ name: "askQuestion", arguments: { question: "How do I rotate the vault keys?" } });
    const text = JSON.stringify(result.content);
    expect(text).toContain("Rotate the vault keys every month");
    expect(text).toContain("/vault#rotating-the-keys");
    const hidden = await client.callTool({ name: "askQuestion", arguments: { question: "What is the vault code for testers?" } });
    expect(JSON.stringify(hidden)).not.toContain(SECRET);
    await client.close();
  });
});
