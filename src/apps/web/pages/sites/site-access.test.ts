/**
 * A site's redirects and who has access, from the web app's forms: the API's permission model
 * (readers see, editors change redirects, site admins change access; guests and outsiders don't),
 * destinations written as addresses on the site, a pasted list all or nothing, another
 * organization's ids refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createSite } from "../../../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../../../test/helpers/spaces.factories.js";
import { createTeam } from "../../../../../test/helpers/teams.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  await commitContent(ctx, base.space.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Hello."] }] });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Docs", spaces: [base.space.id] });
  return { ...base, site, page: `/app/o/${base.org.id}/sites/${site.id}`, api: `/v1/orgs/${base.org.id}/sites/${site.id}` };
}

async function form(client: WebClient, page: string) {
  const shown = await client.get(page);
  expect(shown.status).toBe(200);
  return { text: shown.text, csrf: WebClient.csrfOf(shown.text) };
}

describe("a site's redirects in the web app", () => {
  it("editors add, edit, paste and delete redirects; readers see them without forms; guests and outsiders cannot", async () => {
    const { members, owner, page, api, outsider } = await scenario();
    const editor = await WebClient.signedIn(ctx, members.edit);
    // An editor of the organization (edit role) may not edit a site: the create role may (sites.policy).
    const creator = await WebClient.signedIn(ctx, members.create);
    let { csrf } = await form(creator, page);

    const added = await creator.post(`${page}/redirects`, {
      _csrf: csrf,
      source: "/old-welcome",
      destination: "/welcome",
      permanent: "on",
    });
    expect(added.status).toBe(303);
    const listed = await ctx.as(owner).get(`${api}/redirects`);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ source: "/old-welcome", permanent: true, destination: { kind: "site-page" } });
    const id = listed.body.items[0].id as string;

    // Shown as the form takes it: the reader's address of the page.
    ({ csrf } = await form(creator, page));
    const shown = (await creator.get(page)).text;
    expect(shown).toContain('value="/welcome"');

    // Edit: a new source and an external destination.
    expect(
      (await creator.post(`${page}/redirects/${id}`, { _csrf: csrf, source: "/blog/*", destination: "https://blog.example.com" })).status,
    ).toBe(303);
    const edited = await ctx.as(owner).get(`${api}/redirects`);
    expect(edited.body.items).toEqual([
      expect.objectContaining({ source: "/blog/*", permanent: false, destination: { kind: "external", url: "https://blog.example.com/" } }),
    ]);

    // A paste is all or nothing: one bad line (a page that does not exist) saves none, and names it.
    const bad = await creator.post(`${page}/redirects/bulk`, { _csrf: csrf, lines: "/a /welcome\n/b /no-such-page" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("/b");
    const unparsable = await creator.post(`${page}/redirects/bulk`, { _csrf: csrf, lines: "/a" });
    expect(unparsable.status).toBe(400);
    expect(unparsable.text).toContain("Line 1");
    expect((await ctx.as(owner).get(`${api}/redirects`)).body.items).toHaveLength(1);
    const pasted = await creator.post(`${page}/redirects/bulk`, {
      _csrf: csrf,
      lines: "# moved pages\n/a /welcome permanent\n/b, https://example.com/b\n\n/blog/* /welcome",
    });
    expect(pasted.status).toBe(303);
    const after = (await ctx.as(owner).get(`${api}/redirects?orderBy=source`)).body.items;
    expect(after.map((r: { source: string }) => r.source)).toEqual(["/a", "/b", "/blog/*"]);
    expect(after[2].destination.kind).toBe("site-page");

    // Readers see the list, no form, and a post is 403; guests of no space and outsiders get 404.
    const reader = await WebClient.signedIn(ctx, members.read);
    const readerPage = await form(reader, page);
    expect(readerPage.text).toContain("/blog/*");
    expect(readerPage.text).not.toContain("Add redirect");
    expect((await reader.post(`${page}/redirects`, { _csrf: readerPage.csrf, source: "/x", destination: "/welcome" })).status).toBe(403);
    expect((await editor.post(`${page}/redirects/${id}/delete`, { _csrf: (await form(editor, page)).csrf })).status).toBe(403);
    const stranger = await WebClient.signedIn(ctx, outsider);
    expect((await stranger.get(page)).status).toBe(404);

    // Another organization's redirect id is not found here.
    const other = await scenario();
    const theirs = await ctx.as(other.owner).post(`${other.api}/redirects`, {
      source: "/theirs",
      destination: { kind: "external", url: "https://example.com" },
    });
    expect(theirs.status).toBe(201);
    ({ csrf } = await form(creator, page));
    expect((await creator.post(`${page}/redirects/${theirs.body.id}/delete`, { _csrf: csrf })).status).toBe(404);
    expect((await creator.post(`${page}/redirects/${theirs.body.id}`, { _csrf: csrf, source: "/x", destination: "/welcome" })).status).toBe(
      404,
    );
    expect((await ctx.as(other.owner).get(`${other.api}/redirects`)).body.items).toHaveLength(1);

    // Delete.
    const a = after[0].id as string;
    expect((await creator.post(`${page}/redirects/${a}/delete`, { _csrf: csrf })).status).toBe(303);
    expect((await ctx.as(owner).get(`${api}/redirects`)).body.items).toHaveLength(2);
    // Bad input: a source that is not a path, a destination neither on the site nor http(s).
    expect((await creator.post(`${page}/redirects`, { _csrf: csrf, source: "old", destination: "/welcome" })).status).toBe(400);
    expect((await creator.post(`${page}/redirects`, { _csrf: csrf, source: "/x", destination: "javascript:alert(1)" })).status).toBe(400);
  });
});

describe("who has access to a site, in the web app", () => {
  it("site admins give and remove members' and teams' levels; others see the list or nothing; other organizations' ids are refused", async () => {
    const { members, owner, org, page, api, outsider } = await scenario();
    const admin = await WebClient.signedIn(ctx, owner);
    const team = await createTeam(ctx, owner, org.id, { title: "Writers" });
    let { csrf } = await form(admin, page);

    expect((await admin.post(`${page}/permissions/users`, { _csrf: csrf, email: members.comment.email, role: "admin" })).status).toBe(303);
    expect((await admin.post(`${page}/permissions/teams`, { _csrf: csrf, teamId: team.id, role: "edit" })).status).toBe(303);
    const users = await ctx.as(owner).get(`${api}/permissions/users`);
    expect(users.body.items).toEqual([
      expect.objectContaining({ permission: "admin", user: expect.objectContaining({ id: members.comment.id }) }),
    ]);
    const teams = await ctx.as(owner).get(`${api}/permissions/teams`);
    expect(teams.body.items).toEqual([expect.objectContaining({ permission: "edit" })]);

    // The member made site admin now manages access too (as the API says); a reader only sees.
    const siteAdmin = await WebClient.signedIn(ctx, members.comment);
    const adminPage = await form(siteAdmin, page);
    expect(adminPage.text).toContain("Give access");
    const reader = await WebClient.signedIn(ctx, members.read);
    const readerPage = await form(reader, page);
    expect(readerPage.text).toContain(members.comment.email);
    expect(readerPage.text).not.toContain("Give access");
    expect(
      (await reader.post(`${page}/permissions/users`, { _csrf: readerPage.csrf, userId: members.read.id, role: "admin" })).status,
    ).toBe(403);

    // Unknown address, another organization's user and team, a level that is not one: refused, nothing stored.
    ({ csrf } = await form(admin, page));
    expect((await admin.post(`${page}/permissions/users`, { _csrf: csrf, email: outsider.email, role: "read" })).status).toBe(400);
    expect((await admin.post(`${page}/permissions/users`, { _csrf: csrf, userId: outsider.id, role: "read" })).status).toBe(404);
    const other = await scenario();
    const otherTeam = await createTeam(ctx, other.owner, other.org.id, { title: "Theirs" });
    expect((await admin.post(`${page}/permissions/teams`, { _csrf: csrf, teamId: otherTeam.id, role: "read" })).status).toBe(404);
    expect((await admin.post(`${page}/permissions/users`, { _csrf: csrf, userId: members.read.id, role: "owner" })).status).toBe(400);
    expect((await ctx.as(owner).get(`${api}/permissions/users`)).body.items).toHaveLength(1);

    // Removing: "No access".
    expect((await admin.post(`${page}/permissions/users`, { _csrf: csrf, userId: members.comment.id, role: "" })).status).toBe(303);
    expect((await ctx.as(owner).get(`${api}/permissions/users`)).body.items).toEqual([]);
    // Another organization's site is not found.
    expect((await admin.get(other.page)).status).toBe(404);
    expect((await admin.post(`${other.page}/permissions/users`, { _csrf: csrf, userId: members.read.id, role: "read" })).status).toBe(404);
  });
});
