/**
 * Nobody exposes a space they cannot read: a member with the create role, on a site that shows a
 * space restricted from them, cannot publish the site, share it, preview it, widen its visibility,
 * its claims or its conditions, nor get the key that signs its visitor tokens. What only narrows
 * (unpublish, delete a share link, a narrower visibility, a new condition) stays open to them, and
 * a creator who can read every space keeps every right. Anonymous readers are the proof: the
 * restricted text reaches them only through someone who could read it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { addMemberToOrg, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import { addSection, createSite } from "../../../test/helpers/sites.factories.js";
import { createSpace, grant, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const SECRET = "Salary bands for 2026";

/**
 * An organization with an open space and a restricted one (no default access; edit granted to
 * `trusted`, a second member with the create role). `creator` (members.create) cannot read it.
 */
async function scenario() {
  const roles = await createOrgWithRoles(ctx);
  const { owner, org } = roles;
  const open = await createSpace(ctx, owner, org.id, { title: "Guide" });
  const restricted = await createSpace(ctx, owner, org.id, { title: "HR" });
  await setDefaultLevel(ctx, owner, { space: restricted.id }, null);
  await commitContent(ctx, open.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Open to all."] }] });
  await commitContent(ctx, restricted.id, { pages: [{ title: "Pay", slug: "pay", paragraphs: [SECRET] }] });
  const trusted = await createUser(ctx, { displayName: "Trusted creator" });
  await addMemberToOrg(ctx, org.id, trusted, "create");
  await grant(ctx, owner, { space: restricted.id }, "edit", { users: [trusted.id] });
  const creator = roles.members.create;
  // The creator really cannot read it (the premise of every test below).
  expect((await ctx.as(creator).get(`/v1/spaces/${restricted.id}`)).status).toBe(404);
  return { ...roles, open, restricted, trusted, creator };
}

type Scenario = Awaited<ReturnType<typeof scenario>>;

/** A site showing both spaces (at its root), made by the organization's owner; its site spaces by space. */
async function siteOfBoth(s: Scenario, body: Record<string, unknown> = {}) {
  const site = await createSite(ctx, s.owner, s.org.id, { title: "People", spaces: [s.open.id, s.restricted.id], ...body });
  const url = `/v1/orgs/${s.org.id}/sites/${site.id}`;
  const items = (await ctx.as(s.owner).get(`${url}/site-spaces`)).body.items as { id: string; space: { id: string } }[];
  const siteSpaceOf = (spaceId: string) => items.find((i) => i.space.id === spaceId)?.id as string;
  return { site, url, openSiteSpace: siteSpaceOf(s.open.id), restrictedSiteSpace: siteSpaceOf(s.restricted.id) };
}

function expectExposureRefused(res: { status: number; body: any }, siteSpaceId: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.error.message).toContain(`site space "${siteSpaceId}" of this site shows a space you cannot read`);
  expect(res.body.error.message).toContain("Ask an organization admin");
}

async function llmsFull(basename: string, key: string) {
  return ctx.anonymous.get(`/s/${basename}/${key}/llms-full.txt`);
}

