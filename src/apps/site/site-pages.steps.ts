/**
 * What a published site answers, built from its view for one reader: a page as HTML (layout around
 * the rendered body) or as Markdown, the 404 page, llms.txt and llms-full.txt, sitemap.xml,
 * robots.txt, and search results. Rendered answers are kept in memory (see site.routes.ts);
 * these functions only build them.
 */

import { checkQuestion } from "../../content/ask/analysis.js";
import { type AskAnswer, type AskOptions, askEngineOf, escapeMarkdown } from "../../content/ask/engines.js";
import { retrieve } from "../../content/ask/retrieve.js";
import { readerContext } from "../../content/document/for-reader.js";
import type { ContentRef } from "../../content/document/types.js";
import { html, type RenderedFile, type SafeHtml } from "../../content/html/index.js";
import { type HtmlRenderHost, type LinkTarget, type RenderedLink, renderHtml } from "../../content/html/off-thread.js";
import { writeMarkdown } from "../../content/markdown/write-off-thread.js";
import type { PageNode } from "../../content/revision/model.js";
import { loadDocumentJson, loadDocumentsJson } from "../../content/revision/storage.js";
import { fullTextIndex } from "../../content/search/engine.js";
import { parseSearchQuery, queryKey, rowsOfPages, type SearchHit, type SearchQuery, searchWords } from "../../content/search/fulltext.js";
import { describePages, keptSearch, type PageResult, rankedPages } from "../../content/search/search.service.js";
import { snippetOf } from "../../content/search/snippets.js";
import { correctedQuery, vocabulariesOf } from "../../content/search/typos.js";
import type { Deps } from "../../deps.js";
import { DomainError } from "../../lib/errors.js";
import { ResultCache } from "../../lib/result-cache.js";
import { downloadUrl, widthsSrcset } from "../../modules/files/files-urls.model.js";
import type { InsightsRecorder } from "../../modules/insights/recorder.service.js";
import { editLinkOf } from "./edit-link.model.js";
import { type LayoutContext, type PageParts, pageHref, siteHref, sitePage } from "./layout.views.js";
import { bodyOf } from "./page-body.render.js";
import { conditionHolds, type Reader } from "./reader.model.js";
import {
  listedPages,
  pageContext,
  pageMarkdownPath,
  readablePage,
  readerKey,
  type SiteView,
  type VariantView,
  versionOf,
  visibleSections,
  visibleVariants,
} from "./site-view.model.js";

function assetHref(ctx: LayoutContext, name: string): string {
  return `${ctx.assetsBase}/${ctx.assets.get(name) ?? name}`;
}

// Links, files, expressions: the renderer's environment for one page of one reader.

/** The variant showing a space (the current one first), when this reader may see it. */
function variantOfSpace(ctx: LayoutContext, spaceId: string | undefined): VariantView | undefined {
  if (!spaceId || spaceId === ctx.variant?.siteSpace.spaceId) return ctx.variant;
  return visibleVariants(ctx.view, ctx.reader).find((v) => v.siteSpace.spaceId === spaceId);
}

/**
 * The width a block image takes in the page's column, by the layout's breakpoints (site.assets.ts:
 * `.q-layout` and its media queries): the whole width less the padding on a phone, less the sidebar
 * on a tablet, less the sidebar and the outline on a desktop, at most the column of a 90rem layout.
 * The browser picks from an image's widths by it (an image narrower than that is shown at its size).
 */
const CONTENT_IMAGE_SIZES =
  "(max-width: 760px) calc(100vw - 2rem), (max-width: 1100px) calc(100vw - 19rem), (max-width: 1440px) calc(100vw - 37rem), 53rem";

export function fileUrl(deps: Pick<Deps, "secret">, filesBase: string, variant: VariantView, fileId: string): RenderedFile | undefined {
  const file = variant.content.files.find((f) => f.id === fileId);
  if (!file) return undefined;
  const url = downloadUrl(filesBase, deps.secret, { blobHash: file.blobHash, name: file.name, contentType: file.contentType });
  const srcset = file.dimensions ? widthsSrcset(url, file.contentType, file.dimensions.width) : undefined;
  return {
    url,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    ...(file.dimensions ? { width: file.dimensions.width, height: file.dimensions.height } : {}),
    ...(srcset ? { srcset, sizes: CONTENT_IMAGE_SIZES } : {}),
  };
}

