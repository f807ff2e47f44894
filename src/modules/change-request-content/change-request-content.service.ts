import { contentTypeOf, hasDimensions, imageDimensions } from "../../content/gitbook-repo/media.js";
import type { JSONDocument, MergeConflict } from "../../content/merge/index.js";
import { commitRevision } from "../../content/revision/commit.js";
import { type FileEntry, indexPages, type PageMeta, type RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { documentHashOf, loadContent, loadDocumentJson, saveDocument, saveDocumentsJson } from "../../content/revision/storage.js";
import { putBlob } from "../../content/store/blobs.queries.js";
import { blobHash } from "../../content/store/canonical.js";
import type { Db, Executor } from "../../db/database.js";
import type { ChangeRequestRow, SpaceRow } from "../../db/schema.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { FetchRefused, fetchPublicFile, type PublicFetchOptions } from "../../lib/public-fetch.js";
import { nowIso } from "../../lib/time.js";
import type { Actor } from "../../permissions/actor.js";
import { documentLoader, loadPageBases, mergeWithPageBases } from "../change-request-merge/change-request-merge.service.js";
import { resolvedPageBase } from "../change-request-merge/resolutions.model.js";
import type { LoadedChangeRequest } from "../change-requests/change-requests.loader.js";
import { assertWritable } from "../change-requests/change-requests.policy.js";
import { baseRevisionOf } from "../change-requests/change-requests.presenter.js";
import { getChangeRequest, moveChangeRequestHead, recordContribution, saveResolution } from "../change-requests/change-requests.queries.js";
import { freshState, MAX_ATTEMPTS, requireRevision, retryWhileSuperseded, Superseded } from "../change-requests/write-attempts.service.js";
import { type ContentChangeResultValue, type ContentChangeValue, MAX_FILE_BYTES } from "./change-request-content.schemas.js";
import { type ApplyInput, applyContentChanges, type PreparedFile } from "./content-changes.model.js";

/** Files fetched or decoded for one batch, at most (each at most MAX_FILE_BYTES). */
const MAX_FILES_PER_BATCH = 100;
const FETCH_TIMEOUT_MS = 10_000;
const FETCH_CONCURRENCY = 4;

export interface ContentEditOutcome {
  changeRequest: ChangeRequestRow;
  results: ContentChangeResultValue[];
  insertedFiles: FileEntry[];
}

export interface ContentEditInput {
  loaded: LoadedChangeRequest;
  actor: Actor;
  changes: readonly ContentChangeValue[];
  pageLocation(pageId: string): string;
  /** Overrides the URL fetch policy (tests). */
  fetchOptions?: Partial<PublicFetchOptions>;
}

export async function editChangeRequestContent(db: Db, input: ContentEditInput): Promise<ContentEditOutcome> {
  const files = await prepareFiles(input.changes, input.fetchOptions);
  return retryWhileSuperseded(
    MAX_ATTEMPTS,
    async (): Promise<ContentEditOutcome> => {
      const { space, changeRequest } = await freshState(db, input.loaded, "it was being edited");
      assertWritable(changeRequest);
      const head = await requireRevision(db, space.id, changeRequest.revisionId);
      const headContent = await loadContent(db, head.treeHash);
      const seen = await seenConflicts(db, space, changeRequest, headContent);
      const applied = await applyContentChanges({
        content: headContent,
        changes: input.changes,
        files,
        now: nowIso(),
        loadDocument: documentLoader(db) as ApplyInput["loadDocument"],
        loadDocumentJson: async (hash) => {
          const json = await loadDocumentJson(db, hash);
          if (json === undefined) throw new Error(`Document ${hash} is missing`);
          return json;
        },
        loadRevision: async (revisionId, field) => {
          const revision = await getSpaceRevision(db, space.id, revisionId ?? baseRevisionOf(changeRequest));
          if (!revision) throw invalid(`${field}: no revision "${revisionId}" in space "${space.id}".`);
          return loadContent(db, revision.treeHash);
        },
        pageLocation: input.pageLocation,
        confirmableDeletions: seen?.confirmableDeletions ?? new Set(),
      });
      const resolutions = seen ? await resolutionsFor(db, seen, applied.touched) : [];
      const updated = await db.transaction().execute(async (trx) => {
        for (const list of files.values()) for (const file of list) await putBlob(trx, file.bytes);
        await saveDocumentsJson(trx, applied.documents);
        for (const resolution of resolutions) if (resolution.document) await saveDocument(trx, resolution.document);
        const revision = await commitRevision(trx, {
          spaceId: space.id,
          parents: [head.id],
          type: "edits",
          content: applied.content,
          createdBy: input.actor.user.id,
        });
        if (!(await moveChangeRequestHead(trx, { id: changeRequest.id, expected: head.id, revisionId: revision.id })))
          throw new Superseded();
        await recordContribution(trx, { changeRequestId: changeRequest.id, userId: input.actor.user.id, actionType: "edit" });
        for (const resolution of resolutions) {
          await saveResolution(trx, {
            changeRequestId: changeRequest.id,
            pageId: resolution.pageId,
            primaryRevision: seen!.primaryRevision,
            base: JSON.stringify(resolution.meta),
            createdBy: input.actor.user.id,
          });
        }
        return (await getChangeRequest(trx, space.id, changeRequest.id))!;
      });
      return { changeRequest: updated, results: applied.results, insertedFiles: applied.insertedFiles };
    },
    "The change request kept changing while this batch was being applied; try again.",
  );
}

// ---- conflicts the caller saw -------------------------------------------------------------------

interface SeenConflicts {
  primaryRevision: string;
  baseContent: RevisionContent;
  primaryContent: RevisionContent;
  pageBases: Map<string, PageMeta>;
  byPage: Map<string, MergeConflict[]>;
  confirmableDeletions: Set<string>;
}

/**
 * The conflicts of the change request (as it is before this batch) with the primary revision
 * against which conflicts were last reported, by page; undefined when none were reported since
 * the change request's last update.
 */
async function seenConflicts(
  db: Executor,
  space: SpaceRow,
  changeRequest: ChangeRequestRow,
  headContent: RevisionContent,
): Promise<SeenConflicts | undefined> {
  const primaryId = changeRequest.conflictsRevision;
  if (!primaryId || primaryId === baseRevisionOf(changeRequest)) return undefined;
  const [base, primary] = await Promise.all([
    getSpaceRevision(db, space.id, baseRevisionOf(changeRequest)),
    getSpaceRevision(db, space.id, primaryId),
  ]);
  if (!base || !primary) return undefined;
  const [baseContent, primaryContent, pageBases] = await Promise.all([
    loadContent(db, base.treeHash),
    loadContent(db, primary.treeHash),
    loadPageBases(db, changeRequest.id),
  ]);
  const merged = await mergeWithPageBases(db, { baseContent, primaryContent, headContent }, pageBases);
  const byPage = new Map<string, MergeConflict[]>();
  const confirmableDeletions = new Set<string>();
  const inHead = indexPages(headContent.pages);
  const inPrimary = indexPages(primaryContent.pages);
  for (const item of merged.conflicts) {
    if (item.pageId === undefined) continue;
    const list = byPage.get(item.pageId);
    if (list) list.push(item);
    else byPage.set(item.pageId, [item]);
    if (item.kind === "delete-edit" && item.blockKey === undefined && !inHead.has(item.pageId) && inPrimary.has(item.pageId)) {
      confirmableDeletions.add(item.pageId);
    }
  }
  return { primaryRevision: primary.id, baseContent, primaryContent, pageBases, byPage, confirmableDeletions };
}

interface Resolution {
  pageId: string;
  meta: PageMeta;
  document?: JSONDocument;
}

/** New merge bases for the pages in conflict that the batch touched. */
async function resolutionsFor(db: Executor, seen: SeenConflicts, touched: ReadonlySet<string>): Promise<Resolution[]> {
  const load = documentLoader(db);
  const empty = (): JSONDocument => ({ object: "document", data: {}, nodes: [] });
  const base = indexPages(seen.baseContent.pages);
  const primary = indexPages(seen.primaryContent.pages);
  const out: Resolution[] = [];
  for (const [pageId, conflicts] of seen.byPage) {
    if (!touched.has(pageId)) continue;
    const strip = (page: PageMeta & { children?: unknown }): PageMeta => {
      const { children: _children, ...meta } = page;
      return meta;
    };
    const baseMeta = seen.pageBases.get(pageId) ?? (base.get(pageId) ? strip(base.get(pageId)!.page) : undefined);
    const primaryPage = primary.get(pageId)?.page;
    if (!baseMeta || !primaryPage) continue;
    const primaryMeta = strip(primaryPage);
    const resolved = resolvedPageBase(
      { meta: baseMeta, document: baseMeta.documentHash ? await load(baseMeta.documentHash) : empty() },
      { meta: primaryMeta, document: primaryMeta.documentHash ? await load(primaryMeta.documentHash) : empty() },
      conflicts,
    );
    if (resolved.document) resolved.meta.documentHash = documentHashOf(resolved.document);
    out.push({ pageId, meta: resolved.meta, ...(resolved.document ? { document: resolved.document } : {}) });
  }
  return out;
}

// ---- files --------------------------------------------------------------------------------------

/** Decodes or fetches every file of the batch, by change index; 400 naming the file on any problem. */
async function prepareFiles(
  changes: readonly ContentChangeValue[],
  fetchOptions: Partial<PublicFetchOptions> | undefined,
): Promise<Map<number, PreparedFile[]>> {
  const jobs: { change: number; at: string; input: NonNullable<ContentChangeValue["files"]>[number] }[] = [];
  for (const [i, change] of changes.entries()) {
    if (change.operation !== "insert_files") continue;
    if (!change.files?.length) throw invalid(`body.changes.${i}.files is required for insert_files.`);
    for (const [j, file] of change.files.entries()) jobs.push({ change: i, at: `body.changes.${i}.files.${j}`, input: file });
  }
  if (jobs.length > MAX_FILES_PER_BATCH) throw invalid(`A batch can insert at most ${MAX_FILES_PER_BATCH} files; it has ${jobs.length}.`);
  const prepared: (PreparedFile | undefined)[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index]!;
      prepared[index] = await prepareFile(job.input, job.at, fetchOptions);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, jobs.length) }, worker));
  const byChange = new Map<number, PreparedFile[]>();
  jobs.forEach((job, index) => {
    const list = byChange.get(job.change) ?? [];
    list.push(prepared[index]!);
    byChange.set(job.change, list);
  });
  return byChange;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

