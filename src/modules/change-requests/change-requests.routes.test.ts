import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent } from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithSpace, createSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";
import { nowIso } from "../../lib/time.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const { content } = await commitContent(ctx, space.id, { pages: [{ title: "Home", paragraphs: ["Hello"] }] });
  const primary = (await ctx.as(roles.owner).get(`/v1/spaces/${space.id}`)).body.revision as string;
  return { ...roles, space, home: content.pages[0]!, primary };
}

const counters = async (user: Parameters<TestContext["as"]>[0], spaceId: string) => {
  const { changeRequests, changeRequestsOpen, changeRequestsDraft } = (await ctx.as(user).get(`/v1/spaces/${spaceId}`)).body;
  return { changeRequests, changeRequestsOpen, changeRequestsDraft };
};

describe("POST /v1/spaces/{spaceId}/change-requests", () => {
  it("creates draft change requests numbered per space, on the current primary revision", async () => {
    const { owner, members, space, primary } = await setup();
    const res = await ctx.as(members.edit).post(`/v1/spaces/${space.id}/change-requests`, { subject: "Fix typos" });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${ctx.urls.base}/v1/spaces/${space.id}/change-requests/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: "change-request",
      number: 1,
      status: "draft",
      subject: "Fix typos",
      space: space.id,
      revision: primary,
      revisionInitial: primary,
      comments: 0,
      outdated: false,
      createdBy: { object: "user", id: members.edit.id },
      description: { object: "document", nodes: [] },
      urls: { location: res.headers.location },
    });
    expect(res.body.revisionMergedAncestor).toBeUndefined();
    const second = await createChangeRequest(ctx, owner, space.id, {});
    expect(second).toMatchObject({ number: 2, subject: "" });
    const other = await createSpace(ctx, owner, (await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body.organization);
    expect((await createChangeRequest(ctx, owner, other.id)).number).toBe(1);
    expect(await counters(owner, space.id)).toEqual({ changeRequests: 2, changeRequestsOpen: 0, changeRequestsDraft: 2 });
  });

  it("numbers change requests created at the same time without gaps or duplicates", async () => {
    const { owner, space } = await setup();
    // More at once than a retry-on-conflict scheme would survive: numbering must not race at all.
    const created = await Promise.all(Array.from({ length: 12 }, () => ctx.as(owner).post(`/v1/spaces/${space.id}/change-requests`, {})));
    expect(created.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(created.map((r) => r.body.number as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it("answers 401, precise 400s, 404 to outsiders and 403 to readers or on a locked space", async () => {
    const { owner, members, outsider, space } = await setup();
    const path = `/v1/spaces/${space.id}/change-requests`;
    expect((await ctx.anonymous.post(path, {})).status).toBe(401);
    const long = await ctx.as(owner).post(path, { subject: "x".repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("body.subject must be at most 100 characters long.");
    const template = await ctx.as(owner).post(path, { template: { id: "no-such-template" } });
    expect(template.status).toBe(400);
    expect(template.body.error.message).toMatch(/^body\.template: .*no-such-template/);
    expect((await ctx.as(outsider).post(path, {})).status).toBe(404);
    const reader = await ctx.as(members.read).post(path, {});
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(
      `Only members with the edit level or higher on space "${space.id}" can create change requests in it.`,
    );
    expect((await ctx.as(members.comment).post(path, {})).status).toBe(403);
    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { editMode: "locked" });
    const locked = await ctx.as(members.edit).post(path, {});
    expect(locked.status).toBe(403);
    expect(locked.body.error.message).toMatch(/is locked \(editMode "locked"\)/);
    expect(await counters(owner, space.id)).toEqual({ changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });
  });
});

describe("GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}", () => {
  it("finds a change request by id or by number, in its own space only", async () => {
    const { owner, members, outsider, org, space } = await setup();
    const cr = await createChangeRequest(ctx, owner, space.id, { subject: "By number" });
    for (const key of [cr.id, "1"]) {
      const res = await ctx.as(members.read).get(`/v1/spaces/${space.id}/change-requests/${key}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: cr.id, number: 1, subject: "By number" });
    }
    const missing = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/7`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`No change request "7" in space "${space.id}".`);
    const other = await createSpace(ctx, owner, org.id);
    expect((await ctx.as(owner).get(`/v1/spaces/${other.id}/change-requests/${cr.id}`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).status).toBe(404);
    expect((await ctx.as(members.guest).get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).status).toBe(404);
    expect((await ctx.anonymous.get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).status).toBe(401);
  });
});

describe("PATCH /v1/spaces/{spaceId}/change-requests/{changeRequestId}", () => {
  it("lets the creator and reviewers change subject, description and status; counters follow", async () => {
    const { owner, members, space } = await setup();
    const cr = await createChangeRequest(ctx, members.edit, space.id, { subject: "Draft" });
    const path = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const description = {
      object: "document",
      data: {},
      nodes: [
        {
          object: "block",
          type: "paragraph",
          key: "k1",
          nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Why", marks: [] }] }],
        },
      ],
    };
    const opened = await ctx.as(members.edit).patch(path, { subject: "Ready", status: "open", description });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ subject: "Ready", status: "open", description: { object: "document", nodes: [{ key: "k1" }] } });
    expect(await counters(owner, space.id)).toEqual({ changeRequests: 1, changeRequestsOpen: 1, changeRequestsDraft: 0 });
    expect((await ctx.as(members.review).patch(path, { status: "archived" })).body.status).toBe("archived");
    expect(await counters(owner, space.id)).toEqual({ changeRequests: 1, changeRequestsOpen: 0, changeRequestsDraft: 0 });
    expect((await ctx.as(members.review).patch(path, { status: "draft" })).body.status).toBe("draft");
    expect(await counters(owner, space.id)).toEqual({ changeRequests: 1, changeRequestsOpen: 0, changeRequestsDraft: 1 });
  });

  it("refuses other editors (403), readers of other spaces (404), `merged` and long subjects (400)", async () => {
    const { owner, members, outsider, space } = await setup();
    const cr = await createChangeRequest(ctx, owner, space.id);
    const path = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const editor = await ctx.as(members.edit).patch(path, { subject: "Mine now" });
    expect(editor.status).toBe(403);
    expect(editor.body.error.message).toBe(
      "Only the creator of change request #1 or members with the review level on the space can change it.",
    );
    expect((await ctx.as(outsider).patch(path, { subject: "x" })).status).toBe(404);
    const merged = await ctx.as(owner).patch(path, { status: "merged" });
    expect(merged.status).toBe(400);
    expect(merged.body.error.message).toBe('body.status must be one of: "draft", "open", "archived".');
    const long = await ctx.as(owner).patch(path, { subject: "é".repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe("body.subject must be at most 100 characters long.");
    expect((await ctx.as(owner).get(path)).body.subject).toBe("");
  });
});

describe("GET change request lists", () => {
  it("lists open change requests by default, with status, creator, contributor, reviewer and cluster filters", async () => {
    const { owner, members, space, home } = await setup();
    const a = await createChangeRequest(ctx, owner, space.id, { subject: "A", conversationsIssuesCluster: "cluster-1" });
    const b = await createChangeRequest(ctx, members.edit, space.id, { subject: "B" });
    const _c = await createChangeRequest(ctx, members.edit, space.id, { subject: "C" });
    for (const cr of [a, b]) await ctx.as(owner).patch(`/v1/spaces/${space.id}/change-requests/${cr.id}`, { status: "open" });
    await editContent(ctx, members.review, space.id, a.id, [{ operation: "update_page", page: home.id, title: "Welcome" }]);
    await ctx.db
      .insertInto("changeRequestRequestedReviewers")
      .values({ changeRequestId: b.id, userId: members.review.id, requestedBy: members.edit.id, revision: b.revision, createdAt: nowIso() })
      .execute();
    const list = async (query: string) => {
      const res = await ctx.as(members.read).get(`/v1/spaces/${space.id}/change-requests${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((i: { subject: string }) => i.subject);
    };
    expect(await list("")).toEqual(["B", "A"]);
    expect(await list("?status=draft")).toEqual(["C"]);
    expect(await list(`?creator=${members.edit.id}`)).toEqual(["B"]);
    expect(await list(`?status=draft&creator=${members.edit.id}`)).toEqual(["C"]);
    expect(await list(`?contributor=${members.review.id}`)).toEqual(["A"]);
    expect(await list(`?requestedReviewer=${members.review.id}`)).toEqual(["B"]);
    expect(await list("?conversationsIssuesCluster=cluster-1")).toEqual(["A"]);
    const bad = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests?status=closed`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('query parameter "status" must be one of: "draft", "open", "archived", "merged".');
  });

  it("pages with keyset cursors", async () => {
    const { owner, space } = await setup();
    for (const subject of ["1", "2", "3"]) await createChangeRequest(ctx, owner, space.id, { subject });
    const first = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests?status=draft&limit=2`);
    expect(first.body).toMatchObject({ count: 3, items: [{ subject: "3" }, { subject: "2" }] });
    const second = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests?status=draft&limit=2&page=${first.body.next.page}`);
    expect(second.body.items.map((i: { subject: string }) => i.subject)).toEqual(["1"]);
    expect(second.body.next).toBeUndefined();
  });

  it("lists an organization's change requests of the spaces the caller may read only", async () => {
    const { owner, members, outsider, org, space } = await setup();
    const hidden = await createSpace(ctx, owner, org.id, { title: "Hidden" });
    await setDefaultLevel(ctx, owner, { space: hidden.id }, null);
    await createChangeRequest(ctx, owner, space.id, { subject: "Visible" });
    await createChangeRequest(ctx, owner, hidden.id, { subject: "Secret" });
    const forOwner = await ctx.as(owner).get(`/v1/orgs/${org.id}/change-requests?status=draft`);
    expect(forOwner.body.items.map((i: { subject: string }) => i.subject).sort()).toEqual(["Secret", "Visible"]);
    const forReader = await ctx.as(members.read).get(`/v1/orgs/${org.id}/change-requests?status=draft`);
    expect(forReader.body).toMatchObject({ count: 1, items: [{ subject: "Visible", space: space.id }] });
    expect((await ctx.as(outsider).get(`/v1/orgs/${org.id}/change-requests`)).status).toBe(404);
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/change-requests`)).status).toBe(401);
  });
});

describe("GET .../contributors", () => {
  it("counts each content batch per contributor, most recent first", async () => {
    const { owner, members, space, home } = await setup();
    const cr = await createChangeRequest(ctx, owner, space.id);
    await editContent(ctx, owner, space.id, cr.id, [{ operation: "update_page", page: home.id, title: "One" }]);
    await editContent(ctx, owner, space.id, cr.id, [{ operation: "update_page", page: home.id, title: "Two" }]);
    await editContent(ctx, members.edit, space.id, cr.id, [{ operation: "update_page", page: home.id, title: "Three" }]);
    const res = await ctx.as(members.read).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/contributors`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      count: 2,
      items: [
        { user: { id: members.edit.id }, count: 1, actionType: "edit" },
        { user: { id: owner.id }, count: 2, actionType: "edit" },
      ],
    });
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/99/contributors`)).status).toBe(404);
  });
});
