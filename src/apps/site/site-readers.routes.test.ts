/**
 * What readers of a published page get around its body: the "On this page" outline, the tags
 * search engines and link previews read, the page-actions menu, llms.txt, and compressed answers.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, type TestPage } from "../../../test/helpers/content.factories.js";
import { doc, h, p } from "../../../test/helpers/render-documents.js";
import { addSection, createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { parseMarkdownPage } from "../../content/markdown/index.js";
import { saveDocument } from "../../content/revision/storage.js";
import { editorAssets } from "../web/web.assets.js";
import { bodyAssets } from "./page-body.render.js";
import { buildSiteAssets } from "./site.assets.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const page = async (path: string, headers: Record<string, string> = {}) => {
  const res = await ctx.anonymous.get(path, { headers });
  expect(res.status, res.text).toBe(200);
  return res.text;
};

/** The outline's entries as `class text`. */
const outlineOf = (html: string) =>
  [
    ...(/<aside class="q-outline"[^>]*>([\s\S]*?)<\/aside>/.exec(html)?.[1] ?? "").matchAll(
      /<li class="([^"]+)"><a href="#[^"]+">([^<]+)<\/a>/g,
    ),
  ].map((m) => `${m[1]} ${m[2]}`);

/** A published public site "Acme Docs" over one space with these pages. */
async function scenario(pages: TestPage[]) {
  const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Guide" });
  await commitContent(ctx, space.id, { pages });
  const site = await createSite(ctx, owner, org.id, { title: "Acme Docs", spaces: [space.id] });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  return { org, owner, space, site, url, root: `/s/${site.basename}` };
}

describe("the outline of a published page", () => {
  it("lists every heading of the body, levels 1 to 3, indented from the highest; none under two headings", async () => {
    // A Markdown `##` imported from Git is a heading-1 (the `#` is the page title).
    const imported = await saveDocument(
      ctx.db,
      doc(h(1, "Install"), p("Text."), h(2, "On Linux"), h(3, "Debian"), h(1, "Configure"), p("More.")),
    );
    const deeper = await saveDocument(ctx.db, doc(h(2, "Usage"), h(3, "Flags"), h(2, "Exit codes")));
    const single = await saveDocument(ctx.db, doc(h(1, "Only one"), p("Short page.")));
    const { root } = await scenario([
      { title: "Imported", slug: "imported", extra: { documentHash: imported } },
      { title: "Deeper", slug: "deeper", extra: { documentHash: deeper } },
      { title: "Single", slug: "single", extra: { documentHash: single } },
    ]);
    expect(outlineOf(await page(`${root}/`))).toEqual(["q-l1 Install", "q-l2 On Linux", "q-l3 Debian", "q-l1 Configure"]);
    expect(outlineOf(await page(`${root}/deeper`))).toEqual(["q-l1 Usage", "q-l2 Flags", "q-l1 Exit codes"]);
    const short = await page(`${root}/single`);
    expect(outlineOf(short)).toEqual([]);
    expect(short).toContain('<aside class="q-outline"></aside>');
  });
});

describe("what search engines and link previews read", () => {
  it("gives each page its own title, description and canonical address; the first page's is the site root", async () => {
    const { root } = await scenario([
      { title: "Introduction", slug: "intro", paragraphs: ["Welcome."], extra: { description: "What Acme is & does" } },
      { title: "Install", slug: "install", paragraphs: ["Run it."] },
    ]);
    const origin = "http://quire.test";
    const home = await page(`${root}/`);
    expect(home).toContain("<title>Introduction | Acme Docs</title>");
    expect(home).toContain('<meta property="og:title" content="Introduction | Acme Docs">');
    expect(home).toContain('<meta property="og:description" content="What Acme is &amp; does">');
    expect(home).toContain(`<link rel="canonical" href="${origin}${root}/">`);
    expect(home).toContain(`<meta property="og:url" content="${origin}${root}/">`);
    expect(home.match(/og:title/g)).toHaveLength(1);
    // The first page also answers at its own path: the same canonical address, the root.
    const own = await page(`${root}/intro`);
    expect(own).toContain(`<link rel="canonical" href="${origin}${root}/">`);

    const install = await page(`${root}/install`);
    expect(install).toContain("<title>Install | Acme Docs</title>");
    expect(install).toContain('<meta property="og:title" content="Install | Acme Docs">');
    // Without a description of its own, a page is described by its opening words.
    expect(install).toContain('<meta property="og:description" content="Run it.">');
    expect(install).toContain('<meta name="description" content="Run it.">');
    expect(install).toContain(`<link rel="canonical" href="${origin}${root}/install">`);
    expect(install).toContain(`<meta property="og:url" content="${origin}${root}/install">`);
    // A page that does not exist names no canonical address.
    const missing = await ctx.anonymous.get(`${root}/nowhere`);
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain('rel="canonical"');
  });
});

