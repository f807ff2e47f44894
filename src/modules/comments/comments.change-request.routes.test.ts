/**
 * The comment routes mounted under a change request (`/v1/spaces/{spaceId}/change-requests/{id}`):
 * the same operations as on a space, scoped to the change request, with its access rules (401, 404
 * to outsiders), the caller's `permissions` on comments and replies, and reply updates that
 * resolve and reopen the comment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent } from "../../../test/helpers/change-requests.factories.js";
import { addMemberToOrg, createUser } from "../../../test/helpers/factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const READ_ONLY = { view: true, edit: false, reply: false, delete: false };
const COMMENTER = { view: true, edit: false, reply: true, delete: false };
const AUTHOR = { view: true, edit: true, reply: true, delete: true };
const ADMIN = { view: true, edit: false, reply: true, delete: true };

/** An organization with a space and a change request (by the edit-level member) adding a "Guide" page. */
async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const cr = await createChangeRequest(ctx, roles.members.edit, space.id, { subject: "Add a guide" });
  const edited = await editContent(ctx, roles.members.edit, space.id, cr.id, [
    { operation: "insert_page", document: { markdown: "# Guide\n\nHello.\n" } },
  ]);
  const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  const head = (await ctx.as(roles.owner).get(prefix)).body.revision as string;
  const page = edited.changes.find((c) => c.page)?.page as { id: string };
  return { ...roles, space, cr, prefix, head, page };
}

