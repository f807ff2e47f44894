/**
 * Merge and update of change requests: three-way merges of the change request's base (the primary
 * revision it was created or last updated from), the current primary content and the change
 * request's head, by `mergeContent`. Nothing is written when the merge has conflicts; the caller
 * lists them (GET .../conflicts) and resolves them by editing the change request (see
 * resolutions.model.ts).
 *
 * Both writes use compare-and-set (of the space's primary revision for a merge, of the change
 * request's head for an update) and recompute from scratch when another write won, so concurrent
 * merges of two change requests both land and neither loses the other's changes. The merge is
 * computed outside the write transaction (it reads a lot and writes little), which is why these
 * services open their own transactions.
 */

import { documentText } from "../../content/document/plain-text.js";
import type { JSONDocument, MergeConflict, MergeResult, SemanticChange } from "../../content/merge/index.js";
import { mergeContent, semanticChanges } from "../../content/merge/index.js";
import { commitRevision } from "../../content/revision/commit.js";
import type { PageMeta, RevisionContent } from "../../content/revision/model.js";
import { loadContent, loadDocument, saveDocument } from "../../content/revision/storage.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";
import type { Db, Executor } from "../../db/database.js";
import type { ChangeRequestRow, RevisionRow, SpaceRow } from "../../db/schema.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { conflicting, DomainError, notAllowed } from "../../lib/errors.js";
import { parseJson } from "../../lib/json.js";
import type { Actor } from "../../permissions/actor.js";
import { currentReviews } from "../change-request-reviews/change-request-reviews.queries.js";
import type { LoadedChangeRequest } from "../change-requests/change-requests.loader.js";
import { assertWritable, refuseWrite } from "../change-requests/change-requests.policy.js";
import { baseRevisionOf, isOutdated } from "../change-requests/change-requests.presenter.js";
import {
  clearResolutions,
  listResolutions,
  markChangeRequestMerged,
  moveChangeRequestHead,
  recordConflictsSeen,
} from "../change-requests/change-requests.queries.js";
import { freshState, MAX_ATTEMPTS, requireRevision, retryWhileSuperseded, Superseded } from "../change-requests/write-attempts.service.js";
import { blockedMessage, effectiveMergeRules, evaluateMergeRules } from "../merge-rules/merge-rules.model.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { getUsersByIds } from "../users/users.queries.js";

export interface MergeSides {
  space: SpaceRow;
  changeRequest: ChangeRequestRow;
  base: RevisionRow;
  primary: RevisionRow;
  head: RevisionRow;
  baseContent: RevisionContent;
  primaryContent: RevisionContent;
  headContent: RevisionContent;
}

/** The three revisions of a merge and their content trees (page bodies stay unloaded). */
export async function loadSides(
  db: Executor,
  space: SpaceRow,
  changeRequest: ChangeRequestRow,
  primaryId = space.revisionId,
): Promise<MergeSides> {
  const [base, primary, head] = await Promise.all([
    requireRevision(db, space.id, baseRevisionOf(changeRequest)),
    requireRevision(db, space.id, primaryId),
    requireRevision(db, space.id, changeRequest.revisionId),
  ]);
  const [baseContent, primaryContent, headContent] = await Promise.all([
    loadContent(db, base.treeHash),
    loadContent(db, primary.treeHash),
    loadContent(db, head.treeHash),
  ]);
  return { space, changeRequest, base, primary, head, baseContent, primaryContent, headContent };
}

/** A document by hash; a missing one is corrupt storage, not a user error. */
export function documentLoader(db: Executor): (hash: string) => Promise<JSONDocument> {
  return async (hash) => {
    const document = await loadDocument<JSONDocument>(db, hash);
    if (!document) throw new Error(`Document ${hash} is missing`);
    return document;
  };
}

/** The recorded conflict resolutions of a change request: per page, the merge base to use. */
export async function loadPageBases(db: Executor, changeRequestId: string): Promise<Map<string, PageMeta>> {
  const rows = await listResolutions(db, changeRequestId);
  return new Map(rows.map((row) => [row.pageId, parseJson<PageMeta>(row.base, "change_request_resolutions.base")]));
}

/**
 * Merges the change request's head into the primary content against their base. When the primary
 * has not moved since the base, the result is the head itself (no merge to compute).
 */
export async function computeMerge(db: Executor, sides: MergeSides, pageBases?: Map<string, PageMeta>): Promise<MergeResult> {
  if (sides.primary.id === sides.base.id) {
    return { content: sides.headContent, documents: new Map(), conflicts: [], changes: [] };
  }
  return mergeWithPageBases(db, sides, pageBases ?? (await loadPageBases(db, sides.changeRequest.id)));
}

