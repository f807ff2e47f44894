import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { type BareRepo, createBareRepo, type FileSpec, loadFixture, serveGitOverHttp, TEST_REMOTES } from "../../../test/helpers/git.js";
import { GitError } from "../../git/errors.js";
import { fetchRef, withFetchedRef } from "../../git/repo.js";
import { blobOid, memoryTree } from "../../git/tree.js";
import { readRepository } from "./read.js";
import { type RepoPage, type RepositoryContent, RepositoryFormatError } from "./types.js";

function memory(files: Record<string, FileSpec>) {
  return memoryTree(new Map(Object.entries(files).map(([k, v]) => [k, typeof v === "string" ? Buffer.from(v) : v])));
}

async function readMemory(files: Record<string, FileSpec>, projectDirectory?: string): Promise<RepositoryContent> {
  const { entries, reader } = memory(files);
  return readRepository(entries, reader, { projectDirectory });
}

/** The page tree reduced to what the format decides: kind, path, title, label, slug, nesting. */
function outline(pages: RepoPage[]): unknown[] {
  return pages.map((p) => {
    if (p.kind === "link") return `link ${p.title} -> ${p.href}`;
    if (p.kind === "group") return { group: `${p.title} #${p.slug}`, children: outline(p.children) };
    const head = `${p.path} | ${p.title}${p.label ? ` | label=${p.label}` : ""}`;
    return p.children.length ? { page: head, children: outline(p.children) } : head;
  });
}

async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error("expected a rejection");
}

describe("a repository shaped like GitBook's docs, fetched with git", () => {
  let repo: BareRepo;
  let content: RepositoryContent;
  beforeAll(async () => {
    repo = createBareRepo(loadFixture("gitbook-docs"));
    content = await withFetchedRef(repo.url, "refs/heads/main", { ...TEST_REMOTES }, async (local) =>
      readRepository(await local.listTree(), local),
    );
  });
  afterAll(() => repo.cleanup());

  it("honours .gitbook.yaml root and structure", () => {
    expect(content).toMatchObject({
      projectDirectory: "",
      root: "docs",
      config: { root: "docs", readme: "README.md", summary: "SUMMARY.md" },
      hasConfigFile: true,
      hasSummary: true,
    });
  });

  it("builds the page tree from SUMMARY.md", () => {
    expect(outline(content.pages)).toEqual([
      "README.md | Welcome",
      {
        group: "Getting started #start",
        children: [
          "getting-started/quickstart.md | Quickstart",
          {
            page: "getting-started/installation/README.md | Installation",
            children: ["getting-started/installation/linux.md | Linux", "getting-started/installation/macos.md | macOS | label=Mac"],
          },
          "getting-started/support.md | Support & help",
        ],
      },
      {
        group: "Guides #guides",
        children: [
          {
            page: "guides/README.md | Guides",
            children: [
              "guides/writing.md | Writing [advanced]",
              "guides/ünïcode-page.md | Ünïcode page",
              "guides/page with spaces.md | Page with spaces",
              "guides/under_score.md | Back_slash escaped",
            ],
          },
          "link Status page -> https://status.example.com",
        ],
      },
      {
        group: "Reference #reference",
        children: ["reference/api.md | API reference | label=API", "link Changelog -> https://example.com/changelog"],
      },
    ]);
  });

  it("gives each page its raw Markdown, blob id and slug", () => {
    const readme = content.pages[0];
    expect(readme?.kind).toBe("document");
    if (readme?.kind !== "document") return;
    const fixture = loadFixture("gitbook-docs")["docs/README.md"] as Buffer;
    expect(readme.source).toBe(fixture.toString());
    expect(readme.oid).toBe(blobOid(fixture));
    expect(readme.source.startsWith("---\ndescription: Everything about Example.\n---")).toBe(true);
    const group = content.pages[1];
    if (group?.kind !== "group") throw new Error("expected a group");
    expect(group.children.map((p) => (p.kind === "document" ? p.slug : p.kind))).toEqual(["quickstart", "installation", "support"]);
  });

  it("lists the files the pages and includes use (assets or not), with content types and dimensions; unused assets are left out", () => {
    expect(content.files.map((f) => [f.path, f.contentType, f.dimensions ? `${f.dimensions.width}x${f.dimensions.height}` : "-"])).toEqual([
      [".gitbook/assets/image (1).png", "image/png", "32x16"],
      [".gitbook/assets/image.png", "image/png", "64x48"],
      [".gitbook/assets/logo-dark.svg", "image/svg+xml", "64x32"],
      [".gitbook/assets/logo.svg", "image/svg+xml", "64x32"],
      [".gitbook/assets/manual.pdf", "application/pdf", "-"],
      [".gitbook/assets/photo.jpg", "image/jpeg", "1024x768"],
      [".gitbook/assets/spinner.gif", "image/gif", "24x24"],
      [".gitbook/assets/terminal.webp", "image/webp", "800x600"],
      ["guides/diagrams/flow.svg", "image/svg+xml", "400x300"],
      ["guides/sample data.csv", "text/csv", "-"],
    ]);
    const csv = content.files.find((f) => f.path === "guides/sample data.csv");
    expect(csv?.size).toBe(15);
  });

  it("reads includes as reusable contents, vars.yaml as variables, and redirects", () => {
    expect(content.reusableContents.map(({ path, title }) => ({ path, title }))).toEqual([
      { path: ".gitbook/includes/enterprise-hint.md", title: "Enterprise hint" },
    ]);
    expect(content.reusableContents[0]?.source).toContain('{% hint style="info" %}');
    expect(content.variables).toEqual({ version: "2.4.1", product: "Example Cloud", beta: "true" });
    expect(content.redirects).toEqual({ help: "getting-started/support.md", "old/quickstart": "getting-started/quickstart.md" });
  });

  it("warns about the duplicate entry, the unlisted file and the unused asset, and nothing else", () => {
    expect(content.warnings.map((w) => [w.code, w.paths])).toEqual([
      ["duplicate_page", ["guides/page with spaces.md"]],
      ["unlisted_pages", ["unlisted.md"]],
      ["unused_files", [".gitbook/assets/unused.png"]],
    ]);
    expect(content.warnings.at(-1)?.message).toBe(
      "1 file(s) under .gitbook/assets are not used by any page and were not imported: .gitbook/assets/unused.png",
    );
  });

  it("reads the same over smart HTTP", async () => {
    const server = await serveGitOverHttp(repo.dir);
    try {
      const overHttp = await withFetchedRef(server.url, "refs/heads/main", { ...TEST_REMOTES, allowFile: false }, async (local) =>
        readRepository(await local.listTree(), local),
      );
      expect(overHttp).toEqual(content);
    } finally {
      await server.close();
    }
  });
});

