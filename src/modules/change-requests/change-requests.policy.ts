import type { SpacePermissionsValue } from "../spaces/spaces.schemas.js";

/** What a caller may do with a change request. (`ChangeRequest` has no `permissions` field.) */
export interface ChangeRequestPermissions {
  view: boolean;
  /** Edit its content and bring the primary content into it (space `edit`: live spaces only). */
  editContent: boolean;
  /** Change its subject, description and status. */
  update: boolean;
  /** Merge it into the primary content (space `merge`: live spaces only; merge rules come on top). */
  merge: boolean;
}

/**
 * Change requests follow their space: readers see them, editors write their content, reviewers
 * (and the creator) manage them, and mergers merge them. A locked space refuses content writes and
 * merges (its `edit` and `merge` are false), but not subject, description and status changes.
 */
export function changeRequestPermissions(
  actorId: string,
  changeRequest: { createdBy: string },
  space: SpacePermissionsValue,
): ChangeRequestPermissions {
  return {
    view: space.view,
    editContent: space.view && space.edit,
    update: space.view && (space.review || changeRequest.createdBy === actorId),
    merge: space.view && space.merge,
  };
}
