import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { writeRepository } from "../gitbook-repo/write.js";
import type { PageNode, RevisionContent } from "../revision/model.js";
import { exportContent } from "./export-content.js";

const page = (id: string, title: string, slug: string, extra: Partial<PageNode> = {}): PageNode => ({
  id,
  kind: "document",
  title,
  slug,
  children: [],
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  ...extra,
});

const sources = { loadDocument: async () => undefined, loadBlob: async () => undefined };

describe("exportContent: the kept redirects", () => {
  it("are written to the file of their page now, relative to the root; a redirect whose page is gone is dropped", async () => {
    const content: RevisionContent = {
      pages: [
        page("home", "Home", "home"),
        page("guide", "Guide", "guide", {
          git: { oid: "0".repeat(40), path: "guides/README.md" },
          children: [page("new", "Made in Quire", "made-in-quire")],
        }),
      ],
      files: [],
      reusableContents: [],
      variables: {},
    };
    const writable = await exportContent(content, sources, {
      redirects: [
        { fromPath: "old/guide", pageId: "guide" },
        { fromPath: "start", pageId: "home" },
        { fromPath: "fresh", pageId: "new" },
        { fromPath: "removed", pageId: "no-such-page" },
      ],
    });
    expect(writable.redirects).toEqual({
      "old/guide": "guides/README.md",
      start: "README.md",
      fresh: "guides/made-in-quire.md",
    });
    const files = writeRepository({ ...writable, config: { root: "docs" } });
    expect(parseYaml(String(files.get(".gitbook.yaml")))).toMatchObject({ root: "./docs/", redirects: writable.redirects });
    expect(files.has("docs/guides/made-in-quire.md")).toBe(true);
  });

  it("writes no .gitbook.yaml for a space without redirects", async () => {
    const writable = await exportContent(
      { pages: [page("home", "Home", "home")], files: [], reusableContents: [], variables: {} },
      sources,
    );
    expect(writable.redirects).toBeUndefined();
    expect(writeRepository(writable).has(".gitbook.yaml")).toBe(false);
  });
});
