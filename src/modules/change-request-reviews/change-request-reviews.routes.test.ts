/**
 * Reviews and requested reviewers: who may review and ask, how reviews become outdated, how a
 * review answers a request, and review comments as comments of the change request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { nextMillisecond } from "../../../test/helpers/clock.js";
import { addMemberToOrg, createUser } from "../../../test/helpers/factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  // The edit-level member writes the change request; others review it.
  const cr = await createChangeRequest(ctx, roles.members.edit, space.id, { subject: "Add a guide" });
  await editContent(ctx, roles.members.edit, space.id, cr.id, [
    { operation: "insert_page", document: { markdown: "# Guide\n\nHello.\n" } },
  ]);
  const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  return { ...roles, space, cr, prefix };
}

describe("POST and GET .../reviews", () => {
  it("records a review against the change request's head, with its comment as a change request comment", async () => {
    const { members, prefix } = await setup();
    const head = (await ctx.as(members.review).get(prefix)).body.revision;
    const posted = await ctx
      .as(members.review)
      .post(`${prefix}/reviews`, { status: "changes-requested", comment: { markdown: "Please add **examples**." } });
    expect(posted.status).toBe(201);
    expect(posted.headers.location).toBe(posted.body.urls.location);
    expect(posted.body).toMatchObject({
      object: "change-request-review",
      revision: head,
      reviewer: { id: members.review.id },
      status: "changes-requested",
      outdated: false,
    });
    expect(posted.body.requestedBy).toBeUndefined();
    expect(posted.body.comment).toMatchObject({ postedBy: { id: members.review.id }, target: { review: posted.body.id } });
    // The embedded comment carries the caller's permissions on it: the reviewer wrote it.
    expect(posted.body.comment.permissions).toEqual({ view: true, edit: true, reply: true, delete: true });
    const asSeenBy = async (user: TestUser) => (await ctx.as(user).get(`${prefix}/reviews/${posted.body.id}`)).body.comment.permissions;
    expect(await asSeenBy(members.read)).toEqual({ view: true, edit: false, reply: false, delete: false });
    expect(await asSeenBy(members.comment)).toEqual({ view: true, edit: false, reply: true, delete: false });
    expect(await asSeenBy(members.admin)).toEqual({ view: true, edit: false, reply: true, delete: true });

    const markdown = await ctx.as(members.read).get(`${prefix}/reviews/${posted.body.id}?format=markdown`);
    expect(markdown.status).toBe(200);
    expect(markdown.body.comment.body).toEqual({ markdown: "Please add **examples**." });

    // The comment is one of the change request's: listed, counted, and open to replies.
    const comments = (await ctx.as(members.read).get(`${prefix}/comments`)).body;
    expect(comments.items.map((c: { id: string }) => c.id)).toEqual([posted.body.comment.id]);
    expect((await ctx.as(members.read).get(prefix)).body.comments).toBe(1);
    const reply = await ctx.as(members.edit).post(`${prefix}/comments/${posted.body.comment.id}/replies`, { body: { markdown: "Done." } });
    expect(reply.status).toBe(200);
    const contributors = (await ctx.as(members.read).get(`${prefix}/contributors`)).body.items;
    expect(contributors).toContainEqual(
      expect.objectContaining({ user: expect.objectContaining({ id: members.review.id }), actionType: "comment" }),
    );

    // A review without a comment has none.
    const approved = await ctx.as(members.admin).post(`${prefix}/reviews`, { status: "approved" });
    expect(approved.status).toBe(201);
    expect(approved.body.comment).toBeUndefined();

    // Listed together, each review carries its own comment (or none).
    await nextMillisecond();
    const another = await ctx.as(members.create).post(`${prefix}/reviews`, { status: "approved", comment: { markdown: "Looks good." } });
    expect(another.status).toBe(201);
    const listed = (await ctx.as(members.read).get(`${prefix}/reviews?format=markdown`)).body.items;
    expect(listed.map((r: { id: string; comment?: { id: string; body: unknown } }) => [r.id, r.comment?.id, r.comment?.body])).toEqual([
      [another.body.id, another.body.comment.id, { markdown: "Looks good." }],
      [approved.body.id, undefined, undefined],
      [posted.body.id, posted.body.comment.id, { markdown: "Please add **examples**." }],
    ]);
  });

  it("makes a reviewer's earlier review outdated, and filters on it", async () => {
    const { members, prefix } = await setup();
    const first = await ctx.as(members.review).post(`${prefix}/reviews`, { status: "changes-requested" });
    await nextMillisecond();
    const other = await ctx.as(members.admin).post(`${prefix}/reviews`, { status: "approved" });
    await nextMillisecond();
    const second = await ctx.as(members.review).post(`${prefix}/reviews`, { status: "approved" });
    const all = (await ctx.as(members.read).get(`${prefix}/reviews`)).body;
    expect(all.count).toBe(3);
    expect(all.items.map((r: { id: string; outdated: boolean }) => [r.id, r.outdated])).toEqual([
      [second.body.id, false],
      [other.body.id, false],
      [first.body.id, true],
    ]);
    const outdated = (await ctx.as(members.read).get(`${prefix}/reviews?outdated=true`)).body;
    expect(outdated.items.map((r: { id: string }) => r.id)).toEqual([first.body.id]);
    const current = (await ctx.as(members.read).get(`${prefix}/reviews?outdated=false&limit=1`)).body;
    expect(current.items.map((r: { id: string }) => r.id)).toEqual([second.body.id]);
    const next = (await ctx.as(members.read).get(`${prefix}/reviews?outdated=false&limit=1&page=${current.next.page}`)).body;
    expect(next.items.map((r: { id: string }) => r.id)).toEqual([other.body.id]);
    expect(next.next).toBeUndefined();
    expect((await ctx.as(members.read).get(`${prefix}/reviews/${first.body.id}`)).body.outdated).toBe(true);
  });

  it("takes many submissions by one reviewer at once, keeping exactly one of them current", async () => {
    const { members, prefix } = await setup();
    const posted = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ctx.as(members.review).post(`${prefix}/reviews`, { status: i % 2 ? "approved" : "changes-requested" }),
      ),
    );
    expect(posted.map((r) => r.status)).toEqual(Array(20).fill(201));
    const all = (await ctx.as(members.read).get(`${prefix}/reviews?limit=100`)).body;
    expect(all.count).toBe(20);
    expect(all.items.filter((r: { outdated: boolean }) => !r.outdated)).toHaveLength(1);
  });

  it("lets the review level and above review, not the creator, and not a closed change request", async () => {
    const { owner, members, outsider, space, prefix, cr } = await setup();
    for (const role of ["admin", "create", "review"] as const) {
      expect((await ctx.as(members[role]).post(`${prefix}/reviews`, { status: "approved" })).status, role).toBe(201);
    }
    for (const role of ["comment", "read"] as const) {
      const res = await ctx.as(members[role]).post(`${prefix}/reviews`, { status: "approved" });
      expect(res.status, role).toBe(403);
      expect(res.body.error.message).toBe(
        `Only members with the review level or higher on space "${space.id}" can review its change requests.`,
      );
    }
    const own = await ctx.as(members.edit).post(`${prefix}/reviews`, { status: "approved" });
    expect(own.status).toBe(403);
    expect(own.body.error.message).toBe(`You created change request #${cr.number}: ask someone else to review it.`);
    expect((await ctx.as(outsider).post(`${prefix}/reviews`, { status: "approved" })).status).toBe(404);
    expect((await ctx.as(outsider).get(`${prefix}/reviews`)).status).toBe(404);

    const bad = await ctx.as(owner).post(`${prefix}/reviews`, { status: "lgtm" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(`body.status must be one of: "approved", "changes-requested".`);
    const empty = await ctx.as(owner).post(`${prefix}/reviews`, { status: "approved", comment: { markdown: "  " } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("body.comment.markdown must not be empty.");
    expect((await ctx.as(owner).get(`${prefix}/reviews`)).body.count).toBe(3);

    await mergeChangeRequest(ctx, owner, space.id, cr.id);
    const late = await ctx.as(owner).post(`${prefix}/reviews`, { status: "approved" });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/is merged/);
  });

  it("answers 404 for a review of another change request", async () => {
    const { owner, members, space, prefix } = await setup();
    const review = await ctx.as(members.review).post(`${prefix}/reviews`, { status: "approved" });
    const other = await createChangeRequest(ctx, owner, space.id);
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${other.id}/reviews/${review.body.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No review "${review.body.id}" of change request #${other.number}.`);
  });
});

describe("requested reviewers", () => {
  it("asks reviewers, opens the draft, lists and filters, and a review answers the request", async () => {
    const { members, space, prefix, cr } = await setup();
    const asked = await ctx.as(members.edit).post(`${prefix}/requested-reviewers`, {
      users: [members.review.id, members.admin.id, members.review.id],
      subject: "Add a guide for new users",
    });
    expect(asked.status).toBe(200);
    expect(asked.body.users.map((r: { user: { id: string } }) => r.user.id)).toEqual([members.review.id, members.admin.id]);
    expect(asked.body.users[0]).toMatchObject({
      object: "change-request-requested-reviewer",
      kind: "user",
      requestedBy: { id: members.edit.id },
    });
    expect((await ctx.as(members.read).get(prefix)).body).toMatchObject({ status: "open", subject: "Add a guide for new users" });

    const list = (await ctx.as(members.read).get(`${prefix}/requested-reviewers?limit=1`)).body;
    expect(list.count).toBe(2);
    expect(list.items).toHaveLength(1);
    const waiting = (await ctx.as(members.read).get(`/v1/spaces/${space.id}/change-requests?requestedReviewer=${members.review.id}`)).body;
    expect(waiting.items.map((c: { id: string }) => c.id)).toEqual([cr.id]);

    const review = await ctx.as(members.review).post(`${prefix}/reviews`, { status: "approved" });
    expect(review.body.requestedBy).toMatchObject({ id: members.edit.id });
    const left = (await ctx.as(members.read).get(`${prefix}/requested-reviewers`)).body;
    expect(left.items.map((r: { user: { id: string } }) => r.user.id)).toEqual([members.admin.id]);
    expect(
      (await ctx.as(members.read).get(`/v1/spaces/${space.id}/change-requests?requestedReviewer=${members.review.id}`)).body.count,
    ).toBe(0);

    // Asking again renews the request and makes the earlier review outdated.
    await ctx.as(members.edit).post(`${prefix}/requested-reviewers`, { users: [members.review.id] });
    expect((await ctx.as(members.read).get(`${prefix}/reviews/${review.body.id}`)).body.outdated).toBe(true);
  });

  it("refuses people who cannot review, and callers who may not ask", async () => {
    const { members, outsider, space, prefix } = await setup();
    const stranger = await createUser(ctx);
    const cases: [string, string][] = [
      [stranger.id, `body.users[0]: user "${stranger.id}" is not a member of this organization.`],
      [outsider.id, `body.users[0]: user "${outsider.id}" is not a member of this organization.`],
      [
        members.comment.id,
        `body.users[0]: user "${members.comment.id}" cannot review: that needs the review level or higher on space "${space.id}".`,
      ],
      [members.edit.id, `body.users[0]: user "${members.edit.id}" created change request #1 and cannot review it.`],
    ];
    for (const [id, message] of cases) {
      const res = await ctx.as(members.edit).post(`${prefix}/requested-reviewers`, { users: [id] });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    const none = await ctx.as(members.edit).post(`${prefix}/requested-reviewers`, { users: [] });
    expect(none.status).toBe(400);
    const reader = await ctx.as(members.read).post(`${prefix}/requested-reviewers`, { users: [members.review.id] });
    expect(reader.status).toBe(403);
    // Nothing was asked, and the draft stayed a draft.
    expect((await ctx.as(members.read).get(`${prefix}/requested-reviewers`)).body.count).toBe(0);
    expect((await ctx.as(members.read).get(prefix)).body.status).toBe("draft");
  });

  it("withdraws a request (204, also when there was none); the reviewer may decline", async () => {
    const { org, members, prefix } = await setup();
    const second = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, second, "review");
    await ctx.as(members.edit).post(`${prefix}/requested-reviewers`, { users: [members.review.id, second.id] });
    expect((await ctx.as(members.edit).delete(`${prefix}/requested-reviewers/${members.review.id}`)).status).toBe(204);
    expect((await ctx.as(members.read).get(`${prefix}/requested-reviewers`)).body.count).toBe(1);
    expect((await ctx.as(members.edit).delete(`${prefix}/requested-reviewers/${members.review.id}`)).status).toBe(204);
    expect((await ctx.as(members.read).delete(`${prefix}/requested-reviewers/${second.id}`)).status).toBe(403);
    expect((await ctx.as(members.read).get(`${prefix}/requested-reviewers`)).body.count).toBe(1);
    expect((await ctx.as(second).delete(`${prefix}/requested-reviewers/${second.id}`)).status).toBe(204);
    expect((await ctx.as(members.read).get(`${prefix}/requested-reviewers`)).body.count).toBe(0);
  });
});
