/**
 * Merge of the revision's flat collections: files and reusable contents by id, variables by name.
 * They have no positions that mean anything, so their order is merged only to stay stable (one
 * side's reordering is kept; both sides' reorderings never conflict).
 */
import type { FileEntry, ReusableContentEntry } from "../revision/model.js";
import { mergeOrder } from "./sequence.js";
import type { MergeConflict } from "./types.js";
import { jsonEqual, mergeValue, ownField, setField } from "./values.js";

export interface CollectionMerge<T> {
  entries: T[];
  conflicts: MergeConflict[];
}

interface CollectionHooks<T> {
  /** Merges an entry present and different on both sides; pushes its conflicts. */
  merge(base: T | undefined, ours: T, theirs: T, conflicts: MergeConflict[]): T;
  /** Whether a side's entry counts as an edit of the base's (for delete-vs-edit). */
  edited(base: T, side: T): boolean;
  deleteEdit(id: string, base: T, ours: T | undefined, theirs: T | undefined): MergeConflict;
}

/** Entries added on one side are added, removed on one side and untouched on the other removed. */
export function mergeCollection<T extends { id: string }>(
  base: T[],
  ours: T[],
  theirs: T[],
  hooks: CollectionHooks<T>,
): CollectionMerge<T> {
  const byId = (list: T[]) => new Map(list.map((entry) => [entry.id, entry]));
  const [b, o, t] = [byId(base), byId(ours), byId(theirs)];
  const conflicts: MergeConflict[] = [];
  const result = new Map<string, T>();
  for (const id of new Set([...o.keys(), ...t.keys(), ...b.keys()])) {
    const [eb, eo, et] = [b.get(id), o.get(id), t.get(id)];
    if (eo && et) result.set(id, jsonEqual(eo, et) ? eo : hooks.merge(eb, eo, et, conflicts));
    else if (eo || et) {
      const kept = (eo ?? et)!;
      if (!eb) result.set(id, kept);
      else if (hooks.edited(eb, kept)) {
        conflicts.push(hooks.deleteEdit(id, eb, eo, et));
        if (eo) result.set(id, eo);
      }
    }
  }
  const ids = (list: T[]) => list.map((entry) => entry.id);
  const { order } = mergeOrder(ids(base), ids(ours), ids(theirs), new Set(result.keys()));
  return { entries: order.map((id) => result.get(id)!), conflicts };
}

/** A file's bytes and what describes them change together; merging them field by field could pair one side's bytes with the other side's size. */
const FILE_CONTENT_FIELDS = ["blobHash", "size", "contentType", "dimensions"] as const;

export function mergeFiles(base: FileEntry[], ours: FileEntry[], theirs: FileEntry[]): CollectionMerge<FileEntry> {
  return mergeCollection(base, ours, theirs, {
    merge: (b, o, t, conflicts) => {
      const content = (entry: FileEntry | undefined) => (entry ? FILE_CONTENT_FIELDS.map((field) => entry[field]) : undefined);
      const out: Record<string, unknown> = {};
      const oursContent = content(o);
      const contentSide = mergeValue(content(b), oursContent, content(t));
      const contentFrom = contentSide.value === oursContent ? o : t;
      if (contentSide.conflicts.length > 0) {
        conflicts.push({
          kind: "file",
          fileId: o.id,
          field: "blobHash",
          base: b,
          ours: o,
          theirs: t,
          message: `File ${o.id}: its content was replaced differently on both sides`,
        });
      }
      const rb = (b ?? {}) as Record<string, unknown>;
      const ro = o as unknown as Record<string, unknown>;
      const rt = t as unknown as Record<string, unknown>;
      for (const field of new Set([...Object.keys(ro), ...Object.keys(rt), ...Object.keys(rb)])) {
        let value: unknown;
        if ((FILE_CONTENT_FIELDS as readonly string[]).includes(field)) value = (contentFrom as unknown as Record<string, unknown>)[field];
        else if (field === "git") value = jsonEqual(rb.git, ro.git) ? rt.git : ro.git;
        else {
          const merged = mergeValue(rb[field], ro[field], rt[field], [field]);
          value = merged.value;
          for (const conflict of merged.conflicts) {
            const path = conflict.path.join(".");
            conflicts.push({
              kind: "file",
              fileId: o.id,
              field: path,
              base: b,
              ours: o,
              theirs: t,
              message: `File ${o.id}: ${path} was changed differently on both sides`,
            });
          }
        }
        if (value !== undefined) out[field] = value;
      }
      return out as unknown as FileEntry;
    },
    edited: (b, side) => !jsonEqual({ ...b, git: undefined }, { ...side, git: undefined }),
    deleteEdit: (id, b, o, t) => ({
      kind: "delete-edit",
      fileId: id,
      base: b,
      ours: o,
      theirs: t,
      message: `File ${id} was deleted by the ${o ? "change request" : "primary"} and changed by the ${o ? "primary" : "change request"}`,
    }),
  });
}

