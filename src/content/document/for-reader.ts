/**
 * A document as one reader of a published site may see it: its conditional blocks (`if`, GitBook's
 * `{% if %}`) kept, without their wrapper, where the condition holds for the reader and dropped
 * where it does not, at any depth (inside tabs, hints, fragments). For the outputs that do not go
 * through the HTML renderer's own `condition` (Markdown, llms-full.txt, the MCP server's pages,
 * PDF), so that a hidden block never leaves the server. Also what a condition and an expression
 * mean for a reader (`conditionHoldsIn`, `expressionTextIn`), the one rule the site's pages,
 * navigation and these outputs share, in whichever thread they run. Pure.
 */
import { LRUCache } from "lru-cache";
import { ExpressionError, evaluate, evaluateCondition, type ParsedExpression, parseExpression } from "../../expr/index.js";
import type { JSONDocument } from "./types.js";

/** Parsed conditions by source: a site's few conditions are met on every page view. */
const parsedConditions = new LRUCache<string, ParsedExpression | "invalid">({ max: 5000 });

function parsed(condition: string): ParsedExpression | undefined {
  let known = parsedConditions.get(condition);
  if (known === undefined) {
    try {
      known = parseExpression(condition);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      known = "invalid";
    }
    parsedConditions.set(condition, known);
  }
  return known === "invalid" ? undefined : known;
}

/**
 * Whether a condition (an expression of GitBook's expression language) holds in `context` (the
 * reader's `visitor.claims`, the space's and page's variables). No condition: it holds. A missing
 * claim, an expression that does not parse, fails or runs out of its budget: it does not.
 */
export function conditionHoldsIn(condition: string | null | undefined, context: Record<string, unknown>): boolean {
  if (!condition || condition.trim() === "") return true;
  const expression = parsed(condition);
  if (!expression) return false;
  try {
    return evaluateCondition(expression, context);
  } catch {
    return false;
  }
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** An expression's text in `context` (empty when it fails), as the page shows it. */
export function expressionTextIn(expression: string, context: Record<string, unknown>): string {
  try {
    return textOf(evaluate(expression, context));
  } catch {
    return "";
  }
}

/** What a reader's conditions and expressions see: their claims, with the space's and page's variables. */
export function readerContext(claims: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...extra, visitor: { claims } };
}

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
 * removed), and with `value`, every expression replaced by its text for the reader (outputs that
 * would otherwise print expressions as they are stored: Markdown, PDF).
 */
export function documentForReader(
  document: JSONDocument,
  holds: (expression: string) => boolean,
  value?: (expression: string) => string,
): JSONDocument {
  return filterNode(document as unknown as Node, { holds, value }, 0) as unknown as JSONDocument;
}

/** The document as a reader whose conditions and expressions see `context` (readerContext) reads it. */
export function documentInContext(document: JSONDocument, context: Record<string, unknown>): JSONDocument {
  return documentForReader(
    document,
    (expression) => conditionHoldsIn(expression, context),
    (expression) => expressionTextIn(expression, context),
  );
}
