/**
 * `evaluated=true | deterministic-only` on page reads: inline expressions become their text, and
 * `if` blocks are kept (unwrapped) or dropped by their condition. The context is the space's and
 * page's variables (`space.vars`, `page.vars`); there is no visitor in an API read, so with
 * `true` an expression about `visitor` sees nothing (a missing claim makes a condition false).
 * In `deterministic-only` mode, only expressions that read nothing but `space` and `page` change.
 */
import { evaluate, evaluateCondition, isDeterministic, parseExpression } from "../../expr/index.js";
import type { JSONDocument } from "./types.js";

export type EvaluationMode = "all" | "deterministic-only";

export interface EvaluationContext {
  space: { vars: Record<string, string> };
  page: { vars: Record<string, string> };
}

const DETERMINISTIC_ROOTS = ["space", "page"];

type Node = { object?: string; type?: string; data?: { expression?: string }; nodes?: Node[] } & Record<string, unknown>;

function shouldEvaluate(expression: string, mode: EvaluationMode): ReturnType<typeof parseExpression> | undefined {
  try {
    const parsed = parseExpression(expression);
    return mode === "all" || isDeterministic(parsed, DETERMINISTIC_ROOTS) ? parsed : undefined;
  } catch {
    // A malformed expression is left as written; the reader sees it unevaluated.
    return undefined;
  }
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function evaluateNodes(nodes: Node[], context: EvaluationContext, mode: EvaluationMode): Node[] {
  const out: Node[] = [];
  for (const node of nodes) {
    if (node.object === "inline" && node.type === "expression" && typeof node.data?.expression === "string") {
      const parsed = shouldEvaluate(node.data.expression, mode);
      if (parsed) {
        let text = "";
        try {
          text = asText(evaluate(parsed, context as unknown as Record<string, unknown>));
        } catch {
          text = "";
        }
        out.push({ object: "text", leaves: [{ object: "leaf", text, marks: [] }] });
        continue;
      }
    }
    if (node.object === "block" && node.type === "if" && typeof node.data?.expression === "string") {
      const parsed = shouldEvaluate(node.data.expression, mode);
      if (parsed) {
        if (evaluateCondition(parsed, context as unknown as Record<string, unknown>)) {
          out.push(...evaluateNodes(node.nodes ?? [], context, mode));
        }
        continue;
      }
    }
    out.push(Array.isArray(node.nodes) ? { ...node, nodes: evaluateNodes(node.nodes, context, mode) } : node);
  }
  return out;
}

export function evaluateDocument(document: JSONDocument, context: EvaluationContext, mode: EvaluationMode): JSONDocument {
  return { ...document, nodes: evaluateNodes(document.nodes as unknown as Node[], context, mode) as unknown as JSONDocument["nodes"] };
}
