/**
 * The block editor's comments: the threads of one page for its side panel, a comment made on a
 * text selection (a comment on the block, through the comments family as the API stores it, with
 * its anchor beside it), and resolving or reopening one. The page must be one of the change
 * request's; the comment permission is the API's.
 */
import * as Y from "yjs";
import { markdownFromDocument } from "../../../../content/markdown/index.js";
import { DomainError, invalid } from "../../../../lib/errors.js";
import { commentContribution } from "../../../../modules/change-requests/change-requests.queries.js";
import { loadConversation } from "../../../../modules/comments/comments.loader.js";
import { commentPermissions } from "../../../../modules/comments/comments.policy.js";
import { anchorsOfComments, insertCommentAnchor } from "../../../../modules/comments/comments.queries.js";
import { checkTarget, createComment, createReply, documentFromBody, editComment } from "../../../../modules/comments/comments.service.js";
import { getUsersByIds } from "../../../../modules/users/users.queries.js";
import { authorize } from "../../../../permissions/authorize.js";
import type { ChangeRequestContext } from "../../web.steps.js";
import { commentScope, mayComment, reactMessages, requireComment } from "./changes.steps.js";
import { commentViews } from "./comments.model.js";
import { type ThreadJson, threadsOfPage } from "./inline-comments.model.js";

/** As many as the change request's page shows. */
const MAX_COMMENTS = 500;
const MAX_REPLIES = 5000;

export async function pageThreads(ctx: ChangeRequestContext, pageId: string): Promise<ThreadJson[]> {
  const { loaded, deps } = ctx;
  const location = { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id };
  const rows = await loadConversation(deps.db, location, { maxComments: MAX_COMMENTS, maxReplies: MAX_REPLIES });
  const { views, userIds } = commentViews(rows, ctx.actor.user.id, loaded.permissions);
  const onPage = views.filter((v) => v.pageId === pageId);
  const [anchors, users] = await Promise.all([
    anchorsOfComments(
      deps.db,
      onPage.map((v) => v.id),
    ),
    getUsersByIds(deps.db, userIds),
  ]);
  return threadsOfPage({
    pageId,
    views: onPage,
    anchors,
    users: new Map(users.map((u) => [u.id, u])),
    markdownOf: (document) => {
      try {
        return markdownFromDocument(document);
      } catch {
        // A body the Markdown writer cannot read (stored by an older version) is still listed.
        return "(this comment cannot be shown as text)";
      }
    },
  });
}

export interface InlineAnchorInput {
  quote: string;
  start: string;
  end: string;
}

/**
 * A relative position must be one as Yjs writes it: decoded and written again, the same bytes (a
 * client can send any base64, and Yjs reads many byte strings as some position).
 */
function checkPosition(value: string, field: string): void {
  const bytes = Buffer.from(value, "base64");
  let again: Uint8Array | undefined;
  try {
    again = Y.encodeRelativePosition(Y.decodeRelativePosition(bytes));
  } catch {
    again = undefined;
  }
  if (!again || !Buffer.from(again).equals(bytes)) {
    throw invalid(`${field} is not a Yjs relative position (base64 of Y.encodeRelativePosition).`);
  }
}

/**
 * The block of an inline comment. A block made in the editor moments ago has its key there before
 * the change request has it (live editing saves within seconds): the anchor locates the words, so
 * such a comment is a comment on the page. Without an anchor, an unknown block is refused.
 */
async function inlineTarget(ctx: ChangeRequestContext, pageId: string, node: string | undefined, anchored: boolean) {
  const scope = commentScope(ctx.loaded);
  try {
    return await checkTarget(ctx.deps.db, scope, { page: pageId, node });
  } catch (error) {
    if (!(anchored && node !== undefined && error instanceof DomainError && error.message.startsWith("body.node:"))) throw error;
    return checkTarget(ctx.deps.db, scope, { page: pageId });
  }
}

export async function postInlineComment(
  ctx: ChangeRequestContext,
  pageId: string,
  input: { markdown: string; node?: string | undefined; anchor?: InlineAnchorInput | undefined },
): Promise<ThreadJson> {
  const { loaded, actor, deps } = ctx;
  const scope = commentScope(loaded);
  authorize(scope.permissions, "comment", mayComment(loaded));
  const document = await documentFromBody({ markdown: input.markdown }, "body");
  if (input.anchor) {
    if (input.anchor.quote.trim() === "") throw invalid("anchor.quote must not be empty: select the words to comment on.");
    checkPosition(input.anchor.start, "anchor.start");
    checkPosition(input.anchor.end, "anchor.end");
  }
  const target = await inlineTarget(ctx, pageId, input.node, input.anchor !== undefined);
  const anchor = input.anchor;
  const comment = await deps.db.transaction().execute(async (trx) => {
    const row = await createComment(trx, {
      scope,
      target,
      postedBy: actor.user.id,
      document,
      onPosted: commentContribution(loaded.changeRequest.id, actor.user.id),
    });
    if (anchor) await insertCommentAnchor(trx, { commentId: row.id, quote: anchor.quote, start: anchor.start, end: anchor.end });
    return row;
  });
  const thread = (await pageThreads(ctx, pageId)).find((t) => t.id === comment.id);
  if (!thread) throw invalid(`The comment was stored but is not on page "${pageId}".`);
  return thread;
}

/**
 * A reply to a comment of the page (inline or on a block), from the editor's side panel: the
 * comment policy's `reply`, as the change request's page and the API apply it. Answers the thread
 * as the panel lists it.
 */
export async function replyToPageComment(ctx: ChangeRequestContext, commentId: string, markdown: string): Promise<ThreadJson> {
  const { loaded, actor, deps } = ctx;
  const comment = await requireComment(ctx, commentId);
  authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", mayComment(loaded));
  const document = await documentFromBody({ markdown }, "body");
  await deps.db.transaction().execute((trx) =>
    createReply(trx, {
      comment,
      postedBy: actor.user.id,
      document,
      onPosted: commentContribution(loaded.changeRequest.id, actor.user.id),
    }),
  );
  const thread = comment.pageId ? (await pageThreads(ctx, comment.pageId)).find((t) => t.id === comment.id) : undefined;
  if (!thread) throw invalid(`The reply was stored but comment "${commentId}" is not on a page of the change request.`);
  return thread;
}

export async function resolveInlineComment(ctx: ChangeRequestContext, commentId: string, resolved: boolean): Promise<void> {
  const { loaded, actor, deps } = ctx;
  const comment = await requireComment(ctx, commentId);
  authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", reactMessages("comment", comment.id, loaded));
  await deps.db.transaction().execute((trx) => editComment(trx, { comment, actorId: actor.user.id, resolved }));
}
