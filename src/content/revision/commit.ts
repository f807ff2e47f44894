/**
 * Recording new content: store the content tree, create the revision, and (for primary content)
 * move the space's pointer to it and run the primary-content hooks, all inside the caller's
 * transaction.
 */
import type { Executor } from "../../db/database.js";
import type { RevisionRow } from "../../db/schema.js";
import type { RevisionContent } from "./model.js";
import { primaryContentChanged } from "./primary-hooks.js";
import { insertRevision, movePrimaryRevision, type NewRevision } from "./revisions.queries.js";
import { saveContent } from "./storage.js";

/**
 * The space's primary revision was no longer `expected` when the commit tried to move it (another
 * write moved it first). Callers that recompute retry on it; a route answers it as a 409.
 */
export class PrimaryMoved extends Error {
  constructor(
    readonly spaceId: string,
    readonly expected: string,
  ) {
    super("The space's content changed while this change was being applied; try again.");
    this.name = "PrimaryMoved";
  }
}

export interface CommitInput extends Omit<NewRevision, "treeHash"> {
  content: RevisionContent;
  /** When set, the space's primary revision moves from this revision to the new one (PrimaryMoved when it is no longer this one). */
  movePrimaryFrom?: string;
}

export async function commitRevision(trx: Executor, input: CommitInput): Promise<RevisionRow> {
  const { content, movePrimaryFrom, ...revision } = input;
  const treeHash = await saveContent(trx, content);
  const row = await insertRevision(trx, { ...revision, treeHash });
  if (movePrimaryFrom !== undefined) {
    const moved = await movePrimaryRevision(trx, input.spaceId, movePrimaryFrom, row.id);
    if (!moved) throw new PrimaryMoved(input.spaceId, movePrimaryFrom);
    await primaryContentChanged(trx, { spaceId: input.spaceId, revisionId: row.id, previousRevisionId: movePrimaryFrom });
  }
  return row;
}
