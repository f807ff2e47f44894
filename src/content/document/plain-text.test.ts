import { describe, expect, it } from "vitest";
import { parseMarkdownPage } from "../markdown/parse.js";
import { documentSearchText, documentToPlainText } from "./plain-text.js";
import type { JSONDocument } from "./types.js";

describe("documentToPlainText", () => {
  it("splits text into sections at headings, with keys and levels", () => {
    const { document } = parseMarkdownPage(
      '# Title\n\nIntro with a [link](x.md) and `code`.\n\n## Install\n\n{% hint style="info" %}\nHint body\n{% endhint %}\n\n```sh\nnpm i x\n```\n\n### Options\n\n| Flag | Meaning |\n|---|---|\n| -v | verbose |\n\n#### Deep\n\n{% tabs %}\n{% tab title="Mac" %}\nbrew\n{% endtab %}\n{% endtabs %}\n\n{% if visitor.x %}\nShown\n{% endif %}\n',
    );
    const sections = documentToPlainText(document);
    expect(sections.map((s) => [s.heading?.text, s.heading?.level, s.text])).toEqual([
      [undefined, undefined, "Intro with a link and code."],
      ["Install", 1, "Hint body\nnpm i x"],
      ["Options", 2, "Flag Meaning\n-v\nverbose"],
      ["Deep", 3, "Mac\nbrew\nShown"],
    ]);
    expect(sections[1]!.heading!.key).toBe(document.nodes[1]!.key);
  });

  it("includes footnote bodies, image alt text and expandable content", () => {
    const { document } = parseMarkdownPage(
      "Word[^1]\n\n[^1]: Note body\n\n![Diagram of flow](d.png)\n\n<details>\n\n<summary>More</summary>\n\nHidden body\n\n</details>\n",
    );
    expect(documentToPlainText(document)).toEqual([{ text: "Word Note body\nDiagram of flow\nMore\nHidden body" }]);
  });

  it("returns no sections for an empty document", () => {
    expect(documentToPlainText(parseMarkdownPage("").document)).toEqual([]);
  });
});

describe("documentSearchText", () => {
  const leaf = (value: string) => ({ object: "text", leaves: [{ object: "leaf", text: value, marks: [] }] });
  const para = (...nodes: unknown[]) => ({
    object: "block",
    type: "paragraph",
    nodes: nodes.map((n) => (typeof n === "string" ? leaf(n) : n)),
  });
  const when = (expression: unknown, ...nodes: unknown[]) => ({ object: "block", type: "if", data: { expression }, nodes });
  const heading = (key: string, value: string) => ({ object: "block", type: "heading-2", key, nodes: [leaf(value)] });
  const expression = (source: string) => ({ object: "inline", type: "expression", isVoid: true, data: { expression: source } });
  const docOf = (...nodes: unknown[]) => ({ object: "document", data: {}, nodes }) as unknown as JSONDocument;
  const context = { space: { vars: { edition: "pro" } }, page: { vars: { product: "Widget" } } };

  it("keeps a section without conditional blocks as one text for everyone", () => {
    expect(documentSearchText(docOf(para("Plain."), heading("h", "Next"), para("More.")), context)).toEqual([
      { text: "Plain." },
      { heading: { key: "h", text: "Next", level: 2 }, text: "More." },
    ]);
  });

  it("gives readers the unconditional text, then each block with the text around it, under its conditions", () => {
    const [section] = documentSearchText(
      docOf(
        para("Before."),
        when("visitor.claims.beta", para("Beta text."), heading("x", "Inner heading"), when("visitor.claims.admin", para("Admin text."))),
        para("After."),
        when("visitor.claims.other", para("Other text.")),
      ),
      context,
    );
    expect(section).toEqual({
      text: "Before.\nBeta text.\nInner heading\nAdmin text.\nAfter.\nOther text.",
      readers: [
        { conditions: [], text: "Before.\nAfter." },
        { conditions: ["visitor.claims.beta"], text: "Before.\nBeta text.\nInner heading\nAfter." },
        { conditions: ["visitor.claims.beta", "visitor.claims.admin"], text: "Before.\nBeta text.\nInner heading\nAdmin text.\nAfter." },
        { conditions: ["visitor.claims.other"], text: "Before.\nAfter.\nOther text." },
      ],
    });
  });

  it("decides conditions and expressions that read only variables at indexing; reader-dependent expressions give no text", () => {
    const [section] = documentSearchText(
      docOf(
        when('space.vars.edition === "pro"', para("Pro only.")),
        when('space.vars.edition === "free"', para("Free only.")),
        when(undefined, para("No condition at all.")),
        when("", para("Empty condition.")),
        when("visitor.claims.(", para("Malformed.")),
        para("Product ", expression("page.vars.product"), ", plan ", expression('visitor.claims.plan ? "secretplan" : "none"'), "."),
      ),
      context,
    );
    expect(section?.text).toBe("Pro only.\nFree only.\nNo condition at all.\nEmpty condition.\nMalformed.\nProduct Widget, plan .");
    // Blocks false for every reader, or never shown, are in members' text only.
    expect(section?.readers).toEqual([{ conditions: [], text: "Pro only.\nEmpty condition.\nProduct Widget, plan ." }]);
  });

  it("indexes a block alone, without the section's text, when repeating that text for every block would be too much", () => {
    const shared = "word ".repeat(20_000);
    const blocks = Array.from({ length: 20 }, (_, i) => when(`visitor.claims.c${i}`, para(`Block ${i}.`)));
    const [section] = documentSearchText(docOf(para(shared), ...blocks), context);
    expect(section?.readers?.[0]).toEqual({ conditions: [], text: shared.trim() });
    expect(section?.readers?.[1]).toEqual({ conditions: ["visitor.claims.c0"], text: "Block 0." });
    expect(section?.readers).toHaveLength(21);
  });

  it("leaves conditional blocks inside an annotation out of readers' and members' text", () => {
    const annotation = {
      object: "inline",
      type: "annotation",
      nodes: [leaf("noted")],
      fragments: [
        {
          object: "fragment",
          fragment: "note",
          type: "annotation-body",
          nodes: [para("Shown note."), when("visitor.claims.x", para("Hidden note."))],
        },
      ],
    };
    const [section] = documentSearchText(docOf(para("A ", annotation, " word.")), context);
    expect(section).toEqual({ text: "A noted Shown note. word." });
  });
});
