/**
 * Scenario helpers for the merge tests: a small space (three pages, a section with two children, a
 * file, a reusable content, variables) and the edits people make to it, applied to copies.
 */

import { mergeContent } from "../../../src/content/merge/merge.js";
import type { JSONDocument, MergeResult } from "../../../src/content/merge/types.js";
import type { PageMeta, PageNode, RevisionContent } from "../../../src/content/revision/model.js";
import { blocksByKey, content, DocumentStore, doc, editDocument, findPage, getPage, heading, page, paragraph, text } from "./fixtures.js";

export const LATER = "2026-03-01T00:00:00.000Z";

export function setup() {
  const store = new DocumentStore();
  const a = store.put(doc(heading("a1", "Intro"), paragraph("a2", "First"), paragraph("a3", "Second"), paragraph("a4", "Third")));
  const base = content(
    [
      page("a", { documentHash: a }),
      page("b", { documentHash: store.put(doc(paragraph("b1", "B"))) }),
      page("c", {
        kind: "group",
        children: [
          page("c1", { documentHash: store.put(doc(paragraph("c1x", "C1"))) }),
          page("c2", { documentHash: store.put(doc(paragraph("c2x", "C2"))) }),
        ],
      }),
    ],
    {
      files: [{ id: "f1", name: "logo.png", contentType: "image/png", size: 10, blobHash: "blob-1" }],
      reusableContents: [{ id: "r1", title: "Snippet", documentHash: store.put(doc(paragraph("r1a", "One"), paragraph("r1b", "Two"))) }],
      variables: { version: "1.0", product: "Quire" },
    },
  );
  return { store, base };
}

export function clone(value: RevisionContent): RevisionContent {
  return structuredClone(value);
}

export async function merge(
  store: DocumentStore,
  base: RevisionContent,
  ours: RevisionContent,
  theirs: RevisionContent,
  pageBase?: (id: string) => PageMeta | undefined,
) {
  const result = await mergeContent({ base, ours, theirs, loadDocument: store.load, pageBase });
  store.addAll(result.documents);
  return result;
}

export function pageDocument(store: DocumentStore, result: MergeResult, id: string): JSONDocument {
  return store.get(getPage(result.content.pages, id).documentHash!);
}

export function editPage(store: DocumentStore, c: RevisionContent, id: string, edit: (d: JSONDocument) => void): void {
  const target = getPage(c.pages, id);
  target.documentHash = editDocument(store, target.documentHash, edit);
  target.updatedAt = LATER;
}

export function setText(d: JSONDocument, key: string, value: string): void {
  blocksByKey(d).get(key)!.nodes = [text(value)];
}

export function textOf(block: unknown): string {
  const nodes = (block as { nodes: { leaves: { text: string }[] }[] }).nodes;
  return nodes.map((n) => n.leaves.map((l) => l.text).join("")).join("");
}

export function keys(d: JSONDocument): string[] {
  return (d.nodes as { key: string }[]).map((n) => n.key);
}

export function ids(pages: PageNode[]): string[] {
  return pages.map((p) => p.id);
}

export function move(c: RevisionContent, id: string, parent: string | null, index: number): void {
  const found = findPage(c.pages, id)!;
  found.siblings.splice(found.index, 1);
  const siblings = parent === null ? c.pages : getPage(c.pages, parent).children;
  siblings.splice(index, 0, found.page);
}

export function remove(c: RevisionContent, id: string): void {
  const found = findPage(c.pages, id)!;
  found.siblings.splice(found.index, 1);
}

export function defaultLayout() {
  return {
    width: "default" as const,
    cover: true,
    coverSize: "hero" as const,
    title: true,
    description: true,
    tableOfContents: true,
    outline: true,
    pagination: true,
    metadata: true,
  };
}
