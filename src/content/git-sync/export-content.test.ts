import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { withoutParts } from "../document/parts.js";
import type { JSONDocument } from "../document/types.js";
import { writeRepository } from "../gitbook-repo/write.js";
import { parseMarkdownPage } from "../markdown/parse.js";
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

describe("exportContent: pages imported before blocks moved out of a container were marked", () => {
  it("writes an unedited page back byte for byte though its stored document has no partOf marks", async () => {
    const source = '# Blocks\n\n{% hint style="info" %}\nRun:\n\n```bash\nnpm ci\n```\n\nThen start.\n{% endhint %}\n';
    const marked = parseMarkdownPage(source).document;
    expect(JSON.stringify(marked)).toContain('"partOf"');
    const stored = withoutParts(marked) as JSONDocument;
    const content: RevisionContent = {
      pages: [
        page("home", "Home", "home"),
        page("blocks", "Blocks", "blocks", { git: { oid: "1".repeat(40), path: "blocks.md" }, documentHash: "old" }),
      ],
      files: [],
      reusableContents: [],
      variables: {},
    };
    const branch = { sources: new Map([["blocks.md", source]]), readme: "README.md" };
    const loadDocument = async (hash: string) => (hash === "old" ? structuredClone(stored) : undefined);
    const writable = await exportContent(content, { ...sources, loadDocument }, { branch });
    const written = (pages: typeof writable.pages): string | undefined =>
      pages
        .map((p) => (p.kind === "document" && p.path === "blocks.md" ? p.source : p.kind === "document" ? written(p.children) : undefined))
        .find(Boolean);
    expect(written(writable.pages)).toBe(source);
    // Edited since (another stored document), the page is written from the space, not kept.
    const edited = structuredClone(stored);
    edited.nodes.push({ object: "block", type: "divider", isVoid: true, data: {} } as never);
    const again = await exportContent(content, { ...sources, loadDocument: async () => structuredClone(edited) }, { branch });
    expect(written(again.pages)).not.toBe(source);
  });
});
