/** The Git sync state recorded on a space (`spaces.git_sync`). */
import type { GitConflict } from "../../content/git-sync/conflicts.js";
import type { Executor } from "../../db/database.js";
import { parseJsonOrNull } from "../../lib/json.js";
import { nowIso } from "../../lib/time.js";
import { getSpaceGitSync, lockSpaceRow, setSpaceGitSync } from "../spaces/spaces.queries.js";
import type { GitSyncStateValue } from "../spaces/spaces.schemas.js";

export type GitSyncRunValue = NonNullable<GitSyncStateValue["lastImport"]>;

/** What Git held at the last sync, for the repository it was synced with. */
export interface GitSyncBase {
  /** A revision whose content is the commit's (an import's own, or the revision an export wrote). */
  revision: string;
  commit: string;
  remote: string;
  ref: string;
  projectDirectory: string;
}

/**
 * The state as stored: the API's shape plus what only the sync uses (the base of the next sync, the
 * pages in conflict). The API's response schema leaves those two out; the web app shows conflicts.
 */
export type StoredGitSyncState = GitSyncStateValue & {
  base?: GitSyncBase;
  conflicts?: GitConflict[];
  /** The last export kept some of Git's files in the branch: its commit is not the space's content. */
  branchAhead?: boolean | undefined;
};

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

/** "owner/repo" from a repository URL, for `repoName`. */
export function repoNameOf(url: string): string | undefined {
  try {
    const path = new URL(url).pathname.replace(/\.git$/, "").replace(/^\/+|\/+$/g, "");
    const parts = path.split("/").filter(Boolean);
    return parts.length >= 2 ? parts.slice(-2).join("/") : parts[0];
  } catch {
    return undefined;
  }
}
