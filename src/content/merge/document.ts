/**
 * Block-level merge of one document edited on both sides. Blocks (and fragments) are identified by
 * their `key`, stable across revisions, so the document is merged as a keyed tree (`tree.ts`):
 * every list of children made only of keyed blocks or fragments (the document's top level, list
 * items, tabs, hints, expandable fragments, stepper steps, columns, code lines...) is merged as a
 * sequence, and each block's own fields (`type`, `data` field by field, and the inline content of
 * paragraphs and headings as a whole) merge independently of its children. Two edits of different
 * list items or different tabs therefore merge cleanly; two different edits of one paragraph are a
 * conflict.
 */

import { addNode, emptyTree, type FlatTree, listId, mergeTrees, type TreeConflict } from "./tree.js";
import type { JSONDocument, MergeConflict } from "./types.js";
import { isPlainObject, jsonEqual, mergeRecord, mergeValue, setField } from "./values.js";

/** A block, inline or fragment node, seen loosely: the merge only needs keys and child lists. */
export type DocumentNode = Record<string, unknown>;

const CHILD_FIELDS = ["nodes", "fragments"] as const;
type ChildField = (typeof CHILD_FIELDS)[number];

/** Stands for a merged child list inside a node's own content, so the list's presence merges too. */
const CHILDREN = "\u0000children";

/** Where the merged document's conflicts belong: a page or a reusable content. */
export interface DocumentOwner {
  pageId?: string;
  reusableContentId?: string;
}

export interface DocumentMerge {
  document: JSONDocument;
  conflicts: MergeConflict[];
}

function isKeyedNode(value: unknown): value is DocumentNode {
  return (
    isPlainObject(value) && (value.object === "block" || value.object === "fragment") && typeof value.key === "string" && value.key !== ""
  );
}

/** A child list the merge can see into: every item is a keyed block or fragment. */
function isKeyedList(value: unknown): value is DocumentNode[] {
  return Array.isArray(value) && value.every(isKeyedNode);
}

/** Every keyed node reachable through keyed lists, by key; undefined when a key repeats. */
function collectKeys(document: JSONDocument): Map<string, DocumentNode> | undefined {
  const out = new Map<string, DocumentNode>();
  const walk = (list: DocumentNode[]): boolean => {
    for (const node of list) {
      if (out.has(node.key as string)) return false;
      out.set(node.key as string, node);
      for (const field of CHILD_FIELDS) if (isKeyedList(node[field]) && !walk(node[field])) return false;
    }
    return true;
  };
  if (!isKeyedList(document.nodes)) return undefined;
  return walk(document.nodes) ? out : undefined;
}

/**
 * Merges three versions of a document by block key. Returns undefined when that is impossible: a
 * version whose top level has a block without a key, or that repeats a key, cannot be aligned, and
 * the caller reports the whole document as one conflict.
 */
