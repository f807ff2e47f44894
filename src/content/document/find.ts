/**
 * Finding nodes of a document by their stable `key`, with where they sit, so that callers can
 * read, replace or remove them in place (comments' targets, block reverts, conflict resolutions).
 */
/** Any node of a document, as the walk sees it: its children are in `nodes` and `fragments`. */
export type AnyNode = Record<string, unknown> & { object?: string; type?: string; key?: string; nodes?: AnyNode[]; fragments?: AnyNode[] };

export interface KeyedNode {
  node: AnyNode;
  /** The array that holds the node, and its index there. */
  list: AnyNode[];
  index: number;
  /** The key of the nearest keyed ancestor (null at the top level). */
  parentKey: string | null;
  /** Which of its parent's children arrays holds it. */
  slot: "nodes" | "fragments";
}

/** Every keyed node of the document by key (the first one, should a key repeat). */
export function indexKeyedNodes(document: { readonly nodes?: readonly unknown[] }): Map<string, KeyedNode> {
  const found = new Map<string, KeyedNode>();
  const walk = (list: AnyNode[], parentKey: string | null, slot: "nodes" | "fragments") => {
    list.forEach((node, index) => {
      if (typeof node.key === "string" && !found.has(node.key)) found.set(node.key, { node, list, index, parentKey, slot });
      for (const field of ["nodes", "fragments"] as const) if (Array.isArray(node[field])) walk(node[field]!, node.key ?? parentKey, field);
    });
  };
  walk((document.nodes ?? []) as unknown as AnyNode[], null, "nodes");
  return found;
}
