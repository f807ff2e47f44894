/**
 * A page's block-level diff for the change request view: the top-level blocks of the document
 * before (the change request's base) and after (its head), matched by block key. Keys are stable
 * across edits (the content engine keeps them for unchanged and edited-in-place blocks), so a key
 * present on both sides is the same block: equal, changed, or moved out of the common order.
 */
import { diffWordsWithSpace } from "diff";
import { documentText } from "../../../../content/document/plain-text.js";
import type { DocumentBlock, JSONDocument } from "../../../../content/document/types.js";
import { commonSubsequence } from "../../../../content/merge/sequence.js";

export type BlockChangeKind = "added" | "removed" | "changed" | "moved" | "unchanged";

export interface BlockChange {
  kind: BlockChangeKind;
  key: string;
  before?: DocumentBlock;
  after?: DocumentBlock;
}

/** A block's key; a block without one (never stored so, but tolerated) is keyed by its place. */
function keysOf(nodes: readonly DocumentBlock[], side: string): string[] {
  return nodes.map((node, i) => (typeof node.key === "string" && node.key ? node.key : `${side}:${i}`));
}

/**
 * The blocks of `after` in order, each marked added, changed, moved or unchanged, with the blocks
 * only in `before` (removed) placed where they stood: right after the block still in place that
 * preceded them (so a replaced block reads as its removal, then the addition).
 */
export function blockDiff(before: JSONDocument | undefined, after: JSONDocument | undefined): BlockChange[] {
  const was = (before?.nodes ?? []) as DocumentBlock[];
  const now = (after?.nodes ?? []) as DocumentBlock[];
  const wasKeys = keysOf(was, "before");
  const nowKeys = keysOf(now, "after");
  const wasByKey = new Map(wasKeys.map((key, i) => [key, was[i]!]));
  const nowSet = new Set(nowKeys);
  const kept = commonSubsequence(wasKeys, nowKeys);

  // Removed blocks, grouped after the block (in `before`) that stays in place before them (null: the start).
  const removedAfter = new Map<string | null, BlockChange[]>();
  let anchor: string | null = null;
  wasKeys.forEach((key, i) => {
    if (kept.has(key)) anchor = key;
    else if (!nowSet.has(key)) removedAfter.set(anchor, [...(removedAfter.get(anchor) ?? []), { kind: "removed", key, before: was[i]! }]);
  });

  const out: BlockChange[] = [...(removedAfter.get(null) ?? [])];
  nowKeys.forEach((key, i) => {
    const block = now[i]!;
    const previous = wasByKey.get(key);
    if (!previous) out.push({ kind: "added", key, after: block });
    else if (!kept.has(key)) out.push({ kind: "moved", key, before: previous, after: block });
    else {
      const same = JSON.stringify(previous) === JSON.stringify(block);
      out.push({ kind: same ? "unchanged" : "changed", key, before: previous, after: block });
      out.push(...(removedAfter.get(key) ?? []));
    }
  });
  return out;
}

/** Whether a moved block also changed its content. */
export function movedAndChanged(change: BlockChange): boolean {
  return change.kind === "moved" && JSON.stringify(change.before) !== JSON.stringify(change.after);
}

export interface TextPart {
  text: string;
  added?: boolean;
  removed?: boolean;
}

/** The words that changed between two blocks' text (for ins/del styling). */
export function textDiff(before: unknown, after: unknown): TextPart[] {
  return diffWordsWithSpace(documentText(before), documentText(after)).map((part) => ({
    text: part.value,
    ...(part.added ? { added: true } : {}),
    ...(part.removed ? { removed: true } : {}),
  }));
}
