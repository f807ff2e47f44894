/**
 * The role x route matrix of sites, site spaces, sections, section groups, share links, preview
 * and publishing, customization, translations and `POST {org}/ping`: every route of these
 * families (taken from the application's own route table, so a new route without an entry fails
 * the first test) against every persona, each cell the exact status, and the data unchanged
 * whenever a call is refused. It extends src/permissions/permissions.matrix.test.ts (spaces and
 * collections) with the personas exposure needs: a creator who cannot read a restricted space the
 * site shows, and one who can.
 *
 * The site every cell works on shows an open space (home section) and the restricted one (section
 * "HR", in a group, behind a condition on the section and on its site space), has a share link
 * and an adaptive schema, and is not published. Writes get a fresh site per cell; reads share one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type Requester, type TestContext, type TestResponse, type TestUser } from "../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createOrgWithRoles, createUser } from "../../test/helpers/factories.js";
import { reportedEvent } from "../../test/helpers/insights.factories.js";
import { addSection, createSite } from "../../test/helpers/sites.factories.js";
import { createSpace, createTeam, grant, setDefaultLevel, snapshot } from "../../test/helpers/spaces.factories.js";

let ctx: TestContext;
let fx: Awaited<ReturnType<typeof fixture>>;
let shared: SiteIds;
let sharedTranslations: { open: string; restricted: string };
beforeAll(async () => {
  ctx = await createTestContext();
  fx = await fixture();
  shared = await buildSite();
  sharedTranslations = {
    open: await translationOf(fx.open.id),
    restricted: await translationOf(fx.restricted.id),
  };
}, 120_000);
afterAll(() => ctx.close());

const PERSONAS = ["admin", "creator", "creatorReader", "editor", "reader", "guest", "otherOrg", "anonymous"] as const;
type Who = (typeof PERSONAS)[number];
type Expected = number | "noop";
type Row = Record<Who, Expected>;

/** Expected statuses, in PERSONAS order. "noop": 204 and nothing changed (a DELETE of what the caller cannot see). */
const r = (...statuses: Expected[]): Row => Object.fromEntries(PERSONAS.map((who, i) => [who, statuses[i] as Expected])) as Row;
/** Reads of a site: members with a role; guests and other organizations do not see it. */
const READ = r(200, 200, 200, 200, 200, 404, 404, 401);
/** Changes that need the create role (`edit` on the site) and expose nothing. */
const EDIT = (ok: number) => r(ok, ok, ok, 403, 403, 404, 404, 401);
/** Changes that let more people read the site: the create role and read on every space concerned. */
const EXPOSE = (ok: number) => r(ok, 403, ok, 403, 403, 404, 404, 401);
/** Showing the restricted space on a site: unseen by the creator, so refused like an unknown id. */
const SHOW_RESTRICTED = (ok: number) => r(ok, 400, ok, 403, 403, 404, 404, 401);

/**
 * The organization: an owner who builds everything, a member per persona, an open space and a
 * restricted one (no default access; edit for `creatorReader`), and a member of another
 * organization. The guest reads the open space through a grant.
 */
async function fixture() {
  const roles = await createOrgWithRoles(ctx);
  const { owner, org, members } = roles;
  const open = await createSpace(ctx, owner, org.id, { title: "Guide" });
  const restricted = await createSpace(ctx, owner, org.id, { title: "HR" });
  await setDefaultLevel(ctx, owner, { space: restricted.id }, null);
  const creatorReader = await createUser(ctx, { displayName: "Creator who reads HR" });
  await addMemberToOrg(ctx, org.id, creatorReader, "create");
  await grant(ctx, owner, { space: restricted.id }, "edit", { users: [creatorReader.id] });
  await grant(ctx, owner, { space: open.id }, "read", { users: [members.guest.id] });
  const otherOrg = await createUser(ctx, { displayName: "Member of another organization" });
  await createOrganization(ctx, otherOrg, "Elsewhere");
  const users: Record<Exclude<Who, "anonymous">, TestUser> = {
    admin: members.admin,
    creator: members.create,
    creatorReader,
    editor: members.edit,
    reader: members.read,
    guest: members.guest,
    otherOrg,
  };
  const team = await createTeam(ctx, org.id, [members.read]);
  return { owner, org, open, restricted, users, team };
}

function as(who: Who): Requester {
  return who === "anonymous" ? ctx.anonymous : ctx.as(fx.users[who]);
}

