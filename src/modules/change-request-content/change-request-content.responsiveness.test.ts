/**
 * A large page of Markdown sent to the content API does not hold the server: while ~900 KB of
 * Markdown is converted to a document (seconds of CPU), /healthz keeps answering quickly and the
 * thread that answers requests stays mostly idle; the conversion runs in a worker thread, with its
 * links resolved from a plain-data table of the content. The same batch applied with the conversion
 * inline (QUIRE_WORKER_THREADS=0) is measured too, and must store the same document.
 *
 * The same holds for the page's previous document, whose block keys the new one takes: a short
 * Markdown edit of a page whose document is megabytes of JSON, or a JSON document sent in place of
 * it, is matched against it in the worker thread, which is given the stored JSON text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { bothWays, expectOffTheRequestThread, onTheRequestThread, whileProbing } from "../../../test/helpers/latency-probe.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { parseMarkdownPage } from "../../content/markdown/index.js";
import { saveDocument } from "../../content/revision/storage.js";

let ctx: TestContext;
let endpoint: string;
beforeAll(async () => {
  ctx = await createTestContext();
  endpoint = await ctx.listen();
});
afterAll(() => ctx.close());

/** About `bytes` of ordinary Markdown whose links point at pages by id, by path, relatively, at nothing and outside. */
function largeMarkdown(bytes: number, ids: { install: string }): string {
  const section = (i: number) =>
    `## Section ${i}\n\nSome *emphasis*, **bold** and \`code\` with [the install page](/pages/${ids.install}), ` +
    `[by path](/pages/guides/install.md), [relative](./guides/install.md), [home](/pages/README.md) and [nothing](./missing-${i}.md).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two with [a link](https://example.com/${i})\n  * nested item\n\n` +
    `{% hint style="info" %}\nA hint ${i}\n{% endhint %}\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`;
  let text = "---\ndescription: A very large page\n---\n# A very large page\n\n";
  for (let i = 0; text.length < bytes; i++) text += section(i);
  return text;
}

/** The document without its block keys (new blocks take fresh random keys on each run). */
function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k === "key" ? [] : [[k, withoutKeys(v)]])));
  return value;
}

function linksOf(document: any): { text: string; ref: any }[] {
  const out: { text: string; ref: any }[] = [];
  const text = (node: any): string => (node.leaves ? node.leaves.map((l: any) => l.text).join("") : (node.nodes ?? []).map(text).join(""));
  const walk = (node: any) => {
    if (node.object === "inline" && node.type === "link") out.push({ text: text(node), ref: node.data.ref });
    for (const child of node.nodes ?? []) walk(child);
  };
  walk(document);
  return out;
}

describe("a large Markdown page sent to the content API and /healthz", () => {
  it("keeps /healthz under 200 ms and the request thread mostly idle while ~900 KB of Markdown is converted", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Large" });
    const { content } = await commitContent(ctx, space.id, {
      pages: [
        { title: "Home", slug: "home", paragraphs: ["One", "Two"] },
        {
          title: "Guides",
          slug: "guides",
          paragraphs: ["Intro"],
          children: [{ title: "Install", slug: "install", paragraphs: ["Steps"] }],
        },
      ],
    });
    const home = content.pages[0]!;
    const install = content.pages[1]!.children[0]!;
    const markdown = largeMarkdown(900_000, { install: install.id });

    /** Replaces Home's text with the Markdown in a new change request while probing /healthz. */
    const editWhileProbing = async (user: TestUser) => {
      const cr = await createChangeRequest(ctx, user, space.id, { subject: "Large edit" });
      const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
      const run = await whileProbing(`${endpoint}/healthz`, async () => {
        const res = await ctx
          .as(user)
          .post(`${prefix}/content?compat=false`, { changes: [{ operation: "update_page", page: home.id, document: { markdown } }] });
        expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
      });
      const page = await ctx.as(user).get(`${prefix}/content/page/${home.id}`);
      expect(page.status).toBe(200);
      return { ...run, page: page.body };
    };

    const worker = await editWhileProbing(owner);
    expect(worker.page.title).toBe("A very large page");
    expect(worker.page.description).toBe("A very large page");
    const links = linksOf(worker.page.document);
    // Per section: three links to Install, one to Home, one external; the missing page's link became text.
    expect(links.filter((l) => l.ref.kind === "page" && l.ref.page === install.id).length).toBeGreaterThan(1000);
    expect(links.some((l) => l.ref.kind === "page" && l.ref.page === home.id)).toBe(true);
    expect(links.some((l) => l.text === "nothing")).toBe(false);

    const inline = await onTheRequestThread(() => editWhileProbing(owner));
    const stored = (page: any) => withoutKeys({ title: page.title, description: page.description, document: page.document });
    expect(stored(worker.page)).toEqual(stored(inline.page));

    expectOffTheRequestThread(worker, inline);
  }, 180_000);
});