/**
 * The three-way merge of base, primary ("ours") and change request head ("theirs"), each page
 * merged against its recorded resolution base when it has one (`pageBases`, see resolutions.model.ts).
 */
export function mergeWithPageBases(
  db: Executor,
  contents: Pick<MergeSides, "baseContent" | "primaryContent" | "headContent">,
  pageBases: Map<string, PageMeta>,
): Promise<MergeResult> {
  return mergeContent({
    base: contents.baseContent,
    ours: contents.primaryContent,
    theirs: contents.headContent,
    loadDocument: documentLoader(db),
    ...(pageBases.size > 0 ? { pageBase: (id: string) => pageBases.get(id) } : {}),
  });
}

async function saveDocuments(trx: Executor, documents: Map<string, JSONDocument>): Promise<void> {
  for (const document of documents.values()) await saveDocument(trx, document);
}

export interface MergeOutcome {
  revision: string;
  result: "merge" | "conflicts";
  conflicts: MergeConflict[];
}

/**
 * Whether the actor may merge this change request now; throws 403 when not: without the space's
 * `merge` permission (review level on a live space; a locked space refuses, naming the lock), or
 * when merge rules (the space's own, or its organization's) fail and no `allow_bypass` rule names
 * the actor. Evaluated before anything is computed or written.
 */
export async function assertMergeAllowed(db: Executor, input: { loaded: LoadedChangeRequest; actor: Actor }): Promise<void> {
  refuseWrite(input.loaded, input.loaded.changeRequestPermissions.merge, "review", "merge its change requests");
  const { space, changeRequest } = await freshState(db, input.loaded);
  const organization = await getOrganization(db, space.orgId);
  const effective = effectiveMergeRules(space.mergeRules, organization!.mergeRules);
  if (effective.rules.length === 0) return;
  const reviews = await currentReviews(db, changeRequest.id);
  const named = effective.rules.flatMap((rule) => ("users" in rule ? rule.users : []));
  const users = new Map((await getUsersByIds(db, [...new Set([...named, ...reviews.map((r) => r.reviewerId)])])).map((u) => [u.id, u]));
  const outcome = evaluateMergeRules(effective.rules, {
    changeRequest: {
      number: changeRequest.number,
      subject: changeRequest.subject,
      descriptionText: changeRequest.description ? documentText(parseJson(changeRequest.description, "change_requests.description")) : "",
      outdated: isOutdated(changeRequest, space.revisionId),
      createdBy: changeRequest.createdBy,
    },
    reviews: reviews.map((r) => ({ reviewerId: r.reviewerId, status: r.status as "approved" | "changes-requested" })),
    actorId: input.actor.user.id,
    nameOf: (id) => {
      const user = users.get(id);
      return user ? `${user.displayName} (${id})` : id;
    },
  });
  if (outcome.failures.length > 0 && !outcome.bypassed)
    throw notAllowed(blockedMessage(changeRequest.number, outcome.failures, effective.source));
}

/** Why a merge by this actor would be refused now (the merge rules, a locked space ...), by assertMergeAllowed's own check; undefined when allowed. */
export async function mergeRefusal(db: Executor, input: { loaded: LoadedChangeRequest; actor: Actor }): Promise<string | undefined> {
  try {
    await assertMergeAllowed(db, input);
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error.message;
    throw error;
  }
}

/**
 * Merges a change request into the primary content: a `merge` revision (parents: the primary and
 * the change request's head) becomes the primary revision, the change request is marked merged and
 * the space's search index is asked to follow. With conflicts nothing changes, and the answer names
 * the unchanged primary revision.
 */
