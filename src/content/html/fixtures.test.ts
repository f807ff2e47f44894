import { describe, expect, it } from "vitest";
import { FakeRepository, readFixtures } from "../../../test/fixtures/markdown/fake-repository.js";
import { dom, text } from "../../../test/helpers/html-dom.js";
import { testEnv } from "../../../test/helpers/render-documents.js";
import { parseMarkdownPage } from "../markdown/parse.js";
import { renderDocument } from "./index.js";

/** Every document the Markdown import makes from the repo's fixtures renders, and keeps its words. */
describe("rendering imported Markdown fixtures", () => {
  const fixtures = readFixtures();

  it("finds the fixtures", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(12);
  });

  for (const { name, markdown } of fixtures) {
    it(`${name} renders without throwing, and its prose shows`, () => {
      const repo = new FakeRepository();
      for (const resolve of [undefined, repo.resolve]) {
        const { document } = parseMarkdownPage(markdown, resolve ? { resolve } : {});
        const result = renderDocument(document, testEnv());
        const shown = text(dom(result.html)).replace(/\s+/g, "");
        // Every paragraph's text shows, whitespace aside (<br> has no text; Liquid tag lines are left out).
        for (const node of document.nodes) {
          if (node.type !== "paragraph") continue;
          const texts = node.nodes.flatMap((n) => (n.object === "text" ? n.leaves.map((l) => l.text.replace(/\s+/g, "")) : []));
          if (/^\{%.*%\}$/s.test(texts.join(""))) continue;
          for (const words of texts) if (words) expect(shown).toContain(words);
        }
        expect(new Set(result.outline.map((e) => e.id)).size).toBe(result.outline.length);
      }
    });
  }
});
