import { describe, expect, it } from "vitest";
import { parseMarkdownPage } from "../markdown/index.js";
import { evaluateDocument } from "./evaluate.js";
import { documentToPlainText } from "./plain-text.js";

const context = { space: { vars: { version: "2.4" } }, page: { vars: { product: "Quire" } } };

describe("evaluateDocument", () => {
  const paragraph = (text: string) => ({
    object: "block",
    type: "paragraph",
    key: text,
    nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
  });
  const ifBlock = (expression: string, text: string) => ({
    object: "block",
    type: "if",
    key: expression,
    data: { expression },
    nodes: [paragraph(text)],
  });
  const document = {
    object: "document",
    data: {},
    nodes: [
      ...parseMarkdownPage('Install <code class="expression">page.vars.product</code> <code class="expression">space.vars.version</code>.')
        .document.nodes,
      ifBlock('space.vars.version === "2.4"', "Shown for 2.4."),
      ifBlock("visitor.claims.beta", "Beta only."),
    ],
  } as never;

  it("evaluates every expression and condition with true", () => {
    const text = documentToPlainText(evaluateDocument(document, context, "all"))
      .map((s) => s.text)
      .join("\n");
    expect(text).toContain("Install Quire 2.4.");
    expect(text).toContain("Shown for 2.4.");
    expect(text).not.toContain("Beta only.");
  });

  it("leaves expressions about visitors alone with deterministic-only", () => {
    const evaluated = evaluateDocument(document, context, "deterministic-only");
    const text = documentToPlainText(evaluated)
      .map((s) => s.text)
      .join("\n");
    expect(text).toContain("Install Quire 2.4.");
    expect(text).toContain("Shown for 2.4.");
    expect(JSON.stringify(evaluated)).toContain("visitor.claims.beta");
  });

  it("never throws on hostile or malformed expressions", () => {
    const hostile = parseMarkdownPage(
      '<code class="expression">constructor.constructor("return process")()</code> <code class="expression">(((</code>',
    ).document;
    expect(() => evaluateDocument(hostile, context, "all")).not.toThrow();
  });
});
