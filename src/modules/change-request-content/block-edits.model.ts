/**
 * Block-level edits of a document for content batches: `revert_page` with `block` puts chosen
 * blocks back as a revision had them. (Unresolved Markdown links become text in
 * content/markdown/content-links.ts, which a worker thread can load.)
 */
import { type AnyNode, indexKeyedNodes } from "../../content/document/find.js";
import { newKey } from "../../content/document/keys.js";
import type { JSONDocument } from "../../content/document/types.js";
import { invalid } from "../../lib/errors.js";

/** The current document with the listed blocks as they were in `old` (restored, replaced or removed). */
export function revertBlocks(
  current: JSONDocument,
  old: JSONDocument,
  keys: readonly string[],
  field: string,
  pageId: string,
): JSONDocument {
  const document = structuredClone(current);
  const before = indexKeyedNodes(old);
  for (const key of keys) {
    const now = indexKeyedNodes(document).get(key);
    const then = before.get(key);
    if (!now && !then) throw invalid(`${field}: no block "${key}" in page "${pageId}", now or in the revision to revert to.`);
    if (now && then) now.list.splice(now.index, 1, structuredClone(then.node));
    else if (now) now.list.splice(now.index, 1);
    else {
      const index = indexKeyedNodes(document);
      const parent = then!.parentKey !== null ? index.get(then!.parentKey)?.node : undefined;
      const list = parent ? ((parent[then!.slot] ??= []) as AnyNode[]) : (document.nodes as unknown as AnyNode[]);
      const previousKey = then!.index > 0 ? then!.list[then!.index - 1]?.key : undefined;
      const after = previousKey ? list.findIndex((n) => n.key === previousKey) : -1;
      list.splice(after + 1, 0, structuredClone(then!.node));
    }
  }
  // A block restored from the past may carry a key that another block took since: renew the later one.
  const seen = new Set<string>();
  const renew = (list: AnyNode[]) => {
    for (const node of list) {
      if (typeof node.key === "string") {
        if (seen.has(node.key)) node.key = newKey();
        seen.add(node.key);
      }
      for (const f of ["nodes", "fragments"] as const) if (Array.isArray(node[f])) renew(node[f]!);
    }
  };
  renew(document.nodes as unknown as AnyNode[]);
  return document;
}
