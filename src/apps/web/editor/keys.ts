/**
 * Block keys in the editor. A block the writer makes (Enter, the "/" menu, a paste) gets its key in
 * the same update that makes it, so the key never changes under the caret later: a node whose
 * attributes change is drawn anew, and Chromium then puts the caret back before an inline
 * decoration such as the "/" menu's, so "/file" typed across a save became "file/".
 */
import { Extension, getChangedRanges } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import { Plugin, PluginKey, type Transaction } from "@tiptap/pm/state";
import { ySyncPluginKey } from "y-prosemirror";
import { freshKey } from "../../../content/editor/index.js";

const keysKey = new PluginKey("blockKeys");

const keyOf = (node: PMNode): string | false | null | undefined =>
  "key" in node.attrs ? (node.attrs.key as string | false | null) : undefined;

/** Sets fresh keys at the given positions; undefined when there is none to set. */
function withKeys(tr: Transaction, positions: number[]): Transaction | undefined {
  if (!positions.length) return undefined;
  for (const pos of positions) tr.setNodeAttribute(pos, "key", freshKey());
  return tr.setMeta(keysKey, true);
}

/**
 * Positions of keyed nodes without a key, or with a key met before in document order. `within`
 * limits the walk to ranges of the document (the parts a transaction changed); keys outside them
 * still count as met when `seen` holds them.
 */
export function nodesNeedingKeys(doc: PMNode, within?: Array<{ from: number; to: number }>, seen = new Set<string>()): number[] {
  const out: number[] = [];
  // Ranges can share ancestors: a node visited twice is not its own duplicate.
  const visited = new Set<number>();
  const visit = (node: PMNode, pos: number) => {
    const key = keyOf(node);
    if (key === undefined || key === false || visited.has(pos)) return true;
    visited.add(pos);
    if (typeof key === "string" && !seen.has(key)) seen.add(key);
    else out.push(pos);
    return true;
  };
  if (!within) doc.descendants(visit);
  else for (const { from, to } of within) doc.nodesBetween(from, to, visit);
  return out;
}

/**
 * Keys every keyed node of the document that lacks one or repeats one (a document saved without
 * keys, say), out of the undo history: undoing must not take a key back.
 */
export function assignMissingKeys(tr: Transaction): Transaction | undefined {
  return withKeys(tr, nodesNeedingKeys(tr.doc))?.setMeta("addToHistory", false);
}

/** The ranges of the final document that `transactions` changed. */
function changedRanges(transactions: readonly Transaction[]): Array<{ from: number; to: number }> {
  const ranges: Array<{ from: number; to: number }> = [];
  transactions.forEach((tr, index) => {
    const later = transactions.slice(index + 1);
    for (const { newRange } of getChangedRanges(tr)) {
      let { from, to } = newRange;
      for (const next of later) {
        from = next.mapping.map(from, -1);
        to = next.mapping.map(to, 1);
      }
      ranges.push({ from, to: Math.max(from, to) });
    }
  });
  return ranges;
}

/** Keys the blocks each update makes, in that update (a collaborator's blocks come keyed). */
export function blockKeysPlugin(): Plugin {
  return new Plugin({
    key: keysKey,
    appendTransaction(transactions, _old, state) {
      const own = transactions.filter(
        (tr) =>
          tr.docChanged &&
          !tr.getMeta(keysKey) &&
          // A collaborator's change arrives with its keys: keying it here would fork them.
          !(tr.getMeta(ySyncPluginKey) as { isChangeOrigin?: boolean } | undefined)?.isChangeOrigin,
      );
      if (!own.length) return undefined;
      // A paste or a drop can bring keys the document already holds (the same block pasted twice):
      // those need the whole document's keys; typing needs only the changed ranges.
      const pasted = own.some((tr) => tr.getMeta("paste") || tr.getMeta("uiEvent") === "paste" || tr.getMeta("uiEvent") === "drop");
      const positions = pasted ? nodesNeedingKeys(state.doc) : nodesNeedingKeys(state.doc, changedRanges(own));
      return withKeys(state.tr, positions);
    },
  });
}

export const BlockKeys = Extension.create({
  name: "blockKeys",
  addProseMirrorPlugins: () => [blockKeysPlugin()],
});