export async function mergeChangeRequest(
  db: Db,
  input: { loaded: LoadedChangeRequest; actor: Actor; notifyJobs?: () => void },
): Promise<MergeOutcome> {
  await assertMergeAllowed(db, input);
  return retryWhileSuperseded(
    MAX_ATTEMPTS,
    async (): Promise<MergeOutcome> => {
      const { space, changeRequest } = await freshState(db, input.loaded);
      if (changeRequest.status === "merged") {
        throw conflicting(`Change request #${changeRequest.number} is already merged (revision ${changeRequest.revisionMerged}).`);
      }
      assertWritable(changeRequest);
      const sides = await loadSides(db, space, changeRequest);
      const merged = await computeMerge(db, sides);
      if (merged.conflicts.length > 0) {
        await recordConflictsSeen(db, changeRequest.id, sides.primary.id);
        return { revision: sides.primary.id, result: "conflicts", conflicts: merged.conflicts };
      }
      // Compare and set twice: of the primary revision (commitRevision: PrimaryMoved) and of the
      // change request's head; either failing recomputes the merge.
      const revision = await db.transaction().execute(async (trx) => {
        await saveDocuments(trx, merged.documents);
        const created = await commitRevision(trx, {
          spaceId: space.id,
          parents: [sides.primary.id, sides.head.id],
          type: "merge",
          content: merged.content,
          mergedFrom: changeRequest.id,
          createdBy: input.actor.user.id,
          movePrimaryFrom: sides.primary.id,
        });
        const marked = await markChangeRequestMerged(trx, { id: changeRequest.id, head: sides.head.id, revisionMerged: created.id });
        if (!marked) throw new Superseded();
        await requestSearchIndex(trx, space.id);
        return created;
      });
      input.notifyJobs?.();
      announceAccessChange({ kind: "change-request", changeRequestId: changeRequest.id });
      return { revision: revision.id, result: "merge", conflicts: [] };
    },
    "The space's content or the change request kept changing while merging; try again.",
  );
}

export interface UpdateOutcome {
  revision: string;
  result: "update" | "conflicts";
  conflicts: MergeConflict[];
}

/**
 * Brings the primary content into the change request: an `update` revision (parents: the change
 * request's head and the primary revision) becomes its head and the primary revision its base.
 * Already up to date: nothing to do. With conflicts nothing changes.
 */
export async function updateFromPrimary(db: Db, input: { loaded: LoadedChangeRequest; actor: Actor }): Promise<UpdateOutcome> {
  return retryWhileSuperseded(
    MAX_ATTEMPTS,
    async (): Promise<UpdateOutcome> => {
      const { space, changeRequest } = await freshState(db, input.loaded);
      assertWritable(changeRequest);
      if (baseRevisionOf(changeRequest) === space.revisionId)
        return { revision: changeRequest.revisionId, result: "update", conflicts: [] };
      const sides = await loadSides(db, space, changeRequest);
      const merged = await computeMerge(db, sides);
      if (merged.conflicts.length > 0) {
        await recordConflictsSeen(db, changeRequest.id, sides.primary.id);
        return { revision: sides.head.id, result: "conflicts", conflicts: merged.conflicts };
      }
      const revision = await db.transaction().execute(async (trx) => {
        await saveDocuments(trx, merged.documents);
        const created = await commitRevision(trx, {
          spaceId: space.id,
          parents: [sides.head.id, sides.primary.id],
          type: "update",
          content: merged.content,
          createdBy: input.actor.user.id,
        });
        const moved = await moveChangeRequestHead(trx, {
          id: changeRequest.id,
          expected: sides.head.id,
          revisionId: created.id,
          mergedAncestor: sides.primary.id,
        });
        if (!moved) throw new Superseded();
        await clearResolutions(trx, changeRequest.id);
        return created;
      });
      return { revision: revision.id, result: "update", conflicts: [] };
    },
    "The change request kept changing while it was being updated; try again.",
  );
}

/**
 * The conflicts a merge would have now (empty when it would merge cleanly). Reporting them records
 * which primary revision the caller saw, so that an edit of a page in conflict resolves it against
 * that version (resolutions.model.ts).
 */
export async function currentConflicts(db: Db, loaded: LoadedChangeRequest): Promise<{ sides: MergeSides; conflicts: MergeConflict[] }> {
  const { space, changeRequest } = await freshState(db, loaded);
  const sides = await loadSides(db, space, changeRequest);
  // A merged change request is part of the primary content: nothing of it can collide any more.
  if (changeRequest.status === "merged") return { sides, conflicts: [] };
  const merged = await computeMerge(db, sides);
  if (merged.conflicts.length > 0) await recordConflictsSeen(db, changeRequest.id, sides.primary.id);
  return { sides, conflicts: merged.conflicts };
}

/**
 * What the change request changes relative to its base (GET .../changes): the semantic changes from
 * the base's content to the head's, with both contents (to present them).
 */
export async function changesOf(
  db: Executor,
  loaded: Pick<LoadedChangeRequest, "space" | "changeRequest">,
): Promise<{ before: RevisionContent; after: RevisionContent; changes: SemanticChange[] }> {
  const { space, changeRequest } = loaded;
  const [base, head] = await Promise.all([
    requireRevision(db, space.id, baseRevisionOf(changeRequest)),
    requireRevision(db, space.id, changeRequest.revisionId),
  ]);
  const [before, after] = await Promise.all([loadContent(db, base.treeHash), loadContent(db, head.treeHash)]);
  return { before, after, changes: semanticChanges(before, after) };
}