describe("without SUMMARY.md: inferred from folders", () => {
  it("root README first, files and folders by name, folder READMEs as parents, titles from heading/front matter/name", async () => {
    const content = await readMemory(loadFixture("no-summary"));
    expect(content.hasSummary).toBe(false);
    expect(outline(content.pages)).toEqual([
      "README.md | Home",
      "2-basics.md | 2-basics",
      "10-advanced.md | Advanced topics",
      "getting-started.md | Getting Started",
      {
        page: "guides/README.md | Guides",
        children: [
          "guides/a.md | Alpha",
          "guides/b.md | Bravo",
          // No README.md: a page without a file (nothing is written into the folder by an export).
          { page: " | deep", children: ["guides/deep/c.md | Deep C"] },
        ],
      },
    ]);
    const deep = (content.pages[4] as { children: RepoPage[] }).children[2];
    expect(deep).toMatchObject({ kind: "document", path: "", oid: null, source: "", slug: "deep", linkless: true });
    expect(content.warnings.map((w) => w.code)).toEqual(["folder_without_readme"]);
    expect(content.files.map((f) => f.path)).toEqual([".gitbook/assets/logo.svg"]);
  });
});

describe("repoProjectDirectory", () => {
  it("reads the project in a subdirectory, with its own .gitbook.yaml (root and a SUMMARY in a subfolder)", async () => {
    const content = await readMemory(loadFixture("monorepo"), "packages/docs/");
    expect(content).toMatchObject({
      projectDirectory: "packages/docs",
      root: "packages/docs/content",
      config: { root: "content", readme: "README.md", summary: "toc/SUMMARY.md" },
    });
    expect(outline(content.pages)).toEqual(["README.md | Docs home", "intro.md | Introduction"]);
    expect(content.files).toMatchObject([{ path: ".gitbook/assets/diagram.png", dimensions: { width: 200, height: 100 } }]);
    expect(content.warnings).toEqual([]);
  });

  it("refuses a project directory that escapes or does not exist", async () => {
    expect((await rejection(readMemory(loadFixture("monorepo"), "../x"), RepositoryFormatError)).code).toBe("project_directory_invalid");
    const missing = await rejection(readMemory(loadFixture("monorepo"), "packages/nope"), RepositoryFormatError);
    expect(missing.code).toBe("project_directory_not_found");
    expect(missing.message).toContain('"packages/nope"');
  });
});

