import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, TEST_PUBLIC_URL, type TestContext } from "../../../test/helpers/app.js";
import { addSection, createSite, structureOf } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** An organization with a site showing one space ("Guide"), two more spaces, and another organization's site. */
async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const { org, owner } = base;
  const api = await createSpace(ctx, owner, org.id, { title: "API" });
  const faq = await createSpace(ctx, owner, org.id, { title: "FAQ" });
  const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [base.space.id] });
  const other = await createOrgWithSpace(ctx, { title: "Theirs" });
  const otherSite = await createSite(ctx, other.owner, other.org.id, { spaces: [other.space.id] });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  return { ...base, api, faq, site, url, other, otherSite };
}

const ids = (items: { id: string }[]) => items.map((i) => i.id);

async function siteSpaces(url: string, user: Parameters<TestContext["as"]>[0], query = "") {
  const res = await ctx.as(user).get(`${url}/site-spaces${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items as { id: string; path: string; default: boolean; space: { id: string }; condition?: string; section?: string }[];
}

describe("site spaces", () => {
  it("adds spaces at the root with unique paths, lists them with the default filter", async () => {
    const { owner, url, api, space } = await scenario();
    const added = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id });
    expect(added.status).toBe(201);
    expect(added.headers.location).toBe(`${TEST_PUBLIC_URL}${url}/site-spaces/${added.body.id}`);
    expect(added.body).toMatchObject({ object: "site-space", path: "api", title: "API", default: false, space: { id: api.id }, urls: {} });
    const again = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id });
    expect(again.body.path).toBe("api-2");
    const all = await siteSpaces(url, owner);
    expect(all.map((s) => [s.space.id, s.path, s.default])).toEqual([
      [space.id, "guide", true],
      [api.id, "api", false],
      [api.id, "api-2", false],
    ]);
    expect((await siteSpaces(url, owner, "?default=true")).map((s) => s.path)).toEqual(["guide"]);
    expect((await siteSpaces(url, owner, "?default=false")).map((s) => s.path)).toEqual(["api", "api-2"]);
    const page = await ctx.as(owner).get(`${url}/site-spaces?limit=2`);
    expect(page.body.count).toBe(3);
    const rest = await ctx.as(owner).get(`${url}/site-spaces?limit=2&page=${page.body.next.page}`);
    expect(rest.body.items.map((s: { path: string }) => s.path)).toEqual(["api-2"]);
  });

  it("refuses spaces of another organization, unknown sections, and callers without rights", async () => {
    const { owner, members, outsider, url, other, api, otherSite, org } = await scenario();
    const foreign = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: other.space.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toBe(`body.spaceId names space "${other.space.id}", which does not exist in this organization.`);
    const section = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id, sectionId: "nope" });
    expect(section.status).toBe(400);
    expect(section.body.error.message).toBe('body.sectionId names section "nope", which is not a section of this site.');
    expect((await ctx.as(members.edit).post(`${url}/site-spaces`, { spaceId: api.id })).status).toBe(403);
    expect((await ctx.as(outsider).get(`${url}/site-spaces`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${url}/site-spaces`)).status).toBe(401);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${otherSite.id}/site-spaces`)).status).toBe(404);
    expect((await siteSpaces(url, owner)).length).toBe(1);
    expect((await siteSpaces(url, members.read)).length).toBe(1);
  });

  it("changes path (old path kept as a redirect), condition and space; refuses bad ones with nothing stored", async () => {
    const { owner, url, api, faq, site, other } = await scenario();
    const added = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id })).body;
    const ssUrl = `${url}/site-spaces/${added.id}`;
    const res = await ctx
      .as(owner)
      .patch(ssUrl, { path: "reference", condition: "visitor.claims.unsigned.beta === true", spaceId: faq.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ path: "reference", condition: "visitor.claims.unsigned.beta === true", space: { id: faq.id } });
    const redirects = await ctx.db
      .selectFrom("sitePathRedirects")
      .select(["fromPath", "targetType", "targetId"])
      .where("siteId", "=", site.id)
      .execute();
    expect(redirects).toEqual([{ fromPath: "api", targetType: "site-space", targetId: added.id }]);

    const syntax = await ctx.as(owner).patch(ssUrl, { condition: "visitor.claims.( == 1", path: "other" });
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.message).toMatch(/^body\.condition is not a valid expression: .* at position \d+\.$/);
    const badPath = await ctx.as(owner).patch(ssUrl, { path: "a b" });
    expect(badPath.status).toBe(400);
    expect(badPath.body.error.message).toBe(
      `body.path "a b" is not a valid path: use letters, digits, '.', '_' and '-', starting and ending with a letter or digit.`,
    );
    const taken = await ctx.as(owner).patch(ssUrl, { path: "guide" });
    expect(taken.status).toBe(400);
    expect(taken.body.error.message).toBe('body.path "guide" is already used by another site space of the root of this site.');
    const tooLong = await ctx.as(owner).patch(ssUrl, { condition: "x".repeat(1025) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toBe("body.condition must be at most 1024 characters long.");
    const foreign = await ctx.as(owner).patch(ssUrl, { spaceId: other.space.id });
    expect(foreign.status).toBe(400);
    expect((await ctx.as(owner).patch(ssUrl, {})).body).toMatchObject({
      path: "reference",
      condition: "visitor.claims.unsigned.beta === true",
    });
    const removed = await ctx.as(owner).patch(ssUrl, { condition: null });
    expect(removed.body.condition).toBeUndefined();
    expect((await ctx.as(owner).patch(`${url}/site-spaces/nope`, { path: "x" })).status).toBe(404);
  });

  it("deletes a site space (the space stays); 204 also when it is gone", async () => {
    const { owner, members, url, api } = await scenario();
    const added = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id })).body;
    expect((await ctx.as(members.read).delete(`${url}/site-spaces/${added.id}`)).status).toBe(403);
    expect((await ctx.as(owner).delete(`${url}/site-spaces/${added.id}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/site-spaces/${added.id}`)).status).toBe(204);
    expect((await siteSpaces(url, owner)).length).toBe(1);
    expect((await ctx.as(owner).get(`/v1/spaces/${api.id}`)).status).toBe(200);
  });
});

describe("sections", () => {
  it("the first section gathers the root site spaces into a home section; URLs follow sections and defaults", async () => {
    const { org, owner, url, api, faq, space, site } = await scenario();
    await ctx.as(owner).post(`${url}/publish`);
    const res = await ctx.as(owner).post(`${url}/sections`, { spaceId: api.id, title: "API Reference", icon: "code" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.location).toBe(`${TEST_PUBLIC_URL}${url}/sections/${res.body.id}`);
    const base = `${TEST_PUBLIC_URL}/s/${site.basename}`;
    expect(res.body).toMatchObject({
      object: "site-section",
      title: "API Reference",
      path: "api-reference",
      default: false,
      icon: "code",
      urls: { published: `${base}/api-reference` },
      siteSpaces: [{ path: "api", default: true, space: { id: api.id }, urls: { published: `${base}/api-reference` } }],
    });
    const sections = (await ctx.as(owner).get(`${url}/sections`)).body;
    expect(sections.count).toBe(2);
    const [home] = sections.items;
    expect(home).toMatchObject({ title: "Docs", path: "docs", default: true, urls: { published: base } });
    expect(home.siteSpaces.map((s: { space: { id: string } }) => s.space.id)).toEqual([space.id]);
    // A space added without a section goes to the home section.
    const added = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: faq.id })).body;
    expect(added).toMatchObject({ section: home.id, path: "faq", default: false, urls: { published: `${base}/faq` } });
    const structure = await structureOf(ctx, owner, org.id, site.id);
    expect(structure.type).toBe("sections");
    expect(ids(structure.structure)).toEqual([home.id, res.body.id]);
  });

  it("changes a section: path (redirect kept), default site space, condition, description; refuses bad values", async () => {
    const { org, owner, url, api, faq, site, otherSite } = await scenario();
    const section = await addSection(ctx, owner, org.id, site.id, { spaceId: api.id });
    const variant = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: faq.id, sectionId: section.id })).body;
    const sUrl = `${url}/sections/${section.id}`;
    const res = await ctx.as(owner).patch(sUrl, {
      title: "Reference",
      path: "reference",
      defaultSiteSpace: variant.id,
      condition: 'visitor.claims.plan === "enterprise"',
      description: "Every endpoint",
      icon: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      title: "Reference",
      path: "reference",
      condition: 'visitor.claims.plan === "enterprise"',
      description: "Every endpoint",
    });
    expect(res.body.siteSpaces.map((s: { id: string; default: boolean }) => [s.id, s.default])).toEqual([
      [section.siteSpaces[0]?.id, false],
      [variant.id, true],
    ]);
    const redirects = await ctx.db
      .selectFrom("sitePathRedirects")
      .select(["fromPath", "targetType"])
      .where("siteId", "=", site.id)
      .execute();
    expect(redirects).toEqual([{ fromPath: "api", targetType: "site-section" }]);

    const taken = await ctx.as(owner).patch(sUrl, { path: "docs" });
    expect(taken.status).toBe(400);
    expect(taken.body.error.message).toBe('body.path "docs" is already used by another section of this site.');
    const foreignDefault = await ctx.as(owner).patch(sUrl, { defaultSiteSpace: otherSite.id, title: "Changed" });
    expect(foreignDefault.status).toBe(400);
    expect(foreignDefault.body.error.message).toBe(
      `body.defaultSiteSpace names site space "${otherSite.id}", which is not in section "${section.id}".`,
    );
    const syntax = await ctx.as(owner).patch(sUrl, { condition: "a ===", title: "Changed" });
    expect(syntax.status).toBe(400);
    expect(syntax.body.error.message).toMatch(/^body\.condition is not a valid expression: .*position \d+\.$/);
    expect((await ctx.as(owner).get(`${url}/sections`)).body.items[1].title).toBe("Reference");
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}/sites/${otherSite.id}/sections/${section.id}`, { title: "x y" })).status).toBe(
      404,
    );
  });

  it("deletes a section with its site spaces; the spaces stay", async () => {
    const { org, owner, url, api, site } = await scenario();
    const section = await addSection(ctx, owner, org.id, site.id, { spaceId: api.id });
    expect((await ctx.as(owner).delete(`${url}/sections/${section.id}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/sections/${section.id}`)).status).toBe(204);
    expect((await ctx.as(owner).get(`${url}/sections`)).body.count).toBe(1);
    expect((await siteSpaces(url, owner)).map((s) => s.space.id)).not.toContain(api.id);
    expect((await ctx.as(owner).get(`/v1/spaces/${api.id}`)).status).toBe(200);
  });
});