async function postComment(user: TestUser, prefix: string, body: Record<string, unknown>) {
  const res = await ctx.as(user).post(`${prefix}/comments`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function postReply(user: TestUser, prefix: string, commentId: string, markdown: string) {
  const res = await ctx.as(user).post(`${prefix}/comments/${commentId}/replies`, { body: { markdown } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe("comments of a change request: the happy path", () => {
  it("posts, reads, lists, edits, replies, resolves through a reply, lists commenters and deletes", async () => {
    const { owner, members, space, cr, prefix, head, page } = await setup();

    // A comment on the change request's content: about its head revision, a comment of the change request.
    const comment = await postComment(members.comment, prefix, { body: { markdown: "Is this **right**?" }, page: page.id });
    expect(comment).toMatchObject({
      object: "comment",
      postedBy: { object: "user", id: members.comment.id },
      replies: 0,
      status: "open",
      target: { space: space.id, revision: head, changeRequest: cr.id, page: { id: page.id } },
      urls: { location: `${ctx.urls.base}${prefix}/comments/${comment.id}` },
      permissions: AUTHOR,
    });
    // Not a comment of the space itself.
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/comments/${comment.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/comments`)).body.count).toBe(0);

    const read = await ctx.as(members.read).get(`${prefix}/comments/${comment.id}?format=markdown`);
    expect(read.status).toBe(200);
    expect(read.body.body).toEqual({ markdown: "Is this **right**?" });
    const list = await ctx.as(members.read).get(`${prefix}/comments`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([comment.id]);
    expect((await ctx.as(members.read).get(prefix)).body.comments).toBe(1);

    const edited = await ctx
      .as(members.comment)
      .put(`${prefix}/comments/${comment.id}?format=markdown`, { body: { markdown: "Is this right now?" }, addedReactions: ["👍"] });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.body).toEqual({ markdown: "Is this right now?" });
    expect(edited.body.editedAt).toBeDefined();
    expect(edited.body.reactions).toMatchObject([{ emoji: "👍", count: 1, users: [{ user: { id: members.comment.id } }] }]);

    const reply = await postReply(members.edit, prefix, comment.id, "Yes.");
    expect(reply).toMatchObject({
      object: "comment-reply",
      postedBy: { id: members.edit.id },
      urls: { location: `${ctx.urls.base}${prefix}/comments/${comment.id}/replies/${reply.id}` },
      permissions: AUTHOR,
    });
    const replies = await ctx.as(members.read).get(`${prefix}/comments/${comment.id}/replies?format=markdown`);
    expect(replies.status).toBe(200);
    expect(replies.body).toMatchObject({ count: 1, items: [{ id: reply.id, body: { markdown: "Yes." } }] });
    const one = await ctx.as(members.read).get(`${prefix}/comments/${comment.id}/replies/${reply.id}`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(reply.id);

    // Under a change request, a reply update resolves or reopens the comment.
    const resolving = await ctx
      .as(members.edit)
      .put(`${prefix}/comments/${comment.id}/replies/${reply.id}?format=markdown`, { body: { markdown: "Yes, fixed." }, resolved: true });
    expect(resolving.status, JSON.stringify(resolving.body)).toBe(200);
    expect(resolving.body.body).toEqual({ markdown: "Yes, fixed." });
    expect(resolving.body.editedAt).toBeDefined();
    const resolved = (await ctx.as(members.read).get(`${prefix}/comments/${comment.id}`)).body;
    expect(resolved).toMatchObject({
      status: "resolved",
      resolvedBy: { id: members.edit.id },
      replies: 1,
      repliers: [{ user: { id: members.edit.id }, count: 1 }],
    });
    expect((await ctx.as(members.read).get(prefix)).body.comments).toBe(0);
    const again = await ctx.as(members.comment).put(`${prefix}/comments/${comment.id}/replies/${reply.id}`, { resolved: true });
    expect(again.status).toBe(200);
    expect((await ctx.as(members.read).get(`${prefix}/comments/${comment.id}`)).body).toMatchObject({
      resolvedBy: { id: members.edit.id },
      resolvedAt: resolved.resolvedAt,
    });
    await ctx.as(members.comment).put(`${prefix}/comments/${comment.id}/replies/${reply.id}`, { resolved: false, addedReactions: ["🎉"] });
    const reopened = (await ctx.as(members.read).get(`${prefix}/comments/${comment.id}`)).body;
    expect(reopened.status).toBe("open");
    expect(reopened.resolvedBy).toBeUndefined();
    const reacted = (await ctx.as(members.read).get(`${prefix}/comments/${comment.id}/replies/${reply.id}`)).body;
    expect(reacted.reactions).toMatchObject([{ emoji: "🎉", count: 1, users: [{ user: { id: members.comment.id } }] }]);

    // Posting counts as a contribution; commenters are the authors of comments and replies.
    const contributors = (await ctx.as(members.read).get(`${prefix}/contributors`)).body.items;
    expect(contributors).toContainEqual(
      expect.objectContaining({ user: expect.objectContaining({ id: members.comment.id }), actionType: "comment" }),
    );
    const commenters = await ctx.as(members.read).get(`${prefix}/commenters`);
    expect(commenters.status).toBe(200);
    expect(commenters.body.items.map((m: { user: { id: string } }) => m.user.id).sort()).toEqual(
      [members.comment.id, members.edit.id].sort(),
    );
    expect((await ctx.as(members.read).get(`/v1/spaces/${space.id}/commenters`)).body.count).toBe(0);

    expect((await ctx.as(members.edit).delete(`${prefix}/comments/${comment.id}/replies/${reply.id}`)).status).toBe(204);
    expect((await ctx.as(members.read).get(`${prefix}/comments/${comment.id}/replies/${reply.id}`)).status).toBe(404);
    expect((await ctx.as(members.comment).delete(`${prefix}/comments/${comment.id}`)).status).toBe(204);
    const gone = await ctx.as(members.read).get(`${prefix}/comments/${comment.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toBe(`No comment with id "${comment.id}" in change request "${cr.id}".`);
    expect((await ctx.as(members.read).get(`${prefix}/comments`)).body.count).toBe(0);
  });

  it("checks targets against the change request's head, and serves a change request's comments by its number", async () => {
    const { members, space, cr, prefix, page } = await setup();
    const wrong = await ctx.as(members.comment).post(`${prefix}/comments`, { body: { markdown: "x" }, page: "nope" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/^body\.page: no page with id "nope"/);
    // The page exists in the change request only: a comment on it under the space is refused.
    const onSpace = await ctx.as(members.comment).post(`/v1/spaces/${space.id}/comments`, { body: { markdown: "x" }, page: page.id });
    expect(onSpace.status).toBe(400);
    const comment = await postComment(members.comment, prefix, { body: { markdown: "By number" } });
    const byNumber = await ctx.as(members.read).get(`/v1/spaces/${space.id}/change-requests/${cr.number}/comments/${comment.id}`);
    expect(byNumber.status).toBe(200);
    expect(byNumber.body.id).toBe(comment.id);
  });
});

describe("comments of a change request: access", () => {
  it("answers 401 without a token on every route", async () => {
    const { members, prefix } = await setup();
    const comment = await postComment(members.comment, prefix, { body: { markdown: "Hi" } });
    const reply = await postReply(members.comment, prefix, comment.id, "Hello");
    const c = `${prefix}/comments/${comment.id}`;
    const r = `${c}/replies/${reply.id}`;
    const requests = [
      ctx.anonymous.get(`${prefix}/comments`),
      ctx.anonymous.post(`${prefix}/comments`, { body: { markdown: "Hi" } }),
      ctx.anonymous.get(c),
      ctx.anonymous.put(c, { resolved: true }),
      ctx.anonymous.delete(c),
      ctx.anonymous.get(`${c}/replies`),
      ctx.anonymous.post(`${c}/replies`, { body: { markdown: "Hi" } }),
      ctx.anonymous.get(r),
      ctx.anonymous.put(r, { resolved: true }),
      ctx.anonymous.delete(r),
      ctx.anonymous.get(`${prefix}/commenters`),
    ];
    for (const res of await Promise.all(requests)) expect(res.status).toBe(401);
    // Nothing changed.
    const stored = (await ctx.as(members.read).get(c)).body;
    expect(stored).toMatchObject({ status: "open", replies: 1 });
  });

  it("answers 404 with the space's message to callers outside the organization (and to guests), and changes nothing", async () => {
    const { members, outsider, space, prefix } = await setup();
    const comment = await postComment(members.comment, prefix, { body: { markdown: "Hi" } });
    const reply = await postReply(members.comment, prefix, comment.id, "Hello");
    const c = `${prefix}/comments/${comment.id}`;
    const r = `${c}/replies/${reply.id}`;
    for (const user of [outsider, members.guest]) {
      const as = ctx.as(user);
      const requests: [string, Promise<{ status: number; body: any }>][] = [
        ["GET comments", as.get(`${prefix}/comments`)],
        ["POST comment", as.post(`${prefix}/comments`, { body: { markdown: "Hi" } })],
        ["GET comment", as.get(c)],
        ["PUT comment", as.put(c, { resolved: true })],
        ["DELETE comment", as.delete(c)],
        ["GET replies", as.get(`${c}/replies`)],
        ["POST reply", as.post(`${c}/replies`, { body: { markdown: "Hi" } })],
        ["GET reply", as.get(r)],
        ["PUT reply", as.put(r, { resolved: true })],
        ["DELETE reply", as.delete(r)],
        ["GET commenters", as.get(`${prefix}/commenters`)],
      ];
      for (const [name, request] of requests) {
        const res = await request;
        expect(res.status, `${name} as ${user.displayName}`).toBe(404);
        expect(res.body.error.message, `${name} as ${user.displayName}`).toBe(`No space with id "${space.id}".`);
      }
    }
    const stored = (await ctx.as(members.read).get(c)).body;
    expect(stored).toMatchObject({ status: "open", replies: 1 });
    expect((await ctx.as(members.read).get(`${prefix}/comments`)).body.count).toBe(1);
  });

  it("answers 404 naming the change request when it does not exist", async () => {
    const { owner, space } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/nope/comments`);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No change request "nope" in space "${space.id}".`);
  });

  it("refuses readers (403) and lets only authors edit and authors or admins delete", async () => {
    const { members, cr, prefix } = await setup();
    const comment = await postComment(members.comment, prefix, { body: { markdown: "Mine" } });
    const reply = await postReply(members.comment, prefix, comment.id, "Also mine");
    const c = `${prefix}/comments/${comment.id}`;
    const r = `${c}/replies/${reply.id}`;
    const reader = await ctx.as(members.read).post(`${prefix}/comments`, { body: { markdown: "Hi" } });
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(
      `You may read change request "${cr.id}" but not comment on it: that needs the comment permission.`,
    );
    const readerReply = await ctx.as(members.read).put(r, { resolved: true });
    expect(readerReply.status).toBe(403);
    expect(readerReply.body.error.message).toBe(
      `Reacting to, resolving or reopening comment "${comment.id}" needs the comment permission on change request "${cr.id}".`,
    );
    const editOther = await ctx.as(members.edit).put(r, { body: { markdown: "Hijack" } });
    expect(editOther.status).toBe(403);
    expect(editOther.body.error.message).toBe(`Only the author of reply "${reply.id}" can edit its body.`);
    const deleteOther = await ctx.as(members.edit).delete(c);
    expect(deleteOther.status).toBe(403);
    expect(deleteOther.body.error.message).toBe(
      `Only the author of comment "${comment.id}" or an admin of change request "${cr.id}" can delete it.`,
    );
    expect((await ctx.as(members.admin).delete(r)).status).toBe(204);
    expect((await ctx.as(members.admin).delete(c)).status).toBe(204);
    expect((await ctx.as(members.admin).delete(c)).status).toBe(204);
  });
});

describe("comments of a change request: permissions as each caller sees them", () => {
  it("gives the author full permissions, commenters reply only, readers view only, admins reply and delete", async () => {
    const { org, members, prefix } = await setup();
    const comment = await postComment(members.comment, prefix, { body: { markdown: "Mine" } });
    const reply = await postReply(members.comment, prefix, comment.id, "Also mine");
    const c = `${prefix}/comments/${comment.id}`;
    const r = `${c}/replies/${reply.id}`;
    expect(comment.permissions).toEqual(AUTHOR);
    expect(reply.permissions).toEqual(AUTHOR);

    // Another member with the comment level, like the author's.
    const other = await createUser(ctx, { displayName: "Other commenter" });
    await addMemberToOrg(ctx, org.id, other, "comment");
    const expected: [TestUser, typeof AUTHOR, string][] = [
      [members.comment, AUTHOR, "author"],
      [other, COMMENTER, "another commenter"],
      [members.read, READ_ONLY, "reader"],
      [members.admin, ADMIN, "admin"],
    ];
    for (const [user, permissions, who] of expected) {
      const as = ctx.as(user);
      expect((await as.get(c)).body.permissions, `comment, ${who}`).toEqual(permissions);
      expect((await as.get(`${prefix}/comments`)).body.items[0].permissions, `comment in list, ${who}`).toEqual(permissions);
      expect((await as.get(r)).body.permissions, `reply, ${who}`).toEqual(permissions);
      expect((await as.get(`${c}/replies`)).body.items[0].permissions, `reply in list, ${who}`).toEqual(permissions);
    }
    // What another commenter's own reply looks like to the comment's author.
    const theirs = await postReply(other, prefix, comment.id, "Theirs");
    expect(theirs.permissions).toEqual(AUTHOR);
    expect((await ctx.as(members.comment).get(`${c}/replies/${theirs.id}`)).body.permissions).toEqual(COMMENTER);
  });
});
