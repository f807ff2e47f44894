/** Reads and updates the Git sync state recorded on a space (`spaces.git_sync`). */
import type { Executor } from "../../db/database.js";
import { parseJsonOrNull } from "../../lib/json.js";
import { nowIso } from "../../lib/time.js";
import { getSpaceGitSync, lockSpaceRow, setSpaceGitSync } from "../spaces/spaces.queries.js";
import type { StoredGitSyncState } from "./git-sync-state.model.js";

export async function readGitSyncState(db: Executor, spaceId: string): Promise<StoredGitSyncState | null> {
  return parseJsonOrNull<StoredGitSyncState>((await getSpaceGitSync(db, spaceId)) ?? null, "spaces.git_sync");
}

/**
 * Applies `change` to the current state atomically: the row is locked (a no-op write) before it is
 * read, so a job recording its progress and a request starting the next run cannot overwrite each
 * other's part. Runs in the caller's transaction when given one, else in its own.
 */
export async function updateGitSyncState(
  db: Executor,
  spaceId: string,
  change: (state: StoredGitSyncState) => StoredGitSyncState | null,
): Promise<StoredGitSyncState | null> {
  if (!db.isTransaction) return db.transaction().execute((trx) => updateGitSyncState(trx, spaceId, change));
  await lockSpaceRow(db, spaceId);
  const current = (await readGitSyncState(db, spaceId)) ?? {};
  const next = change({ ...current });
  await setSpaceGitSync(db, spaceId, next ? JSON.stringify({ ...next, updatedAt: nowIso() }) : null);
  return next;
}
