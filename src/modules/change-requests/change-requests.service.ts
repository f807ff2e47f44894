/**
 * Loading change requests with the caller's permissions, presenting them in bulk, creating them
 * (numbered per space, with a template's content or without) and changing their subject,
 * description and status.
 */

import type { ContentRef } from "../../content/document/types.js";
import type { ImportedContent } from "../../content/git-sync/import-content.js";
import { commitRevision } from "../../content/revision/commit.js";
import type { RevisionContent } from "../../content/revision/model.js";
import { loadContent, saveDocumentsJson } from "../../content/revision/storage.js";
import { storeImportedBlobs } from "../../content/store/blobs.queries.js";
import { appendContent, TemplateError, templateContent } from "../../content/templates/templates.js";
import type { Db, Executor, Trx } from "../../db/database.js";
import type { ChangeRequestRow, RevisionRow, SpaceRow } from "../../db/schema.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { conflicting, invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import { getSpace, lockSpaceRow } from "../spaces/spaces.queries.js";
import { assertWritable } from "./change-requests.policy.js";
import {
  getChangeRequest,
  insertChangeRequest,
  moveChangeRequestHead,
  nextChangeRequestNumber,
  recordContribution,
  updateChangeRequestRow,
} from "./change-requests.queries.js";
import type { ChangeRequestStatus, UpdateChangeRequestValue } from "./change-requests.schemas.js";
import { MAX_ATTEMPTS, requireRevision, retryWhileSuperseded, Superseded } from "./write-attempts.service.js";

export interface NewChangeRequestInput {
  space: SpaceRow;
  actorId: string;
  subject?: string | undefined;
  conversationsIssuesCluster?: string | undefined;
  /** A built-in template's content (from `readTemplateForChangeRequest`) the change request starts with. */
  imported?: ImportedContent | undefined;
}

/**
 * Reads and checks a built-in template for a new change request, before its transaction: 400
 * `body.template: …` when it is unknown or its parameters are wrong, so a bad one creates nothing.
 */
export async function readTemplateForChangeRequest(template: {
  id: string;
  contentRefs: Record<string, ContentRef>;
}): Promise<ImportedContent> {
  try {
    return await templateContent(template.id, template.contentRefs, nowIso());
  } catch (error) {
    if (error instanceof TemplateError) throw invalid(`body.template: ${error.message}`);
    throw error;
  }
}

/**
 * Creates a draft change request on the space's current primary revision (its head is that same
 * revision until the first edit: nothing is copied), in the caller's transaction. With a template's
 * content, it is added in a first `edits` revision in the same transaction: the change request
 * exists with that content or not at all. Numbers count up per space without gaps: creations in one
 * space take the space's row lock first, so they number one at a time.
 */
export async function createChangeRequest(trx: Trx, input: NewChangeRequestInput): Promise<ChangeRequestRow> {
  const { imported } = input;
  await lockSpaceRow(trx, input.space.id);
  const space = (await getSpace(trx, input.space.id)) ?? input.space;
  const now = nowIso();
  const row: ChangeRequestRow = {
    id: newId(),
    spaceId: space.id,
    number: await nextChangeRequestNumber(trx, space.id),
    status: "draft",
    subject: input.subject ?? "",
    description: null,
    createdBy: input.actorId,
    revisionId: space.revisionId,
    revisionInitial: space.revisionId,
    revisionMergedAncestor: null,
    revisionMerged: null,
    conversationsIssuesCluster: input.conversationsIssuesCluster ?? null,
    conflictsRevision: null,
    mergedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertChangeRequest(trx, row);
  if (!imported) return row;
  const head = await requireRevision(trx, space.id, space.revisionId);
  return appendImportedContent(trx, {
    spaceId: space.id,
    changeRequestId: row.id,
    head,
    headContent: await loadContent(trx, head.treeHash),
    actorId: input.actorId,
    imported,
  });
}

/**
 * Inside the caller's transaction: adds imported content (a template's pages, files and reusable
 * contents) at the end of the change request's head content as a new `edits` revision, which
 * becomes its head (compare and set on `head`: Superseded when another write moved it first), and
 * counts an `edit` contribution. Answers the change request as it now is.
 */
export async function appendImportedContent(
  trx: Executor,
  input: {
    spaceId: string;
    changeRequestId: string;
    head: RevisionRow;
    headContent: RevisionContent;
    actorId: string;
    imported: ImportedContent;
  },
): Promise<ChangeRequestRow> {
  const { imported } = input;
  await storeImportedBlobs(trx, imported.blobs);
  await saveDocumentsJson(trx, imported.documents);
  const revision = await commitRevision(trx, {
    spaceId: input.spaceId,
    parents: [input.head.id],
    type: "edits",
    content: appendContent(input.headContent, imported.content),
    createdBy: input.actorId,
  });
  if (!(await moveChangeRequestHead(trx, { id: input.changeRequestId, expected: input.head.id, revisionId: revision.id })))
    throw new Superseded();
  await recordContribution(trx, { changeRequestId: input.changeRequestId, userId: input.actorId, actionType: "edit" });
  return (await getChangeRequest(trx, input.spaceId, input.changeRequestId))!;
}

/**
 * Subject, description and status. A merged change request no longer changes; `merged` is only
 * reached by merging (the schema refuses it here), and archived change requests can be reopened.
 */
export async function updateChangeRequest(db: Executor, changeRequest: ChangeRequestRow, body: UpdateChangeRequestValue): Promise<void> {
  if (changeRequest.status === "merged") {
    throw conflicting(`Change request #${changeRequest.number} is merged: its subject, description and status can no longer change.`);
  }
  if (body.description && !Array.isArray(body.description.nodes)) throw invalid("body.description.nodes must be an array.");
  const changes = {
    ...(body.subject !== undefined ? { subject: body.subject } : {}),
    ...(body.description !== undefined ? { description: JSON.stringify({ ...body.description, data: body.description.data ?? {} }) } : {}),
    ...(body.status !== undefined ? { status: body.status as ChangeRequestStatus } : {}),
  };
  if (Object.keys(changes).length > 0) await updateChangeRequestRow(db, changeRequest.id, changes);
  if (changes.status !== undefined && changes.status !== changeRequest.status) {
    announceAccessChange({ kind: "change-request", changeRequestId: changeRequest.id });
  }
}

/**
 * Adds content (a template's pages, files and reusable contents) at the end of a change request,
 * in one new revision of the change request.
 */
export async function appendToChangeRequest(
  db: Db,
  input: { spaceId: string; changeRequestId: string; actorId: string; imported: ImportedContent },
): Promise<ChangeRequestRow> {
  return retryWhileSuperseded(
    MAX_ATTEMPTS,
    async () => {
      const changeRequest = await getChangeRequest(db, input.spaceId, input.changeRequestId);
      if (!changeRequest) throw conflicting("The change request was removed while content was being added to it.");
      assertWritable(changeRequest);
      const head = await requireRevision(db, input.spaceId, changeRequest.revisionId);
      const headContent = await loadContent(db, head.treeHash);
      return db.transaction().execute((trx) =>
        appendImportedContent(trx, {
          spaceId: input.spaceId,
          changeRequestId: changeRequest.id,
          head,
          headContent,
          actorId: input.actorId,
          imported: input.imported,
        }),
      );
    },
    "The change request kept changing while content was being added; try again.",
  );
}
