/** Loading a change request (by id or number) of a live space with the caller's permissions on it. */
import type { Executor } from "../../db/database.js";
import type { ChangeRequestRow, SpaceRow, UserRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import type { Actor } from "../../permissions/actor.js";
import { type LoadedSpace, requireLiveSpace } from "../spaces/spaces.loader.js";
import { getSpacesByIds } from "../spaces/spaces.queries.js";
import { getUsersByIds } from "../users/users.queries.js";
import { type ChangeRequestPermissions, changeRequestPermissions } from "./change-requests.policy.js";
import { getChangeRequest, getChangeRequestByNumber, openCommentCountsForChangeRequests } from "./change-requests.queries.js";

export interface LoadedChangeRequest extends LoadedSpace {
  changeRequest: ChangeRequestRow;
  changeRequestPermissions: ChangeRequestPermissions;
}

/** `{changeRequestId}` is the id or the number: a number is all digits (ids are base62 and longer). */
function findChangeRequest(db: Executor, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  if (/^[0-9]{1,9}$/.test(idOrNumber)) return getChangeRequestByNumber(db, spaceId, Number(idOrNumber));
  return getChangeRequest(db, spaceId, idOrNumber);
}

/**
 * A change request of a live space the caller may view, with their permissions; 404 when the space
 * or the change request is missing or the caller may not see them.
 */
export async function requireChangeRequest(db: Executor, actor: Actor, spaceId: string, idOrNumber: string): Promise<LoadedChangeRequest> {
  const loaded = await requireLiveSpace(db, actor, spaceId);
  const changeRequest = await findChangeRequest(db, loaded.space.id, idOrNumber);
  if (!changeRequest) throw missing(`No change request "${idOrNumber}" in space "${spaceId}".`);
  return { ...loaded, changeRequest, changeRequestPermissions: changeRequestPermissions(actor.user.id, changeRequest, loaded.permissions) };
}

/** What presenting change requests needs beyond their rows, loaded for all of them at once. */
export interface ChangeRequestsContext {
  users: ReadonlyMap<string, UserRow>;
  spaces: ReadonlyMap<string, SpaceRow>;
  /** Open comments on each change request. */
  comments: ReadonlyMap<string, number>;
}

/** Creators, spaces and open comment counts of change requests of any spaces: one query each. */
export async function loadChangeRequestsContext(db: Executor, rows: readonly ChangeRequestRow[]): Promise<ChangeRequestsContext> {
  const [users, spaces, comments] = await Promise.all([
    getUsersByIds(db, [...new Set(rows.map((r) => r.createdBy))]),
    getSpacesByIds(db, [...new Set(rows.map((r) => r.spaceId))]),
    openCommentCountsForChangeRequests(
      db,
      rows.map((r) => r.id),
    ),
  ]);
  return { users: new Map(users.map((u) => [u.id, u])), spaces: new Map(spaces.map((s) => [s.id, s])), comments };
}
