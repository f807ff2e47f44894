/**
 * Page-level merge: the page tree by page id (added, removed, moved, reordered, renamed, edited),
 * page metadata field by field, and page documents by block key when both sides edited a page.
 */
import { DEFAULT_LAYOUT, type PageMeta, type PageNode } from "../revision/model.js";
import { documentHashOf } from "../revision/storage.js";
import { emptyDocument, mergeDocuments } from "./document.js";
import { addNode, emptyTree, type FlatTree, listId, mergeTrees, type TreeConflict } from "./tree.js";
import type { JSONDocument, MergeConflict } from "./types.js";
import { jsonEqual, mergeValue } from "./values.js";

const SLOT = "children";

export function flattenPages(pages: PageNode[]): FlatTree<PageMeta> {
  const tree = emptyTree<PageMeta>();
  const walk = (nodes: PageNode[], parent: string | null) => {
    for (const { children, ...own } of nodes) {
      addNode(tree, own.id, { parent, slot: SLOT, own });
      walk(children, own.id);
    }
  };
  walk(pages, null);
  return tree;
}

/** A page's document merged by blocks, computed before the tree merge (loading is asynchronous). */
export interface PageDocumentMerge {
  documentHash: string | undefined;
  conflicts: MergeConflict[];
}

/** The pages whose document both sides changed, each differently: the only documents to load. */
export function pagesNeedingDocumentMerge(base: FlatTree<PageMeta>, ours: FlatTree<PageMeta>, theirs: FlatTree<PageMeta>): string[] {
  const out: string[] = [];
  for (const [id, o] of ours.nodes) {
    const t = theirs.nodes.get(id);
    const b = base.nodes.get(id);
    if (!t || !b) continue;
    const [hb, ho, ht] = [b.own.documentHash, o.own.documentHash, t.own.documentHash];
    if (ho !== ht && ho !== hb && ht !== hb) out.push(id);
  }
  return out;
}

/**
 * Merges one page's three documents. A missing hash is an empty document (a page emptied on one
 * side loses its blocks there, which conflicts with edits of those blocks on the other side).
 */
export async function mergePageDocument(
  pageId: string,
  hashes: { base?: string; ours?: string; theirs?: string },
  loadDocument: (hash: string) => Promise<JSONDocument>,
  created: Map<string, JSONDocument>,
): Promise<PageDocumentMerge> {
  const load = (hash: string | undefined) => (hash === undefined ? Promise.resolve(emptyDocument()) : loadDocument(hash));
  const [base, ours, theirs] = await Promise.all([load(hashes.base), load(hashes.ours), load(hashes.theirs)]);
  const merged = mergeDocuments(base, ours, theirs, { pageId });
  if (!merged) {
    return {
      documentHash: hashes.ours,
      conflicts: [
        {
          kind: "page",
          pageId,
          field: "document",
          base: hashes.base,
          ours: hashes.ours,
          theirs: hashes.theirs,
          message: `Page ${pageId}: the document was changed on both sides and has blocks without unique keys, so it cannot be merged by block`,
        },
      ],
    };
  }
  return { documentHash: storeDocument(merged.document, hashes, created), conflicts: merged.conflicts };
}

/** The hash of a merged document, reusing a side's hash when the merge equals it. */
export function storeDocument(
  document: JSONDocument,
  hashes: { ours?: string; theirs?: string },
  created: Map<string, JSONDocument>,
): string | undefined {
  if (document.nodes.length === 0 && hashes.ours === undefined && jsonEqual(document, emptyDocument())) return undefined;
  const hash = documentHashOf(document);
  if (hash !== hashes.ours && hash !== hashes.theirs) created.set(hash, document);
  return hash;
}

/** Fields that record bookkeeping rather than a person's edit: they never conflict. */
function mergeBookkeeping(field: string, base: unknown, ours: unknown, theirs: unknown): unknown {
  if (field === "updatedAt") {
    // Both sides edited the page: the merge is as recent as the later edit.
    if (typeof ours === "string" && typeof theirs === "string") return ours >= theirs ? ours : theirs;
    return ours ?? theirs;
  }
  // createdAt, git: a changed side wins; when both changed, ours (the primary's record).
  return jsonEqual(base, ours) ? theirs : ours;
}

const BOOKKEEPING = new Set(["updatedAt", "createdAt", "git"]);

export interface PageMergeOutput {
  pages: PageNode[];
  conflicts: MergeConflict[];
}

/** Merges the page trees; `documents` holds the precomputed block merges of pages edited on both sides. */
export function mergePages(
  base: FlatTree<PageMeta>,
  ours: FlatTree<PageMeta>,
  theirs: FlatTree<PageMeta>,
  documents: Map<string, PageDocumentMerge>,
): PageMergeOutput {
  const conflicts: MergeConflict[] = [];
  const merged = mergeTrees<PageMeta>(base, ours, theirs, {
    equal: jsonEqual,
    edited: (b, side) => {
      for (const field of new Set([...Object.keys(b), ...Object.keys(side)])) {
        if (
          field !== "updatedAt" &&
          !jsonEqual((b as unknown as Record<string, unknown>)[field], (side as unknown as Record<string, unknown>)[field])
        )
          return true;
      }
      return false;
    },
    merge: (id, b, o, t) => mergePageMeta(id, b, o, t, documents.get(id), conflicts),
    rootSlot: SLOT,
  });
  for (const conflict of merged.conflicts) conflicts.push(pageTreeConflict(conflict, base, ours, theirs));

  const build = (parent: string | null): PageNode[] =>
    (merged.lists.get(listId(parent, SLOT)) ?? []).map((id) => ({ ...merged.nodes.get(id)!.own, children: build(id) }));
  const pages = build(null);
  conflicts.push(...pathConflicts(pages, ours, theirs));
  return { pages, conflicts };
}