describe("section groups and moves", () => {
  /** A site with sections Docs (home), API and FAQ. */
  async function sectioned() {
    const s = await scenario();
    const apiSection = await addSection(ctx, s.owner, s.org.id, s.site.id, { spaceId: s.api.id });
    const faqSection = await addSection(ctx, s.owner, s.org.id, s.site.id, { spaceId: s.faq.id });
    const home = (await ctx.as(s.owner).get(`${s.url}/sections`)).body.items[0];
    return { ...s, apiSection, faqSection, home };
  }
  const rootOrder = async (s: Awaited<ReturnType<typeof sectioned>>) =>
    ids((await structureOf(ctx, s.owner, s.org.id, s.site.id)).structure);

  it("creates groups with sections and a parent, nests them, adds and removes sections, deletes a group", async () => {
    const s = await sectioned();
    const { owner, url, apiSection, faqSection, home } = s;
    const res = await ctx.as(owner).post(`${url}/section-groups`, { title: "Reference", icon: "book", sections: [apiSection.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      object: "site-section-group",
      title: "Reference",
      icon: "book",
      sections: [{ id: apiSection.id, sectionGroup: res.body.id }],
    });
    const group = res.body;
    const nested = (await ctx.as(owner).post(`${url}/section-groups`, { title: "More", parent: group.id })).body;
    expect(nested.sectionGroup).toBe(group.id);
    const added = await ctx.as(owner).post(`${url}/section-groups/${nested.id}/sections`, { sectionId: faqSection.id });
    expect(added.status).toBe(201);
    expect(ids(added.body.children)).toEqual([faqSection.id]);
    const groups = (await ctx.as(owner).get(`${url}/section-groups`)).body;
    expect(ids(groups.items)).toEqual([group.id, nested.id]);
    expect(groups.items[0].children.map((c: { object: string; id: string }) => [c.object, c.id])).toEqual([
      ["site-section", apiSection.id],
      ["site-section-group", nested.id],
    ]);
    expect(await rootOrder(s)).toEqual([home.id, group.id]);

    expect((await ctx.as(owner).delete(`${url}/section-groups/${nested.id}/sections/${faqSection.id}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/section-groups/${nested.id}/sections/${faqSection.id}`)).status).toBe(204);
    const after = (await ctx.as(owner).get(`${url}/section-groups`)).body.items[0];
    expect(ids(after.children)).toEqual([apiSection.id, nested.id, faqSection.id]);

    expect((await ctx.as(owner).delete(`${url}/section-groups/${group.id}`)).status).toBe(204);
    expect(await rootOrder(s)).toEqual([home.id, apiSection.id, faqSection.id]);
    const left = (await ctx.as(owner).get(`${url}/section-groups`)).body.items;
    expect(left.map((g: { id: string; sectionGroup?: string }) => [g.id, g.sectionGroup])).toEqual([[nested.id, undefined]]);
  });

  it("refuses unknown and foreign ids in group bodies", async () => {
    const s = await sectioned();
    const { owner, url, otherSite } = s;
    const badSection = await ctx.as(owner).post(`${url}/section-groups`, { title: "G", sections: [otherSite.id] });
    expect(badSection.status).toBe(400);
    expect(badSection.body.error.message).toBe(`body.sections[0] names section "${otherSite.id}", which is not a section of this site.`);
    const badParent = await ctx.as(owner).post(`${url}/section-groups`, { title: "G", parent: "nope" });
    expect(badParent.status).toBe(400);
    expect(badParent.body.error.message).toBe('body.parent names section group "nope", which is not a section group of this site.');
    const group = (await ctx.as(owner).post(`${url}/section-groups`, { title: "G" })).body;
    const badAdd = await ctx.as(owner).post(`${url}/section-groups/${group.id}/sections`, { sectionId: "nope" });
    expect(badAdd.status).toBe(400);
    expect(badAdd.body.error.message).toBe('body.sectionId names section "nope", which is not a section of this site.');
    expect((await ctx.as(owner).get(`${url}/section-groups`)).body.count).toBe(1);
    expect((await ctx.as(owner).patch(`${url}/section-groups/${group.id}`, { title: "Guides" })).body.title).toBe("Guides");
    expect((await ctx.as(owner).patch(`${url}/section-groups/nope`, { title: "Guides" })).status).toBe(404);
  });

  it("sorts items; bad positions are precise 400s and nothing moves", async () => {
    const s = await sectioned();
    const { owner, url, apiSection, faqSection, home } = s;
    const sort = (body: unknown) => ctx.as(owner).patch(`${url}/structure/sort`, body);
    const moved = await sort({
      item: { type: "site-section", id: faqSection.id },
      position: { before: { type: "site-section", id: home.id } },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ object: "site-section", id: faqSection.id });
    expect(await rootOrder(s)).toEqual([faqSection.id, home.id, apiSection.id]);
    const between = await sort({
      item: { type: "site-section", id: apiSection.id },
      position: { after: { type: "site-section", id: faqSection.id }, before: { type: "site-section", id: home.id } },
    });
    expect(between.status).toBe(200);
    expect(await rootOrder(s)).toEqual([faqSection.id, apiSection.id, home.id]);

    const group = (await ctx.as(owner).post(`${url}/section-groups`, { title: "G", sections: [apiSection.id] })).body;
    const inner = (await ctx.as(owner).post(`${url}/section-groups`, { title: "Inner", parent: group.id })).body;
    const cases: [unknown, string][] = [
      [
        { item: { type: "site-section-group", id: group.id }, position: { after: { type: "site-section-group", id: inner.id } } },
        `Invalid position: it would put section group "${group.id}" inside itself.`,
      ],
      [
        { item: { type: "site-section", id: home.id }, position: { before: { type: "site-space", id: home.siteSpaces[0].id } } },
        "Invalid position: body.position.before points at a site-space, but a site-section can only be placed next to a site-section or a site-section-group.",
      ],
      [
        { item: { type: "site-section", id: home.id }, position: { before: { type: "site-section", id: s.otherSite.id } } },
        `Invalid position: body.position.before names site-section "${s.otherSite.id}", which is not in this site.`,
      ],
      [
        { item: { type: "site-section", id: home.id }, position: { after: { type: "site-section", id: home.id } } },
        "Invalid position: body.position.after is the site-section being moved; an item cannot be placed next to itself.",
      ],
      [
        {
          item: { type: "site-section", id: home.id },
          position: { after: { type: "site-section", id: faqSection.id }, before: { type: "site-section-group", id: inner.id } },
        },
        "Invalid position: body.position.after and body.position.before are not in the same place of the site.",
      ],
    ];
    const before = await structureOf(ctx, owner, s.org.id, s.site.id);
    for (const [body, message] of cases) {
      const res = await sort(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect(await structureOf(ctx, owner, s.org.id, s.site.id)).toEqual(before);
    expect((await sort({ item: { type: "site-section", id: "nope" }, position: {} })).status).toBe(404);
    expect(
      (await ctx.as(s.members.read).patch(`${url}/structure/sort`, { item: { type: "site-section", id: home.id }, position: {} })).status,
    ).toBe(403);

    // A group moves into another group, and a section out of one.
    const out = await sort({
      item: { type: "site-section", id: apiSection.id },
      position: { after: { type: "site-section", id: home.id } },
    });
    expect(out.body.sectionGroup).toBeUndefined();
    // The group, left with an empty group only, is hidden from readers but still listed.
    expect(await rootOrder(s)).toEqual([faqSection.id, home.id, apiSection.id]);
    expect(ids((await ctx.as(owner).get(`${url}/section-groups`)).body.items)).toEqual([group.id, inner.id]);
  });

  it("keeps the deprecated moves, with their own pointer shapes", async () => {
    const s = await sectioned();
    const { owner, url, apiSection, faqSection, home, api, faq } = s;
    const section = await ctx.as(owner).post(`${url}/sections/${faqSection.id}/move`, {
      position: { before: { type: "site-section", siteSection: home.id } },
    });
    expect(section.status, JSON.stringify(section.body)).toBe(200);
    expect(await rootOrder(s)).toEqual([faqSection.id, home.id, apiSection.id]);
    const group = (await ctx.as(owner).post(`${url}/section-groups`, { title: "G", sections: [apiSection.id] })).body;
    const groupMove = await ctx.as(owner).post(`${url}/section-groups/${group.id}/move`, {
      position: { before: { type: "site-section", id: faqSection.id } },
    });
    expect(groupMove.status).toBe(200);
    expect(await rootOrder(s)).toEqual([group.id, faqSection.id, home.id]);
    const a = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id, sectionId: home.id })).body;
    const b = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: faq.id, sectionId: home.id })).body;
    const ssMove = await ctx
      .as(owner)
      .post(`${url}/site-spaces/${b.id}/move`, { position: { after: { type: "site-space", siteSpace: home.siteSpaces[0].id } } });
    expect(ssMove.status).toBe(200);
    const homeNow = (await ctx.as(owner).get(`${url}/sections`)).body.items.find((x: { id: string }) => x.id === home.id);
    expect(ids(homeNow.siteSpaces)).toEqual([home.siteSpaces[0].id, b.id, a.id]);
    // A site space moved to another section keeps its path, which must be free there, and leaves a redirect.
    const taken = await ctx.as(owner).post(`${url}/site-spaces/${b.id}/move`, {
      position: { before: { type: "site-space", siteSpace: faqSection.siteSpaces[0]?.id } },
    });
    expect(taken.status).toBe(400);
    expect(taken.body.error.message).toBe(
      `Invalid position: section "${faqSection.id}" already has a site space with path "faq"; change the path of site space "${b.id}" first.`,
    );
    const across = await ctx.as(owner).post(`${url}/site-spaces/${a.id}/move`, {
      position: { before: { type: "site-space", siteSpace: faqSection.siteSpaces[0]?.id } },
    });
    expect(across.status).toBe(200);
    expect(across.body).toMatchObject({ section: faqSection.id, path: "api" });
    const redirect = await ctx.db.selectFrom("sitePathRedirects").select(["fromPath", "targetId"]).where("targetId", "=", a.id).execute();
    expect(redirect).toEqual([{ fromPath: `${home.path}/api`, targetId: a.id }]);
  });
});

