/**
 * A document as one reader may see it: its conditional blocks (`if`, GitBook's `{% if %}`) kept,
 * without their wrapper, where the condition holds for the reader and dropped where it does not,
 * at any depth (inside tabs, hints, fragments). For the outputs that do not go through the HTML
 * renderer's own `condition` (Markdown, llms-full.txt, the MCP server's pages), so that a hidden
 * block never leaves the server. Pure.
 */
import type { JSONDocument } from "../../content/document/types.js";

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Resolves conditional blocks, and (when `value` is given) expressions to their text. */
interface Resolve {
  holds: (expression: string) => boolean;
  value?: ((expression: string) => string) | undefined;
}

function filterNodes(nodes: unknown[], resolve: Resolve, depth: number): unknown[] {
  const { holds } = resolve;
  const out: unknown[] = [];
  for (const node of nodes) {
    if (!isNode(node)) {
      out.push(node);
      continue;
    }
    if (resolve.value && node.object === "inline" && node.type === "expression") {
      const data = isNode(node.data) ? node.data : {};
      const text = resolve.value(typeof data.expression === "string" ? data.expression : "");
      out.push({ object: "text", leaves: [{ object: "leaf", text, marks: [] }] });
      continue;
    }
    if (node.object === "block" && node.type === "if") {
      const data = isNode(node.data) ? node.data : {};
      const expression = typeof data.expression === "string" ? data.expression : undefined;
      if (expression !== undefined && holds(expression) && Array.isArray(node.nodes))
        out.push(...filterNodes(node.nodes, resolve, depth + 1));
      continue;
    }
    out.push(filterNode(node, resolve, depth + 1));
  }
  return out;
}

function filterNode(node: Node, resolve: Resolve, depth: number): Node {
  // Documents are nested far less deeply than this; past it a node is kept as stored rather than recursed into.
  if (depth > 200) return node;
  let copy: Node | undefined;
  for (const key of ["nodes", "fragments"] as const) {
    const list = node[key];
    if (Array.isArray(list)) {
      copy ??= { ...node };
      copy[key] = filterNodes(list, resolve, depth);
    }
  }
  return copy ?? node;
}

/**
 * The document with every conditional block resolved for `holds` (true: shown, unwrapped; false:
 * removed), and with `value`, every expression replaced by its text for the reader (for outputs
 * that print expressions as they are stored, such as PDF).
 */
export function documentForReader(
  document: JSONDocument,
  holds: (expression: string) => boolean,
  value?: (expression: string) => string,
): JSONDocument {
  return filterNode(document as unknown as Node, { holds, value }, 0) as unknown as JSONDocument;
}
