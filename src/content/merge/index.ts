/** The three-way merge engine behind change-request merge and update (see `merge.ts`). */

export { semanticChanges } from "./changes.js";
export { mergeContent } from "./merge.js";
export type {
  ChangeAttribute,
  ChangedFile,
  ChangedPage,
  ChangedReusableContent,
  JSONDocument,
  MergeConflict,
  MergeConflictKind,
  MergeInput,
  MergeResult,
  SemanticChange,
} from "./types.js";
