import { describe, expect, it } from "vitest";
import type { CommentReplyRow, CommentRow, UserRow } from "../../db/schema.js";
import { Urls } from "../../http/urls.js";
import { type CommentPresentContext, presentComment, presentReply } from "./comments.presenter.js";

const urls = new Urls("http://quire.test");
const body = JSON.stringify({
  object: "document",
  data: {},
  nodes: [{ object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ text: "Hi" }] }] }],
});
const permissions = { view: true, edit: false, reply: true, delete: false };

const comment: CommentRow = {
  id: "comment1",
  spaceId: "space1",
  changeRequestId: null,
  revisionId: "rev1",
  pageId: null,
  nodeKey: null,
  tableCell: null,
  body,
  status: "resolved",
  resolvedAt: "2024-01-02T00:00:00.000Z",
  resolvedBy: "gone2",
  postedBy: "gone1",
  postedAt: "2024-01-01T00:00:00.000Z",
  editedAt: null,
  reviewId: null,
};

const known = { id: "known", displayName: "Known", email: "known@example.test", photoUrl: null } as unknown as UserRow;

function context(users: UserRow[]): CommentPresentContext {
  return { urls, format: "document", basePath: "/spaces/space1", users: new Map(users.map((u) => [u.id, u])) };
}

describe("presentComment and presentReply with users whose rows are missing", () => {
  it("present a placeholder for a missing author, resolver, reactor or replier instead of failing", () => {
    const ctx = context([known]);
    const presented = presentComment(
      comment,
      {
        permissions,
        reactions: [{ subjectId: comment.id, userId: "gone3", emoji: "👍", reactedAt: "2024-01-03T00:00:00.000Z" }],
        repliers: [{ commentId: comment.id, userId: "gone4", count: 2, updatedAt: "2024-01-04T00:00:00.000Z" }],
      },
      ctx,
    );
    const placeholder = (id: string) => ({
      object: "user",
      id,
      displayName: "Deleted user",
      urls: { location: `http://quire.test/v1/users/${id}` },
    });
    expect(presented.postedBy).toEqual(placeholder("gone1"));
    expect(presented).toMatchObject({ status: "resolved", resolvedBy: placeholder("gone2") });
    expect(presented.reactions[0]!.users[0]!.user).toEqual(placeholder("gone3"));
    expect(presented.repliers[0]!.user).toEqual(placeholder("gone4"));

    const reply: CommentReplyRow = {
      id: "reply1",
      commentId: comment.id,
      body,
      postedBy: "gone5",
      postedAt: "2024-01-05T00:00:00.000Z",
      editedAt: null,
    };
    expect(presentReply(reply, { permissions, reactions: [] }, ctx).postedBy).toEqual(placeholder("gone5"));
    // A known user is presented as usual.
    expect(presentReply({ ...reply, postedBy: "known" }, { permissions, reactions: [] }, ctx).postedBy).toMatchObject({
      id: "known",
      displayName: "Known",
    });
  });
});
