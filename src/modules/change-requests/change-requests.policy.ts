import type { ChangeRequestRow, SpaceRow } from "../../db/schema.js";
import { conflicting, notAllowed } from "../../lib/errors.js";
import { authorize } from "../../permissions/authorize.js";
import { atLeast, type Role } from "../../permissions/roles.js";
import type { SpacePermissionsValue } from "../spaces/spaces.schemas.js";
import { WRITABLE_STATUSES } from "./change-requests.schemas.js";

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

/**
 * 403 for a write the caller may not make (`allowed` false): when the space is locked and their
 * level would otherwise allow it (`needs`), the message names the lock.
 */
export function refuseWrite(
  loaded: { space: Pick<SpaceRow, "id" | "editMode">; level: Role | null },
  allowed: boolean,
  needs: Role,
  action: string,
): void {
  if (allowed) return;
  if (loaded.space.editMode === "locked" && atLeast(loaded.level, needs)) {
    throw notAllowed(
      `Space "${loaded.space.id}" is locked (editMode "locked"), so you cannot ${action}. An admin can unlock it with PATCH /v1/spaces/${loaded.space.id} and {"editMode":"live"}.`,
    );
  }
  throw notAllowed(`Only members with the ${needs} level or higher on space "${loaded.space.id}" can ${action}.`);
}

/**
 * 404 unless the caller sees the change request, 403 unless they may change its subject,
 * description or status (its creator, or the review level on the space). The API's PATCH and the
 * web app's forms ask the same.
 */
export function authorizeUpdate(
  loaded: { changeRequest: Pick<ChangeRequestRow, "number">; changeRequestPermissions: ChangeRequestPermissions },
  notFound: string,
): void {
  authorize(loaded.changeRequestPermissions, "update", {
    notFound,
    forbidden: `Only the creator of change request #${loaded.changeRequest.number} or members with the review level on the space can change it.`,
  });
}

/** Whether the change request's content can still change (a draft or open one; not merged or archived). */
export function isWritable(changeRequest: Pick<ChangeRequestRow, "status">): boolean {
  return (WRITABLE_STATUSES as readonly string[]).includes(changeRequest.status);
}

/** 409 for a write to a change request whose content can no longer change. */
export function assertWritable(changeRequest: ChangeRequestRow): void {
  if (isWritable(changeRequest)) return;
  if (changeRequest.status === "merged") {
    throw conflicting(`Change request #${changeRequest.number} is merged: it can no longer change. Create a new change request.`);
  }
  throw conflicting(
    `Change request #${changeRequest.number} is archived: reopen it first (PATCH with {"status":"open"} or {"status":"draft"}).`,
  );
}
