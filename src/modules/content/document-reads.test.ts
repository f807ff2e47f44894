/**
 * The document reads send a stored document's JSON text as stored (spliced into the page for the
 * page reads) instead of parsing it and serializing it again: the body must carry what the
 * response serializer would have sent, field for field, for every kind of document.
 */
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { commitContent, paragraphDoc } from "../../../test/helpers/content.factories.js";
import { everyNodeDocument, randomDocument } from "../../../test/helpers/editor-documents.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { withHeadingAnchors } from "../../content/document/anchor.js";
import { loadDocumentJson, saveDocument } from "../../content/revision/storage.js";
import { RichDocument } from "../../http/schemas.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** What the route's response serializer makes of a document (the reads before they sent stored text). */
async function serializedAsBefore(document: unknown): Promise<unknown> {
  const app = Fastify();
  app.get("/", { schema: { response: { 200: RichDocument } } }, async () => document);
  try {
    return JSON.parse((await app.inject("/")).body);
  } finally {
    await app.close();
  }
}

const heading = (type: string, text: string, data: Record<string, unknown> = {}) => ({
  object: "block",
  type,
  key: `k-${text}`,
  data,
  nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
});

/** The document without its heading blocks (a page whose stored text needs no anchors). */
function withoutHeadings(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((n) => !String((n as { type?: unknown })?.type).startsWith("heading-")).map(withoutHeadings);
  }
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of ["nodes", "fragments"]) if (Array.isArray(out[field])) out[field] = withoutHeadings(out[field]);
  return out;
}

const documents: Record<string, unknown> = {
  "paragraphs only": paragraphDoc(["One", 'Two, with a "quote", a \\ backslash,\na line break and ünïcödé 🚀']),
  "every node, every field": everyNodeDocument({ full: true, keys: true }),
  "every node, no optional field": everyNodeDocument({ full: false, keys: false }),
  "every node but headings": withoutHeadings(everyNodeDocument({ full: true, keys: true })),
  "random 1": randomDocument(1),
  "random 4, no headings": withoutHeadings(randomDocument(4, 60)),
  "random 2": randomDocument(2, 60),
  "random 3": randomDocument(3, 60),
  "headings: repeated, pinned, with a stale meta": {
    object: "document",
    data: {},
    nodes: [
      heading("heading-1", "Intro"),
      heading("heading-2", "Intro"),
      heading("heading-3", "Pinned", { id: "my-anchor" }),
      { ...heading("heading-2", "Stale"), meta: { id: "old", other: 1 } },
    ],
  },
  "a data key the schema drops": {
    object: "document",
    data: { "line\nbreak": 1, kept: 2 },
    nodes: [{ ...heading("paragraph", "p"), "odd\u2028key": true }],
  },
};

async function setup() {
  const { owner, space } = await createOrgWithSpace(ctx, { title: "Docs" });
  const hashes: Record<string, string> = {};
  for (const [name, document] of Object.entries(documents)) hashes[name] = await saveDocument(ctx.db, document);
  const names = Object.keys(documents);
  const committed = await commitContent(ctx, space.id, {
    pages: names.map((name, i) => ({ title: name, slug: `page-${i}`, extra: { documentHash: hashes[name]! } })),
  });
  const pageIds = Object.fromEntries(names.map((name, i) => [name, committed.content.pages[i]!.id]));
  return { owner, space, revisionId: committed.revisionId, hashes, pageIds };
}