describe("the page-actions menu", () => {
  /** The menu's entries as `label -> href` (a button: its Markdown address; MCP: the address shown). */
  const actionsOf = (html: string) => {
    const menu = /<details class="q-menu q-actions">([\s\S]*?)<\/ul><\/details>/.exec(html)?.[1] ?? "";
    return [
      ...menu.matchAll(
        /<li>(?:<a [^>]*href="([^"]+)"[^>]*>([^<]+)<\/a>|<button [^>]*data-markdown="([^"]+)"[^>]*>([^<]+)<\/button>|<details[^>]*><summary>([^<]+)<\/summary>[\s\S]*?value="([^"]+)")/g,
      ),
    ].map((m) => `${m[2] ?? m[4] ?? m[5]} -> ${(m[1] ?? m[3] ?? m[6] ?? "").replaceAll("&amp;", "&")}`);
  };

  it("offers the page as Markdown, to ChatGPT and Claude, as a PDF and the MCP address, as the site's settings allow", async () => {
    const { owner, url, root } = await scenario([
      { title: "Introduction", slug: "intro", paragraphs: ["Welcome."] },
      { title: "Install", slug: "install", paragraphs: ["Run it."] },
    ]);
    // Quire's defaults: the Markdown and the PDF.
    expect(actionsOf(await page(`${root}/install`))).toEqual([
      `Copy page as Markdown -> ${root}/install.md`,
      `View as Markdown -> ${root}/install.md`,
      expect.stringMatching(new RegExp(`^Download as PDF -> ${root}/~quire/pdf/\\w+/\\w+$`)),
    ]);
    expect((await ctx.as(owner).put(`${url}/customization`, { pageActions: { externalAI: true, markdown: true, mcp: true } })).status).toBe(
      200,
    );
    const html = await page(`${root}/install`);
    const prompt = encodeURIComponent(`Read http://quire.test${root}/install.md so I can ask questions about it.`);
    expect(actionsOf(html)).toEqual([
      `Copy page as Markdown -> ${root}/install.md`,
      `View as Markdown -> ${root}/install.md`,
      `Open in ChatGPT -> https://chatgpt.com/?hints=search&q=${prompt}`,
      `Open in Claude -> https://claude.ai/new?q=${prompt}`,
      expect.stringMatching(/^Download as PDF -> /),
      `Connect to MCP -> http://quire.test${root}/~quire/mcp`,
    ]);
    // The first page's Markdown names the page (its HTML answers at the root).
    expect(actionsOf(await page(`${root}/`))[1]).toBe(`View as Markdown -> ${root}/intro.md`);
    // Everything off: no menu at all.
    await ctx
      .as(owner)
      .put(`${url}/customization`, { pageActions: { externalAI: false, markdown: false, mcp: false }, pdf: { enabled: false } });
    expect(await page(`${root}/install`)).not.toContain("q-actions");
  });

  it("does not hand a share link's pages to an outside assistant", async () => {
    const { owner, url, root } = await scenario([{ title: "Introduction", slug: "intro", paragraphs: ["Welcome."] }]);
    await ctx.as(owner).put(`${url}/customization`, { pageActions: { externalAI: true, markdown: true, mcp: true } });
    expect((await ctx.as(owner).patch(url, { visibility: "share-link" })).status).toBe(200);
    const link = (await ctx.as(owner).post(`${url}/share-links`, { name: "Partners" })).body;
    const key = link.urls.published.split("/").pop() as string;
    const actions = actionsOf(await page(`${root}/${key}/`));
    expect(actions).toContain(`View as Markdown -> ${root}/${key}/intro.md`);
    expect(actions.join("\n")).not.toMatch(/ChatGPT|Claude/);
    expect(actions).toContain(`Connect to MCP -> http://quire.test${root}/${key}/~quire/mcp`);
  });
});

