/**
 * Who may review a change request, who may be asked to, and who may withdraw a request: the rules
 * the service enforces (change-request-reviews.service.ts) and the web app shows.
 */
import type { ChangeRequestRow, SpaceRow } from "../../db/schema.js";
import { contentLevel, type OrgAccess } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import type { ChangeRequestPermissions } from "../change-requests/change-requests.policy.js";

/** Reviewing needs the review level on the space; the creator of a change request cannot review it. */
export function mayReview(
  loaded: { changeRequest: Pick<ChangeRequestRow, "createdBy">; permissions: { review: boolean } },
  actorId: string,
): boolean {
  return loaded.permissions.review && loaded.changeRequest.createdBy !== actorId;
}

/** A member may be asked for a review when they have the review level on the space and did not create the change request. */
export function mayBeAskedToReview(
  loaded: { changeRequest: Pick<ChangeRequestRow, "createdBy">; space: SpaceRow },
  userId: string,
  access: OrgAccess,
): boolean {
  return userId !== loaded.changeRequest.createdBy && atLeast(contentLevel(access, loaded.space), "review");
}

/** A review request is withdrawn by whoever may change the change request (its creator, reviewers), or declined by the one asked. */
export function mayWithdrawReviewRequest(
  loaded: { changeRequestPermissions: Pick<ChangeRequestPermissions, "update"> },
  actorId: string,
  userId: string,
): boolean {
  return loaded.changeRequestPermissions.update || actorId === userId;
}