/** Reusable-content documents both sides changed, merged by block beforehand (loading is asynchronous). */
export type ReusableDocumentMerges = Map<string, { documentHash: string | undefined; conflicts: MergeConflict[] }>;

export function mergeReusableContents(
  base: ReusableContentEntry[],
  ours: ReusableContentEntry[],
  theirs: ReusableContentEntry[],
  documents: ReusableDocumentMerges,
): CollectionMerge<ReusableContentEntry> {
  return mergeCollection(base, ours, theirs, {
    merge: (b, o, t, conflicts) => {
      const rb = (b ?? {}) as Record<string, unknown>;
      const ro = o as unknown as Record<string, unknown>;
      const rt = t as unknown as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of new Set([...Object.keys(ro), ...Object.keys(rt), ...Object.keys(rb)])) {
        let value: unknown;
        const document = documents.get(o.id);
        if (field === "documentHash" && document) {
          value = document.documentHash;
          conflicts.push(...document.conflicts);
        } else if (field === "git") value = jsonEqual(rb.git, ro.git) ? rt.git : ro.git;
        else {
          const merged = mergeValue(rb[field], ro[field], rt[field], [field]);
          value = merged.value;
          for (const conflict of merged.conflicts) {
            const path = conflict.path.join(".");
            conflicts.push({
              kind: "reusable-content",
              reusableContentId: o.id,
              field: path,
              base: b,
              ours: o,
              theirs: t,
              message: `Reusable content ${o.id}: ${path} was changed differently on both sides`,
            });
          }
        }
        if (value !== undefined) out[field] = value;
      }
      return out as unknown as ReusableContentEntry;
    },
    edited: (b, side) => !jsonEqual({ ...b, git: undefined }, { ...side, git: undefined }),
    deleteEdit: (id, b, o, t) => ({
      kind: "delete-edit",
      reusableContentId: id,
      base: b,
      ours: o,
      theirs: t,
      message: `Reusable content ${id} was deleted by the ${o ? "change request" : "primary"} and changed by the ${o ? "primary" : "change request"}`,
    }),
  });
}

/** Variables by name; a name set or removed differently on both sides is a conflict (ours kept). */
export function mergeVariables(
  base: Record<string, string>,
  ours: Record<string, string>,
  theirs: Record<string, string>,
): { variables: Record<string, string>; conflicts: MergeConflict[] } {
  const variables: Record<string, string> = {};
  const conflicts: MergeConflict[] = [];
  for (const name of new Set([...Object.keys(ours), ...Object.keys(theirs), ...Object.keys(base)])) {
    const [b, o, t] = [ownField(base, name), ownField(ours, name), ownField(theirs, name)] as (string | undefined)[];
    const merged = mergeValue(b, o, t);
    if (merged.conflicts.length > 0) {
      conflicts.push({
        kind: "variable",
        field: name,
        base: b,
        ours: o,
        theirs: t,
        message: `Variable ${name} was ${o === undefined || t === undefined ? "deleted on one side and changed on the other" : "changed differently on both sides"}`,
      });
    }
    if (merged.value !== undefined) setField(variables, name, merged.value);
  }
  return { variables, conflicts };
}