export function mergeDocuments(
  base: JSONDocument,
  ours: JSONDocument,
  theirs: JSONDocument,
  owner: DocumentOwner,
): DocumentMerge | undefined {
  const versions = [base, ours, theirs].map(collectKeys);
  if (versions.some((v) => v === undefined)) return undefined;
  const [baseKeys, oursKeys, theirsKeys] = versions as Map<string, DocumentNode>[];

  // A child list merges by key only if it is a keyed list in every version holding the node;
  // otherwise (a paragraph's inline content) it is part of the node's own content, merged whole.
  const keyed = (key: string, field: ChildField): boolean => {
    for (const version of [baseKeys!, oursKeys!, theirsKeys!]) {
      const node = version.get(key);
      if (node && node[field] !== undefined && !isKeyedList(node[field])) return false;
    }
    return true;
  };

  const flatten = (document: JSONDocument): FlatTree<DocumentNode> => {
    const tree = emptyTree<DocumentNode>();
    const walk = (list: DocumentNode[], parent: string | null, slot: string) => {
      for (const node of list) {
        const key = node.key as string;
        const own: DocumentNode = { ...node };
        for (const field of CHILD_FIELDS) if (node[field] !== undefined && keyed(key, field)) own[field] = CHILDREN;
        addNode(tree, key, { parent, slot, own });
        for (const field of CHILD_FIELDS) if (own[field] === CHILDREN) walk(node[field] as DocumentNode[], key, field);
      }
    };
    walk(document.nodes as DocumentNode[], null, "nodes");
    return tree;
  };

  const conflicts: MergeConflict[] = [];
  const versionsOf = (key: string) => ({ base: baseKeys!.get(key), ours: oursKeys!.get(key), theirs: theirsKeys!.get(key) });
  const merged = mergeTrees<DocumentNode>(flatten(base), flatten(ours), flatten(theirs), {
    equal: jsonEqual,
    edited: (a, b) => !jsonEqual(a, b),
    merge: (key, b, o, t) => {
      const result = mergeValue(b ?? {}, o, t);
      for (const conflict of result.conflicts) {
        const field = conflict.path.join(".");
        conflicts.push({
          kind: "block",
          ...owner,
          blockKey: key,
          field,
          ...versionsOf(key),
          message: `Block ${key} was changed differently on both sides (${field || "whole block"})`,
        });
      }
      return result.value;
    },
    rootSlot: "nodes",
  });
  for (const conflict of merged.conflicts) conflicts.push(blockTreeConflict(conflict, owner, versionsOf));

  // The document's own fields (`data.schemaVersion`...) merge like metadata.
  const { nodes: _b, ...baseRoot } = base;
  const { nodes: _o, ...oursRoot } = ours;
  const { nodes: _t, ...theirsRoot } = theirs;
  const root = mergeRecord(baseRoot, oursRoot, theirsRoot);
  for (const conflict of root.conflicts) {
    const field = conflict.path.join(".");
    conflicts.push({
      kind: owner.pageId !== undefined ? "page" : "reusable-content",
      ...owner,
      field: `document.${field}`,
      base: conflict.base,
      ours: conflict.ours,
      theirs: conflict.theirs,
      message: `The document's ${field} was changed differently on both sides`,
    });
  }

  const build = (parent: string | null, slot: string): DocumentNode[] =>
    (merged.lists.get(listId(parent, slot)) ?? []).map((key) => {
      const own = merged.nodes.get(key)!.own;
      const node: DocumentNode = {};
      for (const [field, value] of Object.entries(own)) if (value !== CHILDREN) setField(node, field, value);
      for (const field of CHILD_FIELDS) {
        // A list one side dropped while the other added to it is kept: nothing is lost.
        if (own[field] === CHILDREN || merged.lists.has(listId(key, field))) node[field] = build(key, field);
      }
      return node;
    });
  const document = { ...root.value, nodes: build(null, "nodes") } as unknown as JSONDocument;
  return { document, conflicts };
}

function blockTreeConflict(
  conflict: TreeConflict,
  owner: DocumentOwner,
  versionsOf: (key: string) => { base?: DocumentNode; ours?: DocumentNode; theirs?: DocumentNode },
): MergeConflict {
  const versions = versionsOf(conflict.id);
  if (conflict.kind === "move") {
    const what = { parent: "moved into different blocks", order: "moved to different places", cycle: "moved inside each other" }[
      conflict.reason
    ];
    return { kind: "move", ...owner, blockKey: conflict.id, ...versions, message: `Block ${conflict.id} was ${what} on both sides` };
  }
  const [deleter, keeper] = conflict.deletedBy === "ours" ? ["primary", "change request"] : ["change request", "primary"];
  const message =
    conflict.related === undefined
      ? `Block ${conflict.id} was deleted by the ${deleter} and changed by the ${keeper}`
      : `Block ${conflict.id} was deleted by the ${deleter}, but the ${keeper} put block ${conflict.related} inside it`;
  return { kind: "delete-edit", ...owner, blockKey: conflict.id, ...versions, message };
}

/** The document of a page without one (no `documentHash`): merging against it adds every block. */
export function emptyDocument(): JSONDocument {
  return { object: "document", data: {}, nodes: [] };
}