interface SiteIds {
  siteId: string;
  url: string;
  home: string;
  hr: string;
  group: string;
  openSiteSpace: string;
  restrictedSiteSpace: string;
  link: string;
}

const CONDITION = "visitor.claims.hr === true";
const SCHEMA = { type: "object", additionalProperties: false, properties: { hr: { type: "boolean", description: "HR staff" } } };

async function ok(res: Promise<TestResponse>, status: number): Promise<TestResponse> {
  const done = await res;
  expect(done.status, JSON.stringify(done.body)).toBe(status);
  return done;
}

/** The site every cell works on (see the file's comment), created by `by` (the owner unless said). */
async function buildSite(by: TestUser = fx.owner): Promise<SiteIds> {
  const { owner, org } = fx;
  const site = await createSite(ctx, by, org.id, { title: "Matrix", visibility: "share-link", spaces: [fx.open.id] });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  const hr = await addSection(ctx, owner, org.id, site.id, { spaceId: fx.restricted.id, title: "HR" });
  const restrictedSiteSpace = hr.siteSpaces[0]?.id as string;
  const sections = (await ok(ctx.as(owner).get(`${url}/sections`), 200)).body.items as { id: string; siteSpaces: { id: string }[] }[];
  const home = sections.find((s) => s.id !== hr.id);
  await ok(ctx.as(owner).patch(`${url}/sections/${hr.id}`, { condition: CONDITION }), 200);
  await ok(ctx.as(owner).patch(`${url}/site-spaces/${restrictedSiteSpace}`, { condition: CONDITION }), 200);
  const group = await ok(ctx.as(owner).post(`${url}/section-groups`, { title: "Group", sections: [hr.id] }), 201);
  const link = await ok(ctx.as(owner).post(`${url}/share-links`, { name: "Partners" }), 201);
  await ok(ctx.as(owner).put(`${url}/adaptive-schema`, { jsonSchema: SCHEMA }), 200);
  return {
    siteId: site.id,
    url,
    home: home?.id as string,
    hr: hr.id,
    group: group.body.id,
    openSiteSpace: home?.siteSpaces[0]?.id as string,
    restrictedSiteSpace,
    link: link.body.id,
  };
}

/** A site created by the caller when they may create sites (so that they are its creator), else by the owner. */
async function ownSite(who: Who): Promise<SiteIds> {
  return buildSite(who === "admin" || who === "creator" || who === "creatorReader" ? fx.users[who] : fx.owner);
}

async function translationOf(spaceId: string): Promise<string> {
  return (await ok(ctx.as(fx.owner).post(`/v1/orgs/${fx.org.id}/translations`, enEs(spaceId)), 201)).body.id;
}

const enEs = (space: string) => ({ language: "es", source: { space, language: "en" } });

/** A fresh site with a live redirect of "/old" to its open site space. */
async function withRedirect(): Promise<Ids> {
  const ids = await buildSite();
  const created = await ok(
    ctx.as(fx.owner).post(`${ids.url}/redirects`, { source: "/old", destination: { kind: "site-space", siteSpaceId: ids.openSiteSpace } }),
    201,
  );
  return { ...ids, redirect: created.body.id };
}

/** A fresh site with one question its readers asked (as the insights recorder stores it). */
async function withQuestion(): Promise<Ids> {
  const ids = await buildSite();
  const now = new Date().toISOString();
  const question = `q-${ids.siteId}`;
  await ctx.db
    .insertInto("siteQuestions")
    .values({
      id: question,
      siteId: ids.siteId,
      key: "how to install",
      question: "How to install?",
      type: "how-to",
      createdAt: now,
      askedAt: now,
    })
    .execute();
  // One time it was asked, with the answer the reader read (as the recorder writes it), citing nothing.
  const answer = `a-${ids.siteId}`;
  await ctx.db
    .insertInto("siteQuestionAnswers")
    .values({
      id: answer,
      siteId: ids.siteId,
      questionId: question,
      raw: "How to install?",
      answered: "no",
      channel: "site",
      sources: "[]",
      response: "The docs do not say.",
      createdAt: now,
    })
    .execute();
  return { ...ids, question, answer };
}

async function freshRestrictedSpace(): Promise<string> {
  const space = await createSpace(ctx, fx.owner, fx.org.id, { title: "Restricted source" });
  await setDefaultLevel(ctx, fx.owner, { space: space.id }, null);
  return space.id;
}

type Ids = SiteIds & { translation?: string; space?: string; redirect?: string; question?: string; answer?: string };

