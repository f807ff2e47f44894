import { describe, expect, it } from "vitest";
import { FakeRepository, readFixtures } from "../../../test/fixtures/markdown/fake-repository.js";
import { schemaErrors } from "../../../test/helpers/contract.js";
import { collectKeys, stripKeys } from "../document/keys.js";
import { parseMarkdownPage } from "./parse.js";
import { serializeMarkdownPage } from "./serialize.js";

const fixtures = readFixtures();

describe("Markdown fixtures", () => {
  it("finds the fixture set", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(12);
  });

  for (const { name, markdown } of fixtures) {
    for (const mode of ["without a resolver", "with the repository's resolver"] as const) {
      it(`${name} ${mode}: valid, round-trips, and serializes stably`, () => {
        const repo = new FakeRepository();
        const parseOptions = mode === "without a resolver" ? {} : { resolve: repo.resolve };
        const writeOptions = mode === "without a resolver" ? {} : { pathFor: repo.pathFor };

        const first = parseMarkdownPage(markdown, parseOptions);
        expect(schemaErrors("JSONDocument", first.document)).toEqual([]);

        const written = serializeMarkdownPage(
          { title: first.title, frontmatter: first.frontmatter, document: first.document },
          writeOptions,
        );
        const second = parseMarkdownPage(written, parseOptions);
        expect(stripKeys(second.document)).toEqual(stripKeys(first.document));
        expect(second.frontmatter).toEqual(first.frontmatter);
        expect(second.title).toEqual(first.title);
        // Kinds may differ (an unresolved {% file %} is written as a link), targets may not.
        expect(second.references.map((r) => r.target)).toEqual(first.references.map((r) => r.target));

        // Import → export → import gives the same document, keys included, when the previous one is passed.
        expect(parseMarkdownPage(written, { ...parseOptions, previous: first.document }).document).toEqual(first.document);

        const rewritten = serializeMarkdownPage(
          { title: second.title, frontmatter: second.frontmatter, document: second.document },
          writeOptions,
        );
        expect(rewritten).toBe(written);
      });
    }

    it(`${name}: re-importing with the previous document keeps every key`, () => {
      const first = parseMarkdownPage(markdown);
      const again = parseMarkdownPage(markdown, { previous: first.document });
      expect(again.document).toEqual(first.document);
      const keys = collectKeys(first.document);
      expect(new Set(keys).size).toBe(keys.length);
    });
  }

  it("produces the constructs the fixtures were written to cover", () => {
    const seen = new Set<string>();
    for (const { markdown } of fixtures) {
      const visit = (n: { type?: string; nodes?: unknown[]; fragments?: unknown[] }) => {
        if (n.type) seen.add(n.type);
        for (const c of [...(n.nodes ?? []), ...(n.fragments ?? [])]) visit(c as typeof n);
      };
      parseMarkdownPage(markdown, { resolve: new FakeRepository().resolve }).document.nodes.forEach((n) => {
        visit(n as never);
      });
    }
    for (const type of [
      "paragraph",
      "heading-1",
      "heading-2",
      "heading-3",
      "list-ordered",
      "list-unordered",
      "list-tasks",
      "list-item",
      "divider",
      "blockquote",
      "hint",
      "code",
      "math",
      "images",
      "image",
      "file",
      "embed",
      "reusable-content",
      "content-ref",
      "expandable",
      "tabs",
      "tabs-item",
      "stepper",
      "stepper-step",
      "table",
      "swagger",
      "openapi-operation",
      "openapi-schemas",
      "integration",
      "link",
      "mention",
      "emoji",
      "icon",
      "expression",
      "inline-math",
      "inline-image",
      "annotation",
      "button",
    ]) {
      expect(seen, type).toContain(type);
    }
  });
});

describe("round trip over generated pages", () => {
  // Realistic blocks (headings, lists, quotes, hints, tables, tabs, expandables, tasks, code) filled
  // with random mixes of inline constructs; a seeded generator keeps failures reproducible.
  const inlines = [
    "word",
    "**bold**",
    "*it*",
    "`co|de`",
    "[a](b.md)",
    "![i](x.png)",
    ":rocket:",
    "<mark>m</mark>",
    "x<sup>2</sup>",
    "~~s~~",
    "$$x$$",
    "a_b",
    "1.5",
    "#tag",
    "<br>",
    "[^n]",
    "&amp;",
    "{% raw %}",
    "\\*",
    "***bi***",
    "**b *i* b**",
    "<kbd>K</kbd>",
  ];
  const blocks = [
    (s: string) => s,
    (s: string) => `## ${s}`,
    (s: string) => `* ${s}\n* ${s}`,
    (s: string) => `1. ${s}\n   * ${s}`,
    (s: string) => `> ${s}`,
    (s: string) => `{% hint style="info" %}\n${s}\n{% endhint %}`,
    (s: string) => `| h | h2 |\n|---|---|\n| ${s} | x |`,
    (s: string) => `{% tabs %}\n{% tab title="T" %}\n${s}\n{% endtab %}\n{% endtabs %}`,
    (s: string) => `<details>\n\n<summary>S</summary>\n\n${s}\n\n</details>`,
    (s: string) => `- [ ] ${s}`,
    (s: string) => `\`\`\`js\n${s}\n\`\`\``,
  ];

  it("parse(serialize(parse(md))) equals parse(md) for 300 generated pages", () => {
    let seed = 20240601;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    const failures: string[] = [];
    for (let n = 0; n < 300; n++) {
      const parts: string[] = [];
      for (let b = 0; b < 4; b++) {
        let text = "";
        for (let i = 0; i < 4; i++) text += pick(inlines) + pick([" ", ""]);
        parts.push(pick(blocks)(text.trim() || "w"));
      }
      const markdown = `${parts.join("\n\n")}\n\n[^n]: note\n`;
      const first = parseMarkdownPage(markdown);
      const second = parseMarkdownPage(serializeMarkdownPage({ title: first.title, document: first.document }));
      if (JSON.stringify(stripKeys(second.document)) !== JSON.stringify(stripKeys(first.document))) failures.push(markdown);
      expect(schemaErrors("JSONDocument", first.document)).toEqual([]);
    }
    expect(failures).toEqual([]);
  });
});
