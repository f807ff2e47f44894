/**
 * The longest pages of the hostile inputs (hostile.test.ts has the rest): a page at the import's
 * size limit, and a long page parsed in pieces against the same page parsed whole. A file of their
 * own, as they take about half of the hostile inputs' time: split, the two halves run side by side.
 */
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { parseChunked, parseMarkdownPage } from "./parse.js";
import { serializeMarkdownPage } from "./serialize.js";

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkMath, { singleDollarTextMath: false });

describe("hostile input: long pages", () => {
  it("handles a page of 2 MiB, the import's limit per page", () => {
    const section = (i: number) =>
      `## Section ${i}\n\nSome **bold** text with a [link](page-${i}.md) and \`code\`.\n\n{% hint style="info" %}\nA hint ${i}.\n{% endhint %}\n\n* item one\n* item two\n\n\`\`\`js\nconsole.log(${i});\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | x |\n\n`;
    let markdown = "# Big page\n\n";
    for (let i = 0; markdown.length < 2 * 1024 * 1024; i++) markdown += section(i);
    const parsed = parseMarkdownPage(markdown);
    const written = serializeMarkdownPage({ title: parsed.title, frontmatter: parsed.frontmatter, document: parsed.document });
    expect(parsed.document.nodes.length).toBeGreaterThan(12_000);
    expect(written.length).toBeGreaterThan(1.6 * 1024 * 1024);
    // Growth with size is tested by counting work (micromark-linear.test.ts, inline-pieces), not by time.
  }, 240_000);

  it("parses a long page in pieces exactly as it would parse it whole", () => {
    const piece = (i: number) =>
      `Para ${i} with *emphasis*\ncontinued.\n\n* item\n\n* loose item ${i}\n\n  continuation\n\n\`\`\`\ncode ${i}\n\nstill code\n\`\`\`\n\n<!-- a\n\ncomment -->\n\n| a |\n|---|\n| ${i} |\n\nSetext ${i}\n---\n\n> quote\n\n$$\nx\n\ny\n$$\n\n`;
    let text = "";
    for (let i = 0; text.length < 300_000; i++) text += piece(i);
    expect(parseChunked(text)).toEqual(processor.parse(text));
  }, 120_000);
});