interface Entry {
  /** The route as the API's OpenAPI document names it: "METHOD /path/{param}". */
  route: string;
  name: string;
  expected: Row;
  /**
   * Fresh objects for a cell; without it the cell works on the shared site (reads only). Cells
   * expected to be refused share one arrangement per entry (a refusal changes nothing, which every
   * such cell checks), unless it depends on the caller (`perCaller`).
   */
  arrange?(who: Who): Promise<Ids>;
  perCaller?: boolean;
  act(caller: Requester, ids: Ids): Promise<TestResponse>;
}

const ORG = "/v1/orgs/{organizationId}";
const SITE = `${ORG}/sites/{siteId}`;
const orgUrl = () => `/v1/orgs/${fx.org.id}`;
const fresh = () => buildSite();

const entries: Entry[] = [
  // Sites.
  {
    route: `GET ${ORG}/sites`,
    name: "list sites",
    expected: r(200, 200, 200, 200, 200, 200, 404, 401),
    act: (c) => c.get(`${orgUrl()}/sites`),
  },
  {
    route: `POST ${ORG}/sites`,
    name: "create a site showing the open space",
    expected: r(201, 201, 201, 403, 403, 403, 404, 401),
    act: (c) => c.post(`${orgUrl()}/sites`, { title: "New site", spaces: [fx.open.id] }),
  },
  {
    route: `POST ${ORG}/sites`,
    name: "create a site showing the restricted space",
    expected: r(201, 400, 201, 403, 403, 403, 404, 401),
    act: (c) => c.post(`${orgUrl()}/sites`, { title: "New site", spaces: [fx.restricted.id] }),
  },
  { route: `GET ${SITE}`, name: "get a site", expected: READ, act: (c, i) => c.get(i.url) },
  // Ask in a site: whoever may read the site, over the spaces they may read (a stream of events).
  {
    route: `POST ${SITE}/ask`,
    name: "ask a question in a site",
    expected: READ,
    act: (c, i) => c.post(`${i.url}/ask`, { question: "What is in the open space?", scope: { mode: "all" } }),
  },
  {
    route: `GET ${SITE}/ask/questions`,
    name: "list recommended questions of a site",
    expected: READ,
    act: (c, i) => c.get(`${i.url}/ask/questions`),
  },
  {
    route: `PATCH ${SITE}`,
    name: "rename a site",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(i.url, { title: "Renamed" }),
  },
  {
    route: `PATCH ${SITE}`,
    name: "widen a site's visibility (share-link to public)",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) => c.patch(i.url, { visibility: "public" }),
  },
  {
    route: `DELETE ${SITE}`,
    name: "delete a site",
    expected: r(204, 403, 403, 403, 403, "noop", 404, 401),
    arrange: fresh,
    act: (c, i) => c.delete(i.url),
  },
  {
    route: `DELETE ${SITE}`,
    name: "delete a site the caller created",
    expected: r(204, 204, 204, 403, 403, "noop", 404, 401),
    arrange: ownSite,
    perCaller: true,
    act: (c, i) => c.delete(i.url),
  },
  { route: `POST ${SITE}/publish`, name: "publish", expected: EXPOSE(200), arrange: fresh, act: (c, i) => c.post(`${i.url}/publish`) },
  {
    route: `POST ${SITE}/unpublish`,
    name: "unpublish",
    expected: EDIT(200),
    arrange: async () => {
      const ids = await buildSite();
      await ok(ctx.as(fx.owner).post(`${ids.url}/publish`), 200);
      return ids;
    },
    act: (c, i) => c.post(`${i.url}/unpublish`),
  },
  {
    route: `GET ${SITE}/published`,
    name: "the published content site",
    expected: READ,
    arrange: async () => {
      const ids = await buildSite();
      await ok(ctx.as(fx.owner).post(`${ids.url}/publish`), 200);
      return ids;
    },
    act: (c, i) => c.get(`${i.url}/published`),
  },

  // Structure and site spaces.
  { route: `GET ${SITE}/structure`, name: "the structure", expected: READ, act: (c, i) => c.get(`${i.url}/structure`) },
  {
    route: `PATCH ${SITE}/structure/sort`,
    name: "sort a section",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/structure/sort`, { item: { type: "site-section", id: i.home }, position: {} }),
  },
  {
    route: `PATCH ${SITE}/structure/sort`,
    name: "sort the restricted site space within its section",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/structure/sort`, { item: { type: "site-space", id: i.restrictedSiteSpace }, position: {} }),
  },
  {
    route: `PATCH ${SITE}/structure/sort`,
    name: "move the restricted site space out of its gated section",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) =>
      c.patch(`${i.url}/structure/sort`, {
        item: { type: "site-space", id: i.restrictedSiteSpace },
        position: { before: { type: "site-space", id: i.openSiteSpace } },
      }),
  },
  { route: `GET ${SITE}/site-spaces`, name: "list site spaces", expected: READ, act: (c, i) => c.get(`${i.url}/site-spaces`) },
  {
    route: `POST ${SITE}/site-spaces`,
    name: "add the open space",
    expected: EDIT(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/site-spaces`, { spaceId: fx.open.id, sectionId: i.home }),
  },
  {
    route: `POST ${SITE}/site-spaces`,
    name: "add the restricted space",
    expected: SHOW_RESTRICTED(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/site-spaces`, { spaceId: fx.restricted.id, sectionId: i.home }),
  },
  {
    route: `PATCH ${SITE}/site-spaces/{siteSpaceId}`,
    name: "change the restricted site space's path",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/site-spaces/${i.restrictedSiteSpace}`, { path: "people" }),
  },
  {
    route: `PATCH ${SITE}/site-spaces/{siteSpaceId}`,
    name: "lift the restricted site space's condition",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/site-spaces/${i.restrictedSiteSpace}`, { condition: null }),
  },
  {
    route: `PATCH ${SITE}/site-spaces/{siteSpaceId}`,
    name: "show the restricted space instead of the open one",
    expected: SHOW_RESTRICTED(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/site-spaces/${i.openSiteSpace}`, { spaceId: fx.restricted.id }),
  },
  {
    route: `DELETE ${SITE}/site-spaces/{siteSpaceId}`,
    name: "take the restricted site space off",
    expected: EDIT(204),
    arrange: fresh,
    act: (c, i) => c.delete(`${i.url}/site-spaces/${i.restrictedSiteSpace}`),
  },
  {
    route: `POST ${SITE}/site-spaces/{siteSpaceId}/move`,
    name: "move the open site space (deprecated move)",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/site-spaces/${i.openSiteSpace}/move`, {}),
  },
  {
    route: `POST ${SITE}/site-spaces/{siteSpaceId}/move`,
    name: "move the restricted site space into the open section (deprecated move)",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) =>
      c.post(`${i.url}/site-spaces/${i.restrictedSiteSpace}/move`, {
        position: { before: { type: "site-space", siteSpace: i.openSiteSpace } },
      }),
  },

  // Sections and groups.
  { route: `GET ${SITE}/sections`, name: "list sections", expected: READ, act: (c, i) => c.get(`${i.url}/sections`) },
  {
    route: `POST ${SITE}/sections`,
    name: "add a section showing the open space",
    expected: EDIT(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/sections`, { spaceId: fx.open.id, title: "More" }),
  },
  {
    route: `POST ${SITE}/sections`,
    name: "add a section showing the restricted space",
    expected: SHOW_RESTRICTED(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/sections`, { spaceId: fx.restricted.id, title: "More HR" }),
  },
  {
    route: `PATCH ${SITE}/sections/{siteSectionId}`,
    name: "rename the gated section",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/sections/${i.hr}`, { title: "People" }),
  },
  {
    route: `PATCH ${SITE}/sections/{siteSectionId}`,
    name: "lift the gated section's condition",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/sections/${i.hr}`, { condition: null }),
  },
  {
    route: `DELETE ${SITE}/sections/{siteSectionId}`,
    name: "delete the gated section",
    expected: EDIT(204),
    arrange: fresh,
    act: (c, i) => c.delete(`${i.url}/sections/${i.hr}`),
  },
  {
    route: `POST ${SITE}/sections/{siteSectionId}/move`,
    name: "move a section (deprecated move)",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/sections/${i.home}/move`, {}),
  },
  { route: `GET ${SITE}/section-groups`, name: "list section groups", expected: READ, act: (c, i) => c.get(`${i.url}/section-groups`) },
  {
    route: `POST ${SITE}/section-groups`,
    name: "add a section group",
    expected: EDIT(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/section-groups`, { title: "Another" }),
  },
  {
    route: `PATCH ${SITE}/section-groups/{siteSectionGroupId}`,
    name: "rename a section group",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/section-groups/${i.group}`, { title: "Renamed" }),
  },
  {
    route: `DELETE ${SITE}/section-groups/{siteSectionGroupId}`,
    name: "delete a section group",
    expected: EDIT(204),
    arrange: fresh,
    act: (c, i) => c.delete(`${i.url}/section-groups/${i.group}`),
  },
  {
    route: `POST ${SITE}/section-groups/{siteSectionGroupId}/sections`,
    name: "put a section in a group",
    expected: EDIT(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/section-groups/${i.group}/sections`, { sectionId: i.home }),
  },
  {
    route: `DELETE ${SITE}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}`,
    name: "take the gated section out of its group",
    expected: EDIT(204),
    arrange: fresh,
    act: (c, i) => c.delete(`${i.url}/section-groups/${i.group}/sections/${i.hr}`),
  },
  {
    route: `POST ${SITE}/section-groups/{siteSectionGroupId}/move`,
    name: "move a section group (deprecated move)",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/section-groups/${i.group}/move`, { position: { before: { type: "site-section", id: i.home } } }),
  },

  // Site permissions (grants on the site): members who see it list them, its admins set them.
  { route: `GET ${SITE}/permissions/users`, name: "list user grants", expected: READ, act: (c, i) => c.get(`${i.url}/permissions/users`) },
  { route: `GET ${SITE}/permissions/teams`, name: "list team grants", expected: READ, act: (c, i) => c.get(`${i.url}/permissions/teams`) },
  {
    route: `PATCH ${SITE}/permissions/users/{userId}`,
    name: "grant a reader edit on the site",
    expected: r(204, 403, 403, 403, 403, 404, 404, 401),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/permissions/users/${fx.users.reader.id}`, { role: "edit" }),
  },
  {
    route: `PATCH ${SITE}/permissions/users/{userId}`,
    name: "grant a reader edit on a site the caller created",
    expected: r(204, 204, 204, 403, 403, 404, 404, 401),
    arrange: ownSite,
    perCaller: true,
    act: (c, i) => c.patch(`${i.url}/permissions/users/${fx.users.reader.id}`, { role: "edit" }),
  },
  {
    route: `PATCH ${SITE}/permissions/teams/{teamId}`,
    name: "grant a team read on the site",
    expected: r(204, 403, 403, 403, 403, 404, 404, 401),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/permissions/teams/${fx.team.id}`, { role: "read" }),
  },

  // Insights: what readers did is for the site's editors and admins, not for members who only see it.
  { route: `GET ${SITE}/insights`, name: "insights summary", expected: EDIT(200), act: (c, i) => c.get(`${i.url}/insights`) },
  { route: `GET ${SITE}/questions`, name: "list questions", expected: EDIT(200), act: (c, i) => c.get(`${i.url}/questions`) },
  { route: `GET ${SITE}/question-stats`, name: "question stats", expected: EDIT(200), act: (c, i) => c.get(`${i.url}/question-stats`) },
  { route: `GET ${SITE}/answers`, name: "list answers", expected: EDIT(200), act: (c, i) => c.get(`${i.url}/answers`) },
  {
    route: `GET ${SITE}/questions/{siteQuestionId}`,
    name: "a question",
    expected: EDIT(200),
    arrange: withQuestion,
    act: (c, i) => c.get(`${i.url}/questions/${i.question}`),
  },
  {
    route: `GET ${SITE}/questions/{siteQuestionId}/sources`,
    name: "a question's sources",
    expected: EDIT(200),
    arrange: withQuestion,
    act: (c, i) => c.get(`${i.url}/questions/${i.question}/sources`),
  },
  ...(["", "/thread", "/sources"] as const).map((tail) => ({
    route: `GET ${SITE}/answers/{siteQuestionAnswerId}${tail}`,
    name: `an answer${tail ? `'s ${tail.slice(1)}` : ""}`,
    expected: EDIT(200),
    arrange: withQuestion,
    act: (c: Requester, i: Ids) => c.get(`${i.url}/answers/${i.answer}${tail}`),
  })),

  // Insight events (0.202): reported, counted and segmented by the site's editors and admins only.
  {
    route: `POST ${SITE}/insights/events`,
    name: "report events of the site's readers",
    expected: EDIT(204),
    act: (c, i) =>
      c.post(`${i.url}/insights/events`, {
        events: [reportedEvent("page_view")],
      }),
  },
  {
    route: `POST ${SITE}/insights/events/aggregate`,
    name: "aggregate the site's events",
    expected: EDIT(200),
    act: (c, i) => c.post(`${i.url}/insights/events/aggregate`, { range: "last7Days", groupBy: [{ column: "eventType" }] }),
  },
  {
    route: `GET ${SITE}/insights/visitor-segments`,
    name: "list the site's visitor segments",
    expected: EDIT(200),
    act: (c, i) => c.get(`${i.url}/insights/visitor-segments`),
  },

  // Site redirects: members who see the site read them, those who may edit it change them.
  { route: `GET ${SITE}/redirects`, name: "list redirects", expected: READ, act: (c, i) => c.get(`${i.url}/redirects`) },
  {
    route: `GET ${SITE}/redirect`,
    name: "a redirect by its source",
    expected: READ,
    arrange: withRedirect,
    act: (c, i) => c.get(`${i.url}/redirect?source=%2Fold`),
  },
  {
    route: `POST ${SITE}/redirects`,
    name: "add a redirect",
    expected: EDIT(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/redirects`, { source: "/old", destination: { kind: "site-space", siteSpaceId: i.openSiteSpace } }),
  },
  {
    route: `PUT ${SITE}/redirects`,
    name: "upsert redirects in bulk",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) =>
      c.put(`${i.url}/redirects`, { redirects: [{ source: "/old", destination: { kind: "external", url: "https://example.com/" } }] }),
  },
  {
    route: `PATCH ${SITE}/redirects/{siteRedirectId}`,
    name: "change a redirect",
    expected: EDIT(200),
    arrange: withRedirect,
    act: (c, i) => c.patch(`${i.url}/redirects/${i.redirect}`, { permanent: true }),
  },
  {
    route: `DELETE ${SITE}/redirects/{siteRedirectId}`,
    name: "delete a redirect",
    expected: EDIT(205),
    arrange: withRedirect,
    act: (c, i) => c.delete(`${i.url}/redirects/${i.redirect}`),
  },

  // Share links.
  { route: `GET ${SITE}/share-links`, name: "list share links", expected: READ, act: (c, i) => c.get(`${i.url}/share-links`) },
  {
    route: `POST ${SITE}/share-links`,
    name: "create a share link",
    expected: EXPOSE(201),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/share-links`, { name: "Leak" }),
  },
  {
    route: `PATCH ${SITE}/share-links/{shareLinkId}`,
    name: "rename a share link (the answer holds its key)",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/share-links/${i.link}`, { name: "Renamed" }),
  },
  {
    route: `DELETE ${SITE}/share-links/{shareLinkId}`,
    name: "delete a share link",
    expected: EDIT(204),
    arrange: fresh,
    act: (c, i) => c.delete(`${i.url}/share-links/${i.link}`),
  },

  // Adaptive schema, visitor authentication, preview.
  {
    route: `GET ${SITE}/adaptive-schema`,
    name: "get the adaptive schema",
    expected: READ,
    act: (c, i) => c.get(`${i.url}/adaptive-schema`),
  },
  {
    route: `PUT ${SITE}/adaptive-schema`,
    name: "set the adaptive schema",
    expected: EXPOSE(200),
    arrange: fresh,
    act: (c, i) => c.put(`${i.url}/adaptive-schema`, { jsonSchema: SCHEMA }),
  },
  {
    route: `GET ${SITE}/adaptive-schema/template-conditions`,
    name: "template conditions",
    expected: READ,
    act: (c, i) => c.get(`${i.url}/adaptive-schema/template-conditions`),
  },
  {
    route: `GET ${SITE}/publishing/auth`,
    name: "get the signing key",
    expected: r(200, 403, 403, 403, 403, 404, 404, 401),
    act: (c, i) => c.get(`${i.url}/publishing/auth`),
  },
  {
    route: `GET ${SITE}/publishing/auth`,
    name: "get the signing key of a site the caller created",
    expected: EXPOSE(200),
    arrange: ownSite,
    perCaller: true,
    act: (c, i) => c.get(`${i.url}/publishing/auth`),
  },
  {
    route: `PATCH ${SITE}/publishing/auth`,
    name: "change visitor authentication",
    expected: r(200, 403, 403, 403, 403, 404, 404, 401),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/publishing/auth`, { backend: "custom", fallbackURL: "https://login.example.com/" }),
  },
  {
    route: `PATCH ${SITE}/publishing/auth`,
    name: "change visitor authentication of a site the caller created",
    expected: EXPOSE(200),
    arrange: ownSite,
    perCaller: true,
    act: (c, i) => c.patch(`${i.url}/publishing/auth`, { backend: "custom", fallbackURL: "https://login.example.com/" }),
  },
  {
    route: `POST ${SITE}/publishing/auth/regenerate`,
    name: "regenerate the signing key",
    expected: r(200, 403, 403, 403, 403, 404, 404, 401),
    arrange: fresh,
    act: (c, i) => c.post(`${i.url}/publishing/auth/regenerate`),
  },
  {
    route: `POST ${SITE}/publishing/auth/regenerate`,
    name: "regenerate the signing key of a site the caller created",
    expected: EXPOSE(200),
    arrange: ownSite,
    perCaller: true,
    act: (c, i) => c.post(`${i.url}/publishing/auth/regenerate`),
  },
  {
    route: `GET ${SITE}/publishing/preview`,
    name: "a preview link",
    expected: EXPOSE(200),
    act: (c, i) => c.get(`${i.url}/publishing/preview?siteSpace=${i.openSiteSpace}`),
  },

  // Customization.
  {
    route: `GET ${SITE}/customization`,
    name: "get the customization",
    expected: EDIT(200),
    act: (c, i) => c.get(`${i.url}/customization`),
  },
  {
    route: `PUT ${SITE}/customization`,
    name: "replace the customization",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.put(`${i.url}/customization`, { title: "Matrix docs" }),
  },
  {
    route: `GET ${SITE}/site-spaces/{siteSpaceId}/customization`,
    name: "get the restricted site space's customization",
    expected: EDIT(200),
    act: (c, i) => c.get(`${i.url}/site-spaces/${i.restrictedSiteSpace}/customization`),
  },
  {
    route: `PATCH ${SITE}/site-spaces/{siteSpaceId}/customization`,
    name: "override the restricted site space's customization",
    expected: EDIT(200),
    arrange: fresh,
    act: (c, i) => c.patch(`${i.url}/site-spaces/${i.restrictedSiteSpace}/customization`, { title: "People" }),
  },
  {
    route: `DELETE ${SITE}/site-spaces/{siteSpaceId}/customization`,
    name: "remove the restricted site space's overrides",
    expected: EDIT(204),
    arrange: fresh,
    act: (c, i) => c.delete(`${i.url}/site-spaces/${i.restrictedSiteSpace}/customization`),
  },

  // Translations.
  {
    route: `GET ${ORG}/translations`,
    name: "list translations",
    expected: r(200, 200, 200, 200, 200, 200, 404, 401),
    act: (c) => c.get(`${orgUrl()}/translations`),
  },
  {
    route: `POST ${ORG}/translations`,
    name: "translate a restricted space",
    expected: r(201, 403, 403, 403, 403, 403, 404, 401),
    arrange: async () => ({ ...shared, space: await freshRestrictedSpace() }),
    act: (c, i) => c.post(`${orgUrl()}/translations`, enEs(i.space as string)),
  },
  {
    route: `GET ${ORG}/translations/{translationId}`,
    name: "get the translation of the open space",
    expected: r(200, 200, 200, 200, 200, 200, 404, 401),
    act: (c) => c.get(`${orgUrl()}/translations/${sharedTranslations.open}`),
  },
  {
    route: `GET ${ORG}/translations/{translationId}`,
    name: "get the translation of the restricted space",
    expected: r(200, 404, 200, 404, 404, 404, 404, 401),
    act: (c) => c.get(`${orgUrl()}/translations/${sharedTranslations.restricted}`),
  },
  {
    route: `PUT ${ORG}/translations/{translationId}`,
    name: "change the instructions of the translation of the open space",
    expected: r(200, 403, 403, 403, 403, 403, 404, 401),
    act: (c) => c.put(`${orgUrl()}/translations/${sharedTranslations.open}`, { instructions: { object: "document", data: {}, nodes: [] } }),
  },
  {
    route: `PUT ${ORG}/translations/{translationId}`,
    name: "change the instructions of the translation of the restricted space",
    expected: r(200, 404, 403, 404, 404, 404, 404, 401),
    act: (c) =>
      c.put(`${orgUrl()}/translations/${sharedTranslations.restricted}`, { instructions: { object: "document", data: {}, nodes: [] } }),
  },
  {
    route: `DELETE ${ORG}/translations/{translationId}`,
    name: "delete a translation of a restricted space",
    expected: r(204, 403, 403, 403, 403, 403, 404, 401),
    arrange: async () => ({ ...shared, translation: await translationOf(await freshRestrictedSpace()) }),
    act: (c, i) => c.delete(`${orgUrl()}/translations/${i.translation}`),
  },
  {
    route: `POST ${ORG}/translations/{translationId}/run`,
    name: "run the translation of the restricted space",
    expected: r(204, 404, 403, 404, 404, 404, 404, 401),
    act: (c) => c.post(`${orgUrl()}/translations/${sharedTranslations.restricted}/run`),
  },

  // Ping.
  {
    route: `POST ${ORG}/ping`,
    name: "ping (the member's visitor-claims token)",
    expected: r(200, 200, 200, 200, 200, 200, 404, 401),
    act: (c) => c.post(`${orgUrl()}/ping`),
  },
];

/** Routes of the families this matrix covers, from the application's OpenAPI document (its route table). */
function familyRoutes(): string[] {
  const paths = (ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
  const inFamily = (path: string) => path.startsWith(`${ORG}/sites`) || path.startsWith(`${ORG}/translations`) || path === `${ORG}/ping`;
  return Object.entries(paths)
    .filter(([path]) => inFamily(path))
    .flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    )
    .sort();
}

/** Everything a refused call must leave as it was: the organization's content, grants, sites and translations. */
async function state() {
  const orgId = fx.org.id;
  const db = ctx.db;
  const ofSites = db.selectFrom("sites").select("id").where("orgId", "=", orgId);
  const [content, sites, siteSpaces, sections, groups, links, schemas, auth, redirects, siteRedirects, translations] = await Promise.all([
    snapshot(ctx, orgId),
    db.selectFrom("sites").selectAll().where("orgId", "=", orgId).orderBy("id").execute(),
    db.selectFrom("siteSpaces").selectAll().where("siteId", "in", ofSites).orderBy("id").execute(),
    db.selectFrom("siteSections").selectAll().where("siteId", "in", ofSites).orderBy("id").execute(),
    db.selectFrom("siteSectionGroups").selectAll().where("siteId", "in", ofSites).orderBy("id").execute(),
    db.selectFrom("siteShareLinks").selectAll().where("siteId", "in", ofSites).orderBy("id").execute(),
    db.selectFrom("siteAdaptiveSchemas").selectAll().where("siteId", "in", ofSites).orderBy("siteId").execute(),
    db.selectFrom("sitePublishingAuth").selectAll().where("siteId", "in", ofSites).orderBy("siteId").execute(),
    db.selectFrom("sitePathRedirects").selectAll().where("siteId", "in", ofSites).orderBy("siteId").orderBy("fromPath").execute(),
    db.selectFrom("siteRedirects").selectAll().where("siteId", "in", ofSites).orderBy("id").execute(),
    db.selectFrom("translations").selectAll().where("orgId", "=", orgId).orderBy("id").execute(),
  ]);
  return { content, sites, siteSpaces, sections, groups, links, schemas, auth, redirects, siteRedirects, translations };
}

describe("role x route matrix: sites, share links, preview, publishing, customization, translations, ping", () => {
  it("has an entry for every route of these families, and no entry for a route that does not exist", () => {
    const routes = familyRoutes();
    const covered = new Set(entries.map((e) => e.route));
    expect(
      routes.filter((route) => !covered.has(route)),
      "routes without a matrix entry",
    ).toEqual([]);
    expect(
      [...covered].filter((route) => !routes.includes(route)),
      "entries for unknown routes",
    ).toEqual([]);
  });

  for (const entry of entries) {
    it(`${entry.route}: ${entry.name}`, async () => {
      const actual: Partial<Row> = {};
      let forRefusals: Ids | undefined;
      for (const who of PERSONAS) {
        const expected = entry.expected[who];
        const refused = expected === "noop" || expected >= 400;
        let ids = shared;
        if (entry.arrange && refused && !entry.perCaller) ids = forRefusals ??= await entry.arrange(who);
        else if (entry.arrange) ids = await entry.arrange(who);
        const before = await state();
        const res = await entry.act(as(who), ids);
        actual[who] = expected === "noop" && res.status === 204 ? "noop" : res.status;
        if (res.status >= 400 || expected === "noop") {
          expect(await state(), `${entry.name} as ${who} changed data`).toEqual(before);
        }
        if (res.status >= 400) {
          // Every refusal says what happened in the common error shape.
          expect(res.body?.error?.code, `${entry.name} as ${who}: ${res.text}`).toBe(res.status);
          expect(typeof res.body.error.message).toBe("string");
        }
      }
      expect(actual).toEqual(entry.expected);
    });
  }
});
