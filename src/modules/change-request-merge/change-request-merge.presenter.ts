/**
 * API shapes of what a change request changes (`RevisionSemanticChange`) and of its conflicts with
 * the primary content (Quire's `change-request-conflicts`).
 */
import type { MergeConflict, SemanticChange } from "../../content/merge/index.js";
import { type FileEntry, indexPages, type PageLocation, type RevisionContent } from "../../content/revision/model.js";
import type { Urls } from "../../http/urls.js";
import { downloadUrl } from "../files/files-urls.model.js";
import type { ConflictResponse } from "./change-request-merge.schemas.js";

export interface FileUrlContext {
  urls: Urls;
  secret: string;
}

function fileUrl(ctx: FileUrlContext, file: Pick<FileEntry, "blobHash" | "name" | "contentType">): string {
  return downloadUrl(ctx.urls.base, ctx.secret, { blobHash: file.blobHash, name: file.name, contentType: file.contentType });
}

/**
 * One semantic change as the spec shows it. Files get download URLs (their `blobHash` attribute
 * becomes `downloadURL`); page attributes keep every field that changed, under the spec's names
 * where it has one (`document` is the document id).
 */
export function presentSemanticChange(
  change: SemanticChange,
  before: RevisionContent,
  after: RevisionContent,
  ctx: FileUrlContext,
): Record<string, unknown> {
  if (change.type === "file_created" || change.type === "file_edited" || change.type === "file_deleted") {
    const entry = (change.type === "file_deleted" ? before : after).files.find((f) => f.id === change.file.id);
    const file = { ...change.file, downloadURL: entry ? fileUrl(ctx, entry) : "" };
    if (change.type !== "file_edited") return { type: change.type, file };
    const attributes: Record<string, unknown> = {};
    const was = before.files.find((f) => f.id === change.file.id);
    for (const [name, value] of Object.entries(change.attributes)) {
      if (name === "blobHash") {
        attributes.downloadURL = {
          ...(was ? { before: fileUrl(ctx, was) } : {}),
          ...(entry ? { after: fileUrl(ctx, entry) } : {}),
        };
      } else attributes[name] = value;
    }
    return { type: change.type, file, attributes };
  }
  return change as unknown as Record<string, unknown>;
}

function changedPage(location: PageLocation) {
  return { id: location.page.id, type: location.page.kind, title: location.page.title, path: location.path };
}

function fieldValue(value: unknown, field: string | undefined): unknown {
  if (!field || value === null || typeof value !== "object") return value;
  let current: unknown = value;
  for (const part of field.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * One conflict with its versions named for the caller (`primary`, `changeRequest`). Page field
 * conflicts carry the field's values; whole-document conflicts carry the documents themselves
 * (`documents`: loaded by the caller for those).
 */
export function presentConflict(
  conflict: MergeConflict,
  contents: { base: RevisionContent; primary: RevisionContent; changeRequest: RevisionContent },
  documents: ReadonlyMap<string, unknown>,
): ConflictResponse {
  const page = conflict.pageId
    ? (indexPages(contents.changeRequest.pages).get(conflict.pageId) ??
      indexPages(contents.primary.pages).get(conflict.pageId) ??
      indexPages(contents.base.pages).get(conflict.pageId))
    : undefined;
  let versions: { base?: unknown; primary?: unknown; changeRequest?: unknown } = {
    base: conflict.base,
    primary: conflict.ours,
    changeRequest: conflict.theirs,
  };
  if (conflict.kind === "page" && conflict.field === "document") {
    const load = (hash: unknown) => (typeof hash === "string" ? documents.get(hash) : undefined);
    versions = { base: load(conflict.base), primary: load(conflict.ours), changeRequest: load(conflict.theirs) };
  } else if (conflict.kind === "page" && conflict.field && !conflict.field.startsWith("document.")) {
    versions = {
      base: fieldValue(conflict.base, conflict.field),
      primary: fieldValue(conflict.ours, conflict.field),
      changeRequest: fieldValue(conflict.theirs, conflict.field),
    };
  }
  return {
    kind: conflict.kind,
    message: conflict.message,
    ...(page
      ? { page: changedPage(page) }
      : conflict.pageId
        ? { page: { id: conflict.pageId, type: "document" as const, title: "" } }
        : {}),
    ...(conflict.blockKey !== undefined ? { blockKey: conflict.blockKey } : {}),
    ...(conflict.fileId !== undefined ? { fileId: conflict.fileId } : {}),
    ...(conflict.reusableContentId !== undefined ? { reusableContentId: conflict.reusableContentId } : {}),
    ...(conflict.field !== undefined ? { field: conflict.field } : {}),
    ...(versions.base !== undefined ? { base: versions.base } : {}),
    ...(versions.primary !== undefined ? { primary: versions.primary } : {}),
    ...(versions.changeRequest !== undefined ? { changeRequest: versions.changeRequest } : {}),
  };
}

/** Hashes of the documents that whole-document conflicts show. */
export function conflictDocumentHashes(conflicts: readonly MergeConflict[]): string[] {
  const out = new Set<string>();
  for (const c of conflicts) {
    if (c.kind !== "page" || c.field !== "document") continue;
    for (const hash of [c.base, c.ours, c.theirs]) if (typeof hash === "string") out.add(hash);
  }
  return [...out];
}
