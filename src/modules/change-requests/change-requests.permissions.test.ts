/**
 * Who may do what with change requests (docs/permissions.md), as a matrix: every organization role
 * (plus an outsider) against every change-request operation, with the expected status, and the
 * change requests and revisions unchanged whenever a call is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestResponse, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
let fixture: Awaited<ReturnType<typeof createOrgWithRoles>>;
beforeAll(async () => {
  ctx = await createTestContext();
  fixture = await createOrgWithRoles(ctx);
});
afterAll(() => ctx.close());

const ROLES = ["admin", "create", "review", "edit", "comment", "read", "guest", "outsider"] as const;
type Who = (typeof ROLES)[number];
const row = (...statuses: number[]) => Object.fromEntries(ROLES.map((who, i) => [who, statuses[i]!])) as Record<Who, number>;
const user = (who: Who): TestUser => (who === "outsider" ? fixture.outsider : fixture.members[who]);

interface Ids {
  space: string;
  cr: string;
  page: string;
}

/** A fresh space with one page and a change request (created by the owner) for each call. */
async function arrange(): Promise<Ids> {
  const space = await createSpace(ctx, fixture.owner, fixture.org.id);
  const { content } = await commitContent(ctx, space.id, { pages: [{ title: "Home", paragraphs: ["Hello"] }] });
  const cr = await createChangeRequest(ctx, fixture.owner, space.id);
  return { space: space.id, cr: cr.id, page: content.pages[0]!.id };
}

async function snapshot(spaceId: string) {
  const ofSpace = ctx.db.selectFrom("changeRequests").select("id").where("spaceId", "=", spaceId);
  const [changeRequests, revisions, reviews, requested] = await Promise.all([
    ctx.db.selectFrom("changeRequests").selectAll().where("spaceId", "=", spaceId).orderBy("id").execute(),
    ctx.db.selectFrom("revisions").select("id").where("spaceId", "=", spaceId).orderBy("id").execute(),
    ctx.db.selectFrom("changeRequestReviews").selectAll().where("changeRequestId", "in", ofSpace).orderBy("id").execute(),
    ctx.db.selectFrom("changeRequestRequestedReviewers").selectAll().where("changeRequestId", "in", ofSpace).orderBy("userId").execute(),
  ]);
  return { changeRequests, revisions, reviews, requested };
}

const operations: { name: string; expected: Record<Who, number>; act(caller: TestUser, ids: Ids): Promise<TestResponse> }[] = [
  {
    name: "get a change request",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    act: (c, i) => ctx.as(c).get(`/v1/spaces/${i.space}/change-requests/${i.cr}`),
  },
  {
    name: "list a space's change requests",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    act: (c, i) => ctx.as(c).get(`/v1/spaces/${i.space}/change-requests`),
  },
  {
    name: "read a change request's content",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    act: (c, i) => ctx.as(c).get(`/v1/spaces/${i.space}/change-requests/${i.cr}/content`),
  },
  {
    name: "list a change request's conflicts",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    act: (c, i) => ctx.as(c).get(`/v1/spaces/${i.space}/change-requests/${i.cr}/conflicts`),
  },
  {
    name: "create a change request",
    expected: row(201, 201, 201, 201, 403, 403, 404, 404),
    act: (c, i) => ctx.as(c).post(`/v1/spaces/${i.space}/change-requests`, {}),
  },
  {
    name: "change another member's change request",
    expected: row(200, 200, 200, 403, 403, 403, 404, 404),
    act: (c, i) => ctx.as(c).patch(`/v1/spaces/${i.space}/change-requests/${i.cr}`, { status: "open" }),
  },
  {
    name: "edit a change request's content",
    expected: row(200, 200, 200, 200, 403, 403, 404, 404),
    act: (c, i) =>
      ctx.as(c).post(`/v1/spaces/${i.space}/change-requests/${i.cr}/content`, {
        changes: [{ operation: "update_page", page: i.page, title: "Edited" }],
      }),
  },
  {
    name: "update a change request",
    expected: row(200, 200, 200, 200, 403, 403, 404, 404),
    act: (c, i) => ctx.as(c).post(`/v1/spaces/${i.space}/change-requests/${i.cr}/update`),
  },
  {
    name: "merge a change request",
    expected: row(200, 200, 200, 403, 403, 403, 404, 404),
    act: (c, i) => ctx.as(c).post(`/v1/spaces/${i.space}/change-requests/${i.cr}/merge`),
  },
  {
    name: "list reviews",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    act: (c, i) => ctx.as(c).get(`/v1/spaces/${i.space}/change-requests/${i.cr}/reviews`),
  },
  {
    name: "review a change request",
    expected: row(201, 201, 201, 403, 403, 403, 404, 404),
    act: (c, i) => ctx.as(c).post(`/v1/spaces/${i.space}/change-requests/${i.cr}/reviews`, { status: "approved" }),
  },
  {
    name: "ask for a review of another member's change request",
    expected: row(200, 200, 200, 403, 403, 403, 404, 404),
    act: (c, i) =>
      ctx.as(c).post(`/v1/spaces/${i.space}/change-requests/${i.cr}/requested-reviewers`, { users: [fixture.members.review.id] }),
  },
  {
    name: "list requested reviewers",
    expected: row(200, 200, 200, 200, 200, 200, 404, 404),
    act: (c, i) => ctx.as(c).get(`/v1/spaces/${i.space}/change-requests/${i.cr}/requested-reviewers`),
  },
];

describe("change request permissions: role x operation", () => {
  for (const operation of operations) {
    it(operation.name, async () => {
      const actual: Partial<Record<Who, number>> = {};
      for (const who of ROLES) {
        const ids = await arrange();
        const before = await snapshot(ids.space);
        const res = await operation.act(user(who), ids);
        actual[who] = res.status;
        if (res.status >= 400) expect(await snapshot(ids.space), `${operation.name} as ${who} changed data`).toEqual(before);
      }
      expect(actual).toEqual(operation.expected);
    });
  }
});