async function prepareFile(
  input: NonNullable<ContentChangeValue["files"]>[number],
  at: string,
  fetchOptions: Partial<PublicFetchOptions> | undefined,
): Promise<PreparedFile> {
  if ((input.url === undefined) === (input.base64 === undefined)) throw invalid(`${at} must have exactly one of url or base64.`);
  let bytes: Buffer;
  let contentType = input.contentType;
  if (input.base64 !== undefined) {
    if (!contentType) throw invalid(`${at}.contentType is required with base64.`);
    const text = input.base64.replace(/\s+/g, "");
    if (!BASE64.test(text) || text.length % 4 === 1) throw invalid(`${at}.base64 is not valid base64.`);
    bytes = Buffer.from(text, "base64");
    if (bytes.length > MAX_FILE_BYTES)
      throw invalid(`${at}.base64: the file is ${bytes.length} bytes; the limit is ${MAX_FILE_BYTES} bytes (1 MB).`);
  } else {
    try {
      const fetched = await fetchPublicFile(input.url!, { maxBytes: MAX_FILE_BYTES, timeoutMs: FETCH_TIMEOUT_MS, ...fetchOptions });
      bytes = fetched.bytes;
      contentType ??= fetched.contentType;
    } catch (error) {
      if (error instanceof FetchRefused) throw invalid(`${at}.url: cannot fetch ${JSON.stringify(input.url)}: ${error.message}.`);
      throw error;
    }
  }
  contentType ??= contentTypeOf(input.name);
  const dimensions = hasDimensions(contentType) ? imageDimensions(bytes) : undefined;
  const entry: FileEntry = {
    id: newId(),
    name: input.name,
    contentType,
    size: bytes.length,
    blobHash: blobHash(bytes),
    ...(dimensions ? { dimensions } : {}),
  };
  return { entry, bytes, ...(input.ref !== undefined ? { ref: input.ref } : {}) };
}