/**
 * The request thread's side of a page's render for one reader (content/html/off-thread.ts): the
 * address and title of each page and space the document links to (none for a page the reader may
 * not open), the files of the variant with signed URLs, and the stored JSON of its reusable contents.
 */
export function readerRenderHost(deps: Pick<Deps, "db" | "secret">, ctx: LayoutContext, variant: VariantView): HtmlRenderHost {
  const linkTo = (target: LinkTarget): RenderedLink | undefined => {
    const site = variantOfSpace(ctx, target.space);
    if (!site) return undefined;
    if (target.kind === "space") return { href: siteHref(ctx, site.segments.join("/")), title: site.siteSpace.space.title };
    if (!readablePage(site, target.page, ctx.reader, false)) return undefined;
    return { href: pageHref(ctx, site, target.page), title: site.pages.get(target.page)?.page.title ?? "" };
  };
  return {
    links: async (targets) => targets.map(linkTo),
    async files(ids) {
      const found = new Map<string, RenderedFile>();
      for (const id of ids) {
        const file = fileUrl(deps, ctx.filesBase, variant, id);
        if (file) found.set(id, file);
      }
      return found;
    },
    async reusableContents(ids) {
      const wanted = new Set(ids);
      const entries = variant.content.reusableContents.filter((r) => wanted.has(r.id) && r.documentHash);
      const stored =
        entries.length > 0 ? await loadDocumentsJson(deps.db, new Set(entries.map((r) => r.documentHash as string))) : new Map();
      const out = new Map<string, string>();
      for (const entry of entries) {
        const json = stored.get(entry.documentHash as string);
        if (json !== undefined) out.set(entry.id, json);
      }
      return out;
    },
  };
}

const EMPTY_DOCUMENT_JSON = JSON.stringify({ object: "document", data: {}, nodes: [] });

// Pages.

function neighbours(ctx: LayoutContext, variant: VariantView, pageId: string) {
  const order = listedPages(variant, ctx.reader);
  const at = order.indexOf(pageId);
  const link = (id: string | undefined) => {
    if (!id) return undefined;
    const page = variant.pages.get(id)?.page;
    return page ? { href: pageHref(ctx, variant, id), title: page.title } : undefined;
  };
  if (at < 0) return { previous: undefined, next: undefined };
  return { previous: link(order[at - 1]), next: link(order[at + 1]) };
}

function coverOf(deps: Pick<Deps, "secret">, ctx: LayoutContext, variant: VariantView, page: PageNode): PageParts["cover"] {
  const cover = page.cover;
  if (!cover?.ref) return undefined;
  const src = (ref: NonNullable<PageNode["cover"]>["ref"]) => {
    if (!ref) return undefined;
    if (ref.kind === "url") return /^https?:/i.test(ref.url) ? ref.url : undefined;
    return fileUrl(deps, ctx.filesBase, variant, ref.file)?.url;
  };
  const light = src(cover.ref);
  if (!light) return undefined;
  return { src: light, srcDark: src(cover.refDark), full: page.layout?.coverSize === "full" };
}

