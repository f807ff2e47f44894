import type { CommentPermissionsValue } from "./comments.schemas.js";

/** What the caller may do where the comments live (the space, or the change request). */
export interface CommentScopeAccess {
  view: boolean;
  /** May post, reply, react, resolve and reopen. */
  comment: boolean;
  /** May delete anyone's comments and replies. */
  admin: boolean;
}

/**
 * What the caller may do with one comment or reply. Anyone who can view the scope sees it; anyone
 * who may comment there may reply, react, resolve and reopen (`reply`); only the author edits the
 * body (and only while they may still comment); the author or an admin deletes it.
 */
export function commentPermissions(actorId: string, item: { postedBy: string }, scope: CommentScopeAccess): CommentPermissionsValue {
  const view = scope.view;
  const author = view && item.postedBy === actorId;
  const comment = view && scope.comment;
  return {
    view,
    edit: author && comment,
    reply: comment,
    delete: (author && comment) || (view && scope.admin),
  };
}
