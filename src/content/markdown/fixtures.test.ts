import { describe, expect, it } from "vitest";
import { schemaErrors } from "../../../test/helpers/contract.js";
import { FakeRepository, readFixtures } from "../../../test/fixtures/markdown/fake-repository.js";
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

        const written = serializeMarkdownPage({ title: first.title, frontmatter: first.frontmatter, document: first.document }, writeOptions);
        const second = parseMarkdownPage(written, parseOptions);
        expect(stripKeys(second.document)).toEqual(stripKeys(first.document));
        expect(second.frontmatter).toEqual(first.frontmatter);
        expect(second.title).toEqual(first.title);
        // Kinds may differ (an unresolved {% file %} is written as a link), targets may not.
        expect(second.references.map((r) => r.target)).toEqual(first.references.map((r) => r.target));

        // Import → export → import gives the same document, keys included, when the previous one is passed.
        expect(parseMarkdownPage(written, { ...parseOptions, previous: first.document }).document).toEqual(first.document);

        const rewritten = serializeMarkdownPage({ title: second.title, frontmatter: second.frontmatter, document: second.document }, writeOptions);
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
      parseMarkdownPage(markdown, { resolve: new FakeRepository().resolve }).document.nodes.forEach((n) => visit(n as never));
    }
    for (const type of [
      "paragraph", "heading-1", "heading-2", "heading-3", "list-ordered", "list-unordered", "list-tasks", "list-item", "divider",
      "blockquote", "hint", "code", "math", "images", "image", "file", "embed", "reusable-content", "content-ref", "expandable",
      "tabs", "tabs-item", "stepper", "stepper-step", "table", "swagger", "openapi-operation", "openapi-schemas", "integration",
      "link", "mention", "emoji", "icon", "expression", "inline-math", "inline-image", "annotation", "button",
    ]) {
      expect(seen, type).toContain(type);
    }
  });
});
