import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { commitContent, type TestPage, testFile } from "../../../test/helpers/content.factories.js";
import { encodePng } from "../../../test/helpers/png.js";
import { block, code, doc, fileRef, h, inline, p, text } from "../../../test/helpers/render-documents.js";
import { addSection, createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { imageDimensions } from "../../content/gitbook-repo/media.js";
import { saveDocument } from "../../content/revision/storage.js";
import { siteMcpSource } from "./mcp-source.steps.js";
import { loadSiteView, siteByBasename } from "./site-load.steps.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const GUIDE: TestPage[] = [
  { title: "Introduction", slug: "intro", paragraphs: ["Welcome to the guide.", "Second paragraph."] },
  {
    title: "Getting started",
    slug: "getting-started",
    paragraphs: ["Install it."],
    children: [{ title: "Install", slug: "install", paragraphs: ["Run the installer <script>alert(1)</script>."] }],
  },
  { title: "Hidden one", slug: "hidden-one", paragraphs: ["Not listed, a zebra."], extra: { hidden: true } },
  { title: "Beta only", slug: "beta", paragraphs: ["Beta features."], extra: { condition: "visitor.claims.beta === true" } },
  { kind: "group", title: "Reference", slug: "reference", children: [{ title: "Config", slug: "config", paragraphs: ["Options here."] }] },
  { kind: "link", title: "Home page", href: "https://example.com/home" },
];

/** A published public site with two sections: "Guide" (home; two variants v2 default, v1) and "API". */
async function scenario(options: { visibility?: string } = {}) {
  const base = await createOrgWithSpace(ctx, { title: "Guide v2" });
  const { org, owner } = base;
  const v1 = await createSpace(ctx, owner, org.id, { title: "Guide v1" });
  const api = await createSpace(ctx, owner, org.id, { title: "API" });
  await commitContent(ctx, base.space.id, { pages: GUIDE });
  await commitContent(ctx, v1.id, { pages: [{ title: "Old intro", slug: "old-intro", paragraphs: ["Version one."] }] });
  await commitContent(ctx, api.id, { pages: [{ title: "Endpoints", slug: "endpoints", paragraphs: ["GET /things lists things."] }] });
  const site = await createSite(ctx, owner, org.id, { title: "Acme Docs" });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  const guide = await addSection(ctx, owner, org.id, site.id, { spaceId: base.space.id, title: "Guide" });
  const added = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: v1.id, sectionId: guide.id });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  await ctx.as(owner).patch(`${url}/site-spaces/${added.body.id}`, { path: "v1" });
  await addSection(ctx, owner, org.id, site.id, { spaceId: api.id, title: "API" });
  if (options.visibility) expect((await ctx.as(owner).patch(url, { visibility: options.visibility })).status).toBe(200);
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  return { ...base, v1, api, site, url, root: `/s/${site.basename}` };
}

async function get(path: string, user?: TestUser, headers: Record<string, string> = {}) {
  return (user ? ctx.as(user) : ctx.anonymous).get(path, { headers });
}

