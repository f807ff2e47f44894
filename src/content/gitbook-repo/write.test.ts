import { describe, expect, it } from "vitest";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { createBareRepo, type FileSpec, loadFixture, readRepoFiles, TEST_REMOTES } from "../../../test/helpers/git.js";
import { basename } from "../../git/paths.js";
import { commitAndPush } from "../../git/push.js";
import { withFetchedRef } from "../../git/repo.js";
import { type BlobReader, memoryTree } from "../../git/tree.js";
import { readRepository } from "./read.js";
import type { RepoPage, RepositoryContent } from "./types.js";
import { planPagePaths, repositoryPaths, type WritableContent, type WritablePage, writeRepository } from "./write.js";

function memory(files: Record<string, FileSpec> | Map<string, Buffer>) {
  const map =
    files instanceof Map ? files : new Map(Object.entries(files).map(([k, v]) => [k, typeof v === "string" ? Buffer.from(v) : v]));
  return memoryTree(map);
}

async function read(files: Record<string, FileSpec> | Map<string, Buffer>, projectDirectory?: string) {
  const { entries, reader } = memory(files);
  return readRepository(entries, reader, { projectDirectory });
}

/** What an export would hand to writeRepository: the imported content, with file bytes. */
async function toWritable(content: RepositoryContent, reader: BlobReader): Promise<WritableContent> {
  const data = await reader.readBlobs(content.files.map((f) => f.oid));
  return {
    projectDirectory: content.projectDirectory,
    config: content.config,
    pages: content.pages,
    files: content.files.map((f, i) => ({ path: f.path, name: basename(f.path), data: data[i] as Buffer })),
    reusableContents: content.reusableContents,
    variables: content.variables,
    redirects: content.redirects,
  };
}

function outline(pages: RepoPage[]): unknown[] {
  return pages.map((p) => {
    if (p.kind === "link") return `link ${p.title} -> ${p.href}`;
    if (p.kind === "group") return { group: `${p.title} #${p.slug}`, children: outline(p.children) };
    const head = `${p.path} | ${p.title}${p.label ? ` | label=${p.label}` : ""}`;
    return p.children.length ? { page: head, children: outline(p.children) } : head;
  });
}

const doc = (title: string, extra: Partial<Extract<WritablePage, { kind: "document" }>> = {}): WritablePage => ({
  kind: "document",
  title,
  source: `# ${title}\n`,
  children: [],
  ...extra,
});

describe("write -> read round trip", () => {
  it("gives back the GitBook-shaped docs: tree, titles, labels, paths, sources, files, includes, vars, redirects", async () => {
    const { entries, reader } = memory(loadFixture("gitbook-docs"));
    const original = await readRepository(entries, reader);
    const written = writeRepository(await toWritable(original, reader));
    const again = await read(written);
    const { warnings: _w1, ...before } = original;
    const { warnings, ...after } = again;
    expect(after).toEqual(before);
    // The duplicate entry and the unlisted page are not written, so their warnings are gone.
    expect(warnings).toEqual([]);
    expect([...written.keys()]).toContain(".gitbook.yaml");
    expect([...written.keys()].every((p) => p === ".gitbook.yaml" || p.startsWith("docs/"))).toBe(true);
  });

  it("gives back a folder-inferred tree, now with a SUMMARY.md", async () => {
    const original = await read(loadFixture("no-summary"));
    const { reader } = memory(loadFixture("no-summary"));
    const written = writeRepository(await toWritable(original, reader));
    expect(written.get("SUMMARY.md")?.toString()).toBe(
      [
        "# Table of contents",
        "",
        "* [Home](README.md)",
        "* [2-basics](2-basics.md)",
        "* [Advanced topics](10-advanced.md)",
        "* [Getting Started](getting-started.md)",
        "* [Guides](guides/README.md)",
        "  * [Alpha](guides/a.md)",
        "  * [Bravo](guides/b.md)",
        // A folder without README.md: a page without a file, written as an item without a link.
        "  * deep",
        "    * [Deep C](guides/deep/c.md)",
        "",
      ].join("\n"),
    );
    const again = await read(written);
    expect(again.hasSummary).toBe(true);
    expect(outline(again.pages)).toEqual(outline(original.pages));
  });

  it("keeps a project directory and a SUMMARY in a subfolder", async () => {
    const { entries, reader } = memory(loadFixture("monorepo"));
    const original = await readRepository(entries, reader, { projectDirectory: "packages/docs" });
    const written = writeRepository(await toWritable(original, reader));
    expect([...written.keys()].sort()).toEqual([
      "packages/docs/.gitbook.yaml",
      "packages/docs/content/.gitbook/assets/diagram.png",
      "packages/docs/content/README.md",
      "packages/docs/content/intro.md",
      "packages/docs/content/toc/SUMMARY.md",
    ]);
    expect(written.get("packages/docs/content/toc/SUMMARY.md")?.toString()).toContain("* [Introduction](../intro.md)");
    const { warnings: _w, ...after } = await read(written, "packages/docs");
    const { warnings: _w2, ...before } = original;
    expect(after).toEqual(before);
  });

  it("survives titles, labels and paths with Markdown-special characters", async () => {
    const pages: WritablePage[] = [
      doc("Home *star* & [brackets] `tick` <tag> \\ back", { path: "README.md", label: 'Say "hi" \\ there' }),
      doc("Percent", { path: "a b/ü (2)/100%25 done.md" }),
      doc("Angle", { path: "x/it's #1.md" }),
      { kind: "link", title: "Docs (v2)", href: "https://example.com/a_b?(x)=1#frag" },
    ];
    const again = await read(writeRepository({ pages }));
    expect(outline(again.pages)).toEqual([
      'README.md | Home *star* & [brackets] `tick` <tag> \\ back | label=Say "hi" \\ there',
      "a b/ü (2)/100%25 done.md | Percent",
      "x/it's #1.md | Angle",
      "link Docs (v2) -> https://example.com/a_b?(x)=1#frag",
    ]);
  });
});