describe("llms.txt and Markdown for machines", () => {
  it("starts with the title and a summary, then lists pages under the page tree's groups in tree order", async () => {
    const { root } = await scenario([
      { title: "Welcome", slug: "welcome", paragraphs: ["Hi."], extra: { description: "Acme   builds\nengines." } },
      {
        kind: "group",
        title: "Getting started",
        slug: "getting-started",
        children: [
          {
            title: "Install",
            slug: "install",
            paragraphs: ["Run it."],
            children: [{ title: "Linux", slug: "linux", paragraphs: ["apt."] }],
          },
          { title: "Configure", slug: "configure", paragraphs: ["Edit it."], extra: { description: "The settings" } },
        ],
      },
      { kind: "group", title: "Reference", slug: "reference", children: [{ title: "CLI", slug: "cli", paragraphs: ["Flags."] }] },
    ]);
    const llms = await page(`${root}/llms.txt`);
    const at = `http://quire.test${root}`;
    expect(llms).toBe(
      [
        "# Acme Docs",
        "",
        "> Acme builds engines.",
        "",
        "## Acme Docs",
        "",
        `- [Welcome](${at}/welcome.md): Acme builds engines.`,
        "",
        "## Getting started",
        "",
        `- [Install](${at}/getting-started/install.md)`,
        `- [Linux](${at}/getting-started/install/linux.md)`,
        `- [Configure](${at}/getting-started/configure.md): The settings`,
        "",
        "## Reference",
        "",
        `- [CLI](${at}/reference/cli.md)`,
        "",
      ].join("\n"),
    );
  });

  it("names the section and variant before a group when the site shows several; no summary without a description", async () => {
    const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Guide" });
    const api = await createSpace(ctx, owner, org.id, { title: "API" });
    await commitContent(ctx, space.id, {
      pages: [{ kind: "group", title: "Basics", slug: "basics", children: [{ title: "Intro", slug: "intro", paragraphs: ["Hi."] }] }],
    });
    await commitContent(ctx, api.id, { pages: [{ title: "Endpoints", slug: "endpoints", paragraphs: ["GET."] }] });
    const site = await createSite(ctx, owner, org.id, { title: "Acme Docs" });
    await addSection(ctx, owner, org.id, site.id, { spaceId: space.id, title: "Guide" });
    await addSection(ctx, owner, org.id, site.id, { spaceId: api.id, title: "API" });
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const llms = await page(`/s/${site.basename}/llms.txt`);
    expect(llms).not.toContain(">");
    expect(llms.split("\n").filter((l) => l.startsWith("#"))).toEqual(["# Acme Docs", "## Guide — Basics", "## API"]);
  });

  it("writes tables in a page's Markdown without padding cells to the column's width, as valid GFM", async () => {
    const source = "| Option | Meaning |\n| --- | --- |\n| `a` | A very long explanation of what the first option does |\n| b | Short |\n";
    const { document } = parseMarkdownPage(source);
    const documentHash = await saveDocument(ctx.db, document);
    const { root } = await scenario([{ title: "Options", slug: "options", extra: { documentHash } }]);
    const md = await page(`${root}/options.md`);
    expect(md).toContain(
      "| Option | Meaning |\n| - | - |\n| `a` | A very long explanation of what the first option does |\n| b | Short |\n",
    );
    // Read back, it is the same table.
    const again = parseMarkdownPage(md.slice(md.indexOf("|"))).document.nodes[0] as unknown as {
      type: string;
      data: { records: Record<string, unknown> };
    };
    expect(again.type).toBe("table");
    expect(Object.keys(again.data.records)).toHaveLength(2);
    expect(md.length).toBeLessThan(source.length + "# Options\n\n".length + 10);
  });
});

