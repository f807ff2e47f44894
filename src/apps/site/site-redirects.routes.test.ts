/**
 * A site's own redirects (0.202 site redirects): the API that keeps them, validated against 0.202's
 * schemas, and the published site answering a source path with 307/308 to its destination before
 * its 404, with the precedence over a space's `.gitbook.yaml` redirects (site-redirects.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { responseErrors0202, schema0202 } from "../../../test/helpers/contract-0202.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { SourcePath } from "../../modules/sites/redirects.schemas.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario(visibility = "public") {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const { org, owner, space } = base;
  await commitContent(ctx, space.id, {
    pages: [
      { id: "intro", title: "Intro", slug: "intro", paragraphs: ["Welcome."] },
      {
        id: "install",
        title: "Install",
        slug: "install",
        paragraphs: ["Run it."],
        children: [{ id: "docker", title: "Docker", slug: "docker" }],
      },
    ],
  });
  const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [space.id], visibility });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  const siteSpaceId = (await ctx.as(owner).get(`${url}/site-spaces`)).body.items[0].id as string;
  const other = await createOrgWithSpace(ctx);
  const otherSite = await createSite(ctx, other.owner, other.org.id, { spaces: [other.space.id] });
  const otherSiteSpace = (await ctx.as(other.owner).get(`/v1/orgs/${other.org.id}/sites/${otherSite.id}/site-spaces`)).body.items[0].id;
  return { ...base, site, url, siteSpaceId, root: `/s/${site.basename}`, other, otherSite, otherSiteSpace };
}

describe("site redirects API (0.202)", () => {
  it("keeps the spec's source pattern", () => {
    expect((SourcePath as unknown as { pattern: string }).pattern).toBe(schema0202("SiteRedirectSourcePath").pattern);
  });

  it("creates, lists, finds, changes and deletes redirects in 0.202's shapes", async () => {
    const { owner, members, url, siteSpaceId, space, site } = await scenario();
    const created = await ctx.as(owner).post(`${url}/redirects`, {
      source: "/setup",
      destination: { kind: "path", spaceId: space.id, path: "install/docker" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(responseErrors0202("createSiteRedirect", 201, created.body)).toEqual([]);
    expect(created.body).toMatchObject({
      object: "site-redirect",
      source: "/setup",
      draft: false,
      permanent: false,
      captureWildcard: false,
      destination: { kind: "site-page", siteSpaceId, pageId: "docker" },
    });
    const again = await ctx.as(owner).post(`${url}/redirects`, { source: "/setup", destination: { kind: "site-space", siteSpaceId } });
    expect(again.status).toBe(409);

    const bulk = await ctx.as(owner).put(`${url}/redirects`, {
      redirects: [
        {
          source: "/blog/*",
          captureWildcard: true,
          permanent: true,
          destination: { kind: "external", url: "https://blog.example.com/posts" },
        },
        { source: "/next", intent: "draft", destination: { kind: "site-space", siteSpaceId } },
        { source: "/setup", destination: { kind: "site-page", siteSpaceId, pageId: "intro" } },
        { source: "/bad", destination: { kind: "site-page", siteSpaceId, pageId: "nope" } },
        { source: "/gone", destination: null },
        { source: "/next", intent: "publish" },
      ],
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(responseErrors0202("bulkUpsertSiteRedirects", 200, bulk.body)).toEqual([]);
    expect(bulk.body.results.map((r: { status: string }) => r.status)).toEqual([
      "created",
      "created",
      "updated",
      "error",
      "error",
      "published",
    ]);
    expect(bulk.body.results[3].error).toContain('pageId "nope"');
    expect(bulk.body.results[2].id).toBe(created.body.id);

    const list = await ctx.as(members.read).get(`${url}/redirects?orderBy=source`);
    expect(list.status).toBe(200);
    expect(responseErrors0202("listSiteRedirects", 200, list.body)).toEqual([]);
    expect(list.body.items.map((r: { source: string }) => r.source)).toEqual(["/blog/*", "/next", "/setup"]);
    expect((await ctx.as(owner).get(`${url}/redirects?draft=true`)).body.count).toBe(0);
    expect((await ctx.as(owner).get(`${url}/redirects?search=BLOG`)).body.items).toHaveLength(1);

    const found = await ctx.as(members.read).get(`${url}/redirect?source=${encodeURIComponent("/setup")}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(responseErrors0202("getSiteRedirectBySource", 200, found.body)).toEqual([]);
    expect(found.body.target).toMatch(new RegExp(`/s/${site.basename}/intro$`));
    expect((await ctx.as(owner).get(`${url}/redirect?source=%2Fnever`)).status).toBe(404);

    const patched = await ctx.as(owner).patch(`${url}/redirects/${created.body.id}`, { permanent: true });
    expect(patched.status).toBe(200);
    expect(responseErrors0202("updateSiteRedirectById", 200, patched.body)).toEqual([]);
    expect(patched.body).toMatchObject({ permanent: true, updatedAt: expect.any(String) });

    expect((await ctx.as(owner).delete(`${url}/redirects/${created.body.id}`)).status).toBe(205);
    expect((await ctx.as(owner).delete(`${url}/redirects/${created.body.id}`)).status).toBe(204);
  });

  it("refuses open redirects, bad sources, other organizations' objects and callers who may not edit", async () => {
    const { owner, members, outsider, url, otherSite, otherSiteSpace, other, org } = await scenario();
    for (const bad of [
      "javascript:alert(1)",
      "//evil.example/x",
      "data:text/html,hi",
      "/relative",
      "https://user:pw@example.com/",
      "ftp://x.example/",
    ]) {
      const res = await ctx.as(owner).post(`${url}/redirects`, { source: "/x", destination: { kind: "external", url: bad } });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.message, bad).toMatch(/body\.destination\.url/);
    }
    for (const source of ["old", "/*", "/a*b", "/a b", `/${"a".repeat(512)}`, "//evil"]) {
      const res = await ctx.as(owner).post(`${url}/redirects`, { source, destination: { kind: "external", url: "https://example.com/" } });
      expect(res.status, source).toBe(400);
      expect(res.body.error.message, source).toMatch(/source/);
    }
    // Another organization's site space, and its site through this organization's address.
    const foreign = await ctx
      .as(owner)
      .post(`${url}/redirects`, { source: "/x", destination: { kind: "site-space", siteSpaceId: otherSiteSpace } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toContain("is not a site space of this site");
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${otherSite.id}/redirects`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`${url}/redirects`)).status).toBe(404);
    expect((await ctx.as(other.owner).get(`${url}/redirects`)).status).toBe(404);
    const refused = await ctx
      .as(members.edit)
      .post(`${url}/redirects`, { source: "/x", destination: { kind: "external", url: "https://example.com/" } });
    expect(refused.status).toBe(403);
    expect((await ctx.as(owner).put(`${url}/redirects`, { redirects: [] })).status).toBe(400);
    // One item more than a bulk upsert takes (500, redirects.schemas.ts).
    const tooMany = Array.from({ length: 500 + 1 }, (_, i) => ({ source: `/p${i}`, destination: null }));
    expect((await ctx.as(owner).put(`${url}/redirects`, { redirects: tooMany })).status).toBe(400);
    // A grant of edit on the site is what lets that member change its redirects.
    expect((await ctx.as(owner).patch(`${url}/permissions/users/${members.edit.id}`, { role: "edit" })).status).toBe(204);
    const allowed = await ctx
      .as(members.edit)
      .post(`${url}/redirects`, { source: "/x", destination: { kind: "external", url: "https://example.com/" } });
    expect(allowed.status).toBe(201);
    expect((await ctx.as(owner).get(`${url}/redirects`)).body.count).toBe(1);
  });
});

describe("site redirects on the published site", () => {
  it("answer a source path before its 404: 308 when permanent on a public site, 307 otherwise; wildcards and drafts", async () => {
    const { owner, url, root, siteSpaceId } = await scenario();
    expect((await ctx.anonymous.get(`${root}/setup`)).status).toBe(404);
    const res = await ctx.as(owner).put(`${url}/redirects`, {
      redirects: [
        { source: "/setup", destination: { kind: "site-page", siteSpaceId, pageId: "docker" } },
        { source: "/start", permanent: true, destination: { kind: "site-space", siteSpaceId } },
        {
          source: "/blog/*",
          captureWildcard: true,
          permanent: true,
          destination: { kind: "external", url: "https://blog.example.com/posts" },
        },
        { source: "/docs*", captureWildcard: true, destination: { kind: "site-space", siteSpaceId } },
        { source: "/ext*", captureWildcard: true, destination: { kind: "external", url: "https://good.example" } },
        { source: "/later", intent: "draft", destination: { kind: "site-space", siteSpaceId } },
        // A live page wins over a redirect of its own path.
        { source: "/intro", destination: { kind: "external", url: "https://example.com/" } },
      ],
    });
    expect(res.body.results.every((r: { status: string }) => r.status === "created")).toBe(true);

    // The 404 kept from before does not hide the new redirect.
    const setup = await ctx.anonymous.get(`${root}/setup?ref=old`);
    expect(setup.status).toBe(307);
    expect(setup.headers.location).toBe(`${root}/install/docker?ref=old`);
    expect((await ctx.anonymous.get(`${root}/setup/`)).headers.location).toBe(`${root}/install/docker`);
    const start = await ctx.anonymous.get(`${root}/start`);
    expect(start.status).toBe(308);
    expect(start.headers.location).toBe(`${root}/`);
    const blog = await ctx.anonymous.get(`${root}/blog/2024/hello`);
    expect(blog.status).toBe(308);
    expect(blog.headers.location).toBe("https://blog.example.com/posts/2024/hello");
    const docs = await ctx.anonymous.get(`${root}/docs/install/docker`);
    expect(docs.headers.location).toBe(`${root}/install/docker`);
    // What a wildcard catches never makes a scheme-relative address or changes the external host.
    const sneaky = await ctx.anonymous.get(`${root}/docs//evil.example`);
    expect(String(sneaky.headers.location).startsWith(`${root}/`)).toBe(true);
    expect(sneaky.headers.location).not.toMatch(/^\/\//);
    const at = await ctx.anonymous.get(`${root}/ext@evil.example`);
    expect(new URL(String(at.headers.location)).host).toBe("good.example");
    expect((await ctx.anonymous.get(`${root}/ext/ok`)).headers.location).toBe("https://good.example/ok");
    expect((await ctx.anonymous.get(`${root}/later`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${root}/intro`)).status).toBe(200);

    // The destination page is removed: the redirect leads nowhere, so the path is a 404 again.
    const { space } = await ctx.db
      .selectFrom("siteSpaces")
      .select("spaceId as space")
      .where("id", "=", siteSpaceId)
      .executeTakeFirstOrThrow();
    await commitContent(ctx, space, { pages: [{ id: "intro", title: "Intro", slug: "intro" }] });
    expect((await ctx.anonymous.get(`${root}/setup`)).status).toBe(404);
  });

  it("are temporary (307) on a site that is not public, and come before the space's .gitbook.yaml redirects", async () => {
    const { owner, url, root, siteSpaceId, space, site } = await scenario("unlisted");
    await ctx.as(owner).patch(url, { visibility: "share-link" });
    const link = await ctx.as(owner).post(`${url}/share-links`, { name: "Partners" });
    const keyed = new URL(link.body.urls.published).pathname.replace(/\/$/, "");
    await ctx.db
      .insertInto("gitRedirects")
      .values([
        { spaceId: space.id, fromPath: "old", pageId: "docker" },
        { spaceId: space.id, fromPath: "only-git", pageId: "docker" },
      ])
      .execute();
    await ctx.as(owner).put(`${url}/redirects`, {
      redirects: [{ source: "/old", permanent: true, destination: { kind: "site-page", siteSpaceId, pageId: "intro" } }],
    });
    const own = await ctx.anonymous.get(`${keyed}/old`);
    expect(own.status).toBe(307);
    expect(own.headers.location).toBe(`${keyed}/`);
    const git = await ctx.anonymous.get(`${keyed}/only-git`);
    expect(git.status).toBe(301);
    expect(git.headers.location).toBe(`${keyed}/install/docker`);
    // Without the key, nothing of the site is revealed, redirects included.
    expect((await ctx.anonymous.get(`${root}/old`)).status).not.toBe(307);
    expect(site.id).toBeTruthy();
  });
});
