/**
 * Three-way merge of revision content: base (where the change request started, or the primary
 * revision it was last updated from), ours (the primary) and theirs (the change request). Used by
 * change-request merge (result on the primary) and update (result on the change request).
 *
 * Pages merge as a tree by id (`pages.ts`, `tree.ts`): place (parent and sibling order) and own
 * fields merge independently, so a page moved on one side and edited or renamed on the other is
 * both; page documents edited on both sides merge by block key (`document.ts`). Files and reusable
 * contents merge by id, variables by name (`entries.ts`). Whatever collides is a conflict; the
 * content returned is then still a complete, deterministic merge in which every conflicting item
 * takes `ours`, so that nothing already published is overwritten.
 *
 * Only documents of pages (and reusable contents) whose hash changed on both sides are loaded.
 */
import type { PageMeta } from "../revision/model.js";
import { semanticChanges } from "./changes.js";
import { emptyDocument, mergeDocuments } from "./document.js";
import { mergeFiles, mergeReusableContents, mergeVariables, type ReusableDocumentMerges } from "./entries.js";
import { flattenPages, mergePageDocument, mergePages, type PageDocumentMerge, pagesNeedingDocumentMerge, storeDocument } from "./pages.js";
import type { FlatTree } from "./tree.js";
import type { JSONDocument, MergeConflict, MergeInput, MergeResult } from "./types.js";

export async function mergeContent(input: MergeInput): Promise<MergeResult> {
  const { ours, theirs } = input;
  const base = withBaseOverrides(flattenPages(input.base.pages), input.pageBase);
  const oursPages = flattenPages(ours.pages);
  const theirsPages = flattenPages(theirs.pages);

  // The same hash is often asked for twice (a base document one side kept): load it once.
  const loads = new Map<string, Promise<JSONDocument>>();
  const load = (hash: string) => {
    let pending = loads.get(hash);
    if (!pending) {
      pending = input.loadDocument(hash);
      loads.set(hash, pending);
    }
    return pending;
  };
  const documents = new Map<string, JSONDocument>();

  const pageDocuments = new Map<string, PageDocumentMerge>();
  const reusableDocuments: ReusableDocumentMerges = new Map();
  const pending: Promise<void>[] = [];
  for (const id of pagesNeedingDocumentMerge(base, oursPages, theirsPages)) {
    const hashes = {
      base: base.nodes.get(id)!.own.documentHash,
      ours: oursPages.nodes.get(id)!.own.documentHash,
      theirs: theirsPages.nodes.get(id)!.own.documentHash,
    };
    pending.push(mergePageDocument(id, hashes, load, documents).then((merged) => void pageDocuments.set(id, merged)));
  }
  for (const id of reusableNeedingDocumentMerge(input)) {
    pending.push(mergeReusableDocument(id, input, load, documents).then((merged) => void reusableDocuments.set(id, merged)));
  }
  await Promise.all(pending);

  const pages = mergePages(base, oursPages, theirsPages, pageDocuments);
  const files = mergeFiles(input.base.files, ours.files, theirs.files);
  const reusable = mergeReusableContents(input.base.reusableContents, ours.reusableContents, theirs.reusableContents, reusableDocuments);
  const variables = mergeVariables(input.base.variables, ours.variables, theirs.variables);

  // Only documents the merged content references are worth storing.
  const referenced = new Set<string>();
  const collect = (nodes: { documentHash?: string; children?: unknown[] }[]) => {
    for (const node of nodes) {
      if (node.documentHash) referenced.add(node.documentHash);
      if (node.children) collect(node.children as typeof nodes);
    }
  };
  collect(pages.pages);
  collect(reusable.entries);
  for (const hash of [...documents.keys()]) if (!referenced.has(hash)) documents.delete(hash);

  const conflicts: MergeConflict[] = [...pages.conflicts, ...files.conflicts, ...reusable.conflicts, ...variables.conflicts];
  return {
    content: { pages: pages.pages, files: files.entries, reusableContents: reusable.entries, variables: variables.variables },
    documents,
    conflicts,
    changes: semanticChanges(input.base, theirs),
  };
}

/** The base tree with a caller's per-page base metadata (a recorded conflict resolution) applied. */
function withBaseOverrides(tree: FlatTree<PageMeta>, pageBase: MergeInput["pageBase"]): FlatTree<PageMeta> {
  if (!pageBase) return tree;
  for (const [id, node] of tree.nodes) {
    const override = pageBase(id);
    if (!override) continue;
    // A PageNode may be passed as PageMeta: its children are not metadata.
    const { children: _children, ...own } = override as PageMeta & { children?: unknown };
    tree.nodes.set(id, { ...node, own: { ...own, id } });
  }
  return tree;
}

function reusableNeedingDocumentMerge(input: MergeInput): string[] {
  const hashes = (list: MergeInput["base"]["reusableContents"]) => new Map(list.map((entry) => [entry.id, entry.documentHash]));
  const [b, o, t] = [hashes(input.base.reusableContents), hashes(input.ours.reusableContents), hashes(input.theirs.reusableContents)];
  const out: string[] = [];
  for (const [id, ho] of o) {
    if (!b.has(id) || !t.has(id)) continue;
    const [hb, ht] = [b.get(id), t.get(id)];
    if (ho !== ht && ho !== hb && ht !== hb) out.push(id);
  }
  return out;
}

async function mergeReusableDocument(
  id: string,
  input: MergeInput,
  load: (hash: string) => Promise<JSONDocument>,
  created: Map<string, JSONDocument>,
): Promise<{ documentHash: string | undefined; conflicts: MergeConflict[] }> {
  const hashOf = (list: MergeInput["base"]["reusableContents"]) => list.find((entry) => entry.id === id)?.documentHash;
  const hashes = {
    base: hashOf(input.base.reusableContents),
    ours: hashOf(input.ours.reusableContents),
    theirs: hashOf(input.theirs.reusableContents),
  };
  const get = (hash: string | undefined) => (hash === undefined ? Promise.resolve(emptyDocument()) : load(hash));
  const [base, ours, theirs] = await Promise.all([get(hashes.base), get(hashes.ours), get(hashes.theirs)]);
  const merged = mergeDocuments(base, ours, theirs, { reusableContentId: id });
  if (!merged) {
    return {
      documentHash: hashes.ours,
      conflicts: [
        {
          kind: "reusable-content",
          reusableContentId: id,
          field: "document",
          base: hashes.base,
          ours: hashes.ours,
          theirs: hashes.theirs,
          message: `Reusable content ${id}: the document was changed on both sides and has blocks without unique keys, so it cannot be merged by block`,
        },
      ],
    };
  }
  return { documentHash: storeDocument(merged.document, hashes, created), conflicts: merged.conflicts };
}