describe(".gitbook.yaml variants", () => {
  const base = { "README.md": "# Home\n", "SUMMARY.md": "* [Home](README.md)\n" };

  it("no file, an empty file, and a file with only redirects all use the defaults", async () => {
    for (const config of [undefined, "", "redirects:\n  old: README.md\n"]) {
      const content = await readMemory(config === undefined ? base : { ...base, ".gitbook.yaml": config });
      expect(content.config).toEqual({ root: "", readme: "README.md", summary: "SUMMARY.md" });
      expect(outline(content.pages)).toEqual(["README.md | Home"]);
    }
  });

  it("root with a leading slash or without ./ means the same folder", async () => {
    for (const root of ["/docs", "docs", "./docs/", "docs/./"]) {
      const content = await readMemory({ ".gitbook.yaml": `root: ${root}\n`, "docs/README.md": "# D\n" });
      expect(content.root).toBe("docs");
    }
  });

  it("structure paths are relative to the root; a custom readme is the first page", async () => {
    const content = await readMemory({
      ".gitbook.yaml": "root: ./docs/\nstructure:\n  readme: ./start.md\n  summary: ./product/SUMMARY.md\n",
      "docs/start.md": "# Start here\n",
      "docs/product/SUMMARY.md": "* [Other](../other.md)\n",
      "docs/other.md": "# Other\n",
    });
    expect(outline(content.pages)).toEqual(["start.md | Start here", "other.md | Other"]);
    expect(content.warnings.map((w) => w.code)).toEqual(["readme_not_listed"]);
  });

  it("finds readme.md and summary.md in another letter case", async () => {
    const content = await readMemory({ "readme.md": "# Lower\n", "summary.md": "* [Lower](readme.md)\n* [B](b.md)\n", "b.md": "# B\n" });
    expect(content.hasSummary).toBe(true);
    expect(outline(content.pages)).toEqual(["readme.md | Lower", "b.md | B"]);
  });

  it.each([
    ["root: ../../\n", "root_invalid", /root "\.\.\/\.\.\/" leaves the repository/],
    ["root: ./missing/\n", "root_not_found", /does not exist/],
    ["root: [a, b]\n", "config_invalid", /root must be a non-empty string/],
    ["root: ./docs\n  bad: : indentation\n", "config_invalid", /not valid YAML/],
    ["- a list\n", "config_invalid", /must be a mapping/],
    ["structure:\n  summary: ../../SUMMARY.md\n", "config_invalid", /structure.summary/],
  ])("refuses %j", async (yaml, code, message) => {
    const error = await rejection(readMemory({ ...base, ".gitbook.yaml": yaml }), RepositoryFormatError);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it("a root escaping the project directory is refused too", async () => {
    const error = await rejection(
      readMemory({ "sub/.gitbook.yaml": "root: ../other/\n", "sub/README.md": "x", "other/README.md": "x" }, "sub"),
      RepositoryFormatError,
    );
    expect(error.message).toMatch(/leaves the project directory/);
  });

  it("ignores invalid redirects and variables with a warning", async () => {
    const content = await readMemory({
      ...base,
      ".gitbook.yaml": "redirects:\n  /good: README.md\n  bad: ../../x.md\n  alsobad: 42\n",
      ".gitbook/vars.yaml": "ok: 1\nnested:\n  a: b\n",
    });
    expect(content.redirects).toEqual({ good: "README.md" });
    expect(content.variables).toEqual({ ok: "1" });
    expect(content.warnings.map((w) => w.code).sort()).toEqual(["invalid_redirect", "invalid_redirect", "invalid_vars"]);
  });
});

describe("SUMMARY handling", () => {
  it("adds an unlisted README as the first page and makes missing files empty pages", async () => {
    const content = await readMemory({ "README.md": "# Home\n", "SUMMARY.md": "* [A](a.md)\n* [Missing](missing.md)\n", "a.md": "# A\n" });
    expect(outline(content.pages)).toEqual(["README.md | Home", "a.md | A", "missing.md | Missing"]);
    expect(content.pages[2]).toMatchObject({ oid: null, source: "" });
    expect(content.warnings.map((w) => w.code).sort()).toEqual(["missing_page", "readme_not_listed"]);
  });

  it("a file listed twice is a page once, its second entry's children move up", async () => {
    const content = await readMemory({
      "README.md": "# H\n",
      "SUMMARY.md": "* [H](README.md)\n* [A](a.md)\n* [A again](./a.md)\n  * [B](b.md)\n",
      "a.md": "",
      "b.md": "",
    });
    expect(outline(content.pages)).toEqual(["README.md | H", "a.md | A", "b.md | B"]);
    expect(content.warnings.map((w) => w.code)).toEqual(["duplicate_page"]);
  });

  it("lists every .md file left out of SUMMARY in one warning (hidden folders and includes excepted)", async () => {
    const content = await readMemory({
      "README.md": "# H\n",
      "SUMMARY.md": "* [H](README.md)\n",
      "x.md": "",
      "sub/y.md": "",
      ".github/PULL_REQUEST_TEMPLATE.md": "",
      ".gitbook/includes/inc.md": "",
    });
    expect(content.warnings).toMatchObject([{ code: "unlisted_pages", paths: ["sub/y.md", "x.md"] }]);
  });

  it("resolves a symlinked page and a symlinked asset folder inside the repository", async () => {
    const content = await readMemory({
      "README.md": "# H\n\n![i](shared-assets/pic.png)\n",
      "SUMMARY.md": "* [H](README.md)\n* [Alias](alias.md)\n",
      "real.md": "# Real\n",
      "alias.md": { symlink: "real.md" },
      "assets/pic.png": makePng(3, 4),
      "shared-assets": { symlink: "assets" },
    });
    const alias = content.pages[1];
    expect(alias).toMatchObject({ kind: "document", path: "alias.md", source: "# Real\n" });
    expect(content.files).toMatchObject([{ path: "shared-assets/pic.png", dimensions: { width: 3, height: 4 } }]);
  });
});

describe("hostile repositories", () => {
  it("a root escaping the repository is refused", async () => {
    const error = await rejection(readMemory(loadFixture("hostile-root-escape")), RepositoryFormatError);
    expect(error.code).toBe("root_invalid");
  });

  it("../ and absolute links out of the root read no file: a SUMMARY entry of the repository is a page, others warn; links that climb past the top stop there", async () => {
    const files = loadFixture("hostile-links");
    const content = await readMemory(files);
    // ../outside.md is a file of the repository that SUMMARY.md lists: GitBook publishes it.
    expect(outline(content.pages)).toEqual(["README.md | Home", "../outside.md | Outside"]);
    expect(content.files).toEqual([]);
    // ../secret.png exists in the repository: a link to its web address, never read.
    expect(content.externalFiles).toEqual(["secret.png"]);
    const messages = content.warnings.map((w) => w.message).join("\n");
    for (const name of ["../../../../etc/passwd.md", "/etc/passwd.md"]) expect(messages).toContain(name);
    // Nothing outside the repository was read: no page or file carries the secret's blob.
    expect(JSON.stringify(content)).not.toContain(blobOid(files["secret.png"] as Buffer));
  });

  it("a symlink to /etc/passwd fails the import, naming the link (through git too)", async () => {
    const repo = createBareRepo(loadFixture("hostile-symlinks"));
    try {
      const local = await fetchRef(repo.url, "refs/heads/main", { ...TEST_REMOTES });
      try {
        const error = await rejection(readRepository(await local.listTree(), local), GitError);
        expect(error.code).toBe("path_refused");
        expect(error.message).toContain('"docs/passwd.md" -> "/etc/passwd"');
      } finally {
        await local.dispose();
      }
    } finally {
      repo.cleanup();
    }
  });

  it("a symlink loop fails the import", async () => {
    const error = await rejection(readMemory(loadFixture("hostile-symlink-loop")), GitError);
    expect(error.message).toMatch(/symlink loop/);
  });

  it("a symlink leaving the content root (but not the repository) is refused", async () => {
    const error = await rejection(
      readMemory({
        ".gitbook.yaml": "root: docs\n",
        "secret.txt": "s",
        "docs/README.md": "# H\n",
        "docs/s.md": { symlink: "../secret.txt" },
      }),
      GitError,
    );
    expect(error.message).toMatch(/"docs\/s.md" -> "secret.txt": its target leaves "docs"/);
  });

  it("a huge file stops the import at the file-size limit", async () => {
    const repo = createBareRepo(loadFixture("hostile-huge"));
    try {
      const local = await fetchRef(repo.url, "refs/heads/main", { ...TEST_REMOTES });
      try {
        const error = await rejection(readRepository(await local.listTree(), local, { limits: { maxFileBytes: 1_000_000 } }), GitError);
        expect(error.code).toBe("limit_exceeded");
        expect(error.message).toBe('The file "big.bin" is 3000000 bytes, over the limit of 1000000 bytes (maxFileBytes)');
      } finally {
        await local.dispose();
      }
    } finally {
      repo.cleanup();
    }
  });

  it("a ref that does not exist is named", async () => {
    const repo = createBareRepo(loadFixture("gitbook-docs"));
    try {
      const error = await rejection(fetchRef(repo.url, "refs/heads/gitbook", { ...TEST_REMOTES }), GitError);
      expect(error.code).toBe("ref_not_found");
      expect(error.message).toContain('"refs/heads/gitbook"');
    } finally {
      repo.cleanup();
    }
  });
});

describe("limits count only what is imported", () => {
  const files = {
    "README.md": "# Home\n\n![used](.gitbook/assets/used.png)\n",
    "SUMMARY.md": "* [Home](README.md)\n* [Big](big.md)\n  * [Child](child.md)\n",
    "big.md": `# Big\n\n${"word ".repeat(3000)}\n`,
    "child.md": "# Child\n\n[data](data.bin)\n",
    "data.bin": "d".repeat(5000),
    ".gitbook/assets/used.png": makePng(2, 3),
    ".gitbook/assets/unused-1.bin": "u".repeat(200_000),
    ".gitbook/assets/unused-2.bin": "v".repeat(200_000),
    "huge-unused.bin": "h".repeat(300_000),
  };
  const read = (limits: Record<string, number>) => {
    const { entries, reader } = memory(files);
    return readRepository(entries, reader, { limits });
  };

  it("files no page uses neither count nor stop the import; the unused assets are counted in a warning", async () => {
    const content = await read({ maxFileBytes: 10_000, maxRepoBytes: 40_000, maxFiles: 5 });
    expect(content.files.map((f) => f.path)).toEqual([".gitbook/assets/used.png", "data.bin"]);
    const unused = content.warnings.find((w) => w.code === "unused_files");
    expect(unused?.message).toBe(
      "2 file(s) under .gitbook/assets are not used by any page and were not imported: .gitbook/assets/unused-1.bin, .gitbook/assets/unused-2.bin",
    );
  });

  it("a used file over maxFileBytes, used files over maxRepoBytes or maxFiles stop the import, naming the limit", async () => {
    expect((await rejection(read({ maxFileBytes: 4000 }), GitError)).message).toBe(
      'The file "data.bin" is 5000 bytes, over the limit of 4000 bytes (maxFileBytes)',
    );
    expect((await rejection(read({ maxRepoBytes: 20_000 }), GitError)).message).toMatch(
      /^The pages and files to import are \d+ bytes, over the limit of 20000 bytes in total \(maxRepoBytes\)$/,
    );
    expect((await rejection(read({ maxFiles: 4 }), GitError)).message).toBe(
      "The import has 5 pages and files, over the limit of 4 (maxFiles)",
    );
  });

  it("a page over maxPageBytes is left out with a warning, its children moving up a level", async () => {
    const content = await read({ maxPageBytes: 10_000 });
    expect(outline(content.pages)).toEqual(["README.md | Home", "child.md | Child"]);
    expect(content.warnings.find((w) => w.code === "page_too_large")).toEqual({
      code: "page_too_large",
      message:
        "big.md is 15008 bytes of Markdown, over the limit of 10000 bytes per page (QUIRE_IMPORT_MAX_PAGE_BYTES); it was not imported",
      paths: ["big.md"],
    });
  });
});

describe("SUMMARY entries and links outside what is imported", () => {
  it("an entry pointing outside the root to a file that exists is a page (its path climbs out of the root); a missing one warns", async () => {
    const content = await readMemory({
      ".gitbook.yaml": "root: docs\n",
      "docs/README.md": "# Home\n\nSee [the example](../examples/x/README.md), [unlisted](unlisted.md) and [code](../src/main.py).\n",
      "docs/SUMMARY.md": "* [Home](README.md)\n* [Example](../examples/x/README.md)\n* [Gone](../nowhere.md)\n",
      "docs/unlisted.md": "# Unlisted\n",
      "examples/x/README.md": "# Example\n",
      "src/main.py": "print(1)\n",
    });
    expect(outline(content.pages)).toEqual(["README.md | Home", "../examples/x/README.md | Example"]);
    expect(content.externalFiles).toEqual(["docs/unlisted.md", "src/main.py"]);
    expect(content.warnings.map((w) => w.message)).toEqual([
      'SUMMARY.md line 3: "Gone" points to "../nowhere.md", outside the content root and not a Markdown file of the repository; ignored',
      "1 Markdown file(s) are not listed in SUMMARY.md and were ignored: unlisted.md",
    ]);
  });
});
