import type { Kysely } from "kysely";
import type { Executor } from "../../db/database.js";
import { prepared } from "../../db/prepared.js";
import type { Database, RevisionRow } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";

// Every read of a space's content loads its revision first: compiled once and kept while the
// database is unchanged (db/prepared.ts), as the token and the space it follows are.
const spaceRevision = prepared<{ spaceId: string; revisionId: string }, RevisionRow>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("revisions")
      .selectAll()
      .where("id", "=", param("revisionId"))
      .where("spaceId", "=", param("spaceId")),
  { cache: true },
);

/** getSpaceRevision's rows (none or the revision) without a promise when they are at hand (prepared's `now`); undefined when they must be waited for. */
export function spaceRevisionRowsNow(db: Executor, spaceId: string, revisionId: string): readonly RevisionRow[] | undefined {
  return spaceRevision.now(db, { spaceId, revisionId });
}

/** A revision of the given space (another space's revision id is treated as unknown). The row is frozen (shared). */
export async function getSpaceRevision(db: Executor, spaceId: string, revisionId: string): Promise<RevisionRow | undefined> {
  return (await spaceRevision(db, { spaceId, revisionId }))[0];
}

/** A space's newest revisions, newest first (a page's history walks first parents through them). */
export function listRecentRevisions(db: Executor, spaceId: string, limit: number) {
  return db
    .selectFrom("revisions")
    .select(["id", "parents", "type", "treeHash", "mergedFrom", "createdBy", "createdAt"])
    .where("spaceId", "=", spaceId)
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

export interface RevisionGit {
  oid: string;
  message: string;
  createdByService: boolean;
  url?: string;
  ref?: string;
}

/** Git metadata is the mutable part of a revision: an export records the commit it became. */
export async function setRevisionGit(db: Executor, revisionId: string, git: RevisionGit): Promise<void> {
  await db
    .updateTable("revisions")
    .set({ git: JSON.stringify(git) })
    .where("id", "=", revisionId)
    .execute();
}

export interface NewRevision {
  spaceId: string;
  parents: string[];
  type: "edits" | "merge" | "update" | "rollback";
  treeHash: string | null;
  git?: RevisionGit | null;
  mergedFrom?: string | null;
  createdBy: string | null;
}

export async function insertRevision(db: Executor, input: NewRevision): Promise<RevisionRow> {
  const row: RevisionRow = {
    id: newId(),
    spaceId: input.spaceId,
    parents: JSON.stringify(input.parents),
    type: input.type,
    treeHash: input.treeHash,
    git: input.git ? JSON.stringify(input.git) : null,
    mergedFrom: input.mergedFrom ?? null,
    createdBy: input.createdBy,
    createdAt: nowIso(),
  };
  await db.insertInto("revisions").values(row).execute();
  return row;
}

/**
 * Moves a space's primary content to `revisionId`, only if it still is `expected` (compare and
 * set): two writers that started from the same primary revision cannot both win.
 */
export async function movePrimaryRevision(db: Executor, spaceId: string, expected: string, revisionId: string): Promise<boolean> {
  const result = await db
    .updateTable("spaces")
    .set({ revisionId, updatedAt: nowIso() })
    .where("id", "=", spaceId)
    .where("revisionId", "=", expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
