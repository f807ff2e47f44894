import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, testFile } from "../../../test/helpers/content.factories.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const logo = await testFile(ctx, "logo.png", png, "image/png", {
    dimensions: { width: 1, height: 1 },
    git: { oid: "abc", path: ".gitbook/assets/logo.png" },
  });
  const first = await commitContent(ctx, space.id, {
    pages: [
      { title: "Welcome", slug: "readme", paragraphs: ["Hello"], extra: { git: { oid: "1", path: "README.md" } } },
      {
        title: "Guides",
        kind: "group",
        children: [{ title: "Install", paragraphs: ["Run it"], children: [{ title: "On Linux", paragraphs: ["apt"] }] }],
      },
      { title: "GitHub", kind: "link", href: "https://github.com" },
    ],
    files: [logo, await testFile(ctx, "a.pdf", Buffer.from("%PDF-1.4"), "application/pdf")],
    variables: { version: "2.0" },
  });
  return { ...roles, space, first, logo };
}

describe("GET /v1/spaces/{spaceId}/content", () => {
  it("reads an empty new space as an empty revision", async () => {
    const { owner, org } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/content`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: "revision",
      id: space.revision,
      type: "edits",
      parents: [],
      pages: [],
      files: [],
      reusableContents: [],
      variables: {},
    });
  });

  it("returns the page tree with paths, files with download URLs, and variables", async () => {
    const { owner, space, first } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/content`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(first.revisionId);
    const [welcome, guides, link] = res.body.pages;
    expect(welcome).toMatchObject({
      title: "Welcome",
      kind: "sheet",
      type: "document",
      slug: "readme",
      path: "readme",
      git: { path: "README.md" },
      hidden: false,
      layout: { width: "default" },
    });
    expect(welcome.documentId).toMatch(/^[0-9a-f]{64}$/);
    expect(guides).toMatchObject({ type: "group", path: "guides" });
    expect(guides.pages[0]).toMatchObject({ title: "Install", path: "guides/install" });
    expect(guides.pages[0].pages[0]).toMatchObject({ title: "On Linux", path: "guides/install/on-linux" });
    expect(link).toMatchObject({ type: "link", kind: "link", href: "https://github.com", target: { kind: "url" } });
    expect(res.body.variables).toEqual({ version: "2.0" });
    const file = res.body.files.find((f: { name: string }) => f.name === "logo.png");
    expect(file).toMatchObject({ contentType: "image/png", size: png.length, dimensions: { width: 1, height: 1 } });
    const download = new URL(file.downloadURL);
    const bytes = await ctx.anonymous.get(`${download.pathname}${download.search}`);
    expect(bytes.status).toBe(200);
    expect(bytes.raw.equals(png)).toBe(true);
  });

  it("omits git metadata with metadata=false", async () => {
    const { owner, space } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/content?metadata=false`);
    expect(res.body.pages[0].git).toBeUndefined();
    expect(res.body.files.length).toBeGreaterThan(0);
    expect(res.body.files.every((f: { git?: unknown }) => f.git === undefined)).toBe(true);
  });

  it("answers 401 without token, 404 to outsiders, and lets readers and guests with access read", async () => {
    const { outsider, members, space } = await setup();
    expect((await ctx.anonymous.get(`/v1/spaces/${space.id}/content`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`/v1/spaces/${space.id}/content`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`/v1/spaces/${space.id}/content/pages`)).status).toBe(404);
    expect((await ctx.as(members.read).get(`/v1/spaces/${space.id}/content`)).status).toBe(200);
    expect((await ctx.as(members.guest).get(`/v1/spaces/${space.id}/content`)).status).toBe(404);
  });
});

describe("pages, files and paths", () => {
  it("reads one page with its document, by id and by path", async () => {
    const { owner, space, first } = await setup();
    const install = first.content.pages[1]!.children[0]!;
    const byId = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${install.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({
      id: install.id,
      path: "guides/install",
      document: { object: "document", nodes: [{ type: "paragraph" }] },
    });
    expect(byId.body.pages).toHaveLength(1);
    const byPath = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/path/guides/install`);
    expect(byPath.body.id).toBe(install.id);
    const group = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/path/guides`);
    expect(group.body).toMatchObject({ type: "group", title: "Guides" });
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content/path/nope`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/unknown`)).status).toBe(404);
  });

  it("validates query parameters precisely", async () => {
    const { owner, space, first } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${first.content.pages[0]!.id}?format=html`);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('query parameter "format" must be one of: "document", "markdown".');
  });

  it("pages through files and reads one file", async () => {
    const { owner, space, logo } = await setup();
    const page1 = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/files?limit=1`);
    expect(page1.body).toMatchObject({ count: 2, items: [{ name: "a.pdf" }] });
    const page2 = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/files?limit=1&page=${page1.body.next.page}`);
    expect(page2.body.items.map((f: { name: string }) => f.name)).toEqual(["logo.png"]);
    expect(page2.body.next).toBeUndefined();
    const one = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/files/${logo.id}`);
    expect(one.body).toMatchObject({ id: logo.id, name: "logo.png" });
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content/files/missing`)).status).toBe(404);
  });
});

