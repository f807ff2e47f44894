import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { schemaErrors } from "../../../test/helpers/contract.js";
import { withCpuTime } from "../../../test/helpers/cpu-time.js";
import type { JSONDocument } from "../document/types.js";
import { takeInlinePieceCounts } from "./inline-pieces.js";
import { MAX_NESTING, parseChunked, parseMarkdownPage } from "./parse.js";

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkMath, { singleDollarTextMath: false });

import { serializeMarkdownPage } from "./serialize.js";

/** Parses and serializes, returning the CPU milliseconds it took (test/helpers/cpu-time.ts); must never throw. */
function run(markdown: string) {
  const { result, ms } = withCpuTime(() => {
    const parsed = parseMarkdownPage(markdown);
    const written = serializeMarkdownPage({ title: parsed.title, frontmatter: parsed.frontmatter, document: parsed.document });
    return { parsed, written };
  });
  return { ...result, ms };
}

describe("hostile input", () => {
  it("survives lists nested 1000 levels deep", () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `${"  ".repeat(i)}* level ${i}`);
    const { parsed, written, ms } = run(lines.join("\n"));
    expect(parsed.document.nodes[0]!.type).toBe("list-unordered");
    expect(written).toContain("level 999");
    expect(ms).toBeLessThan(20_000);
  });

  it("survives 1000 nested blockquotes and list markers on one line", () => {
    expect(run(`${">".repeat(1000)} deep`).written).toContain("deep");
    expect(run(`${"* ".repeat(1000)}deep`).written).toContain("deep");
  });

  /** The most containers (quotes, list items, hints, tabs, expandables, tables, cell lists) open at once in a document. */
  function containerDepth(node: unknown): number {
    let deepest = 0;
    const stack: [unknown, number][] = [[node, 0]];
    while (stack.length) {
      const [current, depth] = stack.pop()!;
      if (typeof current !== "object" || current === null) continue;
      const record = current as { type?: string; nodes?: unknown[]; fragments?: unknown[] };
      const container = [
        "blockquote",
        "list-item",
        "hint",
        "tabs-item",
        "stepper-step",
        "expandable",
        "table",
        "swagger",
        "openapi-operation",
      ].includes(record.type ?? "");
      const inner = depth + (container ? 1 : 0);
      deepest = Math.max(deepest, inner);
      for (const child of [...(record.nodes ?? []), ...(record.fragments ?? [])]) stack.push([child, inner]);
    }
    return deepest;
  }

  it.each([
    ["quote and list markers alternating on one line (20 KB)", `${"> - ".repeat(5000)}deep`],
    ["list and quote markers alternating", `${"- > ".repeat(5000)}deep`],
    ["ordered list, quote and footnote definitions", `${Array.from({ length: 3000 }, (_, i) => `1. > [^n${i}]: `).join("")}deep`],
    ["footnote definitions", `${Array.from({ length: 5000 }, (_, i) => `[^n${i}]: `).join("")}deep`],
    ["lists indented inside one quote", Array.from({ length: 300 }, (_, i) => `> ${"  ".repeat(i)}- deep ${i}`).join("\n")],
    ["quotes indented inside lists", Array.from({ length: 300 }, (_, i) => `${"  ".repeat(i)}- > deep ${i}`).join("\n")],
    ["tabs in tabs", `${'{% tabs %}\n{% tab title="t" %}\n'.repeat(1000)}deep\n${"{% endtab %}\n{% endtabs %}\n".repeat(1000)}`],
    ["steps in steps", `${"{% stepper %}\n{% step %}\n".repeat(1000)}deep\n${"{% endstep %}\n{% endstepper %}\n".repeat(1000)}`],
    ["expandables in expandables", `${"<details>\n<summary>s</summary>\n\n".repeat(1000)}deep\n${"\n</details>\n".repeat(1000)}`],
    ["expandables in quotes", `${"> <details>\n> <summary>s</summary>\n>\n".repeat(1000)}> deep\n${"> </details>\n".repeat(1000)}`],
    ["HTML tables in table cells", `${"<table><tr><td>".repeat(3000)}deep${"</td></tr></table>".repeat(3000)}`],
    ["lists in a table cell", `| a |\n|---|\n| ${"<ul><li>".repeat(5000)}deep${"</li></ul>".repeat(5000)} |`],
    ["HTML elements", `${"<div>".repeat(20_000)}deep${"</div>".repeat(20_000)}`],
  ])("keeps %s within the nesting bound, flattened with a warning, never overflowing", (_, markdown) => {
    const { parsed, written } = run(markdown);
    expect(containerDepth(parsed.document)).toBeLessThanOrEqual(MAX_NESTING);
    expect(JSON.stringify(parsed.document)).toContain("deep");
    expect(written).toContain("deep");
    expect(parsed.warnings.length).toBeGreaterThan(0);
    // Not checked against the JSON schema: its validator's time grows exponentially with nesting.
  });

  it("keeps real nesting as it is written", () => {
    const markdown = ["> - one", ">   - two", ">     > quoted", ">     >   - item", ">     >     text"].join("\n");
    const { parsed } = run(markdown);
    expect(parsed.warnings).toEqual([]);
    expect(containerDepth(parsed.document)).toBe(5);
    expect(schemaErrors("JSONDocument", parsed.document)).toEqual([]);
  });

  it("handles thousands of {% without an end, on lines and inside text", () => {
    const { parsed, ms } = run(`${"{% ".repeat(5000)}\n\n${"{%\n".repeat(5000)}text {% hint %} {%- x`);
    expect(parsed.warnings.length).toBeLessThanOrEqual(201);
    expect(ms).toBeLessThan(20_000);
  });

  it("handles thousands of unclosed and unmatched tags", () => {
    const markdown = Array.from({ length: 3000 }, (_, i) => (i % 2 ? '{% hint style="info" %}' : "{% endtabs %}")).join("\n");
    const { parsed, ms } = run(markdown);
    expect(parsed.document.nodes).toHaveLength(3000);
    expect(schemaErrors("JSONDocument", parsed.document)).toEqual([]);
    expect(ms).toBeLessThan(20_000);
  });

  it("handles deeply nested GitBook containers and HTML", () => {
    const depth = 300;
    const markdown =
      '{% hint style="info" %}\n'.repeat(depth) +
      "deep\n" +
      "{% endhint %}\n".repeat(depth) +
      "<details>\n".repeat(200) +
      "<mark>".repeat(500) +
      "x";
    const { parsed } = run(markdown);
    expect(schemaErrors("JSONDocument", parsed.document)).toEqual([]);
  });

  it("never throws on random bytes of Markdown punctuation", () => {
    const alphabet = "{%}<>[]()*_`#|-!:$\\\n \t\"'=/ahx";
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 200; n++) {
      let markdown = "";
      for (let i = 0; i < 400; i++) markdown += alphabet[Math.floor(random() * alphabet.length)];
      const { parsed } = run(markdown);
      expect(schemaErrors("JSONDocument", parsed.document)).toEqual([]);
    }
  });

  it("pairs the emphasis of a long paragraph in pieces exactly as micromark pairs it whole", () => {
    // Markers of every kind; each `*open` is closed by a `close*` about 200 characters later, often in the next piece.
    const unit = (i: number) => (i % 97 === 0 ? `*open ${i} ` : i % 97 === 5 ? `close* ${i} ` : `_a${i}_ __b__ ~~d~~ ~e~ ***f*** g_h `);
    let text = "";
    for (let i = 0; text.length < 120_000; i++) text += unit(i) + (i % 7 === 0 ? "\n" : "");
    takeInlinePieceCounts();
    const tree = parseChunked(text);
    // Each piece is about 2,000 micromark events; one pass over all of them is quadratic.
    const counts = takeInlinePieceCounts();
    expect(counts.forcedCuts).toBe(0);
    expect(counts.resolvedPieces).toBeGreaterThan(20);
    expect(tree).toEqual(processor.parse(text));
  }, 120_000);

  it("counts a long paragraph's emphasis in pieces, linear in its length", () => {
    takeInlinePieceCounts();
    const tree = parseChunked("*a* **b** _c_ ".repeat(20_000));
    expect(takeInlinePieceCounts().resolvedPieces).toBeGreaterThan(20);
    expect((tree.children[0] as { children: unknown[] }).children.length).toBeGreaterThan(100_000);
    const { parsed } = run("*a* **b** _c_ ".repeat(20_000));
    expect(parsed.warnings).toEqual([]);
  }, 60_000);

  it("warns when a marker left open is too far from any closer to be paired", () => {
    const { parsed } = run(`*open ${"**b** ".repeat(20_000)}close*`);
    expect(parsed.warnings.join("\n")).toMatch(/paired only within pieces/);
  }, 60_000);

  it("writes a paragraph of 200,000 differently marked pieces of text", () => {
    const leaves = Array.from({ length: 200_000 }, (_, i) => ({
      object: "leaf" as const,
      text: `t${i} `,
      marks: i % 2 ? [{ object: "mark" as const, type: "bold" as const }] : [],
    }));
    const document = {
      object: "document",
      data: {},
      nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves }] }],
    } as JSONDocument;
    const written = serializeMarkdownPage({ frontmatter: {}, document });
    expect(written).toContain("t199999");
  });

  it("survives <div> lines nested 5,000 deep, and a thousand <div>s crossing hints", () => {
    const deep = `${"<div>\n\n".repeat(5_000)}Deep text\n\n${"</div>\n\n".repeat(5_000)}`;
    const nested = run(deep);
    expect(nested.written).toContain("Deep text");
    expect(nested.parsed.warnings.join("\n")).toMatch(new RegExp(`nested more than ${MAX_NESTING} levels deep`));
    const crossing = run('<div align="center">\n\n{% hint style="info" %}\nIn.\n\n</div>\n\n{% endhint %}\n\n'.repeat(1_000));
    expect(crossing.parsed.document.nodes.filter((n) => n.type === "hint")).toHaveLength(1_000);
  });
});