describe("a creator who cannot read a space of the site", () => {
  it("cannot publish it, share it or preview it; one who can read it can, and only then do anonymous readers see the text", async () => {
    const s = await scenario();
    const { site, url, restrictedSiteSpace } = await siteOfBoth(s, { visibility: "share-link" });

    expectExposureRefused(await ctx.as(s.creator).post(`${url}/publish`), restrictedSiteSpace);
    expectExposureRefused(await ctx.as(s.creator).post(`${url}/share-links`, { name: "Leak" }), restrictedSiteSpace);
    expectExposureRefused(await ctx.as(s.creator).get(`${url}/publishing/preview`), restrictedSiteSpace);
    expect((await ctx.as(s.owner).get(url)).body.published).toBe(false);
    expect((await ctx.as(s.owner).get(`${url}/share-links`)).body.count).toBe(0);

    // Their permissions say so, in the site and in the list.
    const own = await ctx.as(s.creator).get(url);
    expect(own.body.permissions).toEqual({ view: true, edit: true, publish: false, manageShareLinks: false, admin: false });
    const listed = await ctx.as(s.creator).get(`/v1/orgs/${s.org.id}/sites`);
    expect(listed.body.items.find((i: { id: string }) => i.id === site.id).permissions).toMatchObject({
      publish: false,
      manageShareLinks: false,
    });
    const trustedView = await ctx.as(s.trusted).get(url);
    expect(trustedView.body.permissions).toMatchObject({ publish: true, manageShareLinks: true });

    // A creator who reads both spaces publishes and shares: the link shows the restricted text.
    expect((await ctx.as(s.trusted).post(`${url}/publish`)).status).toBe(200);
    const link = await ctx.as(s.trusted).post(`${url}/share-links`, { name: "Board" });
    expect(link.status).toBe(201);
    const key = link.body.urls.published.split("/").pop();
    const full = await llmsFull(site.basename, key);
    expect(full.status).toBe(200);
    expect(full.text).toContain(SECRET);
    const preview = await ctx.as(s.trusted).get(`${url}/publishing/preview`);
    expect(preview.status).toBe(200);

    // The creator sees the link listed without its key, and cannot read it back through a change.
    const links = await ctx.as(s.creator).get(`${url}/share-links`);
    expect(links.body.items).toEqual([expect.objectContaining({ id: link.body.id, urls: {} })]);
    expect(links.text).not.toContain(key);
    const renamed = await ctx.as(s.creator).patch(`${url}/share-links/${link.body.id}`, { name: "Mine now" });
    expectExposureRefused(renamed, restrictedSiteSpace);
    expect(renamed.text).not.toContain(key);

    // What only narrows stays open to them: deleting the link, unpublishing.
    expect((await ctx.as(s.creator).delete(`${url}/share-links/${link.body.id}`)).status).toBe(204);
    expect((await llmsFull(site.basename, key)).status).toBe(404);
    const unpublished = await ctx.as(s.creator).post(`${url}/unpublish`);
    expect(unpublished.status).toBe(200);
    expect(unpublished.body.published).toBe(false);

    // Once the restricted space is off the site, the creator may publish and share it.
    expect((await ctx.as(s.owner).delete(`${url}/site-spaces/${restrictedSiteSpace}`)).status).toBe(204);
    expect((await ctx.as(s.creator).post(`${url}/publish`)).status).toBe(200);
    const theirs = await ctx.as(s.creator).post(`${url}/share-links`, { name: "Guide only" });
    expect(theirs.status).toBe(201);
    const guide = await llmsFull(site.basename, theirs.body.urls.published.split("/").pop());
    expect(guide.text).toContain("Open to all.");
    expect(guide.text).not.toContain(SECRET);
  });

  it("cannot widen the site's visibility or let agents in, but may narrow them", async () => {
    const s = await scenario();
    const { url, restrictedSiteSpace } = await siteOfBoth(s, { visibility: "share-link" });
    for (const visibility of ["public", "unlisted", "visitor-auth"]) {
      expectExposureRefused(await ctx.as(s.creator).patch(url, { visibility }), restrictedSiteSpace);
    }
    expect((await ctx.as(s.owner).get(url)).body.visibility).toBe("share-link");
    // Other settings are not exposure.
    const renamed = await ctx.as(s.creator).patch(url, { title: "People docs", visibility: "share-link" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);

    expect((await ctx.as(s.owner).patch(url, { visibility: "public", agentsContext: "excluded" })).status).toBe(200);
    expect((await ctx.as(s.creator).patch(url, { visibility: "unlisted" })).status).toBe(200);
    expect((await ctx.as(s.creator).patch(url, { visibility: "share-link" })).status).toBe(200);
    expectExposureRefused(await ctx.as(s.creator).patch(url, { agentsContext: "included" }), restrictedSiteSpace);
    expect((await ctx.as(s.owner).get(url)).body).toMatchObject({ visibility: "share-link", agentsContext: "excluded" });
    expect((await ctx.as(s.trusted).patch(url, { visibility: "public", agentsContext: "included" })).status).toBe(200);
  });

  it("cannot change the adaptive schema nor see or change the visitor-token key, even on a site they created", async () => {
    const s = await scenario();
    // The creator's own site, showing the open space; the owner adds the restricted one.
    const site = await createSite(ctx, s.creator, s.org.id, { title: "Mine", visibility: "visitor-auth", spaces: [s.open.id] });
    const url = `/v1/orgs/${s.org.id}/sites/${site.id}`;
    const auth = await ctx.as(s.creator).get(`${url}/publishing/auth`);
    expect(auth.status).toBe(200);
    const added = await ctx.as(s.owner).post(`${url}/site-spaces`, { spaceId: s.restricted.id });
    expect(added.status).toBe(201);

    const schema = { type: "object", additionalProperties: false, properties: { beta: { type: "boolean", description: "Beta" } } };
    expectExposureRefused(await ctx.as(s.creator).put(`${url}/adaptive-schema`, { jsonSchema: schema }), added.body.id);
    const key = await ctx.as(s.creator).get(`${url}/publishing/auth`);
    expectExposureRefused(key, added.body.id);
    expect(key.text).not.toContain(auth.body.privateKey);
    expectExposureRefused(await ctx.as(s.creator).patch(`${url}/publishing/auth`, { backend: "custom" }), added.body.id);
    expectExposureRefused(await ctx.as(s.creator).post(`${url}/publishing/auth/regenerate`), added.body.id);
    expect((await ctx.as(s.owner).get(`${url}/publishing/auth`)).body.privateKey).toBe(auth.body.privateKey);
    expect((await ctx.as(s.owner).get(`${url}/adaptive-schema`)).status).toBe(404);
    // Still the site's creator: deleting it (which exposes nothing) is theirs.
    expect((await ctx.as(s.creator).get(url)).body.permissions.admin).toBe(true);
  });

  it("cannot lift or change the conditions that gate the space, nor move it to another section", async () => {
    const s = await scenario();
    const site = await createSite(ctx, s.owner, s.org.id, { title: "Sectioned", spaces: [s.open.id] });
    const url = `/v1/orgs/${s.org.id}/sites/${site.id}`;
    const hr = await addSection(ctx, s.owner, s.org.id, site.id, { spaceId: s.restricted.id, title: "HR" });
    const gated = hr.siteSpaces[0]?.id as string;
    const home = (await ctx.as(s.owner).get(`${url}/sections`)).body.items.find((i: { id: string }) => i.id !== hr.id);
    const openSiteSpace = home.siteSpaces[0].id as string;
    const condition = "visitor.claims.hr === true";
    expect((await ctx.as(s.owner).patch(`${url}/sections/${hr.id}`, { condition })).status).toBe(200);
    expect((await ctx.as(s.owner).patch(`${url}/site-spaces/${gated}`, { condition })).status).toBe(200);

    expectExposureRefused(await ctx.as(s.creator).patch(`${url}/site-spaces/${gated}`, { condition: null }), gated);
    expectExposureRefused(await ctx.as(s.creator).patch(`${url}/site-spaces/${gated}`, { condition: "true" }), gated);
    expectExposureRefused(await ctx.as(s.creator).patch(`${url}/sections/${hr.id}`, { condition: null }), gated);
    expectExposureRefused(
      await ctx.as(s.creator).patch(`${url}/structure/sort`, {
        item: { type: "site-space", id: gated },
        position: { before: { type: "site-space", id: openSiteSpace } },
      }),
      gated,
    );
    expectExposureRefused(
      await ctx.as(s.creator).post(`${url}/site-spaces/${gated}/move`, {
        position: { before: { type: "site-space", siteSpace: openSiteSpace } },
      }),
      gated,
    );
    const after = await ctx.as(s.owner).get(`${url}/site-spaces/${gated}/customization`);
    expect(after.status).toBe(200);
    const stored = (await ctx.as(s.owner).get(`${url}/sections`)).body.items.find((i: { id: string }) => i.id === hr.id);
    expect(stored).toMatchObject({ condition, siteSpaces: [{ id: gated, condition }] });

    // What does not widen who reads it is allowed: its path, the section's title, a condition
    // on the open space, a move inside its section.
    expect((await ctx.as(s.creator).patch(`${url}/site-spaces/${gated}`, { path: "people" })).status).toBe(200);
    expect((await ctx.as(s.creator).patch(`${url}/sections/${hr.id}`, { title: "People" })).status).toBe(200);
    expect((await ctx.as(s.creator).patch(`${url}/site-spaces/${openSiteSpace}`, { condition: "true" })).status).toBe(200);
    expect((await ctx.as(s.creator).patch(`${url}/site-spaces/${openSiteSpace}`, { condition: null })).status).toBe(200);
    expect((await ctx.as(s.creator).patch(`${url}/structure/sort`, { item: { type: "site-space", id: gated }, position: {} })).status).toBe(
      200,
    );

    // A creator who reads it may.
    expect((await ctx.as(s.trusted).patch(`${url}/site-spaces/${gated}`, { condition: null })).status).toBe(200);
    expect((await ctx.as(s.trusted).patch(`${url}/sections/${hr.id}`, { condition: null })).status).toBe(200);
  });

  it("cannot show it on a site: it is refused like a space that does not exist", async () => {
    const s = await scenario();
    const site = await createSite(ctx, s.creator, s.org.id, { title: "Mine", spaces: [s.open.id] });
    const url = `/v1/orgs/${s.org.id}/sites/${site.id}`;
    const notThere = `which does not exist in this organization.`;
    for (const [res, field] of [
      [await ctx.as(s.creator).post(`${url}/site-spaces`, { spaceId: s.restricted.id }), "body.spaceId"],
      [await ctx.as(s.creator).post(`${url}/sections`, { spaceId: s.restricted.id }), "body.spaceId"],
      [await ctx.as(s.creator).post(`/v1/orgs/${s.org.id}/sites`, { spaces: [s.restricted.id] }), "body.spaces[0]"],
    ] as const) {
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(`${field} names space "${s.restricted.id}", ${notThere}`);
    }
    // Readable but not editable: 403.
    await grant(ctx, s.owner, { space: s.restricted.id }, "read", { users: [s.creator.id] });
    const readOnly = await ctx.as(s.creator).post(`${url}/site-spaces`, { spaceId: s.restricted.id });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.message).toBe(`You need at least the edit level on space "${s.restricted.id}" to show it on a site.`);
  });
});

// A creator who loses read on a space after the site was shared: existing links keep working (they
// were made by someone who could read it), but the creator cannot read their keys nor make new ones.
describe("losing access to a space of a site", () => {
  it("takes away the share-link keys and the right to publish", async () => {
    const s = await scenario();
    const user: TestUser = s.trusted;
    const { url, restrictedSiteSpace } = await siteOfBoth(s, { visibility: "share-link" });
    const link = await ctx.as(user).post(`${url}/share-links`, { name: "Board" });
    expect(link.status).toBe(201);
    expect((await ctx.as(user).get(`${url}/share-links`)).body.items[0].urls.published).toBe(link.body.urls.published);
    await grant(ctx, s.owner, { space: s.restricted.id }, null, { users: [user.id] });
    expect((await ctx.as(user).get(`${url}/share-links`)).body.items[0].urls).toEqual({});
    expectExposureRefused(await ctx.as(user).post(`${url}/publish`), restrictedSiteSpace);
  });
});