/** The HTML of a page for a reader. */
export async function renderSitePage(
  deps: Deps,
  ctx: LayoutContext & { origin: string },
  variant: VariantView,
  pageId: string,
  markdownHref: string,
): Promise<string> {
  const location = variant.pages.get(pageId);
  if (!location) throw new Error(`renderSitePage: no page ${pageId}`);
  const page = location.page;
  const json = page.documentHash ? await loadDocumentJson(deps.db, page.documentHash) : undefined;
  // In a worker thread past a size (html/off-thread.ts): a page of 100,000 marks held this thread ~0.5 s.
  const rendered = await renderHtml(
    {
      documentJson: json ?? EMPTY_DOCUMENT_JSON,
      env: { reader: readerContext(ctx.reader.claims, pageContext(variant, page)) },
      sections: true,
    },
    readerRenderHost(deps, ctx, variant),
  );
  const body = bodyOf(rendered);
  const layout = page.layout;
  const { previous, next } = neighbours(ctx, variant, pageId);
  const noIndex = !ctx.reader.indexable || page.noIndex || page.noRobotsIndex;
  const head = html`<link rel="alternate" type="text/markdown" href="${markdownHref}">${noIndex ? html`<meta name="robots" content="noindex">` : ""}${body.styles.map(
    (a) => html`<link rel="stylesheet" href="${assetHref(ctx, a)}">`,
  )}`;
  const scripts = body.scripts.map((a) => html`<script src="${assetHref(ctx, a)}" defer></script>`);
  return sitePage(ctx, {
    title: page.title,
    description: page.description,
    summary: body.summary,
    cover: coverOf(deps, ctx, variant, page),
    breadcrumb: location.ancestors.map((a) => a.title),
    body: body.html,
    outline: body.outline,
    previous,
    next,
    layout: {
      title: layout?.title ?? true,
      description: layout?.description ?? true,
      outline: layout?.outline ?? true,
      pagination: layout?.pagination ?? true,
      wide: layout?.width === "wide",
      cover: layout?.cover ?? true,
    },
    head,
    scripts: html`${scripts}`,
    markdownHref,
    canonical: `${ctx.origin}${pageHref(ctx, variant, pageId)}`,
    markdownUrl: `${ctx.origin}${markdownHref}`,
    mcpUrl: `${ctx.origin}${siteHref(ctx, "~quire/mcp")}`,
    pdfHref: siteHref(ctx, `~quire/pdf/${variant.siteSpace.id}/${pageId}`),
    editLink: editLinkOf(variant, pageId),
    feedback: { action: siteHref(ctx, "~quire/feedback"), siteSpaceId: variant.siteSpace.id, pageId },
  });
}

/** The 404 page: the site's navigation around a short message. */
export function renderNotFound(ctx: LayoutContext): string {
  const home = siteHref(ctx, ctx.variant ? ctx.variant.segments.join("/") : "");
  return sitePage(ctx, {
    title: "Page not found",
    body: html`<p>This page does not exist, or you cannot see it. <a href="${home}">Go to the first page</a> or search the site.</p>`,
    outline: [],
    layout: { title: true, description: false, outline: false, pagination: false, wide: false, cover: false },
    head: html`<meta name="robots" content="noindex">`,
  });
}

// Markdown.

function markdownPathFor(ctx: LayoutContext & { origin: string }, variant: VariantView) {
  return (ref: ContentRef): string | undefined => {
    if (ref.kind === "page") {
      const target = ref.space && ref.space !== variant.siteSpace.spaceId ? variantOfSpace(ctx, ref.space) : variant;
      if (!target || !readablePage(target, ref.page, ctx.reader, false)) return undefined;
      return `${ctx.origin}${pageHref(ctx, target, ref.page)}`;
    }
    return undefined;
  };
}

/** Pages written as Markdown, per view, reader, address and page: MCP's read_page is asked again and again. */
const markdownPages = new ResultCache<string>(16 * 1024 * 1024, (text) => text.length * 2);

/**
 * A page as Markdown: its title, description and body as the reader sees it (conditional blocks
 * resolved, expressions written as their value), links pointing at the site's URLs. Written in a
 * worker thread when large (write-off-thread.ts); 413 past its time limit.
 */