describe("writeRepository for content created in Quire", () => {
  it("lays out README, SUMMARY, pages from slugs, assets, includes and vars", async () => {
    const png = makePng(5, 7);
    const written = writeRepository({
      pages: [
        doc("Welcome"),
        doc("Getting started", { children: [doc("Install"), doc("Configure", { slug: "config" })] }),
        {
          kind: "group",
          title: "API Reference",
          children: [doc("Endpoints"), { kind: "link", title: "Status", href: "https://status.example.com" }],
        },
      ],
      files: [
        { name: "image.png", data: png },
        { name: "image.png", data: makePng(1, 1) },
        { name: "Image.PNG", data: makePng(2, 2) },
      ],
      reusableContents: [{ title: "Shared hint", source: "Be careful.\n" }],
      variables: { version: "1.2" },
    });
    expect([...written.keys()].sort()).toEqual([
      ".gitbook/assets/Image (2).PNG",
      ".gitbook/assets/image (1).png",
      ".gitbook/assets/image.png",
      ".gitbook/includes/shared-hint.md",
      ".gitbook/vars.yaml",
      "README.md",
      "SUMMARY.md",
      "api-reference/endpoints.md",
      "getting-started/README.md",
      "getting-started/config.md",
      "getting-started/install.md",
    ]);
    expect(written.get("SUMMARY.md")?.toString()).toBe(
      [
        "# Table of contents",
        "",
        "* [Welcome](README.md)",
        "* [Getting started](getting-started/README.md)",
        "  * [Install](getting-started/install.md)",
        "  * [Configure](getting-started/config.md)",
        "",
        '## API Reference <a href="#api-reference" id="api-reference"></a>',
        "",
        "* [Endpoints](api-reference/endpoints.md)",
        "* [Status](https://status.example.com)",
        "",
      ].join("\n"),
    );
    expect(written.get(".gitbook/includes/shared-hint.md")?.toString()).toBe("---\ntitle: Shared hint\n---\n\nBe careful.\n");
    expect(written.get(".gitbook/vars.yaml")?.toString()).toBe('version: "1.2"\n');
    expect(written.get(".gitbook/assets/image.png")).toEqual(png);
    // Defaults need no .gitbook.yaml.
    expect(written.has(".gitbook.yaml")).toBe(false);
    const again = await read(written);
    expect(again.reusableContents).toMatchObject([{ title: "Shared hint" }]);
    expect(again.variables).toEqual({ version: "1.2" });
    // No page uses the files: a re-import leaves them in the repository and out of the content.
    expect(again.files).toEqual([]);
    expect(again.warnings.find((w) => w.code === "unused_files")?.paths).toEqual([
      ".gitbook/assets/Image (2).PNG",
      ".gitbook/assets/image (1).png",
      ".gitbook/assets/image.png",
    ]);
  });

  it("new pages avoid paths of other pages and of files already in the repository, whatever the case", () => {
    const a = doc("Guide");
    const b = doc("Guide");
    const c = doc("Notes");
    const known = doc("Home", { path: "README.md" });
    const planned = planPagePaths([known, a, b, c], { taken: ["Notes.md", "guide-2.md"] });
    expect([planned.get(known), planned.get(a), planned.get(b), planned.get(c)]).toEqual([
      "README.md",
      "guide.md",
      "guide-3.md",
      "notes-2.md",
    ]);
  });

  it("children of a known page go next to it; the first new page is the readme only when free", () => {
    const child = doc("Child");
    const parent = doc("Parent", { path: "topics/parent.md", children: [child] });
    const first = doc("First");
    const planned = planPagePaths([first, parent], { readme: "README.md" });
    expect(planned.get(first)).toBe("README.md");
    expect(planned.get(child)).toBe("topics/parent/child.md");
  });

  it("refuses unsafe known paths", () => {
    expect(() => writeRepository({ pages: [doc("Evil", { path: "../evil.md" })] })).toThrow(/Refused page path/);
    // A page from outside the root goes back to its file, but never out of the project directory.
    expect(() => writeRepository({ config: { root: "docs" }, pages: [doc("Evil", { path: "../../evil.md" })] })).toThrow(
      /Refused page path "..\/..\/evil.md": it leaves the repository/,
    );
    expect(() =>
      writeRepository({ projectDirectory: "site", config: { root: "docs" }, pages: [doc("Evil", { path: "../../evil.md" })] }),
    ).toThrow(/it leaves the project directory/);
    expect(() => writeRepository({ config: { root: "docs" }, pages: [doc("Evil", { path: "../a/../../evil.md" })] })).toThrow(
      /Refused page path/,
    );
    expect(() => writeRepository({ config: { root: "docs" }, pages: [doc("Evil", { path: "../.git/hooks/x.md" })] })).toThrow(/\.git/);
    const ok = writeRepository({ config: { root: "docs" }, pages: [doc("Home"), doc("Example", { path: "../examples/x.md" })] });
    expect([...ok.keys()].sort()).toEqual([".gitbook.yaml", "docs/README.md", "docs/SUMMARY.md", "examples/x.md"]);
    expect(String(ok.get("docs/SUMMARY.md"))).toContain("* [Example](../examples/x.md)");
    expect(() =>
      writeRepository({ pages: [doc("x")], files: [{ path: ".git/hooks/post-checkout", name: "x", data: Buffer.from("x") }] }),
    ).toThrow(/\.git/);
  });

  it("keeps the branch's redirects the content does not define while their target is in the repository", () => {
    const written = writeRepository(
      { pages: [doc("Home"), doc("Guide", { path: "guide.md" })], redirects: { old: "guide.md" } },
      {
        previousPaths: ["files/manual.pdf"],
        branchRedirects: { old: "README.md", manual: "files/manual.pdf", start: "README.md", gone: "removed.md" },
      },
    );
    expect(written.get(".gitbook.yaml")?.toString()).toBe(
      "root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old: guide.md\n  manual: files/manual.pdf\n  start: README.md\n",
    );
  });

  it("writes .gitbook.yaml only when it says something", () => {
    const written = writeRepository({ pages: [doc("Home")], config: { root: "docs" }, redirects: { old: "README.md" } });
    expect(written.get(".gitbook.yaml")?.toString()).toBe(
      "root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old: README.md\n",
    );
    expect([...written.keys()].sort()).toEqual([".gitbook.yaml", "docs/README.md", "docs/SUMMARY.md"]);
  });
});