describe("published site routes", () => {
  it("send a strict content security policy and framing, sniffing and referrer headers on every answer", async () => {
    const { root } = await scenario();
    const page = await get(`${root}/`);
    const asset = /href="([^"]+site\.[0-9a-f]+\.css)"/.exec(page.text)?.[1] ?? "";
    const stylesheet = await get(asset);
    for (const res of [page, await get(`${root}/~quire/search?q=guide`), await get(`${root}/nowhere`), await get("/s/no-such-site/")]) {
      const policy = String(res.headers["content-security-policy"]);
      expect(policy).toContain("default-src 'none'");
      // Only the site's own files, and the inline lines of <head> by their hash.
      expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*';/);
      expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
      expect(policy).toContain("frame-ancestors 'self'");
      expect(policy).toContain("base-uri 'none'");
      expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    }
    // A stylesheet or a script is no document: its policy grants nothing, in fewer bytes.
    expect(stylesheet.status).toBe(200);
    expect(stylesheet.headers["content-security-policy"]).toBe("default-src 'none'; base-uri 'none'; frame-ancestors 'self'");
    expect(stylesheet.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(stylesheet.headers["x-content-type-options"]).toBe("nosniff");
    const script = /src="([^"]+site\.[0-9a-f]+\.js)"/.exec(page.text)?.[1] ?? "";
    expect((await get(script)).headers["content-security-policy"]).toBe("default-src 'none'; base-uri 'none'; frame-ancestors 'self'");
    // Every other kind of answer keeps the page's policy.
    expect(String((await get(`${root}/~quire/search.json?q=guide`)).headers["content-security-policy"])).toContain("script-src 'self'");
    // The web app's session cookie of earlier versions (scoped to the whole host) is dropped here too.
    const legacy = await get(`${root}/`, undefined, { cookie: "quire_session=s%3Aold.signature" });
    expect(legacy.headers["set-cookie"]).toBe("quire_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    expect(page.headers["set-cookie"]).toBeUndefined();
  });

  it("serves the home section's default variant at the root, with layout, navigation and escaping", async () => {
    const { root } = await scenario();
    const res = await get(`${root}/`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers["content-type"]).toContain("text/html");
    const page = res.text;
    expect(page).toContain("<title>Introduction | Acme Docs</title>");
    expect(page).toContain("Welcome to the guide.");
    // Sections as tabs, the current one marked.
    expect(page).toMatch(
      /<nav class="q-site-tabs"[^>]*><a href="\/s\/[^"]+\/" aria-current="page">Guide<\/a><a href="\/s\/[^"]+\/api">API<\/a>/,
    );
    // Variant picker lists both variants of the section.
    expect(page).toContain(`href="${root}/v1"`);
    // Sidebar: group, link page, a collapsed branch; hidden and conditional pages left out.
    expect(page).toMatch(/<li data-branch><a href="\/s\/[^"]+\/getting-started">Getting started<\/a><\/li>/);
    expect(page).not.toContain(`href="${root}/getting-started/install"`);
    expect(page).toContain('<div class="q-nav-group">Reference</div>');
    expect(page).toContain(`href="${root}/reference/config"`);
    expect(page).toContain('href="https://example.com/home"');
    expect(page).not.toContain("Hidden one");
    expect(page).not.toContain("Beta only");
    // Next link.
    expect(page).toMatch(/rel="next" href="\/s\/[^"]+\/getting-started"><small>Next<\/small>Getting started/);

    const install = await get(`${root}/getting-started/install`);
    expect(install.status).toBe(200);
    expect(install.text).toContain("Run the installer &lt;script&gt;alert(1)&lt;/script&gt;.");
    expect(install.text).not.toContain("<script>alert(1)");
    expect(install.text).toContain('<div class="q-breadcrumb">Getting started</div>');
    expect(install.text).toContain(`<a href="${root}/getting-started/install" aria-current="page">Install</a>`);
    // A page without a description is described to search engines by its opening words, escaped.
    expect(install.text).toContain('<meta name="description" content="Run the installer &lt;script&gt;alert(1)&lt;/script&gt;.">');
    // Without a chosen icon, the site's initial: browsers do not ask the host for /favicon.ico.
    expect(page).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]*%3EA%3C%2Ftext%3E/);
  });

  it("shows a page's emoji in the navigation as the character, whether stored as GitBook's code points or as written", async () => {
    const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Emoji" });
    await commitContent(ctx, space.id, {
      pages: [
        { title: "Code points", slug: "code-points", paragraphs: ["One."], extra: { emoji: "1f4d8" } },
        { title: "Joined", slug: "joined", paragraphs: ["Two."], extra: { emoji: "1f469-200d-1f4bb" } },
        { title: "Written", slug: "written", paragraphs: ["Three."], extra: { emoji: "🚀" } },
      ],
    });
    const site = await createSite(ctx, owner, org.id, { title: "Emoji Docs" });
    await addSection(ctx, owner, org.id, site.id, { spaceId: space.id, title: "Guide" });
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const res = await get(`/s/${site.basename}/`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain("\u{1f4d8} Code points");
    expect(res.text).toContain("\u{1f469}\u200d\u{1f4bb} Joined");
    expect(res.text).toContain("\u{1f680} Written");
    expect(res.text).not.toContain("1f4d8");
  });

  it("draws the sidebar with only the way to the current page expanded; a branch's children come as a fingerprinted fragment", async () => {
    const { root, space } = await scenario();
    const ids = { setup: "navSetup00000000001", linux: "navLinux00000000001", debian: "navDebian0000000001" };
    await commitContent(ctx, space.id, {
      pages: [
        { title: "Introduction", slug: "intro", paragraphs: ["Welcome."] },
        {
          id: ids.setup,
          title: "Setup",
          slug: "setup",
          paragraphs: ["Setting up."],
          children: [
            {
              id: ids.linux,
              title: "Linux",
              slug: "linux",
              paragraphs: ["Linux."],
              children: [{ id: ids.debian, title: "Debian", slug: "debian", paragraphs: ["Debian."] }],
            },
            { title: "Windows", slug: "windows", paragraphs: ["Windows."] },
            { title: "Beta setup", slug: "beta-setup", paragraphs: ["Beta."], extra: { condition: "visitor.claims.beta === true" } },
          ],
        },
        {
          title: "Usage",
          slug: "usage",
          paragraphs: ["Use it."],
          children: [{ title: "Basics", slug: "basics", paragraphs: ["Basics."] }],
        },
      ],
    });
    const sidebarOf = (page: string) => /<nav class="q-sidebar"[^>]*>[\s\S]*?<\/nav>/.exec(page)?.[0] ?? "";
    // A branch (marked, named by its link) is "open" (its children listed) or "closed" (none of its descendants in the HTML).
    const toggle = (nav: string, path: string) => {
      const li = new RegExp(`<li( class="q-open")? data-branch><a href="${root}/${path}"`).exec(nav);
      return li ? (li[1] ? "open" : "closed") : undefined;
    };

    // At the root: top-level pages only, each branch collapsed with no descendant in the HTML.
    const home = sidebarOf((await get(`${root}/`)).text);
    expect(toggle(home, "setup")).toBe("closed");
    // No page id in a collapsed sidebar: a branch's link names it.
    expect(home).not.toContain(ids.setup);
    expect(home).not.toContain("Linux");
    expect(home).not.toContain("Basics");

    // On a deep page: its ancestors expanded (and their siblings listed, collapsed), other branches not.
    const deep = sidebarOf((await get(`${root}/setup/linux/debian`)).text);
    expect(toggle(deep, "setup")).toBe("open");
    expect(toggle(deep, "setup/linux")).toBe("open");
    expect(deep).toContain(`<ul id="q-nav-${ids.linux}"><li><a href="${root}/setup/linux/debian" aria-current="page">Debian</a></li></ul>`);
    expect(deep).toContain(`href="${root}/setup/windows"`);
    expect(deep).not.toContain("Beta setup");
    expect(deep).not.toContain("Basics");
    expect(deep.match(/aria-current/g)).toHaveLength(1);
    // A branch's own page shows its children: following the link opens it (no JavaScript needed).
    const setup = sidebarOf((await get(`${root}/setup`)).text);
    expect(toggle(setup, "setup")).toBe("open");
    expect(toggle(setup, "setup/linux")).toBe("closed");
    expect(setup).not.toContain("Debian");

    // The toggle's fragment: one level, collapsed, for this reader; cached for good while its fingerprint holds.
    const fragmentBase = /data-nav="([^"]+)"/.exec(home)?.[1] as string;
    expect(fragmentBase).toMatch(new RegExp(`^${root}/~quire/nav/[A-Za-z0-9]+/[A-Za-z0-9_-]{16}$`));
    const of = (base: string, path: string) => `${base}?page=${encodeURIComponent(`${root}/${path}`)}`;
    const branch = await get(of(fragmentBase, "setup"));
    expect(branch.status).toBe(200);
    expect(branch.headers["content-type"]).toContain("text/html");
    expect(branch.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(branch.headers["x-robots-tag"]).toBe("noindex");
    expect(branch.text).toMatch(new RegExp(`^<ul id="q-nav-${ids.setup}"><li data-branch><a href="${root}/setup/linux">Linux</a></li>`));
    expect(toggle(branch.text, "setup/linux")).toBe("closed");
    expect(branch.text).toContain(`href="${root}/setup/windows"`);
    expect(branch.text).not.toContain("Debian");
    expect(branch.text).not.toContain("Beta setup");
    expect(branch.text).toMatch(/<\/ul>$/);
    // Leaves, unknown pages, hidden ones, a page named by its id or not named at all, and unknown variants have no branch.
    expect((await get(of(fragmentBase, "setup/linux/debian"))).status).toBe(404);
    expect((await get(of(fragmentBase, "no-such-page"))).status).toBe(404);
    expect((await get(of(fragmentBase, "setup/beta-setup"))).status).toBe(404);
    expect((await get(`${fragmentBase}?page=${ids.setup}`)).status).toBe(404);
    expect((await get(`${fragmentBase}?page=`)).status).toBe(404);
    expect((await get(`${fragmentBase}?page=a&page=b`)).status).toBe(404);
    expect((await get(fragmentBase)).status).toBe(404);
    expect((await get(of(fragmentBase.replace(/nav\/[^/]+\//, "nav/noSuchVariant/"), "setup"))).status).toBe(404);

    // A change to the tree changes the fingerprint; the old URL still answers, but is not kept.
    await commitContent(ctx, space.id, {
      pages: [
        { title: "Introduction", slug: "intro", paragraphs: ["Welcome."] },
        { id: ids.setup, title: "Setup", slug: "setup", children: [{ title: "macOS", slug: "macos", paragraphs: ["Mac."] }] },
      ],
    });
    const newBase = /data-nav="([^"]+)"/.exec((await get(`${root}/`)).text)?.[1];
    expect(newBase).not.toBe(fragmentBase);
    const stale = await get(of(fragmentBase, "setup"));
    expect(stale.status).toBe(200);
    expect(stale.headers["cache-control"]).toBe("private, no-cache");
    expect(stale.text).toContain(`href="${root}/setup/macos"`);
  });

  it("serves other sections and variants at their paths; a default's own path redirects to its root", async () => {
    const { root } = await scenario();
    const api = await get(`${root}/api/`);
    expect(api.status).toBe(200);
    expect(api.text).toContain("GET /things lists things.");
    expect(api.text).toMatch(/<a href="\/s\/[^"]+\/api" aria-current="page">API<\/a>/);
    const v1 = await get(`${root}/v1/`);
    expect(v1.status).toBe(200);
    expect(v1.text).toContain("Version one.");
    const home = await get(`${root}/guide/getting-started`);
    expect(home.status).toBe(308);
    expect(home.headers.location).toBe(`${root}/getting-started`);
    const defaultVariant = await get(`${root}/guide-v2/getting-started`);
    expect(defaultVariant.status).toBe(308);
    expect(defaultVariant.headers.location).toBe(`${root}/getting-started`);
  });

  it("leaves out a variant whose condition fails for the reader, and shows translations in a language picker", async () => {
    const { root, url, owner, org } = await scenario();
    const siteSpaces = await ctx.as(owner).get(`${url}/site-spaces`);
    const v1 = siteSpaces.body.items.find((s: { path: string }) => s.path === "v1");
    expect((await ctx.as(owner).patch(`${url}/site-spaces/${v1.id}`, { condition: "visitor.claims.beta === true" })).status).toBe(200);
    const home = await get(`${root}/`);
    expect(home.text).not.toContain(`href="${root}/v1"`);
    expect((await get(`${root}/v1/old-intro`)).status).toBe(404);
    expect((await get(`${root}/llms.txt`)).text).not.toContain("Old intro");
    expect((await get(`${root}/sitemap.xml`)).text).not.toContain("old-intro");

    const french = await createSpace(ctx, owner, org.id, { title: "Guide", language: "fr" });
    await commitContent(ctx, french.id, { pages: [{ title: "Bienvenue", slug: "bienvenue", paragraphs: ["Bonjour."] }] });
    const sections = await ctx.as(owner).get(`${url}/sections`);
    const guide = sections.body.items.find((s: { title: string }) => s.title === "Guide");
    const added = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: french.id, sectionId: guide.id });
    expect(added.status).toBe(201);
    const page = (await get(`${root}/`)).text;
    expect(page).toMatch(/<details class="q-menu q-picker" data-picker="language">.*Guide \(fr\)/s);
    expect((await get(`${root}/${added.body.path}/`)).text).toContain("Bonjour.");
  });

  it("answers unknown pages with a 404 page that keeps the navigation; unknown or unpublished sites 404", async () => {
    const { root, url, owner } = await scenario();
    const missing = await get(`${root}/no/such/page`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("Page not found");
    expect(missing.text).toContain(`href="${root}/getting-started"`);
    // Hidden pages open by URL; conditional pages without the claim do not exist.
    expect((await get(`${root}/hidden-one`)).status).toBe(200);
    expect((await get(`${root}/beta`)).status).toBe(404);
    expect((await get("/s/no-such-site/")).status).toBe(404);
    await ctx.as(owner).post(`${url}/unpublish`);
    expect((await get(`${root}/`)).status).toBe(404);
  });

  it("redirects a renamed section path to its new place", async () => {
    const { root, url, owner } = await scenario();
    const sections = await ctx.as(owner).get(`${url}/sections`);
    const apiSection = sections.body.items.find((s: { title: string }) => s.title === "API");
    expect((await ctx.as(owner).patch(`${url}/sections/${apiSection.id}`, { path: "reference-api" })).status).toBe(200);
    const res = await get(`${root}/api/endpoints?x=1`);
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe(`${root}/reference-api/endpoints?x=1`);
    expect((await get(`${root}/reference-api/endpoints`)).text).toContain("GET /things lists things.");
  });

  it("redirects the old path of a page moved in a later revision to its new place (by page id)", async () => {
    const { root, space } = await scenario();
    const id = "movedPage0000000001";
    const intro = { title: "Introduction", slug: "intro", paragraphs: ["Welcome."] };
    await commitContent(ctx, space.id, {
      pages: [intro, { title: "Setup", slug: "setup", children: [{ id, title: "Linux", slug: "linux", paragraphs: ["Linux steps."] }] }],
    });
    expect((await get(`${root}/setup/linux`)).status).toBe(200);
    await commitContent(ctx, space.id, {
      pages: [intro, { title: "Install on Linux", slug: "install-linux", id, paragraphs: ["Linux steps."] }],
    });
    const old = await get(`${root}/setup/linux`);
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe(`${root}/install-linux`);
    const oldMd = await get(`${root}/setup/linux.md`);
    expect(oldMd.status).toBe(301);
    expect(oldMd.headers.location).toBe(`${root}/install-linux.md`);
    expect((await get(`${root}/never/was`)).status).toBe(404);
  });

  it("carries a strong ETag and answers 304; shows a merge at once", async () => {
    const { root, space } = await scenario();
    const first = await get(`${root}/getting-started`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await get(`${root}/getting-started`, undefined, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    await commitContent(ctx, space.id, {
      pages: [{ title: "Getting started", slug: "getting-started", paragraphs: ["Freshly merged text."] }],
    });
    const fresh = await get(`${root}/getting-started`, undefined, { "if-none-match": etag });
    expect(fresh.status).toBe(200);
    expect(fresh.text).toContain("Freshly merged text.");
    expect(fresh.headers.etag).not.toBe(etag);
  });

  it("serves pages as Markdown, llms.txt and llms-full.txt with visible pages only", async () => {
    const { root } = await scenario();
    const md = await get(`${root}/getting-started/install.md`);
    expect(md.status).toBe(200);
    expect(md.headers["content-type"]).toContain("text/markdown");
    expect(md.text).toContain("# Install");
    expect(md.text).toContain("Run the installer");
    expect((await get(`${root}/intro.md`)).text).toContain("Welcome to the guide.");
    const llms = await get(`${root}/llms.txt`);
    expect(llms.status).toBe(200);
    expect(llms.text).toContain("# Acme Docs");
    expect(llms.text).toContain(`- [Install](http://quire.test${root}/getting-started/install.md)`);
    expect(llms.text).toContain(`- [Endpoints](http://quire.test${root}/api/endpoints.md)`);
    expect(llms.text).toContain(`- [Old intro](http://quire.test${root}/v1/old-intro.md)`);
    expect(llms.text).not.toContain("Hidden one");
    expect(llms.text).not.toContain("Beta only");
    const full = await get(`${root}/llms-full.txt`);
    expect(full.text).toContain("Run the installer");
    expect(full.text).toContain("GET /things lists things.");
    expect(full.text).not.toContain("Beta features.");
  });

  it("sitemap.xml and robots.txt follow visibility", async () => {
    const pub = await scenario();
    const robots = await get(`${pub.root}/robots.txt`);
    expect(robots.text).toBe(`User-agent: *\nAllow: /\n\nSitemap: http://quire.test${pub.root}/sitemap.xml\n`);
    const sitemap = await get(`${pub.root}/sitemap.xml`);
    expect(sitemap.text).toContain(`<loc>http://quire.test${pub.root}/getting-started/install</loc>`);
    expect(sitemap.text).not.toContain("hidden-one");
    expect(sitemap.text).not.toContain("/beta<");
    expect((await get(`${pub.root}/`)).headers["x-robots-tag"]).toBeUndefined();

    const unlisted = await scenario({ visibility: "unlisted" });
    expect((await get(`${unlisted.root}/robots.txt`)).text).toBe("User-agent: *\nDisallow: /\n");
    const page = await get(`${unlisted.root}/`);
    expect(page.status).toBe(200);
    expect(page.headers["x-robots-tag"]).toBe("noindex");
    expect(page.text).toContain('<meta name="robots" content="noindex">');
  });

  it("serves fingerprinted assets cached for a year", async () => {
    const { root } = await scenario();
    const page = (await get(`${root}/`)).text;
    const css = /href="([^"]+\/~quire\/assets\/site\.[0-9a-f]{12}\.css)"/.exec(page)?.[1];
    expect(css).toBeDefined();
    const res = await get(css as string);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["content-type"]).toContain("text/css");
    expect((await get(`${root}/~quire/assets/site.000000000000.css`)).status).toBe(404);
  });

  it("searches what the reader may see and links results to site URLs", async () => {
    const { root } = await scenario();
    await ctx.worker.drain();
    const res = await get(`${root}/~quire/search?q=installer`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`href="${root}/getting-started/install"`);
    const beta = await get(`${root}/~quire/search?q=beta+features`);
    expect(beta.text).not.toContain(`${root}/beta"`);
    const hidden = await get(`${root}/~quire/search?q=zebra`);
    expect(hidden.text).not.toContain(`${root}/hidden-one"`);
    expect(hidden.text).toContain("No results");
    const empty = await get(`${root}/~quire/search?q=%21%21`);
    expect(empty.status).toBe(400);
    expect(empty.text).toContain("no words");
    // Query shapes past the bounds: 400 with the page saying what to change.
    const short = await get(`${root}/~quire/search?q=b*`);
    expect(short.status).toBe(400);
    expect(short.text).toContain("needs at least 3 letters or digits before the *");
    const onlyExcluded = await get(`${root}/~quire/search?q=-beta`);
    expect(onlyExcluded.status).toBe(400);
    expect(onlyExcluded.text).toContain("add at least one word to search for");
  });

  it("answers the header's instant search as JSON: the search page's results, for this reader", async () => {
    const { root } = await scenario();
    await ctx.worker.drain();
    const res = await get(`${root}/~quire/search.json?q=installer`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers["content-type"]).toContain("application/json");
    expect(res.headers["cache-control"]).toBe("private, no-cache");
    const [install] = res.body.results;
    expect(install).toMatchObject({ title: "Install", href: `${root}/getting-started/install`, path: ["Guide", "Getting started"] });
    const [section] = install.sections;
    // The snippet is text (the page's <script> as the reader reads it), with the query's words to mark.
    expect(section.snippet).toContain("Run the installer <script>alert(1)</script>.");
    expect(section.marks.map(([start, end]: [number, number]) => section.snippet.slice(start, end))).toEqual(["installer"]);
    // Hidden pages, and pages whose condition does not hold for this reader, are not found.
    expect((await get(`${root}/~quire/search.json?q=zebra`)).body).toEqual({ query: "zebra", results: [] });
    expect((await get(`${root}/~quire/search.json?q=beta+features`)).body.results).toEqual([]);
    // A query refused for its shape, or none: 400 saying what to change.
    for (const [query, message] of [
      ["%21%21", "no words"],
      ["b*", "needs at least 3 letters or digits before the *"],
      ["", "`q` parameter"],
    ]) {
      const refused = await get(`${root}/~quire/search.json?q=${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code).toBe(400);
      expect(refused.body.error.message, query).toContain(message);
    }
    // The header's box is a plain form to the search page, which names the JSON endpoint for the script.
    const page = await get(`${root}/`);
    expect(page.text).toContain(`action="${root}/~quire/search" data-suggest="${root}/~quire/search.json"`);
  });

  it("ranks a page titled as the query first, then titles starting with it", async () => {
    const base = await createOrgWithSpace(ctx, { title: "Ops" });
    const many = "Kubernetes events, kubernetes pods, kubernetes nodes: kubernetes everywhere.";
    await commitContent(ctx, base.space.id, {
      pages: [
        { title: "Kubernetes events", slug: "events", paragraphs: [many, many] },
        { title: "Running on Kubernetes", slug: "running", paragraphs: [many] },
        { title: "Kubernetes", slug: "kubernetes", paragraphs: ["The cluster."] },
      ],
    });
    const site = await createSite(ctx, base.owner, base.org.id, { title: "Ops", spaces: [base.space.id] });
    expect((await ctx.as(base.owner).post(`/v1/orgs/${base.org.id}/sites/${site.id}/publish`)).status).toBe(200);
    await ctx.worker.drain();
    const root = `/s/${site.basename}`;
    for (const query of ["kubernetes", "KUBERNETES", "Kubernetes!"]) {
      const found = await get(`${root}/~quire/search.json?q=${encodeURIComponent(query)}`);
      expect(
        found.body.results.map((r: { title: string }) => r.title),
        query,
      ).toEqual(["Kubernetes", "Kubernetes events", "Running on Kubernetes"]);
    }
    const page = await get(`${root}/~quire/search?q=kubernetes`);
    expect([...page.text.matchAll(/<strong>([^<]+)<\/strong>/g)].map((m) => m[1])).toEqual([
      "Kubernetes",
      "Kubernetes events",
      "Running on Kubernetes",
    ]);
  });

  it("fills a snippet that matched no text of its own with the first words the reader sees after it", async () => {
    const base = await createOrgWithSpace(ctx, { title: "Ops" });
    const helm = doc(h(1, "Helm"), h(2, "Charts"), p("Charts package applications."));
    const vault = doc(
      h(1, "Vault access"),
      block("if", { expression: "visitor.claims.beta === true" }, [p("The beta key is hidden.")]),
      p("Ask the admins for access."),
    );
    await commitContent(ctx, base.space.id, {
      pages: [
        { title: "Helm", slug: "helm", extra: { documentHash: await saveDocument(ctx.db, helm) } },
        { title: "Vault", slug: "vault", extra: { documentHash: await saveDocument(ctx.db, vault) } },
      ],
    });
    const site = await createSite(ctx, base.owner, base.org.id, { title: "Ops", spaces: [base.space.id] });
    expect((await ctx.as(base.owner).post(`/v1/orgs/${base.org.id}/sites/${site.id}/publish`)).status).toBe(200);
    await ctx.worker.drain();
    const root = `/s/${site.basename}`;
    const sections = async (query: string) => {
      const res = await get(`${root}/~quire/search.json?q=${query}`);
      expect(res.status, res.text).toBe(200);
      return res.body.results.flatMap((r: { sections: { title: string; snippet: string }[] }) =>
        r.sections.map((s) => [s.title, s.snippet]),
      );
    };
    expect(await sections("helm")).toContainEqual(["Helm", "Charts package applications."]);
    const access = await sections("vault+access");
    expect(access).toContainEqual(["Vault access", "Ask the admins for access."]);
    expect(JSON.stringify(access)).not.toContain("beta key");
    // The search page shows the same.
    expect((await get(`${root}/~quire/search?q=helm`)).text).toContain("Charts package applications.");
  });

  it("gives the MCP server the reader's pages: list, read as Markdown by path, search", async () => {
    const { site } = await scenario();
    await ctx.worker.drain();
    const row = await siteByBasename(ctx.db, site.basename);
    const view = await loadSiteView(ctx.db, row!);
    const reader = { claims: {}, member: false, indexable: true, variantKey: "v0", via: "anyone" as const };
    const source = siteMcpSource(
      ctx.deps,
      {
        view,
        reader,
        base: `/s/${site.basename}`,
        assetsBase: "",
        assets: new Map(),
        filesBase: "",
        variant: undefined,
        origin: "http://quire.test",
      },
      { site: row!, ip: "127.0.0.1" },
    );
    expect(source.site).toEqual({ title: "Acme Docs", url: `http://quire.test/s/${site.basename}/` });
    const pages = await source.listPages();
    expect(pages.map((p) => p.path)).toEqual([
      "intro",
      "getting-started",
      "getting-started/install",
      "reference/config",
      "v1/old-intro",
      "api/endpoints",
    ]);
    expect(pages[2]).toMatchObject({
      title: "Install",
      url: `http://quire.test/s/${site.basename}/getting-started/install`,
      section: "Guide / Guide v2",
    });
    const page = await source.readPage("getting-started/install");
    expect(page?.markdown).toContain("# Install");
    expect(page?.markdown).toContain("Run the installer");
    expect(await source.readPage("beta")).toBeUndefined();
    expect(await source.readPage("no/such")).toBeUndefined();
    const hits = await source.search("installer", 5);
    expect(hits[0]).toMatchObject({ title: "Install", path: "getting-started/install" });
  });

  it("renders stored blocks with links rewritten to site URLs, signed file URLs, outline, and escaping", async () => {
    const { root, space } = await scenario();
    const targetId = "targetPage000000001";
    const png = await testFile(ctx, "diagram.png", Buffer.from("not really a png"), "image/png", { id: "file0000000000000001" });
    const body = doc(
      h(2, "First part"),
      p(
        text("See "),
        inline("link", { ref: { kind: "page", page: targetId } }, [text("the target")]),
        text(", "),
        inline("link", { ref: { kind: "page", page: "noSuchPage000000001" } }, [text("a missing page")]),
        text(" and "),
        inline("link", { ref: { kind: "url", url: "javascript:alert(1)" } }, [text("a script URL")]),
        text("."),
      ),
      code("js", "const x = '<script>alert(1)</script>';"),
      block("images", {}, [block("image", { ref: fileRef(png.id), alt: "Diagram" }, undefined, { isVoid: true, fragments: [] })]),
      h(2, "Second <part>"),
      p("Done."),
    );
    const documentHash = await saveDocument(ctx.db, body);
    await commitContent(ctx, space.id, {
      files: [png],
      pages: [
        { title: "Rich", slug: "rich", extra: { documentHash } },
        { id: targetId, title: "Target", slug: "target", paragraphs: ["Target page."] },
      ],
    });
    const res = await get(`${root}/rich`);
    expect(res.status, res.text).toBe(200);
    const page = res.text;
    expect(page).toContain(`href="${root}/target"`);
    expect(page).toContain("a missing page");
    expect(page).not.toContain("javascript:alert");
    expect(page).not.toContain("<script>alert(1)</script>");
    expect(page).toMatch(/src="\/files\/[0-9a-f]+\/diagram\.png\?type=image%2Fpng&amp;expires=\d+&amp;sig=/);
    expect(page).toContain('<aside class="q-outline" aria-label="On this page"><h2>On this page</h2>');
    expect(page).toContain("Second &lt;part&gt;");
    // The content renderer's stylesheet and script are linked, fingerprinted.
    expect(page).toMatch(/\/~quire\/assets\/content\.[0-9a-f]{12}\.css/);
    expect(page).toMatch(/\/~quire\/assets\/content\.[0-9a-f]{12}\.js/);
    const md = await get(`${root}/rich.md`);
    expect(md.status).toBe(200);
    expect(md.text).toContain(`(http://quire.test${root}/target)`);
  });

  it("offers a block image at its widths in WebP, under the image's own signed address, with its size and priority", async () => {
    const { root, space } = await scenario();
    const chart = await testFile(
      ctx,
      "chart.png",
      encodePng(900, 300, (x, y) => [x % 256, y % 256, (x * y) % 256, 255], false),
      "image/png",
      {
        dimensions: { width: 900, height: 300 },
      },
    );
    const vector = await testFile(ctx, "logo.svg", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), "image/svg+xml", {
      dimensions: { width: 900, height: 300 },
    });
    const image = (file: { id: string }, alt: string) =>
      block("images", {}, [block("image", { ref: fileRef(file.id), alt }, undefined, { isVoid: true, fragments: [] })]);
    const documentHash = await saveDocument(ctx.db, doc(image(chart, "Chart"), p("Between."), image(vector, "Logo")));
    await commitContent(ctx, space.id, { files: [chart, vector], pages: [{ title: "Charts", slug: "charts", extra: { documentHash } }] });
    const res = await get(`${root}/charts`);
    expect(res.status, res.text).toBe(200);
    const tag = /<img src="([^"]+)" srcset="([^"]+)" sizes="([^"]+)" alt="Chart"([^>]*)>/.exec(res.text);
    expect(tag, res.text).not.toBeNull();
    const [, src, srcset, sizes, rest] = tag as unknown as string[];
    const source = (src as string).replaceAll("&amp;", "&");
    const candidates = (srcset as string).replaceAll("&amp;", "&").split(", ");
    expect(candidates.map((c) => c.split(" ")[1])).toEqual(["320w", "480w", "640w", "800w", "900w"]);
    for (const candidate of candidates) expect(candidate.startsWith(`${source}&w=`)).toBe(true);
    expect(sizes).toContain("(max-width: 760px) calc(100vw - 2rem)");
    expect(rest).toContain('fetchpriority="high"');
    expect(rest).toContain('width="900" height="300"');
    // An SVG is drawn at any size: no widths.
    expect(res.text).toMatch(/<img src="[^"]+logo\.svg[^"]*" alt="Logo" loading="lazy"/);

    // The first reader of a width gets it made while waiting (an encode slot is free).
    const first = candidates[2]!.split(" ")[0]!;
    expect((await get(first)).headers["content-type"]).toBe("image/webp");
    await ctx.worker.drain();
    const served = await get(first);
    expect(served.status).toBe(200);
    expect(served.headers["content-type"]).toBe("image/webp");
    expect(imageDimensions(served.raw)).toEqual({ width: 640, height: 213 });
  });

  it("serves a site on its proxy host and path", async () => {
    const { url, owner } = await scenario();
    const host = `docs-${Date.now()}.acme.test`;
    expect((await ctx.as(owner).patch(url, { proxy: `${host}/help` })).status).toBe(200);
    // The host table is re-read every second.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const res = await get("/help/getting-started", undefined, { host });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('href="/help/getting-started/install"');
    expect(res.text).toContain('href="/help/~quire/assets/site.');
    const md = await get("/help/llms.txt", undefined, { host });
    expect(md.text).toContain(`(http://${host}/help/getting-started/install.md)`);
    expect((await get("/other", undefined, { host })).status).toBe(404);
    // The server's own host still answers its own routes.
    expect((await get("/healthz")).status).toBe(200);
  });
});