export async function pageMarkdown(
  deps: Deps,
  ctx: LayoutContext & { origin: string },
  variant: VariantView,
  pageId: string,
): Promise<string> {
  const page = variant.pages.get(pageId)?.page;
  if (!page) throw new Error(`pageMarkdown: no page ${pageId}`);
  const key = `${versionOf(ctx.view)}|${readerKey(ctx.reader)}|${ctx.base}|${ctx.origin}|${variant.siteSpace.id}|${pageId}`;
  return markdownPages.get(key, async () => {
    const json = page.documentHash ? await loadDocumentJson(deps.db, page.documentHash) : undefined;
    const pathFor = markdownPathFor(ctx, variant);
    // Conditional blocks resolved for the reader first: a hidden block must not reach Markdown, llms-full.txt or MCP.
    const body =
      json === undefined
        ? ""
        : await writeMarkdown(
            {
              documentJson: json,
              reader: readerContext(ctx.reader.claims, pageContext(variant, page)),
              links: "host",
              textOnFailure: true,
              compactTables: true,
              // Images and files as the site serves them, the address ending with the file's name.
              files: Object.fromEntries(
                variant.content.files.flatMap((f) => {
                  const url = fileUrl(deps, ctx.filesBase, variant, f.id)?.url;
                  return url ? [[f.id, new URL(url, ctx.origin).href]] : [];
                }),
              ),
            },
            { pagePaths: async (pages) => pages.map((ref) => pathFor(ref)) },
          );
    const description = page.description ? `\n${page.description}\n` : "";
    return `# ${page.title}\n${description}\n${body}`;
  });
}

/** The site's Markdown address of a page (always names the page, even the first one). */
export function markdownHref(ctx: Pick<LayoutContext, "base">, variant: VariantView, pageId: string): string {
  return siteHref(ctx, `${pageMarkdownPath(variant, pageId)}.md`);
}

// Indexes for machines.

interface ListedPage {
  variant: VariantView;
  pageId: string;
  page: PageNode;
}

/** Every page this reader sees listed, variant by variant in reading order. */
export function allListedPages(view: SiteView, reader: Reader): ListedPage[] {
  return visibleVariants(view, reader).flatMap((variant) =>
    listedPages(variant, reader).map((pageId) => ({ variant, pageId, page: variant.pages.get(pageId)?.page as PageNode })),
  );
}

function headingOf(view: SiteView, variant: VariantView): string {
  const parts = [variant.section?.title, view.variants.size > 1 ? variant.siteSpace.space.title : undefined].filter(Boolean);
  return parts.length ? [...new Set(parts)].join(" — ") : view.customization.site.title;
}

/** The group of the page tree (SUMMARY.md's `## Group`) a page is listed under, if any. */
function groupTitleOf(variant: VariantView, pageId: string): string | undefined {
  for (const ancestor of variant.pages.get(pageId)?.ancestors ?? []) {
    const node = variant.pages.get(ancestor.id)?.page;
    if (node?.kind === "group") return node.title;
  }
  return undefined;
}

/**
 * The site's one-line summary for llms.txt: the home section's description, else the description
 * of the first page this reader sees (what the site root shows). Sites and spaces carry none of their own.
 */
function siteSummary(ctx: LayoutContext, pages: readonly ListedPage[]): string | undefined {
  const section = visibleVariants(ctx.view, ctx.reader).find((v) => v.section?.description)?.section?.description;
  const text = section ?? pages[0]?.page.description;
  return text ? text.replace(/\s+/g, " ").trim() || undefined : undefined;
}

/**
 * llms.txt, as the llms.txt proposal lays it out: `# Site title`, a `> summary` line when the site
 * has one, then every listed page with its Markdown address under `## ` headings: the page tree's
 * groups in tree order (pages outside a group under their section and variant's name), each
 * prefixed by the section and variant when the site shows several.
 */
export function llmsTxt(ctx: LayoutContext & { origin: string }): string {
  const pages = allListedPages(ctx.view, ctx.reader);
  const lines = [`# ${ctx.view.customization.site.title}`, ""];
  const summary = siteSummary(ctx, pages);
  if (summary) lines.push(`> ${summary}`, "");
  const several = ctx.view.variants.size > 1;
  let current: string | undefined;
  for (const { variant, pageId, page } of pages) {
    const group = groupTitleOf(variant, pageId);
    const where = headingOf(ctx.view, variant);
    const heading = group ? (several ? `${where} — ${group}` : group) : where;
    const key = `${variant.siteSpace.id}|${heading}`;
    if (key !== current) {
      if (current !== undefined) lines.push("");
      current = key;
      lines.push(`## ${heading.replace(/\s+/g, " ")}`, "");
    }
    const description = page.description ? `: ${page.description.replace(/\s+/g, " ")}` : "";
    lines.push(`- [${page.title.replace(/[[\]]/g, "")}](${ctx.origin}${markdownHref(ctx, variant, pageId)})${description}`);
  }
  return `${lines.join("\n")}\n`;
}

