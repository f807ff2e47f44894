/**
 * Issue 28: repositories read as GitBook reads them, and written back byte for byte. Each case is a
 * minimal repository in the GitBook format: imported, read through the API (or the published
 * renderer), exported back to the branch it came from, and compared with what it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { editContent, mergeChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { createBareRepo, type FileSpec, readRepoFiles } from "../../../test/helpers/git.js";
import { testEnv } from "../../../test/helpers/render-documents.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { renderDocument } from "../../content/html/index.js";
import { contentLinkResolver } from "../../content/markdown/content-links.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
});
afterAll(() => ctx.close());

type Page = { id: string; title: string; type: string; path?: string; pages?: Page[] };
const flatten = (pages: Page[]): Page[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);

type Owner = Awaited<ReturnType<typeof createOrgWithSpace>>["owner"];

/** Imports `files` into a new space; `run` reads it; then exports back and returns the files that changed. */
async function roundTrip(
  files: Record<string, FileSpec>,
  run: (space: { id: string }, owner: Owner, warnings: string[]) => Promise<void>,
  importBody: Record<string, unknown> = {},
): Promise<{ changed: string[]; after: Map<string, Buffer | { symlink: string }> }> {
  const { owner, space } = await createOrgWithSpace(ctx, { title: "Fidelity" });
  const repo = createBareRepo(files);
  try {
    const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url: repo.url, ref: "refs/heads/main", ...importBody });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    await ctx.worker.drain();
    const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
    expect(info.lastImport.status, JSON.stringify(info.lastImport)).toBe("succeeded");
    await run(space, owner, info.lastImport.warnings ?? []);
    const before = readRepoFiles(repo.dir);
    const exported = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/git/export`, { url: repo.url, ref: "refs/heads/main", commitMessage: "Back" });
    expect(exported.status, JSON.stringify(exported.body)).toBe(204);
    await ctx.worker.drain();
    const after = readRepoFiles(repo.dir);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.lastExport.status).not.toBe("failed");
    // A changed file is named with both texts, so that a failure shows the difference.
    const changed = [...new Set([...before.keys(), ...after.keys()])]
      .filter((name) => String(before.get(name) ?? "<none>") !== String(after.get(name) ?? "<none>"))
      .map((name) => `${name}\n--- before\n${String(before.get(name) ?? "<none>")}\n--- after\n${String(after.get(name) ?? "<none>")}`);
    return { changed, after };
  } finally {
    repo.cleanup();
  }
}

async function pageDocument(owner: Owner, spaceId: string, title: string) {
  const content = (await ctx.as(owner).get(`/v1/spaces/${spaceId}/content`)).body as { pages: Page[] };
  const page = flatten(content.pages).find((p) => p.title === title);
  expect(page, `no page "${title}"`).toBeDefined();
  return (await ctx.as(owner).get(`/v1/spaces/${spaceId}/content/page/${page!.id}`)).body;
}

/** `.gitbook.yaml` with `root: ./docs/` as an export writes it. */
const YAML_DOCS = "root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n";

/** Every link (`url` or page ref) of a document, in reading order. */
function linksOf(node: unknown): { kind: string; url?: string; page?: string; file?: string }[] {
  const out: { kind: string; url?: string; page?: string; file?: string }[] = [];
  const visit = (n: unknown) => {
    if (!n || typeof n !== "object") return;
    const v = n as Record<string, unknown>;
    const data = v.data as { ref?: { kind: string } } | undefined;
    if ((v.type === "link" || v.type === "image") && data?.ref) out.push(data.ref as never);
    for (const key of ["nodes", "fragments", "leaves"]) if (Array.isArray(v[key])) for (const c of v[key] as unknown[]) visit(c);
  };
  visit(node);
  return out;
}

describe("GitBook fidelity of a Git import, and its round trip", () => {
  it("1: a SUMMARY.md entry outside the root is a page, written back to its own file; SUMMARY.md keeps its ../ link", async () => {
    const summary = "# Table of contents\n\n* [Home](README.md)\n* [RAG example](../examples/rag/README.md)\n";
    const example = "# RAG example\n\nSee [home](../../docs/README.md).\n";
    const files = {
      ".gitbook.yaml": YAML_DOCS,
      "docs/README.md": "# Home\n\nThe [example](../examples/rag/README.md).\n",
      "docs/SUMMARY.md": summary,
      "examples/rag/README.md": example,
      "examples/rag/main.py": "print(1)\n",
    };
    const { changed, after } = await roundTrip(files, async (space, owner, warnings) => {
      expect(warnings.join("\n")).not.toMatch(/RAG example/);
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
      const pages = flatten(content.pages);
      const rag = pages.find((p) => p.title === "RAG example")!;
      expect(rag).toBeDefined();
      expect(rag.path).toBe("rag");
      const home = await pageDocument(owner, space.id, "Home");
      expect(linksOf(home.document)).toEqual([{ kind: "page", page: rag.id }]);
      const ragDoc = await pageDocument(owner, space.id, "RAG example");
      expect(linksOf(ragDoc.document)).toEqual([{ kind: "page", page: home.id }]);
    });
    expect(changed).toEqual([]);
    expect(String(after.get("docs/SUMMARY.md"))).toBe(summary);
  });

  it("1: an edited page from outside the root is written to its file; a path that leaves the repository is not a page", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Outside" });
    const repo = createBareRepo({
      ".gitbook.yaml": YAML_DOCS,
      "docs/README.md": "# Home\n",
      "docs/SUMMARY.md": "* [Home](README.md)\n* [Ex](../examples/x.md)\n* [Up](../../../etc/passwd.md)\n",
      "examples/x.md": "# Ex\n\nOld.\n",
    });
    try {
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url: repo.url, ref: "refs/heads/main" });
      await ctx.worker.drain();
      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.lastImport.warnings.join("\n")).toMatch(/"Up" points to "..\/..\/..\/etc\/passwd.md", outside the content root/);
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
      expect(flatten(content.pages).map((p) => p.title)).toEqual(["Home", "Ex"]);
      const ex = flatten(content.pages).find((p) => p.title === "Ex")!;
      const cr = (await ctx.as(owner).post(`/v1/spaces/${space.id}/change-requests`, { subject: "Edit" })).body;
      await editContent(ctx, owner, space.id, cr.id, [{ operation: "update_page", page: ex.id, document: { markdown: "# Ex\n\nNew.\n" } }]);
      await mergeChangeRequest(ctx, owner, space.id, cr.id);
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/export`, { url: repo.url, ref: "refs/heads/main", commitMessage: "Edit" });
      await ctx.worker.drain();
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.lastExport.status).toBe("succeeded");
      const after = readRepoFiles(repo.dir);
      expect(String(after.get("examples/x.md"))).toBe("# Ex\n\nNew.\n");
      expect([...after.keys()].filter((k) => k.includes("x.md"))).toEqual(["examples/x.md"]);
    } finally {
      repo.cleanup();
    }
  });

  it("2: links that leave the root and come back in, or climb one folder too many, resolve as URLs do", async () => {
    const readme = [
      "# Home",
      "",
      "[Back in](./../../../docs/getting-started/x.md), [one too many](../../getting-started/x.md) and [from the top](../../../../docs/README.md).",
      "",
    ].join("\n");
    const { changed } = await roundTrip(
      {
        ".gitbook.yaml": YAML_DOCS,
        "docs/README.md": "# Home\n\nStart.\n",
        "docs/SUMMARY.md":
          "# Table of contents\n\n* [Home](README.md)\n* [X](getting-started/x.md)\n  * [Deep](getting-started/deep/page.md)\n",
        "docs/getting-started/x.md": "# X\n",
        "docs/getting-started/deep/page.md": readme.replace("# Home", "# Deep"),
      },
      async (space, owner) => {
        const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
        const byTitle = (t: string) => flatten(content.pages).find((p) => p.title === t)!.id;
        const deep = await pageDocument(owner, space.id, "Deep");
        expect(linksOf(deep.document)).toEqual([
          { kind: "page", page: byTitle("X") },
          { kind: "page", page: byTitle("X") },
          { kind: "page", page: byTitle("Home") },
        ]);
      },
    );
    expect(changed).toEqual([]);
  });

  it("3: links and images to files not imported become the repository's web addresses (repoTreeURL), and the round trip keeps the files", async () => {
    const readme = [
      "# Home",
      "",
      "See [the code](../examples/main.py#L3), [notes](notes.md) and [missing](nowhere.md).",
      "",
      "![Diagram](../assets/diagram.png)",
      "",
    ].join("\n");
    const files = {
      ".gitbook.yaml": YAML_DOCS,
      "docs/README.md": readme,
      "docs/notes.md": "# Notes\n",
      "docs/SUMMARY.md": "# Table of contents\n\n* [Home](README.md)\n",
      "examples/main.py": "print(1)\n",
      "assets/diagram.png": makePng(2, 2),
    };
    const tree = "https://github.com/acme/docs/blob/main";
    const { changed } = await roundTrip(
      files,
      async (space, owner, warnings) => {
        expect(warnings.join("\n")).not.toMatch(/repoTreeURL/);
        const home = await pageDocument(owner, space.id, "Home");
        expect(linksOf(home.document)).toEqual([
          { kind: "url", url: `${tree}/examples/main.py#L3` },
          { kind: "url", url: `${tree}/docs/notes.md` },
          { kind: "url", url: "nowhere.md" },
          { kind: "url", url: `${tree}/assets/diagram.png` },
        ]);
        const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
        expect(info).toBeDefined();
      },
      { repoTreeURL: tree },
    );
    expect(changed).toEqual([]);

    // Without a web address they stay as written, and the import says why.
    await roundTrip(files, async (space, owner, warnings) => {
      expect(warnings.join("\n")).toMatch(
        /Links to 3 file\(s\) of the repository that are not imported .*repoTreeURL.*assets\/diagram.png, docs\/notes.md, examples\/main.py/,
      );
      const home = await pageDocument(owner, space.id, "Home");
      expect(linksOf(home.document).map((l) => l.url)).toEqual([
        "../examples/main.py#L3",
        "notes.md",
        "nowhere.md",
        "../assets/diagram.png",
      ]);
    });
  });

  it("7: SUMMARY.md items without a link are pages without content, their children under them, written back to the same line", async () => {
    const summary = [
      "# Table of contents",
      "",
      "* [Home](README.md)",
      "* Reference",
      "  * [API](reference/api.md)",
      "  * Nested",
      "    * [Deep](reference/deep.md)",
      "",
      '## Group <a href="#group" id="group"></a>',
      "",
      "* Section",
      "  * [Inside](inside.md)",
      "",
    ].join("\n");
    const { changed, after } = await roundTrip(
      {
        "README.md": "# Home\n",
        "SUMMARY.md": summary,
        "reference/api.md": "# API\n",
        "reference/deep.md": "# Deep\n",
        "inside.md": "# Inside\n",
      },
      async (space, owner, warnings) => {
        expect(warnings.join("\n")).not.toMatch(/has no link/);
        const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
        const shape = (pages: Page[]): unknown => pages.map((p) => [p.title, p.type, ...(p.pages?.length ? [shape(p.pages)] : [])]);
        expect(shape(content.pages)).toEqual([
          ["Home", "document"],
          [
            "Reference",
            "document",
            [
              ["API", "document"],
              ["Nested", "document", [["Deep", "document"]]],
            ],
          ],
          ["Group", "group", [["Section", "document", [["Inside", "document"]]]]],
        ]);
        const reference = await pageDocument(owner, space.id, "Reference");
        expect(reference.document?.nodes ?? []).toEqual([]);
      },
    );
    expect(changed).toEqual([]);
    expect(String(after.get("SUMMARY.md"))).toBe(summary);
  });

  it("8: heading anchors are GitBook's, on the API, and `#anchor` links resolve to them", async () => {
    const readme = [
      "# Home",
      "",
      "See [sudoers](privesc.md#etc-sudoers-etc-sudoers-d) and [the key](privesc.md#rotate-the-log-key).",
      "",
    ].join("\n");
    const privesc = ["# Privesc", "", "## /etc/sudoers, /etc/sudoers.d", "", "Text.", "", "### Rotate the log\\_key", "", "More.", ""].join(
      "\n",
    );
    const { changed } = await roundTrip(
      { "README.md": readme, "privesc.md": privesc, "SUMMARY.md": "# Table of contents\n\n* [Home](README.md)\n* [Privesc](privesc.md)\n" },
      async (space, owner) => {
        const page = await pageDocument(owner, space.id, "Privesc");
        const headings = page.document.nodes.filter((n: { type: string }) => n.type.startsWith("heading"));
        expect(headings.map((h: { meta?: { id: string } }) => h.meta?.id)).toEqual(["etc-sudoers-etc-sudoers-d", "rotate-the-log-key"]);
      },
    );
    expect(changed).toEqual([]);
  });

  it("9: code in hints, tables in tabs and embed captions come back where the file had them: unedited byte for byte, edited in Quire's Markdown, and shown there", async () => {
    const blocks = [
      "# Blocks",
      "",
      '{% hint style="warning" %}',
      "Run this first:",
      "",
      "```bash",
      "npm ci",
      "```",
      "",
      "Then start.",
      "{% endhint %}",
      "",
      "{% tabs %}",
      '{% tab title="Limits" %}',
      "| limit | default |",
      "| ----- | ------- |",
      "| pages | 100     |",
      "{% endtab %}",
      "",
      '{% tab title="Notes" %}',
      "None.",
      "{% endtab %}",
      "{% endtabs %}",
      "",
      '{% embed url="https://www.youtube.com/watch?v=dQw4w9WgXcQ" %}',
      "The **launch** video",
      "{% endembed %}",
      "",
    ].join("\n");
    const files = {
      "README.md": "# Home\n",
      "SUMMARY.md": "# Table of contents\n\n* [Home](README.md)\n* [Blocks](blocks.md)\n",
      "blocks.md": blocks,
    };
    const { changed } = await roundTrip(files, async (space, owner, warnings) => {
      expect(warnings.join("\n")).not.toMatch(/caption|cannot be inside|moved out/);
      const page = await pageDocument(owner, space.id, "Blocks");
      const nodes = page.document.nodes as { type: string; partOf?: string }[];
      // 0.146's model holds them side by side; each part names the container it belongs in.
      expect(nodes.map((n) => [n.type, n.partOf ?? null])).toEqual([
        ["hint", null],
        ["code", "hint"],
        ["hint", "hint"],
        ["tabs", null],
        ["table", "tabs-item"],
        ["tabs", "tabs"],
        ["embed", null],
        ["paragraph", "embed"],
      ]);
      // The published page shows the code in the hint box, the table in its tab, the caption under the video.
      const html = renderDocument(page.document, testEnv()).html;
      expect(html).toMatch(/<div class="q-hint q-hint-warning"[\s\S]*npm ci[\s\S]*Then start\.[\s\S]*<\/div><\/div>/);
      expect(html.match(/class="q-hint /g)).toHaveLength(1);
      expect(html).toMatch(/Limits<\/label><div class="q-tab-panel"><div class="q-table/);
      expect(html).toMatch(
        /<figure class="q-captioned">[\s\S]*<figcaption class="q-caption"><p>The <strong>launch<\/strong> video<\/p><\/figcaption><\/figure>/,
      );
    });
    expect(changed).toEqual([]);

    // Edited in Quire (a paragraph added at the end): the page is written in Quire's Markdown, with
    // the code still in its hint, the table in its tab and the caption in its embed.
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Fidelity edited" });
    const repo = createBareRepo(files);
    try {
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url: repo.url, ref: "refs/heads/main" });
      await ctx.worker.drain();
      const page = await pageDocument(owner, space.id, "Blocks");
      const document = structuredClone(page.document);
      document.nodes.push({
        object: "block",
        type: "paragraph",
        nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Edited.", marks: [] }] }],
      });
      const cr = (await ctx.as(owner).post(`/v1/spaces/${space.id}/change-requests`, { subject: "Edit" })).body;
      await editContent(ctx, owner, space.id, cr.id, [{ operation: "update_page", page: page.id, document: { document } }]);
      await mergeChangeRequest(ctx, owner, space.id, cr.id);
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/export`, { url: repo.url, ref: "refs/heads/main", commitMessage: "Edit" });
      await ctx.worker.drain();
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.lastExport.status).toBe("succeeded");
      const written = String(readRepoFiles(repo.dir).get("blocks.md"));
      expect(written).not.toBe(blocks);
      expect(written).toContain('{% hint style="warning" %}\nRun this first:\n\n```bash\nnpm ci\n```\n\nThen start.\n{% endhint %}\n');
      expect(written).toMatch(
        /\{% tab title="Limits" %\}\n\| limit +\| default +\|\n\| -+ +\| -+ +\|\n\| pages +\| 100 +\|\n\{% endtab %\}/,
      );
      expect(written).toContain('{% embed url="https://www.youtube.com/watch?v=dQw4w9WgXcQ" %}\nThe **launch** video\n{% endembed %}\n');
      expect(written).toMatch(/Edited\.\n$/);
    } finally {
      repo.cleanup();
    }
  });

  it("10: the page as Markdown writes images with their file's name, and that address resolves back to the file", async () => {
    const readme = "# Home\n\n![A diagram](.gitbook/assets/flow%20chart.png)\n";
    const { changed } = await roundTrip(
      {
        "README.md": readme,
        "SUMMARY.md": "# Table of contents\n\n* [Home](README.md)\n",
        ".gitbook/assets/flow chart.png": makePng(3, 2),
      },
      async (space, owner) => {
        const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
        const file = content.files[0] as { id: string; name: string };
        expect(file.name).toBe("flow chart.png");
        const page = flatten(content.pages)[0]!;
        const markdown = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${page.id}?format=markdown`)).body
          .markdown as string;
        expect(markdown).toContain(`/files/${file.id}/flow%20chart.png`);
        const resolve = contentLinkResolver({
          directory: "",
          firstPage: page.id,
          pagesByPath: new Map(),
          pageIds: new Set([page.id]),
          fileIds: new Set([file.id]),
          pageRefs: new Map(),
          fileRefs: new Map(),
        });
        expect(resolve(`/files/${file.id}/flow%20chart.png`, "image")).toEqual({ kind: "file", file: file.id });
      },
    );
    expect(changed).toEqual([]);
  });

  it("11: GitBook's <div> wrappers around images are images blocks (full width, centred); a body wholly in one is a full-width page", async () => {
    const shots = [
      "# Shots",
      "",
      "Wide:",
      "",
      '<div data-full-width="true">',
      "",
      '<figure><img src=".gitbook/assets/wide.png" alt=""><figcaption><p>The whole flow</p></figcaption></figure>',
      "",
      "</div>",
      "",
      "Centred, two side by side:",
      "",
      '<div align="center">',
      "",
      '<figure><img src=".gitbook/assets/a.png" alt="" width="300"><figcaption></figcaption></figure>',
      "",
      " ",
      "",
      '<img src=".gitbook/assets/b.png" alt="B">',
      "",
      "</div>",
      "",
      "After.",
      "",
    ].join("\n");
    const wide = [
      "# Wide",
      "",
      '<div data-full-width="true">',
      "",
      "A page set to full width.",
      "",
      "## Part",
      "",
      "More.",
      "",
      "</div>",
      "",
    ].join("\n");
    const { changed } = await roundTrip(
      {
        "README.md": "# Home\n",
        "SUMMARY.md": "# Table of contents\n\n* [Home](README.md)\n* [Shots](shots.md)\n* [Wide](wide.md)\n",
        "shots.md": shots,
        "wide.md": wide,
        ".gitbook/assets/wide.png": makePng(8, 2),
        ".gitbook/assets/a.png": makePng(2, 2),
        ".gitbook/assets/b.png": makePng(3, 3),
      },
      async (space, owner, warnings) => {
        expect(warnings.join("\n")).not.toMatch(/html code block|<div/);
        const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as {
          files: { id: string; name: string }[];
          pages: Page[];
        };
        const fileId = (name: string) => content.files.find((f) => f.name === name)?.id;
        const page = await pageDocument(owner, space.id, "Shots");
        const nodes = page.document.nodes as { type: string; data: Record<string, unknown>; nodes?: { data: Record<string, unknown> }[] }[];
        expect(nodes.map((n) => n.type)).toEqual(["paragraph", "images", "paragraph", "images", "paragraph"]);
        expect(nodes[1]!.data).toEqual({ fullWidth: true });
        expect(nodes[1]!.nodes!.map((i) => i.data.ref)).toEqual([{ kind: "file", file: fileId("wide.png") }]);
        expect(nodes[3]!.data).toEqual({ align: "center" });
        expect(nodes[3]!.nodes!.map((i) => i.data.ref)).toEqual([
          { kind: "file", file: fileId("a.png") },
          { kind: "file", file: fileId("b.png") },
        ]);
        expect(page.layout.width).toBe("default");
        const widePage = await pageDocument(owner, space.id, "Wide");
        expect(widePage.layout.width).toBe("wide");
        expect((widePage.document.nodes as { type: string }[]).map((n) => n.type)).toEqual(["paragraph", "heading-1", "paragraph"]);
      },
    );
    expect(changed).toEqual([]);
  });
  it("12: without SUMMARY.md, a folder without README.md is a page without a file: an export writes no README.md into it", async () => {
    // langgenius/dify-docs: `tools/` holds only folders (each with its own README.md), and
    // `writing-guides/` only pages; neither has a README.md of its own.
    const translate = [
      "# Translation Rules and Utilities",
      "",
      "Chinese and Japanese documentation is translated alongside each English change — by the docs team and contributors alike, typically with AI-agent assistance following the rules in this directory.",
      "",
    ].join("\n");
    const files = {
      "README.md": "# Dify Documentation\n",
      "tools/translate/README.md": translate,
      "tools/translate/formatting-ja.md": "# Japanese Formatting Guide\n",
      "writing-guides/glossary.md": "# Glossary\n",
    };
    const { changed, after } = await roundTrip(files, async (space, owner, warnings) => {
      expect(warnings.join("\n")).toMatch(/The folder "tools" has no README\.md/);
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body as { pages: Page[] };
      const shape = (pages: Page[]): unknown => pages.map((p) => [p.title, p.path ?? "", ...(p.pages?.length ? [shape(p.pages)] : [])]);
      expect(shape(content.pages)).toEqual([
        ["Dify Documentation", "dify-documentation"],
        [
          "tools",
          "tools",
          [["Translation Rules and Utilities", "tools/translate", [["Japanese Formatting Guide", "tools/translate/formatting-ja"]]]],
        ],
        ["writing-guides", "writing-guides", [["Glossary", "writing-guides/glossary"]]],
      ]);
      expect((await pageDocument(owner, space.id, "tools")).document?.nodes ?? []).toEqual([]);
    });
    // Only SUMMARY.md is new (an export always writes one); every page's file is as it was, and
    // no tools/README.md or writing-guides/README.md appears.
    expect(changed.map((c) => c.split("\n")[0])).toEqual(["SUMMARY.md"]);
    expect([...after.keys()].filter((name) => name.endsWith(".md")).sort()).toEqual([...Object.keys(files), "SUMMARY.md"].sort());
    expect(String(after.get("SUMMARY.md"))).toMatch(/^\* tools$/m);
  });
});