describe("document reads", () => {
  it("send what the serializer would have sent, for every kind of document, on every read", async () => {
    const { owner, space, revisionId, hashes, pageIds } = await setup();
    const cr = await createChangeRequest(ctx, owner, space.id);
    const api = ctx.as(owner);
    for (const [name, document] of Object.entries(documents)) {
      const expected = await serializedAsBefore(withHeadingAnchors(document));
      const pageId = pageIds[name]!;
      const reads = [
        `/v1/spaces/${space.id}/revisions/${revisionId}/page/${pageId}/document`,
        `/v1/spaces/${space.id}/revisions/${revisionId}/page/${pageId}/document`, // kept anchors, second read
      ];
      for (const url of reads) {
        const res = await api.get(url);
        expect(res.status, `${name}: ${url}`).toBe(200);
        expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
        expect(res.body, `${name}: ${url}`).toEqual(expected);
      }
      const pageReads = [
        `/v1/spaces/${space.id}/content/page/${pageId}`,
        `/v1/spaces/${space.id}/content/path/page-${Object.keys(documents).indexOf(name)}`,
        `/v1/spaces/${space.id}/revisions/${revisionId}/page/${pageId}`,
        `/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${pageId}`,
      ];
      for (const url of pageReads) {
        const res = await api.get(url);
        expect(res.status, `${name}: ${url}`).toBe(200);
        expect(res.body, `${name}: ${url}`).toMatchObject({ id: pageId, title: name, type: "document", documentId: hashes[name] });
        expect(res.body.document, `${name}: ${url}`).toEqual(expected);
      }
      // The document by id is the stored document, without heading anchors.
      const byId = await api.get(`/v1/spaces/${space.id}/documents/${hashes[name]}`);
      expect(byId.status).toBe(200);
      expect(byId.body, name).toEqual(await serializedAsBefore(document));
    }
  });

  it("send the stored text itself when nothing needs to change", async () => {
    const { owner, space, revisionId, hashes, pageIds } = await setup();
    const api = ctx.as(owner);
    const asStored = [];
    for (const name of Object.keys(documents)) {
      const stored = (await loadDocumentJson(ctx.db, hashes[name]!))!;
      if (stored.includes('"heading-') || name === "a data key the schema drops") continue;
      asStored.push(name);
      const document = await api.get(`/v1/spaces/${space.id}/revisions/${revisionId}/page/${pageIds[name]}/document`);
      expect(document.text).toBe(stored);
      const page = await api.get(`/v1/spaces/${space.id}/content/page/${pageIds[name]}`);
      expect(page.text.endsWith(`,"document":${stored}}`)).toBe(true);
      expect((await api.get(`/v1/spaces/${space.id}/documents/${hashes[name]}`)).text).toBe(stored);
    }
    expect(asStored.length, asStored.join()).toBeGreaterThanOrEqual(2);
    // The document by id adds no anchors: sent as stored whatever it holds.
    const everyNode = (await loadDocumentJson(ctx.db, hashes["every node, every field"]!))!;
    expect((await api.get(`/v1/spaces/${space.id}/documents/${hashes["every node, every field"]}`)).text).toBe(everyNode);
    // Headings carry anchors (not in the stored text): sent with them, ready-made.
    const withHeadings = await api.get(`/v1/spaces/${space.id}/content/page/${pageIds["headings: repeated, pinned, with a stale meta"]}`);
    expect(withHeadings.body.document.nodes.map((n: { meta?: { id: string } }) => n.meta?.id)).toEqual([
      "intro",
      "intro-1",
      "my-anchor",
      "stale",
    ]);
    // A key the schema drops: the serializer still sees that document, and drops it.
    const dropped = await api.get(`/v1/spaces/${space.id}/content/page/${pageIds["a data key the schema drops"]}`);
    expect(dropped.body.document.data).toEqual({ kept: 2 });
    expect(dropped.body.document.nodes[0]).not.toHaveProperty("odd\u2028key");
  });

  it("evaluate and write Markdown as before", async () => {
    const { owner, space, pageIds } = await setup();
    const api = ctx.as(owner);
    const pageId = pageIds["paragraphs only"];
    const evaluated = await api.get(`/v1/spaces/${space.id}/content/page/${pageId}?evaluated=true`);
    expect(evaluated.body.document.nodes[0].nodes[0].leaves[0].text).toBe("One");
    const markdown = await api.get(`/v1/spaces/${space.id}/content/page/${pageId}?format=markdown`);
    expect(markdown.body).not.toHaveProperty("document");
    expect(markdown.body.markdown).toContain("One");
  });
});
