/** PDF export through the API: a signed URL that serves a real PDF of the content, in page order. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typicalPage } from "../../../test/fixtures/pdf/documents.js";
import { readPdf } from "../../../test/fixtures/pdf/pdf-reader.js";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, testFile } from "../../../test/helpers/content.factories.js";
import { contractClient } from "../../../test/helpers/contract.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { saveDocument } from "../../content/revision/storage.js";
import { configureWorkerThreads } from "../../workers/pool.js";
import { MAX_READER_RENDERS, pdfBytes, readerRenderSlots } from "./pdf.service.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Handbook" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Welcome", paragraphs: ["First words of the handbook."] },
      {
        title: "Guides",
        kind: "group",
        children: [
          {
            title: "Install",
            paragraphs: ["Run the installer."],
            children: [{ title: "On Zürich machines", paragraphs: ["Ελληνικά και Кириллица."] }],
          },
        ],
      },
    ],
    files: [await testFile(ctx, "x.txt", Buffer.from("x"), "text/plain")],
  });
  return { ...roles, space, content };
}

describe("GET /v1/spaces/{spaceId}/pdf", () => {
  it("returns a URL serving a PDF with every page in tree order", async () => {
    const { owner, space } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^http:\/\/quire\.test\/pdf\//);
    const pdf = await ctx.anonymous.get(pathOf(res.body.url));
    expect(pdf.status).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    expect(pdf.raw.subarray(0, 5).toString()).toBe("%PDF-");
    const text = (await readPdf(pdf.raw)).text;
    const order = [
      "Handbook",
      "Welcome",
      "First words of the handbook.",
      "Install",
      "Run the installer.",
      "On Zürich machines",
      "Ελληνικά",
    ].map((t) => text.indexOf(t));
    expect(
      order.every((i) => i >= 0),
      text.slice(0, 500),
    ).toBe(true);
    expect(text.lastIndexOf("Run the installer.")).toBeGreaterThan(text.lastIndexOf("First words of the handbook."));
    // A second download comes from the cache, byte for byte.
    expect((await ctx.anonymous.get(pathOf(res.body.url))).raw.equals(pdf.raw)).toBe(true);
  });

  it("exports one page, with or without its subpages", async () => {
    const { owner, space, content } = await setup();
    const install = content.pages[1]!.children[0]!;
    const withChildren = await ctx.anonymous.get(
      pathOf((await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf?page=${install.id}`)).body.url),
    );
    const text = (await readPdf(withChildren.raw)).text;
    expect(text).toContain("On Zürich machines");
    expect(text).not.toContain("First words of the handbook.");
    const only = await ctx.anonymous.get(
      pathOf((await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf?page=${install.id}&only=true`)).body.url),
    );
    expect((await readPdf(only.raw)).text).not.toContain("On Zürich machines");
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf?page=nope`)).status).toBe(404);
  });

  it("refuses outsiders, forged and tampered links", async () => {
    const { owner, outsider, space } = await setup();
    expect((await ctx.anonymous.get(`/v1/spaces/${space.id}/pdf`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`/v1/spaces/${space.id}/pdf`)).status).toBe(404);
    const url = (await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf`)).body.url as string;
    const [payload, signature] = url.split("/pdf/")[1]!.split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), s: "other" })).toString(
      "base64url",
    );
    expect((await ctx.anonymous.get(`/pdf/${forged}.${signature}`)).status).toBe(403);
    expect((await ctx.anonymous.get(`/pdf/${payload}.AAAA`)).status).toBe(403);
  });

  it("validates through @gitbook/api", async () => {
    const { owner, space } = await setup();
    const client = contractClient(await ctx.listen(), owner.token);
    expect((await client.spaces.getSpacePdf(space.id, { only: false })).data.url).toMatch(/\/pdf\//);
  });
});

describe("references in PDFs", () => {
  it("names referenced files with their download link, and pages outside the export by title", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Refs" });
    const report = await testFile(ctx, "quarterly-report.txt", Buffer.from("numbers"), "text/plain");
    const unused = await testFile(ctx, "unused.txt", Buffer.from("nothing"), "text/plain");
    const body = {
      object: "document",
      data: {},
      nodes: [
        { object: "block", type: "file", isVoid: true, data: { ref: { kind: "file", file: report.id } } },
        { object: "block", type: "content-ref", isVoid: true, data: { ref: { kind: "page", page: "second-page-id" } } },
      ],
    };
    const { content } = await commitContent(ctx, space.id, {
      pages: [
        { title: "Refs page", extra: { documentHash: await saveDocument(ctx.db, body) } },
        { id: "second-page-id", title: "The second page", paragraphs: ["Not exported."] },
      ],
      files: [report, unused],
    });
    const url = (await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf?page=${content.pages[0]!.id}&only=true`)).body.url as string;
    const pdf = await ctx.anonymous.get(pathOf(url));
    const text = (await readPdf(pdf.raw)).text;
    expect(text, text).toContain("File: quarterly-report.txt");
    expect(text).toContain("The second page");
    expect(text).not.toContain("Not exported.");
    const raw = pdf.raw.toString("latin1");
    expect(raw).toContain(`/files/${report.blobHash}/quarterly-report.txt?`);
    expect(raw).not.toContain("unused.txt");
  });
});

describe("reusable content in PDFs", () => {
  it("prints included reusable content in place", async () => {
    const { inlineReusableContents } = await import("../../content/pdf/render-task.js");
    const block = (text: string) => ({
      object: "block",
      type: "paragraph",
      key: text,
      nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
    });
    const page = {
      object: "document",
      data: {},
      nodes: [
        block("before"),
        {
          object: "block",
          type: "reusable-content",
          key: "r",
          isVoid: true,
          data: { ref: { kind: "reusable-content", reusableContent: "rc1" } },
        },
        block("after"),
      ],
    };
    const include = { object: "document", data: {}, nodes: [block("included text")] };
    const result = inlineReusableContents(page as never, (id) => (id === "rc1" ? (include as never) : undefined));
    expect((result.nodes as unknown as { key: string }[]).map((n) => n.key)).toEqual(["before", "included text", "after"]);
    const missing = inlineReusableContents(page as never, () => undefined);
    expect(missing.nodes).toHaveLength(3);
  });
});

describe("aborting a PDF export", () => {
  it.each([
    ["in a worker thread", 1],
    ["inline", 0],
  ])(
    "stops the render %s and caches nothing",
    async (_, threads) => {
      const { space } = await createOrgWithSpace(ctx, { title: "Long" });
      const pages = [];
      for (let n = 0; n < 40; n++) pages.push({ title: `Page ${n}`, extra: { documentHash: await saveDocument(ctx.db, typicalPage(n)) } });
      const { revisionId } = await commitContent(ctx, space.id, { pages });
      const revision = await ctx.db.selectFrom("revisions").select("treeHash").where("id", "=", revisionId).executeTakeFirstOrThrow();
      const request = { spaceId: space.id, revisionId, treeHash: revision.treeHash, title: "Long" };
      configureWorkerThreads(threads);
      try {
        // 40 pages take a second or more to render; the client goes away long before.
        const abort = new AbortController();
        const reason = new Error("client went away");
        setTimeout(() => abort.abort(reason), 100);
        await expect(pdfBytes(ctx.db, ctx.urls, ctx.deps.secret, request, abort.signal)).rejects.toBe(reason);
        // Had the render gone on to the end, its file would be in the cache.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await ctx.db.selectFrom("pdfExports").select("key").where("spaceId", "=", space.id).execute()).toEqual([]);
        // The next export renders (a new thread replaces the one stopped).
        const pdf = await pdfBytes(ctx.db, ctx.urls, ctx.deps.secret, request);
        expect((await readPdf(pdf)).text).toContain("Page 39");
      } finally {
        configureWorkerThreads(1);
      }
    },
    60_000,
  );

  it("renders a file asked for twice at once only once, and caps renders for site readers (busy beyond)", async () => {
    const { space } = await createOrgWithSpace(ctx, { title: "Busy" });
    const pages = [];
    for (let n = 0; n < 12; n++) pages.push({ title: `Page ${n}`, extra: { documentHash: await saveDocument(ctx.db, typicalPage(n)) } });
    const { revisionId, content } = await commitContent(ctx, space.id, { pages });
    const revision = await ctx.db.selectFrom("revisions").select("treeHash").where("id", "=", revisionId).executeTakeFirstOrThrow();
    const base = { spaceId: space.id, revisionId, treeHash: revision.treeHash, title: "Busy" };
    const reader = { document: (d: never) => d, pageReadable: () => true };

    const [a, b] = await Promise.all([
      pdfBytes(ctx.db, ctx.urls, ctx.deps.secret, base),
      pdfBytes(ctx.db, ctx.urls, ctx.deps.secret, base),
    ]);
    expect(a).toBe(b);

    // Two different pages for readers at once both render.
    const ids = content.pages.slice(0, MAX_READER_RENDERS + 1).map((p) => p.id);
    const forPage = (pageId: string) => pdfBytes(ctx.db, ctx.urls, ctx.deps.secret, { ...base, pageId, only: true, reader });
    const results = await Promise.allSettled(ids.slice(0, MAX_READER_RENDERS).map(forPage));
    expect(results.map((r) => r.status)).toEqual(ids.slice(0, MAX_READER_RENDERS).map(() => "fulfilled"));
    // With every slot held by renders in progress, a page not yet rendered is told to retry; a rendered one
    // is served from the cache. (The slots are held here rather than by real renders, which on a fast
    // machine can end before the last request reaches the check.)
    const third = ids[MAX_READER_RENDERS] as string;
    for (let n = 0; n < MAX_READER_RENDERS; n++) expect(readerRenderSlots.tryTake()).toBe(true);
    try {
      await expect(forPage(third)).rejects.toMatchObject({ kind: "busy" });
      expect(await forPage(ids[0] as string)).toBeInstanceOf(Buffer);
    } finally {
      for (let n = 0; n < MAX_READER_RENDERS; n++) readerRenderSlots.giveBack();
    }
    expect(readerRenderSlots.taken).toBe(0);
    // Once the slots are free, the refused page renders.
    const again = await forPage(third);
    expect((await readPdf(again)).text).toContain(`Page ${MAX_READER_RENDERS}`);
  });
});
