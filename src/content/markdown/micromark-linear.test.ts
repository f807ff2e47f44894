import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { SHAPES } from "../../../bench/markdown-shapes.js";
import { remarkMathSyntax } from "./math-syntax.js";
import { patchedModules, takeMovedEvents, withMicromarkOriginals } from "./micromark-linear.js";

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkMathSyntax, { singleDollarTextMath: false });
const parse = (text: string) => processor.parse(text);

/** A small seeded generator (mulberry32), so a failure names a document that can be made again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Lines that open, continue, interrupt and close containers and text in the ways the two patched
// steps see: lazy lines, blank lines in items, fences in items, hard breaks, trailing spaces.
const PIECES = [
  "* item",
  "- other marker",
  "1. ordered",
  "2) paren",
  "  * nested",
  "    * deeper",
  "      text under it",
  "> quote",
  "> > inner quote",
  ">",
  "lazy continuation",
  "",
  "",
  "plain words and more words",
  "hard break with spaces  ",
  "hard break with backslash\\",
  "trailing tab\t",
  "*emphasis* and _more_ and **strong**",
  "~~struck~~ text",
  "`code` spans and www.example.com and a@b.co",
  "[a link](https://e.com) and ![img](x.png)",
  "```js",
  "```",
  "    indented code",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "<div>",
  "</div>",
  "# heading",
  "Setext",
  "===",
  "---",
  "$$",
  "x^2",
  "- [ ] task",
  "[^1]: a footnote",
  "text with a note[^1]",
];

function document(rand: () => number): string {
  const lines: string[] = [];
  const count = 5 + Math.floor(rand() * 60);
  for (let i = 0; i < count; i++) {
    const prefix = rand() < 0.25 ? "  ".repeat(Math.floor(rand() * 4)) : rand() < 0.15 ? "> " : "";
    lines.push(prefix + PIECES[Math.floor(rand() * PIECES.length)]!);
  }
  return lines.join(rand() < 0.1 ? "\r\n" : "\n");
}

function expectSameAsMicromark(text: string, label: string): void {
  const ours = parse(text);
  const theirs = withMicromarkOriginals(() => parse(text));
  expect(ours, label).toEqual(theirs);
}

describe("micromark's quadratic steps, made linear", () => {
  it("patches the text initializer and the edit map in both of micromark's builds", () => {
    expect(patchedModules).toBe(4);
  });

  it("gives the same trees as micromark on the Markdown of the test fixtures", () => {
    const dir = path.join(import.meta.dirname, "../../../test/fixtures");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".md"));
    expect(files.length).toBeGreaterThan(40);
    for (const name of files) expectSameAsMicromark(readFileSync(path.join(dir, name), "utf8"), name);
  });

  it("gives the same trees as micromark on 400 generated documents", () => {
    for (let seed = 1; seed <= 400; seed++) expectSameAsMicromark(document(random(seed)), `seed ${seed}`);
  });

  it("gives the same trees as micromark on the linearity bench's shapes", () => {
    for (const [name, shape] of Object.entries(SHAPES)) expectSameAsMicromark(shape(6 * 1024), name);
  });

  it("moves a number of events proportional to the size of a nested list and of a long paragraph", () => {
    for (const name of ["nested list", "paragraph (many lines)", "blockquote"]) {
      takeMovedEvents();
      parse(SHAPES[name]!(32 * 1024));
      const small = takeMovedEvents();
      parse(SHAPES[name]!(128 * 1024));
      const large = takeMovedEvents();
      expect(small, name).toBeGreaterThan(0);
      // Four times the text; micromark's own steps moved about 16 times the events.
      expect(large / small, name).toBeLessThan(4.5);
    }
  });
});