describe("another organization's ids", () => {
  it("are 400s naming the field in bodies and 404s in paths, and change nothing", async () => {
    const s = await scenario();
    const { owner, org, url, api, site } = s;
    const ours = await addSection(ctx, owner, org.id, site.id, { spaceId: api.id });
    const ourGroup = (await ctx.as(owner).post(`${url}/section-groups`, { title: "Ours" })).body;
    // The other organization's site, with a section, a group and site spaces of its own.
    const theirs = s.other;
    const theirSpace = await createSpace(ctx, theirs.owner, theirs.org.id, { title: "Their API" });
    const theirSection = await addSection(ctx, theirs.owner, theirs.org.id, s.otherSite.id, { spaceId: theirSpace.id });
    const theirUrl = `/v1/orgs/${theirs.org.id}/sites/${s.otherSite.id}`;
    const theirGroup = (await ctx.as(theirs.owner).post(`${theirUrl}/section-groups`, { title: "Theirs" })).body;
    const theirSiteSpace = theirSection.siteSpaces[0]?.id ?? "";
    const ourSiteSpace = ours.siteSpaces[0]?.id ?? "";

    const before = await structureOf(ctx, owner, org.id, site.id);
    const bodies: [string, string, unknown, string][] = [
      ["post", `${url}/site-spaces`, { spaceId: api.id, sectionId: theirSection.id }, `body.sectionId names section "${theirSection.id}"`],
      ["patch", `${url}/site-spaces/${ourSiteSpace}`, { spaceId: theirSpace.id }, `body.spaceId names space "${theirSpace.id}"`],
      ["post", `${url}/sections`, { spaceId: theirSpace.id }, `body.spaceId names space "${theirSpace.id}"`],
      [
        "patch",
        `${url}/sections/${ours.id}`,
        { defaultSiteSpace: theirSiteSpace },
        `body.defaultSiteSpace names site space "${theirSiteSpace}"`,
      ],
      ["patch", url, { defaultSiteSpace: theirSiteSpace }, `body.defaultSiteSpace names site space "${theirSiteSpace}"`],
      ["patch", url, { defaultSiteSection: theirSection.id }, `body.defaultSiteSection names section "${theirSection.id}"`],
      ["post", `${url}/section-groups`, { title: "G", sections: [theirSection.id] }, `body.sections[0] names section "${theirSection.id}"`],
      ["post", `${url}/section-groups`, { title: "G", parent: theirGroup.id }, `body.parent names section group "${theirGroup.id}"`],
      [
        "post",
        `${url}/section-groups/${ourGroup.id}/sections`,
        { sectionId: theirSection.id },
        `body.sectionId names section "${theirSection.id}"`,
      ],
      [
        "patch",
        `${url}/structure/sort`,
        { item: { type: "site-section", id: ours.id }, position: { before: { type: "site-section", id: theirSection.id } } },
        `body.position.before names site-section "${theirSection.id}"`,
      ],
      [
        "patch",
        `${url}/structure/sort`,
        { item: { type: "site-section", id: ours.id }, position: { after: { type: "site-section-group", id: theirGroup.id } } },
        `body.position.after names site-section-group "${theirGroup.id}"`,
      ],
      [
        "patch",
        `${url}/structure/sort`,
        { item: { type: "site-space", id: ourSiteSpace }, position: { after: { type: "site-space", id: theirSiteSpace } } },
        `body.position.after names site-space "${theirSiteSpace}"`,
      ],
      [
        "post",
        `${url}/site-spaces/${ourSiteSpace}/move`,
        { position: { before: { type: "site-space", siteSpace: theirSiteSpace } } },
        `body.position.before names site-space "${theirSiteSpace}"`,
      ],
      [
        "post",
        `${url}/sections/${ours.id}/move`,
        { position: { before: { type: "site-section", siteSection: theirSection.id } } },
        `body.position.before names site-section "${theirSection.id}"`,
      ],
      [
        "post",
        `${url}/section-groups/${ourGroup.id}/move`,
        { position: { before: { type: "site-section-group", id: theirGroup.id } } },
        `body.position.before names site-section-group "${theirGroup.id}"`,
      ],
    ];
    for (const [method, path, body, message] of bodies) {
      const res = method === "post" ? await ctx.as(owner).post(path, body) : await ctx.as(owner).patch(path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error.message).toContain(message);
    }
    const paths: [string, string, unknown][] = [
      ["patch", `${url}/site-spaces/${theirSiteSpace}`, { path: "x" }],
      ["patch", `${url}/sections/${theirSection.id}`, { title: "Mine" }],
      ["patch", `${url}/section-groups/${theirGroup.id}`, { title: "Mine" }],
      ["post", `${url}/section-groups/${theirGroup.id}/sections`, { sectionId: ours.id }],
      ["patch", `${url}/structure/sort`, { item: { type: "site-section-group", id: theirGroup.id }, position: {} }],
      ["patch", `/v1/orgs/${org.id}/sites/${s.otherSite.id}/sections/${theirSection.id}`, { title: "Mine" }],
    ];
    for (const [method, path, body] of paths) {
      const res = method === "post" ? await ctx.as(owner).post(path, body) : await ctx.as(owner).patch(path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // Deletions through our site do not reach theirs.
    expect((await ctx.as(owner).delete(`${url}/sections/${theirSection.id}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/site-spaces/${theirSiteSpace}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/section-groups/${theirGroup.id}`)).status).toBe(204);
    expect((await ctx.as(owner).delete(`${url}/section-groups/${ourGroup.id}/sections/${theirSection.id}`)).status).toBe(204);
    expect(await structureOf(ctx, owner, org.id, site.id)).toEqual(before);
    const theirStructure = await structureOf(ctx, theirs.owner, theirs.org.id, s.otherSite.id);
    expect(theirStructure.structure.map((i) => i.id)).toContain(theirSection.id);
    expect((await ctx.as(theirs.owner).get(`${theirUrl}/section-groups`)).body.count).toBe(1);
  });
});

describe("concurrent writes", () => {
  it("follow each other under the site's lock: twelve additions of one space get twelve distinct paths and positions", async () => {
    const { owner, url, api } = await scenario();
    const results = await Promise.all(Array.from({ length: 12 }, () => ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const paths = (await siteSpaces(url, owner)).map((s) => s.path);
    expect(new Set(paths).size).toBe(13);
    const positions = await ctx.db
      .selectFrom("siteSpaces")
      .select("position")
      .where("siteId", "=", url.split("/").pop() ?? "")
      .execute();
    expect(new Set(positions.map((p) => p.position)).size).toBe(13);
  });
});
