import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { DEFAULT_CUSTOMIZATION } from "../../modules/sites/customization.model.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** A published site showing two spaces (Guide at the root, FAQ at /faq). */
async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const { org, owner, space } = base;
  const faq = await createSpace(ctx, owner, org.id, { title: "FAQ" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Introduction", slug: "intro", paragraphs: ["Welcome."] },
      { title: "Install", slug: "install", paragraphs: ["Run it."] },
    ],
  });
  await commitContent(ctx, faq.id, { pages: [{ title: "Questions", slug: "questions", paragraphs: ["Ask."] }] });
  const site = await createSite(ctx, owner, org.id, { title: "Acme Docs", spaces: [space.id, faq.id] });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  const siteSpaces = (await ctx.as(owner).get(`${url}/site-spaces`)).body.items as { id: string; path: string; space: { id: string } }[];
  expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);
  const installId = content.pages[1]?.id as string;
  return { ...base, faq, site, url, siteSpaces, installId, root: `/s/${site.basename}` };
}

const page = async (path: string) => {
  const res = await ctx.anonymous.get(path);
  expect(res.status, res.text).toBe(200);
  return res.text;
};

describe("published pages with a customization", () => {
  it("keeps Quire's look until customized: the system's theme, Quire's colors, a toggle, pagination and the Markdown link", async () => {
    const { root } = await scenario();
    const html = await page(`${root}/`);
    expect(html).toMatch(/<html lang="en"><head>/);
    expect(html).not.toContain("<style>");
    expect(html).toContain('class="q-theme"');
    expect(html).toContain('rel="next"');
    expect(html).toContain(">View as Markdown</a>");
    expect(html).toContain('<a class="q-site-title" href="/s/');
    expect(html).toMatch(/<span class="q-copyright">Acme Docs<\/span> · <span class="q-trademark">Published with Quire<\/span>/);
    expect(html).not.toContain("data-style-theme");
  });

  it("renders every customized part, escaped, and a new customization shows on the next request", async () => {
    const { owner, url, root, space, installId } = await scenario();
    const before = await page(`${root}/`);
    const put = await ctx.as(owner).put(`${url}/customization`, {
      title: "Acme <Handbook>",
      styling: {
        ...DEFAULT_CUSTOMIZATION.styling,
        primaryColor: { light: "#C2185B", dark: "#F48FB1" },
        tint: { color: { light: "#00897B", dark: "#4DB6AC" } },
      },
      header: {
        preset: "default",
        logo: { light: "https://cdn.example.com/logo.svg?a=1&b=2", dark: "https://cdn.example.com/logo-dark.svg" },
        links: [
          { title: "Install", style: "button-primary", to: { kind: "page", page: installId, space: space.id }, links: [] },
          { title: "Company", to: { kind: "url", url: "https://example.com/" }, links: [] },
          {
            title: "Members only",
            to: { kind: "url", url: "https://example.com/m" },
            links: [],
            condition: "visitor.claims.member === true",
          },
          { title: "More", to: null, links: [{ title: "Status <now>", to: { kind: "url", url: "https://status.example.com" } }] },
        ],
      },
      footer: {
        logo: { light: "https://cdn.example.com/f.svg", dark: "https://cdn.example.com/f.svg" },
        groups: [{ title: "Resources", links: [{ title: "Guide home", to: { kind: "space", space: space.id } }] }],
        copyright: "© 2026 <script>alert(1)</script> Acme",
      },
      announcement: {
        enabled: true,
        message: "Version 2 is out & <b>ready</b>",
        style: "success",
        link: { title: "Read more", to: { kind: "anchor", anchor: "x y" } },
      },
      themes: { default: "dark", toggeable: false },
      favicon: { emoji: "🎉" },
      externalLinks: { target: "blank" },
      pagination: { enabled: false },
      pageActions: { externalAI: false, markdown: false, mcp: false },
      socialPreview: { url: "https://cdn.example.com/og.png" },
      privacyPolicy: { url: "https://example.com/privacy" },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const html = await page(`${root}/`);
    expect(html).not.toBe(before);
    expect(html).toContain(
      '<html lang="en" data-theme="dark" data-style-theme="clean" data-theme-toggle="off" data-external-links="blank" data-announcement="',
    );
    expect(html).toContain("<title>Introduction | Acme &lt;Handbook&gt;</title>");
    expect(html).toContain("--q-accent:#C2185B;--q-link:#C2185B;--q-tint:#00897B;");
    expect(html).toContain(":root[data-theme=dark]{--q-accent:#F48FB1;--q-link:#F48FB1;--q-tint:#4DB6AC;");
    expect(html).toContain(
      '<img class="q-logo q-only-light" src="https://cdn.example.com/logo.svg?a=1&amp;b=2" alt="Acme &lt;Handbook&gt;">',
    );
    expect(html).toContain('<img class="q-logo q-only-dark" src="https://cdn.example.com/logo-dark.svg"');
    expect(html).toMatch(/<a class="q-header-link q-button q-button-primary" href="\/s\/[^"]+\/install">Install<\/a>/);
    expect(html).toContain('<a class="q-header-link" href="https://example.com/" target="_blank" rel="noopener noreferrer">Company</a>');
    expect(html).not.toContain("Members only");
    expect(html).toContain("Status &lt;now&gt;");
    expect(html).toContain("Version 2 is out &amp; &lt;b&gt;ready&lt;/b&gt;");
    expect(html).toContain('<a class="q-announcement-link" href="#x%20y">Read more</a>');
    expect(html).toContain("© 2026 &lt;script&gt;alert(1)&lt;/script&gt; Acme");
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toMatch(/<h2>Resources<\/h2><ul><li><a href="\/s\/[^"]+\/">Guide home<\/a>/);
    expect(html).toContain(
      '<a class="q-privacy" href="https://example.com/privacy" target="_blank" rel="noopener noreferrer">Privacy policy</a>',
    );
    expect(html).toContain('<meta property="og:image" content="https://cdn.example.com/og.png">');
    expect(html).toContain('<link rel="icon" href="data:image/svg+xml,');
    expect(html).not.toContain('class="q-theme"');
    expect(html).not.toContain('rel="next"');
    expect(html).not.toContain("View as Markdown");
  });

  it("applies a site space's overrides to its pages only, and a header link to a page the reader cannot open is left out", async () => {
    const { owner, url, root, siteSpaces, faq } = await scenario();
    await ctx.as(owner).put(`${url}/customization`, {
      footer: { groups: [], copyright: "© Site" },
      header: { preset: "default", links: [{ title: "Ghost", to: { kind: "page", page: "nope", space: faq.id }, links: [] }] },
    });
    const faqSiteSpace = siteSpaces.find((s) => s.space.id === faq.id);
    if (!faqSiteSpace) throw new Error("no FAQ site space");
    const patched = await ctx.as(owner).patch(`${url}/site-spaces/${faqSiteSpace.id}/customization`, {
      title: "FAQ corner",
      footer: { copyright: "© FAQ" },
      styling: { primaryColor: { light: "#112233", dark: "#445566" } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const home = await page(`${root}/`);
    expect(home).toContain("© Site");
    expect(home).not.toContain("#112233");
    expect(home).not.toContain("Ghost");
    const faqPage = await page(`${root}/${faqSiteSpace.path}`);
    expect(faqPage).toContain("© FAQ");
    expect(faqPage).toContain("<title>Questions | FAQ corner</title>");
    expect(faqPage).toContain("--q-accent:#112233;");

    expect((await ctx.as(owner).delete(`${url}/site-spaces/${faqSiteSpace.id}/customization`)).status).toBe(204);
    const reset = await page(`${root}/${faqSiteSpace.path}`);
    expect(reset).toContain("© Site");
    expect(reset).not.toContain("#112233");
  });

  it("turns the styling choices into attributes and fonts, a font of one's own into @font-face rules, escaped", async () => {
    const { owner, url, root } = await scenario();
    const put = await ctx.as(owner).put(`${url}/customization`, {
      styling: {
        ...DEFAULT_CUSTOMIZATION.styling,
        corners: "straight",
        depth: "flat",
        links: "accent",
        sidebar: { background: "filled", list: "line" },
        search: "prominent",
        font: {
          id: "brand",
          custom: true,
          fontFamily: 'Brand"</style><b>x',
          fontFaces: [{ weight: 400, sources: [{ url: "https://fonts.example.com/brand.woff2?v=1&x=<y>", format: "woff2" }] }],
        },
        monospaceFont: "JetBrainsMono",
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const html = await page(`${root}/`);
    expect(html).toContain(
      ' data-corners="straight" data-depth="flat" data-links="accent" data-sidebar-list="line" data-sidebar-background="filled" data-search="prominent"',
    );
    expect(html).toContain(
      '@font-face{font-family:"Brand/stylebx";font-weight:400;font-display:swap;src:url("https://fonts.example.com/brand.woff2?v=1&x=%3Cy%3E") format("woff2")}',
    );
    expect(html).toContain('.q-content code,.q-content pre,.q-code-inline,.q-content kbd{font-family:"JetBrains Mono",');
    expect(html).not.toContain("<b>x");
    expect(html.match(/<\/style>/g)?.length).toBe(1);
  });

  it("shows Quire's mark unless the trademark is turned off", async () => {
    const { owner, url, root } = await scenario();
    expect((await ctx.as(owner).put(`${url}/customization`, { title: "Kept" })).status).toBe(200);
    expect(await page(`${root}/`)).toContain('<span class="q-trademark">Published with Quire</span>');
    expect((await ctx.as(owner).put(`${url}/customization`, { trademark: { enabled: false } })).status).toBe(200);
    const html = await page(`${root}/`);
    expect(html).not.toContain("Published with Quire");
    expect(html).toMatch(/<div class="q-footer-bottom"><span class="q-copyright">Acme Docs<\/span><\/div>/);
  });

  it("names the theme preset on <html>, gives the header its own colors, and text that reads on the primary color", async () => {
    const { owner, url, root } = await scenario();
    for (const theme of ["muted", "bold", "gradient", "clean"]) {
      const put = await ctx.as(owner).put(`${url}/customization`, { styling: { ...DEFAULT_CUSTOMIZATION.styling, theme } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(await page(`${root}/`)).toContain(` data-style-theme="${theme}"`);
    }
    const put = await ctx.as(owner).put(`${url}/customization`, {
      styling: { ...DEFAULT_CUSTOMIZATION.styling, theme: "bold", primaryColor: { light: "#FFE082", dark: "#1A237E" } },
      header: {
        preset: "custom",
        links: [],
        backgroundColor: { light: "#102030", dark: "#F0F0F0" },
        linkColor: { light: "#FFCC00", dark: "#333333" },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const html = await page(`${root}/`);
    // A light primary color gets black text, a dark one white.
    expect(html).toMatch(/:root\{[^}]*--q-accent-text:#000000;--q-header-bg:#102030;--q-header-fg:#FFCC00;/);
    expect(html).toMatch(/:root\[data-theme=dark\]\{[^}]*--q-accent-text:#ffffff;--q-header-bg:#F0F0F0;--q-header-fg:#333333;/);
    // Without a link color, the header's text is whichever of black or white reads on its background.
    await ctx
      .as(owner)
      .put(`${url}/customization`, { header: { preset: "custom", links: [], backgroundColor: { light: "#FAFAFA", dark: "#000000" } } });
    const plain = await page(`${root}/`);
    expect(plain).toMatch(/:root\{[^}]*--q-header-bg:#FAFAFA;--q-header-fg:#000000;/);
    expect(plain).toMatch(/:root\[data-theme=dark\]\{[^}]*--q-header-bg:#000000;--q-header-fg:#ffffff;/);
  });

  it("links a page that came from Git to its file on GitHub when edit links are on, never with credentials", async () => {
    const { owner, url, root, space } = await scenario();
    await commitContent(ctx, space.id, {
      pages: [
        { title: "Introduction", slug: "intro", paragraphs: ["Welcome."], extra: { git: { oid: "1".repeat(40), path: "README.md" } } },
        {
          title: "Install guide",
          slug: "install",
          paragraphs: ["Run it."],
          extra: { git: { oid: "2".repeat(40), path: "guides/install & run.md" } },
        },
        { title: "Made here", slug: "here", paragraphs: ["Typed in Quire."] },
      ],
    });
    const gitSync = (state: Record<string, unknown>) =>
      ctx.db
        .updateTable("spaces")
        .set({ gitSync: JSON.stringify(state) })
        .where("id", "=", space.id)
        .execute();
    await gitSync({
      remote: "https://github.com/acme/docs.git",
      ref: "refs/heads/main",
      projectDirectory: "docs",
      contentRoot: "docs/content",
    });
    expect(await page(`${root}/install`)).not.toContain("Edit on");
    expect((await ctx.as(owner).put(`${url}/customization`, { git: { showEditLink: true } })).status).toBe(200);
    expect(await page(`${root}/install`)).toContain(
      '<a class="q-page-action q-edit-link" href="https://github.com/acme/docs/edit/main/docs/content/guides/install%20%26%20run.md" target="_blank" rel="noopener noreferrer">Edit on GitHub</a>',
    );
    expect(await page(`${root}/`)).toContain('href="https://github.com/acme/docs/edit/main/docs/content/README.md"');
    // A page typed in Quire has no file.
    expect(await page(`${root}/here`)).not.toContain("Edit on");

    await gitSync({ remote: "https://user:s3cr3t@gitlab.example.com/group/sub/docs", ref: "release/2.x", projectDirectory: "" });
    const gitlab = await page(`${root}/install`);
    expect(gitlab).toContain('href="https://gitlab.example.com/group/sub/docs/-/edit/release/2.x/guides/install%20%26%20run.md"');
    expect(gitlab).toContain(">Edit on GitLab</a>");
    expect(gitlab).not.toContain("s3cr3t");
    for (const state of [
      { remote: "git@github.com:acme/docs.git", ref: "main" },
      { remote: "file:///srv/git/docs.git", ref: "main" },
      { remote: "https://git.example.com/acme/docs.git", ref: "main" },
      { remote: "https://github.com/acme/docs.git", ref: "refs/tags/v1" },
    ]) {
      await gitSync(state);
      expect(await page(`${root}/install`), state.remote).not.toContain("Edit on");
    }
  });
});
