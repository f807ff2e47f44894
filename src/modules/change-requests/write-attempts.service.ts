/**
 * What the change request writes share (merge, update, content edits, appended templates): each
 * attempt reads the current state, computes outside any transaction (it reads a lot and writes
 * little), then writes in a transaction guarded by compare-and-set. When another write won the
 * compare-and-set, the transaction is rolled back and the attempt recomputed from the new state.
 */
import { PrimaryMoved } from "../../content/revision/commit.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import type { Executor } from "../../db/database.js";
import type { ChangeRequestRow, RevisionRow, SpaceRow } from "../../db/schema.js";
import { conflicting } from "../../lib/errors.js";
import { getSpace } from "../spaces/spaces.queries.js";
import type { LoadedChangeRequest } from "./change-requests.loader.js";
import { getChangeRequest } from "./change-requests.queries.js";

/** How many times a write is recomputed when another write moved what it was based on. */
export const MAX_ATTEMPTS = 5;

/** Thrown inside a write transaction when a compare-and-set fails: rolls it back, and the write is recomputed. */
export class Superseded extends Error {}

/**
 * Runs `attempt` up to `max` times while it is superseded (it threw Superseded, or the primary
 * revision moved under its commit: PrimaryMoved), then answers 409 with `exhaustedMessage`. Any
 * other error, 409s included, ends it at once.
 */
export async function retryWhileSuperseded<T>(max: number, attempt: () => Promise<T>, exhaustedMessage: string): Promise<T> {
  for (let n = 1; n <= max; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof Superseded || error instanceof PrimaryMoved)) throw error;
    }
  }
  throw conflicting(exhaustedMessage);
}

/** A revision of the space; a missing one is corrupt storage, not a user error. */
export async function requireRevision(db: Executor, spaceId: string, id: string): Promise<RevisionRow> {
  const revision = await getSpaceRevision(db, spaceId, id);
  if (!revision) throw new Error(`Revision ${id} of space ${spaceId} is missing`);
  return revision;
}

/** The space and the change request as they are now; 409 (`…removed while <during>.`) when either is gone. */
export async function freshState(
  db: Executor,
  loaded: LoadedChangeRequest,
  during = "merging",
): Promise<{ space: SpaceRow; changeRequest: ChangeRequestRow }> {
  const [space, changeRequest] = await Promise.all([
    getSpace(db, loaded.space.id),
    getChangeRequest(db, loaded.space.id, loaded.changeRequest.id),
  ]);
  if (!space || !changeRequest) throw conflicting(`The space or the change request was removed while ${during}.`);
  return { space, changeRequest };
}
