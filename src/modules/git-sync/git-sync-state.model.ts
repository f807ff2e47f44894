/** The Git sync state recorded on a space (`spaces.git_sync`): its shape, and what is read from it. */
import type { GitConflict } from "../../content/git-sync/conflicts.js";
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
