import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import {
  createChangeRequest,
  editContent,
  mergeChangeRequest,
  pageKeys,
  pageTexts,
} from "../../../test/helpers/change-requests.factories.js";
import { commitContent, type TestPage } from "../../../test/helpers/content.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000020000000308060000009d", "hex");

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Home", slug: "home", paragraphs: ["One", "Two", "Three"] },
      { title: "Guides", slug: "guides", paragraphs: ["Intro"], children: [{ title: "Install", slug: "install", paragraphs: ["Steps"] }] },
    ],
  });
  const [home, guides] = content.pages;
  const cr = await createChangeRequest(ctx, roles.owner, space.id, { subject: "Edits" });
  const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  return { ...roles, space, home: home!, guides: guides!, install: guides!.children[0]!, cr, prefix };
}

type Page = { id: string; title: string; slug?: string; path?: string; pages?: Page[]; [key: string]: unknown };
const flatten = (pages: Page[]): Page[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
async function pagesOf(user: TestUser, prefix: string): Promise<Page[]> {
  return (await ctx.as(user).get(`${prefix}/content/pages`)).body.pages;
}

/** Every inline link of a document: its text and where it points. */
function links(document: any): { text: string; ref: any }[] {
  const out: { text: string; ref: any }[] = [];
  const text = (node: any): string => (node.leaves ? node.leaves.map((l: any) => l.text).join("") : (node.nodes ?? []).map(text).join(""));
  const walk = (node: any) => {
    if (node.object === "inline" && node.type === "link") out.push({ text: text(node), ref: node.data.ref });
    for (const child of node.nodes ?? []) walk(child);
  };
  walk(document);
  return out;
}

describe("POST .../change-requests/{cr}/content: page depth", () => {
  it("nests pages at most 50 levels deep: an insert or a move past it is a 400 naming the page", async () => {
    const { space, owner } = await createOrgWithSpace(ctx, { title: "Deep" });
    let chain: TestPage[] = [];
    for (let level = 50; level >= 1; level--) chain = [{ title: `Level ${level}`, slug: `l${level}`, children: chain }];
    const { content } = await commitContent(ctx, space.id, {
      pages: [...chain, { title: "Guides", slug: "guides", children: [{ title: "Install", slug: "install" }] }],
    });
    const levels: string[] = [];
    for (let page = content.pages[0]; page; page = page.children[0]) levels.push(page.id);
    const guides = content.pages[1]!;
    const cr = await createChangeRequest(ctx, owner, space.id, { subject: "Deeper" });
    const path = `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`;
    const cases: [unknown, string][] = [
      [
        { operation: "insert_page", into: levels[49], title: "Too deep", document: { markdown: "x" } },
        `body.changes.0.into: page "${levels[49]}" is at level 50, and a page under it would go past the 50 levels pages can be nested.`,
      ],
      [
        { operation: "update_page", page: guides.id, into: levels[48] },
        `body.changes.0.into: page "${levels[48]}" is at level 49, and 2 levels of pages under it would go past the 50 levels pages can be nested.`,
      ],
    ];
    for (const [change, message] of cases) {
      const res = await ctx.as(owner).post(path, { changes: [change] });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    // Up to the 50th level is fine.
    await editContent(ctx, owner, space.id, cr.id, [
      { operation: "insert_page", into: levels[48], title: "Level 50 too", document: { markdown: "x" } },
      { operation: "update_page", page: guides.children[0]!.id, into: levels[48] },
    ]);
  });
});

describe("POST .../change-requests/{cr}/content: pages", () => {
  it("inserts pages from Markdown (front matter, title, slug, refs, links) and JSON documents", async () => {
    const { owner, space, home, cr, prefix } = await setup();
    const body = await editContent(ctx, owner, space.id, cr.id, [
      {
        operation: "insert_page",
        ref: "guide",
        document: {
          markdown: `---\ndescription: How to start\nhidden: true\n---\n# Getting started\n\nSee [home](/pages/${home.id}), [the FAQ](./faq), [home by path](./home.md), [by Git path](/pages/home.md), [missing](./missing.md) and [the web](https://example.com).\n`,
        },
      },
      { operation: "insert_page", ref: "faq", into: "guide", title: "FAQ", document: { markdown: "Questions and answers." } },
      {
        operation: "insert_page",
        at: 0,
        title: "First",
        slug: "first",
        emoji: "1f44b",
        document: {
          document: {
            object: "document",
            data: {},
            nodes: [
              {
                object: "block",
                type: "paragraph",
                nodes: [{ object: "text", leaves: [{ object: "leaf", text: "JSON body", marks: [] }] }],
              },
            ],
          },
        },
      },
    ]);
    const [guide, faq, _first] = body.changes;
    expect(body.changes.map((c) => c.object)).toEqual(["created_page", "created_page", "created_page"]);
    expect(guide).toMatchObject({
      ref: "guide",
      page: { object: "page", urls: { location: `${ctx.urls.base}${prefix}/content/page/${guide!.page.id}` } },
    });
    expect(faq!.ref).toBe("faq");
    const pages = await pagesOf(owner, prefix);
    expect(pages.map((p) => p.title)).toEqual(["First", "Home", "Guides", "Getting started"]);
    expect(pages[0]).toMatchObject({ slug: "first", emoji: "1f44b" });
    const page = (await ctx.as(owner).get(`${prefix}/content/page/${guide!.page.id}`)).body;
    expect(page).toMatchObject({ title: "Getting started", slug: "getting-started", description: "How to start", hidden: true });
    expect(page.pages.map((p: Page) => [p.title, p.path])).toEqual([["FAQ", "getting-started/faq"]]);
    expect(links(page.document)).toEqual([
      { text: "home", ref: { kind: "page", page: home.id } },
      { text: "the FAQ", ref: { kind: "page", page: faq!.page.id } },
      { text: "home by path", ref: { kind: "page", page: home.id } },
      { text: "by Git path", ref: { kind: "page", page: home.id } },
      { text: "the web", ref: { kind: "url", url: "https://example.com" } },
    ]);
    expect(JSON.stringify(page.document)).toContain("missing");
    // The primary content is untouched until a merge.
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content/pages`)).body.pages).toHaveLength(2);
  });

  it("updates a page's document keeping the keys of unchanged and edited blocks, renames it and moves it", async () => {
    const { owner, space, home, guides, cr, prefix } = await setup();
    const keys = await pageKeys(ctx, owner, prefix, home.id);
    const body = await editContent(ctx, owner, space.id, cr.id, [
      { operation: "update_page", page: home.id, document: { markdown: "# Welcome\n\nOne\n\nTwo, edited\n\nThree\n" } },
      { operation: "update_page", page: home.id, slug: "start", into: guides.id, at: 0 },
    ]);
    expect(body.changes).toEqual([expect.objectContaining({ object: "updated_page", page: expect.objectContaining({ id: home.id }) })]);
    expect(await pageKeys(ctx, owner, prefix, home.id)).toEqual(keys);
    expect(await pageTexts(ctx, owner, prefix, home.id)).toEqual(["One", "Two, edited", "Three"]);
    const moved = flatten(await pagesOf(owner, prefix)).find((p) => p.id === home.id)!;
    expect(moved).toMatchObject({ title: "Welcome", slug: "start", path: "guides/start" });
    await editContent(ctx, owner, space.id, cr.id, [
      { operation: "update_page", page: home.id, into: null, at: 0, description: "Front door", hidden: true },
    ]);
    const back = (await pagesOf(owner, prefix))[0]!;
    expect(back).toMatchObject({ id: home.id, path: "start", description: "Front door", hidden: true });
    await editContent(ctx, owner, space.id, cr.id, [{ operation: "update_page", page: home.id, description: null, hidden: false }]);
    expect((await pagesOf(owner, prefix))[0]!.description).toBeUndefined();
  });

  it("keeps the keys a JSON document gives its blocks (a moved block stays itself); blocks given none take the previous ones", async () => {
    const { owner, space, home, cr, prefix } = await setup();
    const [one, two, three] = await pageKeys(ctx, owner, prefix, home.id);
    const stored = (await ctx.as(owner).get(`${prefix}/content/page/${home.id}`)).body.document;
    const [first, second, third] = stored.nodes as Array<{ key: string; nodes: Array<{ leaves: Array<{ text: string }> }> }>;
    // "Three" moved to the top and "One" to the bottom, edited: at the same places, by type and
    // position alone, each would be taken for the other.
    const edited = structuredClone(first!);
    edited.nodes[0]!.leaves[0]!.text = "One, now";
    const moved = { ...stored, nodes: [third, second, edited] };
    await editContent(ctx, owner, space.id, cr.id, [{ operation: "update_page", page: home.id, document: { document: moved } }]);
    expect(await pageTexts(ctx, owner, prefix, home.id)).toEqual(["Three", "Two", "One, now"]);
    expect(await pageKeys(ctx, owner, prefix, home.id)).toEqual([three, two, one]);
    // Given without a key, or with one met earlier in the document, a block takes the previous version's key by content.
    const { key: _three, ...threeBare } = third!;
    const { key: _two, ...twoBare } = second!;
    const { key: _one, ...oneBare } = edited;
    for (const nodes of [
      [threeBare, twoBare, edited],
      [third, { ...second, key: three }, oneBare],
    ]) {
      await editContent(ctx, owner, space.id, cr.id, [
        { operation: "update_page", page: home.id, document: { document: { ...stored, nodes } } },
      ]);
      expect(await pageKeys(ctx, owner, prefix, home.id)).toEqual([three, two, one]);
    }
  });

  it("deletes pages with their subpages and reverts pages and blocks", async () => {
    const { owner, space, home, guides, install, cr, prefix } = await setup();
    const deleted = await editContent(ctx, owner, space.id, cr.id, [
      { operation: "delete_page", page: guides.id },
      { operation: "insert_page", ref: "temp", title: "Temporary", document: { markdown: "Soon gone" } },
      { operation: "update_page", page: home.id, document: { markdown: "One\n\nTwo, changed\n\nThree\n" } },
    ]);
    expect(deleted.changes.map((c) => [c.object, typeof c.page === "string" ? c.page : c.page.id])).toEqual([
      ["deleted_page", guides.id],
      ["deleted_page", install.id],
      ["created_page", deleted.changes[2]!.page.id],
      ["updated_page", home.id],
    ]);
    const temp = deleted.changes[2]!.page.id;
    const secondKey = (await pageKeys(ctx, owner, prefix, home.id))[1];
    const reverted = await editContent(ctx, owner, space.id, cr.id, [
      { operation: "revert_page", page: guides.id },
      { operation: "revert_page", page: temp },
      { operation: "revert_page", page: home.id, block: [secondKey] },
    ]);
    expect(reverted.changes.map((c) => c.object)).toEqual(["created_page", "deleted_page", "updated_page"]);
    expect((await pagesOf(owner, prefix)).map((p) => p.id)).toEqual([home.id, guides.id]);
    expect(await pageTexts(ctx, owner, prefix, home.id)).toEqual(["One", "Two", "Three"]);
    expect(await pageTexts(ctx, owner, prefix, guides.id)).toEqual(["Intro"]);
  });

  it("rejects the whole batch with a 400 naming the first invalid change, leaving the change request as it was", async () => {
    const { owner, space, home, guides, install, cr, prefix } = await setup();
    const path = `${prefix}/content`;
    const cases: [unknown[], string][] = [
      [[{ operation: "update_page", title: "x" }], "body.changes.0.page is required for update_page."],
      [
        [
          { operation: "update_page", page: home.id, title: "ok" },
          { operation: "delete_page", page: "nope" },
        ],
        'body.changes.1.page: no page "nope" in the change request.',
      ],
      [[{ operation: "insert_page", title: "No body" }], "body.changes.0.document is required for insert_page."],
      [
        [{ operation: "insert_page", document: { markdown: "a", document: { object: "document", nodes: [] } } }],
        "body.changes.0.document must have exactly one of markdown or document.",
      ],
      [
        [{ operation: "update_page", page: guides.id, into: install.id }],
        `body.changes.0.into: page "${guides.id}" cannot move under itself or one of its subpages.`,
      ],
      [
        [{ operation: "update_page", page: home.id, slug: "guides" }],
        `body.changes.0.slug: the slug "guides" is already used by page "${guides.id}" at the same level; pick another.`,
      ],
      [
        [{ operation: "revert_page", page: home.id, revision: "unknown" }],
        `body.changes.0.revision: no revision "unknown" in space "${space.id}".`,
      ],
      [
        [{ operation: "revert_page", page: home.id, block: ["nokey"] }],
        `body.changes.0.block: no block "nokey" in page "${home.id}", now or in the revision to revert to.`,
      ],
      [
        [{ operation: "rename_page", page: home.id }],
        'body.changes.0.operation must be one of: "insert_page", "update_page", "delete_page", "revert_page", "insert_files".',
      ],
      [
        Array.from({ length: 51 }, () => ({ operation: "update_page", page: home.id, title: "x" })),
        "body.changes must have at most 50 items.",
      ],
      [[], "body.changes must have at least 1 items."],
    ];
    for (const [changes, message] of cases) {
      const res = await ctx.as(owner).post(path, { changes });
      expect(res.status, JSON.stringify(changes).slice(0, 100)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect((await ctx.as(owner).get(prefix)).body.revision).toBe(cr.revision);
    expect((await ctx.as(owner).get(`${prefix}/contributors`)).body.count).toBe(0);
  });

  it("answers 401, 404 to outsiders, 403 to readers and on a locked space, 409 on archived and merged change requests", async () => {
    const { owner, members, outsider, space, home, cr, prefix } = await setup();
    const body = { changes: [{ operation: "update_page", page: home.id, title: "New" }] };
    expect((await ctx.anonymous.post(`${prefix}/content`, body)).status).toBe(401);
    expect((await ctx.as(outsider).post(`${prefix}/content`, body)).status).toBe(404);
    const reader = await ctx.as(members.comment).post(`${prefix}/content`, body);
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(
      `Only members with the edit level or higher on space "${space.id}" can edit its change requests.`,
    );
    const ok = await ctx.as(members.edit).post(`${prefix}/content`, body);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ object: "change-request", id: cr.id });
    expect(ok.body.revision).not.toBe(cr.revision);

    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { editMode: "locked" });
    const locked = await ctx.as(members.edit).post(`${prefix}/content`, body);
    expect(locked.status).toBe(403);
    expect(locked.body.error.message).toMatch(new RegExp(`Space "${space.id}" is locked`));
    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { editMode: "live" });

    await ctx.as(owner).patch(prefix, { status: "archived" });
    const archived = await ctx.as(owner).post(`${prefix}/content`, body);
    expect(archived.status).toBe(409);
    expect(archived.body.error.message).toBe(
      'Change request #1 is archived: reopen it first (PATCH with {"status":"open"} or {"status":"draft"}).',
    );
    expect((await ctx.as(owner).post(`${prefix}/update`)).status).toBe(409);
    expect((await ctx.as(owner).post(`${prefix}/merge`)).status).toBe(409);
    await ctx.as(owner).patch(prefix, { status: "open" });
    await mergeChangeRequest(ctx, owner, space.id, cr.id);
    const merged = await ctx.as(owner).post(`${prefix}/content`, body);
    expect(merged.status).toBe(409);
    expect(merged.body.error.message).toBe("Change request #1 is merged: it can no longer change. Create a new change request.");
    expect((await ctx.as(owner).post(`${prefix}/update`)).status).toBe(409);
    expect((await ctx.as(owner).post(`${prefix}/merge`)).body.error.message).toMatch(/is already merged/);
    expect((await ctx.as(owner).patch(prefix, { status: "open" })).status).toBe(409);
  });
});

describe("POST .../change-requests/{cr}/content: files", () => {
  it("inserts base64 files that pages of the batch reference by ref, and lists them with compat=false", async () => {
    const { owner, space, cr, prefix } = await setup();
    const body = await editContent(ctx, owner, space.id, cr.id, [
      { operation: "insert_files", files: [{ name: "logo.png", ref: "logo", contentType: "image/png", base64: png.toString("base64") }] },
      { operation: "insert_page", title: "Brand", document: { markdown: "![Our logo](./logo)\n\nDownload [it](./logo)." } },
    ]);
    expect(body.insertedFiles).toHaveLength(1);
    const file = body.insertedFiles![0];
    expect(file).toMatchObject({ name: "logo.png", contentType: "image/png", size: png.length, dimensions: { width: 2, height: 3 } });
    const download = new URL(file.downloadURL);
    expect((await ctx.anonymous.get(`${download.pathname}${download.search}`)).raw.equals(png)).toBe(true);
    const page = (await ctx.as(owner).get(`${prefix}/content/page/${body.changes[0]!.page.id}`)).body;
    expect(page.document.nodes[0]).toMatchObject({
      type: "images",
      nodes: [{ type: "image", data: { ref: { kind: "file", file: file.id } } }],
    });
    expect(links(page.document)).toEqual([{ text: "it", ref: { kind: "file", file: file.id } }]);
    expect((await ctx.as(owner).get(`${prefix}/content/files/${file.id}`)).body.name).toBe("logo.png");
  });

  it("refuses bad files: both or neither source, no content type, too large, private or non-http URLs", async () => {
    const { owner, cr, prefix } = await setup();
    const file = (extra: Record<string, unknown>) => ({ changes: [{ operation: "insert_files", files: [{ name: "f.bin", ...extra }] }] });
    const cases: [Record<string, unknown>, string][] = [
      [{}, "body.changes.0.files.0 must have exactly one of url or base64."],
      [{ base64: "AAAA", url: "https://example.com/a" }, "body.changes.0.files.0 must have exactly one of url or base64."],
      [{ base64: "AAAA" }, "body.changes.0.files.0.contentType is required with base64."],
      [{ base64: "not base64!", contentType: "text/plain" }, "body.changes.0.files.0.base64 is not valid base64."],
      [
        { base64: Buffer.alloc(1024 * 1024 + 1).toString("base64"), contentType: "application/octet-stream" },
        "body.changes.0.files.0.base64: the file is 1048577 bytes; the limit is 1048576 bytes (1 MB).",
      ],
      [
        { url: "http://127.0.0.1:8080/secret" },
        'body.changes.0.files.0.url: cannot fetch "http://127.0.0.1:8080/secret": 127.0.0.1 is not a public address.',
      ],
      [
        { url: "http://169.254.169.254/latest/meta-data" },
        'body.changes.0.files.0.url: cannot fetch "http://169.254.169.254/latest/meta-data": 169.254.169.254 is not a public address.',
      ],
      [{ url: "http://[::1]/x" }, 'body.changes.0.files.0.url: cannot fetch "http://[::1]/x": ::1 is not a public address.'],
      [
        { url: "http://localhost/x" },
        'body.changes.0.files.0.url: cannot fetch "http://localhost/x": localhost is not a public host name.',
      ],
      [
        { url: "file:///etc/passwd" },
        'body.changes.0.files.0.url: cannot fetch "file:///etc/passwd": only http and https URLs can be fetched, not file:.',
      ],
      [
        { url: "https://user:pw@example.com/x" },
        'body.changes.0.files.0.url: cannot fetch "https://user:pw@example.com/x": URLs with credentials are not fetched.',
      ],
    ];
    for (const [extra, message] of cases) {
      const res = await ctx.as(owner).post(`${prefix}/content`, file(extra));
      expect(res.status, message).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect((await ctx.as(owner).get(prefix)).body.revision).toBe(cr.revision);
  });
});