describe("a page whose document is large, edited through the content API, and /healthz", () => {
  /** A space whose first page's document is the Markdown page of ~`bytes` read, and its JSON. */
  async function spaceWithLargePage(bytes: number) {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Large document" });
    const document = parseMarkdownPage(largeMarkdown(bytes, { install: "install" })).document;
    const documentHash = await saveDocument(ctx.db, document);
    const { content } = await commitContent(ctx, space.id, {
      pages: [{ title: "Large", slug: "large", extra: { documentHash } }],
    });
    return { owner, space, page: content.pages[0]!, document };
  }

  /** Sends the change to the page in a new change request while probing /healthz; returns the stored page. */
  async function editWhileProbing(
    setup: Awaited<ReturnType<typeof spaceWithLargePage>>,
    document: { markdown: string } | { document: unknown },
  ) {
    const { owner, space, page } = setup;
    const cr = await createChangeRequest(ctx, owner, space.id, { subject: "Edit of a large page" });
    const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const run = await whileProbing(`${endpoint}/healthz`, async () => {
      const res = await ctx
        .as(owner)
        .post(`${prefix}/content?compat=false`, { changes: [{ operation: "update_page", page: page.id, document }] });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    });
    const stored = await ctx.as(owner).get(`${prefix}/content/page/${page.id}`);
    expect(stored.status).toBe(200);
    return { ...run, page: stored.body };
  }

  const keysOf = (document: any): string[] => (document.nodes as any[]).map((node) => node.key);

  it("matches a short Markdown page against a ~4 MB previous document off the request thread", async () => {
    const setup = await spaceWithLargePage(400_000);
    // The page cut down to its first section: the section's heading keeps its key, so the previous
    // document was read.
    const markdown = largeMarkdown(100, { install: "install" });
    const { worker, inline } = await bothWays(() => editWhileProbing(setup, { markdown }));
    for (const run of [worker, inline]) {
      expect(run.page.document.nodes.length).toBeLessThan(10);
      expect(keysOf(run.page.document)[0]).toBe(keysOf(setup.document)[0]);
    }
    expect(withoutKeys(worker.page.document)).toEqual(withoutKeys(inline.page.document));
    expectOffTheRequestThread(worker, inline);
  }, 180_000);

  it("takes the block keys of the previous document for a ~2 MB JSON document off the request thread", async () => {
    const setup = await spaceWithLargePage(200_000);
    // The same document with one paragraph edited and the keys left out: each block takes its previous key.
    const edited = withoutKeys(setup.document) as any;
    const paragraph = edited.nodes.findIndex((node: any) => node.type === "paragraph");
    edited.nodes[paragraph].nodes = [{ object: "text", leaves: [{ object: "leaf", text: "An edited paragraph.", marks: [] }] }];
    const { worker, inline } = await bothWays(() => editWhileProbing(setup, { document: edited }));
    for (const run of [worker, inline]) expect(keysOf(run.page.document)).toEqual(keysOf(setup.document));
    expect(worker.page.document).toEqual(inline.page.document);
    expectOffTheRequestThread(worker, inline);
  }, 180_000);
});