describe("revisions and documents", () => {
  it("keeps every revision readable after later changes, and scopes revisions to their space", async () => {
    const { owner, org, space, first } = await setup();
    const second = await commitContent(ctx, space.id, { pages: [{ title: "Only page", paragraphs: ["new"] }] });
    const current = await ctx.as(owner).get(`/v1/spaces/${space.id}/content`);
    expect(current.body).toMatchObject({ id: second.revisionId, parents: [first.revisionId] });
    const old = await ctx.as(owner).get(`/v1/spaces/${space.id}/revisions/${first.revisionId}`);
    expect(old.body.pages.map((p: { title: string }) => p.title)).toEqual(["Welcome", "Guides", "GitHub"]);
    const oldPage = await ctx
      .as(owner)
      .get(`/v1/spaces/${space.id}/revisions/${first.revisionId}/page/${first.content.pages[0]!.id}/document`);
    expect(oldPage.body).toMatchObject({ object: "document", nodes: [{ type: "paragraph" }] });
    const other = await createSpace(ctx, owner, org.id);
    expect((await ctx.as(owner).get(`/v1/spaces/${other.id}/revisions/${first.revisionId}`)).status).toBe(404);
  });

  it("serves documents of this space's content only", async () => {
    const { owner, org, space, first } = await setup();
    const documentId = first.content.pages[0]!.documentHash!;
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/documents/${documentId}`)).body).toMatchObject({ object: "document" });
    const other = await createSpace(ctx, owner, org.id);
    expect((await ctx.as(owner).get(`/v1/spaces/${other.id}/documents/${documentId}`)).status).toBe(404);
    const notAHash = await ctx.as(owner).get(`/v1/spaces/${space.id}/documents/not-a-hash`);
    expect(notAHash.status).toBe(400);
    expect(notAHash.body.error.message).toBe('path parameter "documentId" must match the pattern ^[0-9a-f]{64}$.');
  });
});

describe("page formats and evaluation", () => {
  it("serves a page as Markdown with links the editing API accepts, and evaluates expressions", async () => {
    const { owner, space, first } = await setup();
    const { saveDocument } = await import("../../content/revision/storage.js");
    const { parseMarkdownPage } = await import("../../content/markdown/index.js");
    const welcome = first.content.pages[0]!;
    const body = parseMarkdownPage(`Version <code class="expression">space.vars.version</code>, see [the welcome page](README.md).`, {
      resolve: (target) => (target === "README.md" ? { kind: "page", page: welcome.id } : undefined),
    }).document;
    const hash = await saveDocument(ctx.db, body);
    const { content } = await commitContent(ctx, space.id, {
      pages: [
        { id: welcome.id, title: "Welcome", slug: "readme", paragraphs: ["Hello"] },
        { title: "Versions", extra: { documentHash: hash } },
      ],
      variables: { version: "2.0" },
    });
    const versions = content.pages[1]!;
    const markdown = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${versions.id}?format=markdown`);
    expect(markdown.status).toBe(200);
    expect(markdown.body.document).toBeUndefined();
    expect(markdown.body.markdown).toContain(`[the welcome page](/pages/${welcome.id})`);
    expect(markdown.body.markdown).toContain('<code class="expression">space.vars.version</code>');
    const evaluated = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${versions.id}?format=markdown&evaluated=true`);
    expect(evaluated.body.markdown).toContain("Version 2.0, see");
    const deterministic = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${versions.id}?evaluated=deterministic-only`);
    expect(JSON.stringify(deterministic.body.document)).toContain("2.0");
    const bad = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${versions.id}?evaluated=sometimes`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('query parameter "evaluated" must be of type boolean.');
  });
});