/** llms-full.txt: every listed page's Markdown, one after the other. */
export async function llmsFullTxt(deps: Deps, ctx: LayoutContext & { origin: string }): Promise<string> {
  const parts: string[] = [`# ${ctx.view.customization.site.title}\n`];
  for (const { variant, pageId, page } of allListedPages(ctx.view, ctx.reader)) {
    const pageCtx = { ...ctx, variant };
    const source = `${ctx.origin}${markdownHref(ctx, variant, pageId)}`;
    let markdown: string;
    try {
      markdown = await pageMarkdown(deps, pageCtx, variant, pageId);
    } catch (error) {
      // One page past the time limit leaves a note in its place, not the whole file unanswered.
      if (!(error instanceof DomainError && error.kind === "too-large")) throw error;
      markdown = `# ${page.title}\n\n${error.message} (${ctx.origin}${pageHref(ctx, variant, pageId)})\n`;
    }
    parts.push(`---\nsource: ${source}\n---\n\n${markdown}`);
  }
  return parts.join("\n");
}

const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function sitemapXml(ctx: LayoutContext & { origin: string }): string {
  const urls = allListedPages(ctx.view, ctx.reader)
    .filter(({ page }) => !page.noIndex && !page.noRobotsIndex)
    .map(
      ({ variant, pageId, page }) =>
        `<url><loc>${xmlEscape(ctx.origin + pageHref(ctx, variant, pageId))}</loc><lastmod>${xmlEscape(page.updatedAt)}</lastmod></url>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
}

export function robotsTxt(ctx: LayoutContext & { origin: string }): string {
  if (!ctx.reader.indexable) return "User-agent: *\nDisallow: /\n";
  return `User-agent: *\nAllow: /\n\nSitemap: ${ctx.origin}${siteHref(ctx, "sitemap.xml")}\n`;
}

// Search.

export interface SiteSearchResult {
  title: string;
  href: string;
  /** Found through corrections of misspelled query words: these words, marked in snippets like the query's. */
  corrections?: string[];
  path: string[];
  sections: { title: string; href: string; snippet: string }[];
}

/** Sections shown per page of results: the search page shows two of them, search.json all three. */
const SECTIONS_SHOWN = 3;

/**
 * What a reader may find: the spaces of the variants they see, and the rule a hit must pass (its
 * page readable and listed for them, every condition of its row holding for them). Search and Ask
 * both decide with it.
 */
export function readerScope(ctx: LayoutContext): {
  bySpace: Map<string, VariantView>;
  spaceIds: string[];
  accept: (hit: SearchHit) => boolean;
} {
  const { reader } = ctx;
  const bySpace = new Map<string, VariantView>();
  for (const v of visibleVariants(ctx.view, reader)) if (!bySpace.has(v.siteSpace.spaceId)) bySpace.set(v.siteSpace.spaceId, v);
  const shown = new Map<string, boolean>();
  const accept = (hit: SearchHit) => {
    const variant = bySpace.get(hit.spaceId);
    // Hidden pages open by URL but are not found by search, as they are not in the navigation.
    if (!variant || !readablePage(variant, hit.pageId, reader, true)) return false;
    if (hit.conditions === null) return true;
    const memo = `${hit.spaceId}|${hit.pageId}|${hit.conditions}`;
    let holds = shown.get(memo);
    if (holds === undefined) {
      const page = variant.pages.get(hit.pageId)?.page;
      const extra = page ? pageContext(variant, page) : {};
      const conditions = JSON.parse(hit.conditions) as string[];
      holds = page !== undefined && conditions.every((condition) => conditionHolds(condition, reader, extra));
      shown.set(memo, holds);
    }
    return holds;
  };
  return { bySpace, spaceIds: [...bySpace.keys()], accept };
}

/**
 * Search over the spaces this reader sees. Only what they may see is matched: hits on pages they
 * may not open (or hidden ones) are dropped, and so are rows of conditional blocks whose conditions
 * do not hold for them (the index keeps those apart, index-space.ts), before anything is counted;
 * snippets come from the rows that matched. Results are kept per view, reader, indexed revisions
 * and query. Snippets are made for the first `sections` sections of each result (the ones shown).
 * Throws `invalid` (400) for a query parseSearchQuery refuses.
 */
export async function searchSite(
  deps: Deps,
  ctx: LayoutContext,
  query: string,
  limit = 20,
  sections = SECTIONS_SHOWN,
): Promise<SiteSearchResult[]> {
  const parsed = parseSearchQuery(query);
  const { reader } = ctx;
  const { bySpace, spaceIds, accept } = readerScope(ctx);
  if (spaceIds.length === 0) return [];
  const key = `site|${versionOf(ctx.view)}|${readerKey(reader)}|${ctx.base}|${queryKey(parsed)}|${limit}|${sections}`;
  return keptSearch(deps.db, spaceIds, key, "sites", async () => {
    const index = fullTextIndex(deps.dialect);
    const titleOf = (spaceId: string, pageId: string) => bySpace.get(spaceId)?.pages.get(pageId)?.page.title ?? "";
    // Misspelled words (typos.ts): their corrections rank titles (a title equal to a correction is
    // one equal to the query) and, when the query as typed leaves room on the page of results, find
    // more pages, ranked after every page found as typed.
    const corrected = correctedQuery(await vocabulariesOf(deps.db, spaceIds), parsed);
    const titleQuery = corrected ?? parsed;
    const found = await rankedPages(index, deps.db, spaceIds, parsed, "readers", accept);
    const exact = byTitleMatch(found, titleQuery, titleOf).slice(0, limit);
    let fuzzy: typeof exact = [];
    if (corrected && exact.length < limit) {
      const seen = new Set(exact.map((page) => `${page.spaceId}/${page.pageId}`));
      const more = await rankedPages(index, deps.db, spaceIds, corrected, "readers", accept);
      fuzzy = byTitleMatch(
        more.filter((page) => !seen.has(`${page.spaceId}/${page.pageId}`)),
        corrected,
        titleOf,
      ).slice(0, limit - exact.length);
    }
    const several = visibleSections(ctx.view, reader).length > 1;
    // Snippets are made for the sections shown only.
    const toShow = (pages: typeof exact) => pages.map((page) => ({ ...page, rowIds: page.rowIds.slice(0, sections) }));
    const described = [
      ...(await withSnippets(deps, parsed, await describePages(deps.db, parsed, toShow(exact)), accept)),
      ...(corrected && fuzzy.length > 0
        ? await withSnippets(deps, corrected, await describePages(deps.db, corrected, toShow(fuzzy)), accept)
        : []),
    ];
    const fuzzyKeys = new Set(fuzzy.map((page) => `${page.spaceId}/${page.pageId}`));
    const corrections = corrected?.include.flatMap((t) => t.alternatives ?? []) ?? [];
    return described.flatMap((result) => {
      const variant = bySpace.get(result.spaceId);
      if (!variant) return [];
      const href = pageHref(ctx, variant, result.pageId);
      return [
        {
          title: result.title,
          href,
          ...(fuzzyKeys.has(`${result.spaceId}/${result.pageId}`) ? { corrections } : {}),
          path: [...(several && variant.section ? [variant.section.title] : []), ...result.ancestors.map((a) => a.title)],
          sections: result.sections.map((s) => {
            const anchor = s.path.includes("#") ? s.path.slice(s.path.indexOf("#")) : "";
            return { title: s.title, href: `${href}${anchor}`, snippet: s.body };
          }),
        },
      ];
    });
  });
}

/**
 * Sections whose snippet is empty (they matched by their heading or page title only, and hold no
 * text of their own the reader sees: a heading over subsections, a section opening with a block
 * hidden from them) show the first words the reader sees from there on in the page instead.
 */
async function withSnippets(deps: Deps, query: SearchQuery, results: PageResult[], accept: (hit: SearchHit) => boolean) {
  const empty = results.filter((r) => r.sections.some((s) => s.body === ""));
  if (empty.length === 0) return results;
  const rows = (await rowsOfPages(deps.db, empty, "readers")).filter(accept);
  return results.map((result) => {
    if (!empty.includes(result)) return result;
    const own = rows.filter((row) => row.spaceId === result.spaceId && row.pageId === result.pageId);
    const sections = result.sections.map((section) => {
      if (section.body !== "") return section;
      const key = section.id === result.pageId ? "" : section.id;
      const start = own.findIndex((row) => row.sectionKey === key);
      const text = start === -1 ? undefined : own.slice(start).find((row) => row.body.trim() !== "");
      return text ? { ...section, body: snippetOf(text.body, query) } : section;
    });
    return { ...result, sections };
  });
}

/**
 * Pages whose title is the query (its words, case and punctuation aside) first, then pages whose
 * title starts with it, then the others, each group in the engine's order: a reader typing
 * "Kubernetes" looks for the page of that name before "Kubernetes events".
 */
export function byTitleMatch<T extends { spaceId: string; pageId: string }>(
  ranked: readonly T[],
  query: SearchQuery,
  titleOf: (spaceId: string, pageId: string) => string,
): T[] {
  const terms = query.include;
  // A query word matches a title word it is, or one of its corrections (typos.ts); the last word
  // may be the start of a longer title.
  const same = (term: (typeof terms)[number], word: string | undefined) =>
    word !== undefined && (word === term.word || (term.alternatives?.includes(word) ?? false));
  const tier = (page: T) => {
    const title = searchWords(titleOf(page.spaceId, page.pageId));
    if (title.length < terms.length || !terms.slice(0, -1).every((term, i) => same(term, title[i]))) return 2;
    const last = terms.at(-1);
    const word = title[terms.length - 1];
    if (!last || word === undefined) return 2;
    if (same(last, word) && title.length === terms.length) return 0;
    return same(last, word) || word.startsWith(last.word) ? 1 : 2;
  };
  return ranked
    .map((page, i) => ({ page, i, tier: tier(page) }))
    .sort((a, b) => a.tier - b.tier || a.i - b.i)
    .map((entry) => entry.page);
}

/** The spans of a snippet that are words of the query (`[start, end)`, by UTF-16 offset), for marking. */
export function snippetMarks(snippet: string, query: string, corrections: readonly string[] = []): [number, number][] {
  const words = [query, ...corrections]
    .join(" ")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
  if (words.length === 0) return [];
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "giu");
  return [...snippet.matchAll(pattern)].map((m) => [m.index ?? 0, (m.index ?? 0) + m[0].length]);
}

/** A search snippet with the query's words marked; the text is escaped like everything else. */
function snippetHtml(snippet: string, query: string, corrections?: readonly string[]): SafeHtml {
  const parts: Array<string | SafeHtml> = [];
  let at = 0;
  for (const [start, end] of snippetMarks(snippet, query, corrections)) {
    parts.push(snippet.slice(at, start), html`<mark>${snippet.slice(start, end)}</mark>`);
    at = end;
  }
  parts.push(snippet.slice(at));
  return html`${parts}`;
}

/**
 * Search results as the site's instant search reads them (`<site>/~quire/search.json?q=`): the
 * same results as the search page, each section's snippet with the spans to mark.
 */
export function searchResultsJson(query: string, results: SiteSearchResult[]) {
  return {
    query,
    results: results.map((r) => ({
      title: r.title,
      href: r.href,
      path: r.path,
      sections: r.sections
        .slice(0, SECTIONS_SHOWN)
        .map((s) => ({ title: s.title, href: s.href, snippet: s.snippet, marks: snippetMarks(s.snippet, query, r.corrections) })),
    })),
  };
}

export function renderSearchPage(ctx: LayoutContext, query: string, results: SiteSearchResult[] | { error: string }): string {
  const body =
    "error" in results
      ? html`<p>${results.error}</p>`
      : results.length === 0
        ? html`<p>No results for “${query}”.</p>`
        : html`<ol class="q-results">${results.map(
            (r) =>
              html`<li><a href="${r.href}"><strong>${r.title}</strong></a>${r.path.length ? html`<div class="q-result-path">${r.path.join(" / ")}</div>` : ""}${r.sections
                .slice(0, 2)
                .map((s) => html`<div><a href="${s.href}">${s.title}</a>: ${snippetHtml(s.snippet, query, r.corrections)}</div>`)}</li>`,
          )}</ol>`;
  return sitePage(ctx, {
    title: query ? `Search: ${query}` : "Search",
    body,
    outline: [],
    layout: { title: true, description: false, outline: false, pagination: false, wide: false, cover: false },
    head: html`<meta name="robots" content="noindex">`,
    query,
  });
}

// Ask.

/** A section an answer cites, as the reader opens it. */
export interface SiteAskCitation {
  title: string;
  section: string;
  href: string;
  passage: string;
}

export interface SiteAskAnswer {
  question: string;
  answered: boolean;
  markdown: string;
  engine: AskAnswer["engine"];
  citations: SiteAskCitation[];
  followupQuestions: string[];
  /** The pages cited, by id (what insights keep of an answer). */
  sources: { spaceId: string; pageId: string; title: string }[];
}

/** An answer given, counted for the site's Insights: `site` from the Ask box, `api` from an agent. */
export function countQuestion(insights: InsightsRecorder | undefined, siteId: string, answer: SiteAskAnswer, channel: "site" | "api") {
  insights?.question({
    siteId,
    question: answer.question,
    answered: answer.answered,
    channel,
    sources: answer.sources,
    response: answer.markdown,
  });
}

/**
 * A question asked of the docs this reader sees: the sections retrieved with search's own rule
 * (readerScope: pages they may open and find, conditional blocks whose conditions hold for them),
 * so no hidden text reaches the answer, its citations or the model. The retrieval is kept like
 * search results (per view, reader, indexed revisions and question); the answer's text goes to
 * `onText` as it is written. Throws `invalid` (400) for a question without words or too long.
 */
export async function askSite(deps: Deps, ctx: LayoutContext, question: string, options: AskOptions = {}): Promise<SiteAskAnswer> {
  const asked = checkQuestion(question);
  const { bySpace, spaceIds, accept } = readerScope(ctx);
  const key = `ask|${versionOf(ctx.view)}|${readerKey(ctx.reader)}|${asked.toLowerCase().replace(/\s+/g, " ")}`;
  const retrieval = await keptSearch(deps.db, spaceIds, key, "sites", () =>
    retrieve(fullTextIndex(deps.dialect), deps.db, spaceIds, asked, "readers", accept),
  );
  const result = await askEngineOf(deps.config.ask).answer(asked, retrieval, options);
  const citations = result.sources.flatMap((source) => {
    const variant = bySpace.get(source.spaceId);
    if (!variant) return [];
    const href = `${pageHref(ctx, variant, source.pageId)}${source.anchor ? `#${source.anchor}` : ""}`;
    return [{ title: source.pageTitle, section: source.sectionTitle, href, passage: source.passage }];
  });
  return {
    question: asked,
    answered: result.answered,
    markdown: result.markdown,
    engine: result.engine,
    citations,
    followupQuestions: result.followupQuestions,
    sources: result.sources
      .filter((source) => bySpace.has(source.spaceId))
      .map((source) => ({ spaceId: source.spaceId, pageId: source.pageId, title: source.pageTitle })),
  };
}

/** An answer as Markdown: the question, the answer, its sources as absolute links. */
export function askMarkdown(answer: SiteAskAnswer, origin: string): string {
  const sources = answer.citations.map(
    (c, i) =>
      `${i + 1}. [${escapeMarkdown(c.section && c.section !== c.title ? `${c.title} › ${c.section}` : c.title)}](${origin}${c.href})`,
  );
  return `# ${escapeMarkdown(answer.question)}\n\n${answer.markdown}\n${sources.length ? `\n## Sources\n\n${sources.join("\n")}\n` : ""}`;
}