function mergePageMeta(
  id: string,
  base: PageMeta | undefined,
  ours: PageMeta,
  theirs: PageMeta,
  document: PageDocumentMerge | undefined,
  conflicts: MergeConflict[],
): PageMeta {
  const b = (base ?? {}) as unknown as Record<string, unknown>;
  const o = ours as unknown as Record<string, unknown>;
  const t = theirs as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of new Set([...Object.keys(o), ...Object.keys(t), ...Object.keys(b)])) {
    let value: unknown;
    if (BOOKKEEPING.has(field)) value = mergeBookkeeping(field, b[field], o[field], t[field]);
    else if (field === "documentHash" && document) {
      value = document.documentHash;
      conflicts.push(...document.conflicts);
    } else {
      // A page without a layout shows the default one: two sides that both set a layout changed
      // that default, field by field.
      const bothSetLayout = field === "layout" && b.layout === undefined && o.layout !== undefined && t.layout !== undefined;
      const baseValue = bothSetLayout ? DEFAULT_LAYOUT : b[field];
      const result = mergeValue(baseValue, o[field], t[field], [field]);
      value = result.value;
      for (const conflict of result.conflicts) {
        const path = conflict.path.join(".");
        conflicts.push({
          kind: "page",
          pageId: id,
          field: path,
          base,
          ours,
          theirs,
          message: `Page ${id}: ${path} was changed differently on both sides`,
        });
      }
    }
    if (value !== undefined) out[field] = value;
  }
  return out as unknown as PageMeta;
}

function pageTreeConflict(
  conflict: TreeConflict,
  base: FlatTree<PageMeta>,
  ours: FlatTree<PageMeta>,
  theirs: FlatTree<PageMeta>,
): MergeConflict {
  const id = conflict.id;
  if (conflict.kind === "move") {
    const at = (tree: FlatTree<PageMeta>) => {
      const node = tree.nodes.get(id);
      if (!node) return undefined;
      return { parentId: node.parent, index: tree.lists.get(listId(node.parent, SLOT))!.indexOf(id) };
    };
    const what = { parent: "moved to different parents", order: "moved to different positions", cycle: "moved under each other's pages" }[
      conflict.reason
    ];
    return {
      kind: "move",
      pageId: id,
      base: at(base),
      ours: at(ours),
      theirs: at(theirs),
      message: `Page ${id} was ${what} on both sides`,
    };
  }
  const [deleter, keeper] = conflict.deletedBy === "ours" ? ["primary", "change request"] : ["change request", "primary"];
  const message =
    conflict.related === undefined
      ? `Page ${id} was deleted by the ${deleter} and changed or moved by the ${keeper}`
      : `Page ${id} was deleted by the ${deleter}, but the ${keeper} put page ${conflict.related} inside it`;
  return {
    kind: "delete-edit",
    pageId: id,
    base: base.nodes.get(id)?.own,
    ours: ours.nodes.get(id)?.own,
    theirs: theirs.nodes.get(id)?.own,
    message,
  };
}

/**
 * Two sibling pages with the same slug would have the same path. Pre-existing duplicates (the same
 * pages already collide in `ours` or in `theirs`) are not the merge's doing and are not reported.
 */
function pathConflicts(pages: PageNode[], ours: FlatTree<PageMeta>, theirs: FlatTree<PageMeta>): MergeConflict[] {
  const conflicts: MergeConflict[] = [];
  const collideIn = (tree: FlatTree<PageMeta>, group: PageNode[], parent: string | null) =>
    group.every((page) => {
      const node = tree.nodes.get(page.id);
      return node !== undefined && node.parent === parent && node.own.slug === page.slug;
    });
  const walk = (siblings: PageNode[], parent: string | null, prefix: string) => {
    const bySlug = new Map<string, PageNode[]>();
    for (const page of siblings) {
      const group = bySlug.get(page.slug);
      if (group) group.push(page);
      else bySlug.set(page.slug, [page]);
    }
    for (const [slug, group] of bySlug) {
      if (group.length < 2 || collideIn(ours, group, parent) || collideIn(theirs, group, parent)) continue;
      // The page whose place or slug came from theirs is the incoming one.
      const incoming = group.find((page) => !collideIn(ours, [page], parent)) ?? group[group.length - 1]!;
      const existing = group.find((page) => page !== incoming)!;
      const { children: _c1, ...incomingMeta } = incoming;
      const { children: _c2, ...existingMeta } = existing;
      const path = prefix ? `${prefix}/${slug}` : slug;
      conflicts.push({
        kind: "path",
        pageId: incoming.id,
        field: "slug",
        ours: existingMeta,
        theirs: incomingMeta,
        message: `Pages ${existing.id} and ${incoming.id} would both have the path "${path}"`,
      });
    }
    for (const page of siblings) walk(page.children, page.id, prefix ? `${prefix}/${page.slug}` : page.slug);
  };
  walk(pages, null, "");
  return conflicts;
}