describe("compressed answers", () => {
  const long = (n: number) => Array.from({ length: n }, (_, i) => `Paragraph ${i} of a long page about engines and gears.`);

  it("sends pages, Markdown, llms.txt and assets in brotli or gzip as asked, identity otherwise, Vary always", async () => {
    const { root } = await scenario([
      { title: "Long", slug: "long", paragraphs: long(200) },
      { title: "Short", slug: "short", paragraphs: ["Tiny."] },
    ]);
    const plain = await ctx.anonymous.get(`${root}/`);
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(String(plain.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(plain.text).toContain("Paragraph 199");

    const br = await ctx.anonymous.get(`${root}/`, { headers: { "accept-encoding": "br" } });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(String(br.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(br.raw.length).toBeLessThan(plain.raw.length / 3);
    expect(brotliDecompressSync(br.raw).toString()).toBe(plain.text);
    expect(br.headers.etag).toBe(plain.headers.etag);
    // Asked again (the page and its compressed body kept), the same bytes.
    const again = await ctx.anonymous.get(`${root}/`, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(again.headers["content-encoding"]).toBe("br");
    expect(Buffer.compare(again.raw, br.raw)).toBe(0);

    const gzip = await ctx.anonymous.get(`${root}/`, { headers: { "accept-encoding": "gzip, br;q=0" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.raw).toString()).toBe(plain.text);
    expect(
      (await ctx.anonymous.get(`${root}/`, { headers: { "accept-encoding": "identity" } })).headers["content-encoding"],
    ).toBeUndefined();

    for (const path of ["long.md", "llms-full.txt"]) {
      const identity = await ctx.anonymous.get(`${root}/${path}`);
      const encoded = await ctx.anonymous.get(`${root}/${path}`, { headers: { "accept-encoding": "br" } });
      expect(encoded.headers["content-encoding"], path).toBe("br");
      expect(brotliDecompressSync(encoded.raw).toString()).toBe(identity.text);
    }
    const css = /href="([^"]+site\.[0-9a-f]+\.css)"/.exec(plain.text)?.[1] ?? "";
    const asset = await ctx.anonymous.get(css, { headers: { "accept-encoding": "gzip" } });
    expect(asset.headers["content-encoding"]).toBe("gzip");
    expect(String(asset.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(gunzipSync(asset.raw).toString()).toContain(".q-outline");
    // A 304 stays a 304 whatever the encoding.
    const fresh = await ctx.anonymous.get(`${root}/`, {
      headers: { "accept-encoding": "br", "if-none-match": String(plain.headers.etag) },
    });
    expect(fresh.status).toBe(304);
  });

  it("leaves tiny answers and images as they are", async () => {
    const { root } = await scenario([{ title: "Short", slug: "short", paragraphs: ["Tiny."] }]);
    const robots = await ctx.anonymous.get(`${root}/robots.txt`, { headers: { "accept-encoding": "br, gzip" } });
    expect(robots.status).toBe(200);
    expect(robots.raw.length).toBeLessThan(1024);
    expect(robots.headers["content-encoding"]).toBeUndefined();
    expect(String(robots.headers.vary).toLowerCase()).toContain("accept-encoding");
    // A font is compressed already: sent as it is.
    const font = buildSiteAssets(bodyAssets()).names.get("katex/fonts/KaTeX_Main-Regular.woff2");
    const woff = await ctx.anonymous.get(`${root}/~quire/assets/${font}`, { headers: { "accept-encoding": "br, gzip" } });
    expect(woff.status).toBe(200);
    expect(woff.raw.length).toBeGreaterThan(1024);
    expect(woff.headers["content-encoding"]).toBeUndefined();
  });

  it("compresses the member app's scripts and styles, not its pages (they hold the CSRF token: BREACH)", async () => {
    const page = await ctx.anonymous.get("/app/login", { headers: { "accept-encoding": "gzip" } });
    expect(page.status).toBe(200);
    expect(String(page.headers.vary).toLowerCase()).toContain("accept-encoding");
    expect(page.headers["content-encoding"]).toBeUndefined();
    expect(page.text).toContain("<html");
    // The editor's script, which the edit view links.
    const script = await ctx.anonymous.get(`${(await editorAssets()).prefix}/editor.js`, { headers: { "accept-encoding": "gzip" } });
    expect(script.status).toBe(200);
    expect(script.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(script.raw).toString()).toContain("quire");
  });
});
