/**
 * Public types of the three-way merge engine (`mergeContent`): what it takes, what it returns, and
 * the shape of conflicts and semantic changes that the change-request routes present.
 */
import type { FileEntry, PageKind, PageMeta, ReusableContentEntry, RevisionContent } from "../revision/model.js";

/**
 * A stored page or reusable-content body (`JSONDocument` in the spec). Typed loosely on purpose: the
 * merge only relies on `object`, `key`, `nodes` and `fragments`, and every richer document type
 * (the spec's, the Markdown converter's) is assignable to this one.
 */
export interface JSONDocument {
  object: "document";
  data: { [field: string]: unknown };
  nodes: readonly object[];
}

export interface MergeInput {
  base: RevisionContent;
  /** The primary content: wins every conflicting item in the best-effort result. */
  ours: RevisionContent;
  /** The change request's content. */
  theirs: RevisionContent;
  loadDocument: (hash: string) => Promise<JSONDocument>;
  /**
   * Per-page base override (records a user's conflict resolution): the metadata and document hash to
   * use as that page's base. Only the page's own fields are overridden, not its position, and it is
   * ignored for pages that are not in `base`.
   */
  pageBase?: (pageId: string) => PageMeta | undefined;
}

export type MergeConflictKind = "page" | "block" | "file" | "reusable-content" | "variable" | "path" | "move" | "delete-edit";

/**
 * One collision. `base`/`ours`/`theirs` hold the versions involved (absent = the item does not exist
 * on that side): page metadata (`PageMeta` without children) for page, path and page delete-edit
 * conflicts; `{ parentId, index }` locations for page moves; block nodes (with their children) for
 * block, block move and block delete-edit conflicts; the entry for files and reusable contents; the
 * value for variables and for document `data` fields.
 */
export interface MergeConflict {
  kind: MergeConflictKind;
  pageId?: string;
  blockKey?: string;
  fileId?: string;
  reusableContentId?: string;
  /** Which field collided: a dotted path in the item ("title", "data.syntax", "document.data.schemaVersion"), or a variable's name. */
  field?: string;
  base?: unknown;
  ours?: unknown;
  theirs?: unknown;
  message: string;
}

export interface ChangedPage {
  id: string;
  type: PageKind;
  title: string;
  path: string;
}

export interface ChangeAttribute<T = unknown> {
  before?: T;
  after?: T;
}

export interface ChangedFile {
  id: string;
  name: string;
  contentType: string;
}

export interface ChangedReusableContent {
  id: string;
  title: string;
  /** Document hash. */
  document?: string;
}

/**
 * What the change request brings relative to its base, in the spec's `RevisionSemanticChange` shape
 * minus what only a presenter knows (file `downloadURL`, derived from `blobHash` here). Page
 * attributes use the spec's names (`document` is the document hash) and also list the metadata
 * fields the spec does not name (`hidden`, `icon`, ...), so the presenter decides what to show.
 */
export type SemanticChange =
  | { type: "page_created"; page: ChangedPage }
  | { type: "page_edited"; page: ChangedPage; attributes: Record<string, ChangeAttribute> }
  | { type: "page_deleted"; page: ChangedPage }
  | { type: "page_moved"; page: ChangedPage; parent: { before?: ChangedPage; after?: ChangedPage } }
  | { type: "file_created"; file: ChangedFile }
  | { type: "file_edited"; file: ChangedFile; attributes: Record<string, ChangeAttribute> }
  | { type: "file_deleted"; file: ChangedFile }
  | { type: "variables_edited"; variables: Record<string, ChangeAttribute<string>> }
  | { type: "reusable_content_created"; reusableContent: ChangedReusableContent }
  | { type: "reusable_content_edited"; reusableContent: ChangedReusableContent; attributes: Record<string, ChangeAttribute> }
  | { type: "reusable_content_deleted"; reusableContent: ChangedReusableContent };

export interface MergeResult {
  /** The merged tree; on conflicts, the best-effort merge (conflicting items take `ours`). */
  content: RevisionContent;
  /** Documents the merge created (hash → document), to store before saving `content`. */
  documents: Map<string, JSONDocument>;
  /** Empty for a clean merge. */
  conflicts: MergeConflict[];
  /** What `theirs` changes relative to `base`. */
  changes: SemanticChange[];
}

export type { FileEntry, PageMeta, ReusableContentEntry, RevisionContent };
