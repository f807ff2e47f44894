/**
 * Where a request's comments live (a space's own content, a change request), as the location's
 * resolver finds it for the caller, and what follows from it: the location the queries filter on,
 * the addresses and the wording of messages. Pure.
 */
import type { SpaceRow } from "../../db/schema.js";
import type { CommentScopeAccess } from "./comments.policy.js";

/** Where comments live: a space's own comments (`changeRequestId` absent) or one change request's. */
export interface CommentLocation {
  spaceId: string;
  changeRequestId?: string | undefined;
}

/** Where a request's comments live, as the location's resolver finds it for the caller. */
export interface CommentScope {
  space: SpaceRow;
  /** The change request whose comments these are (its id, not its number); absent for the space's own. */
  changeRequestId?: string;
  /** Id of the revision whose content new comments target: the space's primary revision, or the change request's head. */
  revision: string;
  /** The caller's access where the comments live; `view: false` is answered 404, like a missing location. */
  permissions: CommentScopeAccess;
}

export const locationOf = (scope: CommentScope): CommentLocation => ({ spaceId: scope.space.id, changeRequestId: scope.changeRequestId });
export const basePathOf = (scope: CommentScope) =>
  scope.changeRequestId === undefined ? `/spaces/${scope.space.id}` : `/spaces/${scope.space.id}/change-requests/${scope.changeRequestId}`;
export const placeOf = (scope: CommentScope) =>
  scope.changeRequestId === undefined ? `space "${scope.space.id}"` : `change request "${scope.changeRequestId}"`;