describe("export through git", () => {
  it("import -> write -> commitAndPush -> import gives the same content; an unchanged export makes no commit; removed pages are deleted", async () => {
    const source = createBareRepo(loadFixture("gitbook-docs"));
    const target = createBareRepo({ "src/app.js": "code\n" });
    try {
      const { content, writable } = await withFetchedRef(source.url, "refs/heads/main", { ...TEST_REMOTES }, async (local) => {
        const c = await readRepository(await local.listTree(), local);
        return { content: c, writable: await toWritable(c, local) };
      });
      const files = writeRepository(writable);
      const first = await commitAndPush({
        url: target.url,
        ref: "refs/heads/main",
        ...TEST_REMOTES,
        message: "Export",
        author: { name: "Quire", email: "quire@example.com" },
        files,
      });
      expect(first.committed).toBe(true);
      const exported = await withFetchedRef(target.url, "refs/heads/main", { ...TEST_REMOTES }, async (local) =>
        readRepository(await local.listTree(), local),
      );
      const { warnings: _a, ...after } = exported;
      const { warnings: _b, ...before } = content;
      expect(after).toEqual(before);
      expect(readRepoFiles(target.dir).has("src/app.js")).toBe(true);

      const again = await commitAndPush({
        url: target.url,
        ref: "refs/heads/main",
        ...TEST_REMOTES,
        message: "Export again",
        author: { name: "Quire", email: "quire@example.com" },
        files: writeRepository(writable),
      });
      expect(again).toEqual({ committed: false, commit: first.committed ? first.commit : null, ref: "refs/heads/main" });

      // Remove the Reference group: its page file goes, everything else stays.
      const smaller = { ...writable, pages: writable.pages.filter((p) => p.title !== "Reference") };
      const third = await commitAndPush({
        url: target.url,
        ref: "refs/heads/main",
        ...TEST_REMOTES,
        message: "Remove reference",
        author: { name: "Quire", email: "quire@example.com" },
        prepare: async (base) => {
          const previous = await readRepository(await base!.listTree(), base!);
          const next = writeRepository(smaller);
          return { files: next, deletions: repositoryPaths(previous).filter((p) => !next.has(p)) };
        },
      });
      expect(third.committed).toBe(true);
      const remaining = readRepoFiles(target.dir);
      expect(remaining.has("docs/reference/api.md")).toBe(false);
      expect(remaining.has("docs/guides/writing.md")).toBe(true);
      expect(remaining.has("src/app.js")).toBe(true);
    } finally {
      source.cleanup();
      target.cleanup();
    }
  });
});
