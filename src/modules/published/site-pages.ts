/**
 * What a published site answers, built from its view for one reader: a page as HTML (layout around
 * the rendered body) or as Markdown, the 404 page, llms.txt and llms-full.txt, sitemap.xml,
 * robots.txt, and search results. Rendered answers are kept in memory (see published.routes.ts);
 * these functions only build them.
 */

import { documentToPlainText } from "../../content/document/index.js";
import type { ContentRef, JSONDocument } from "../../content/document/types.js";
import { html, type SafeHtml } from "../../content/html/index.js";
import { markdownFromDocument } from "../../content/markdown/index.js";
import type { PageNode } from "../../content/revision/model.js";
import { loadDocument, loadDocuments } from "../../content/revision/storage.js";
import { fullTextIndex } from "../../content/search/engine.js";
import { type PageResult, searchPages } from "../../content/search/search.service.js";
import type { Executor } from "../../db/database.js";
import type { Deps } from "../../deps.js";
import { evaluate } from "../../expr/index.js";
import { downloadUrl } from "../files/files.urls.js";
import { documentForReader } from "./conditions.js";
import { editLinkOf } from "./edit-link.js";
import { type LayoutContext, type PageParts, pageHref, siteHref, sitePage } from "./layout.js";
import { type BodyEnv, type RenderedFile, renderBody } from "./page-body.js";
import { conditionHolds, type Reader } from "./reader.js";
import {
  listedPages,
  pageContext,
  pageMarkdownPath,
  readablePage,
  type SiteView,
  type VariantView,
  visibleSections,
  visibleVariants,
} from "./site-view.js";

function assetHref(ctx: LayoutContext, name: string): string {
  return `${ctx.assetsBase}/${ctx.assets.get(name) ?? name}`;
}

// Links, files, expressions: the renderer's environment for one page of one reader.

/** The variant showing a space (the current one first), when this reader may see it. */
function variantOfSpace(ctx: LayoutContext, spaceId: string | undefined): VariantView | undefined {
  if (!spaceId || spaceId === ctx.variant?.siteSpace.spaceId) return ctx.variant;
  return visibleVariants(ctx.view, ctx.reader).find((v) => v.siteSpace.spaceId === spaceId);
}

export function fileUrl(deps: Pick<Deps, "secret">, filesBase: string, variant: VariantView, fileId: string): RenderedFile | undefined {
  const file = variant.content.files.find((f) => f.id === fileId);
  if (!file) return undefined;
  return {
    url: downloadUrl(filesBase, deps.secret, { blobHash: file.blobHash, name: file.name, contentType: file.contentType }),
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    ...(file.dimensions ? { width: file.dimensions.width, height: file.dimensions.height } : {}),
  };
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** An expression's text for a reader (empty when it fails), as the page shows it. */
export function expressionText(reader: Reader, extra: Record<string, unknown>): (expression: string) => string {
  return (expression) => {
    try {
      return textOf(evaluate(expression, { ...extra, visitor: { claims: reader.claims } }));
    } catch {
      return "";
    }
  };
}

export function bodyEnv(
  deps: Pick<Deps, "urls" | "secret">,
  ctx: LayoutContext,
  variant: VariantView,
  page: PageNode,
  reusable: ReadonlyMap<string, JSONDocument>,
): BodyEnv {
  const extra = pageContext(variant, page);
  return {
    link(ref: ContentRef) {
      switch (ref.kind) {
        case "url":
          return { href: ref.url };
        case "page": {
          const target = variantOfSpace(ctx, ref.space);
          if (!target || !readablePage(target, ref.page, ctx.reader, false)) return undefined;
          return { href: pageHref(ctx, target, ref.page), title: target.pages.get(ref.page)?.page.title ?? "" };
        }
        case "anchor": {
          if (!ref.page) return { href: `#${ref.anchor}` };
          const target = variantOfSpace(ctx, ref.space);
          if (!target || !readablePage(target, ref.page, ctx.reader, false)) return undefined;
          return { href: `${pageHref(ctx, target, ref.page)}#${encodeURIComponent(ref.anchor)}` };
        }
        case "file": {
          const file = fileUrl(deps, ctx.filesBase, variant, ref.file);
          return file ? { href: file.url, title: file.name } : undefined;
        }
        case "space": {
          const target = variantOfSpace(ctx, ref.space);
          return target ? { href: siteHref(ctx, target.segments.join("/")), title: target.siteSpace.space.title } : undefined;
        }
        default:
          return undefined;
      }
    },
    file: (fileId) => fileUrl(deps, ctx.filesBase, variant, fileId),
    reusableContent: (id) => reusable.get(id),
    expression: expressionText(ctx.reader, extra),
    condition: (expression) => conditionHolds(expression, ctx.reader, extra),
  };
}

async function reusableContentsOf(db: Executor, variant: VariantView): Promise<Map<string, JSONDocument>> {
  const entries = variant.content.reusableContents.filter((r) => r.documentHash);
  if (entries.length === 0) return new Map();
  const documents = await loadDocuments<JSONDocument>(
    db,
    entries.map((r) => r.documentHash as string),
  );
  const out = new Map<string, JSONDocument>();
  for (const entry of entries) {
    const document = documents.get(entry.documentHash as string);
    if (document) out.set(entry.id, document);
  }
  return out;
}

const EMPTY_DOCUMENT: JSONDocument = { object: "document", data: {}, nodes: [] } as unknown as JSONDocument;

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
  ctx: LayoutContext,
  variant: VariantView,
  pageId: string,
  markdownHref: string,
): Promise<string> {
  const location = variant.pages.get(pageId);
  if (!location) throw new Error(`renderSitePage: no page ${pageId}`);
  const page = location.page;
  const [document, reusable] = await Promise.all([
    page.documentHash ? loadDocument<JSONDocument>(deps.db, page.documentHash) : Promise.resolve(undefined),
    reusableContentsOf(deps.db, variant),
  ]);
  const body = renderBody(document ?? EMPTY_DOCUMENT, bodyEnv(deps, ctx, variant, page, reusable));
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

/** A page as Markdown: its title, description and body, links pointing at the site's URLs. */
export async function pageMarkdown(
  deps: Deps,
  ctx: LayoutContext & { origin: string },
  variant: VariantView,
  pageId: string,
): Promise<string> {
  const page = variant.pages.get(pageId)?.page;
  if (!page) throw new Error(`pageMarkdown: no page ${pageId}`);
  const document = page.documentHash ? await loadDocument<JSONDocument>(deps.db, page.documentHash) : undefined;
  // Conditional blocks resolved for the reader first: a hidden block must not reach Markdown, llms-full.txt or MCP.
  const extra = pageContext(variant, page);
  const visible = document && documentForReader(document, (expression) => conditionHolds(expression, ctx.reader, extra));
  let body = "";
  if (visible) {
    try {
      body = markdownFromDocument(visible, { pathFor: markdownPathFor(ctx, variant) });
    } catch {
      // A document the converter cannot write (malformed stored content) still answers, as its text.
      body = documentToPlainText(visible)
        .map((section) =>
          [section.heading ? `${"#".repeat(section.heading.level + 1)} ${section.heading.text}` : "", section.text]
            .filter(Boolean)
            .join("\n\n"),
        )
        .join("\n\n");
    }
  }
  const description = page.description ? `\n${page.description}\n` : "";
  return `# ${page.title}\n${description}\n${body}`;
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

/** llms.txt: the site's title and every listed page with its Markdown address, grouped by section and variant. */
export function llmsTxt(ctx: LayoutContext & { origin: string }): string {
  const lines = [`# ${ctx.view.customization.site.title}`, ""];
  let current: VariantView | undefined;
  for (const { variant, pageId, page } of allListedPages(ctx.view, ctx.reader)) {
    if (variant !== current) {
      current = variant;
      lines.push(`## ${headingOf(ctx.view, variant)}`, "");
    }
    const description = page.description ? `: ${page.description.replace(/\s+/g, " ")}` : "";
    lines.push(`- [${page.title.replace(/[[\]]/g, "")}](${ctx.origin}${markdownHref(ctx, variant, pageId)})${description}`);
  }
  return `${lines.join("\n")}\n`;
}

/** llms-full.txt: every listed page's Markdown, one after the other. */
export async function llmsFullTxt(deps: Deps, ctx: LayoutContext & { origin: string }): Promise<string> {
  const parts: string[] = [`# ${ctx.view.customization.site.title}\n`];
  for (const { variant, pageId } of allListedPages(ctx.view, ctx.reader)) {
    const pageCtx = { ...ctx, variant };
    parts.push(
      `---\nsource: ${ctx.origin}${markdownHref(ctx, variant, pageId)}\n---\n\n${await pageMarkdown(deps, pageCtx, variant, pageId)}`,
    );
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
  path: string[];
  sections: { title: string; href: string; snippet: string }[];
}

/** Search over the spaces this reader sees; results on pages they may not open, or hidden ones, are left out. */
export async function searchSite(deps: Deps, ctx: LayoutContext, query: string, limit = 20): Promise<SiteSearchResult[]> {
  const variants = visibleVariants(ctx.view, ctx.reader);
  const bySpace = new Map<string, VariantView>();
  for (const v of variants) if (!bySpace.has(v.siteSpace.spaceId)) bySpace.set(v.siteSpace.spaceId, v);
  if (bySpace.size === 0) return [];
  const index = fullTextIndex(deps.dialect);
  // Results on pages this reader cannot see are dropped after ranking: ask for more than are shown.
  const { results } = await searchPages(index, deps.db, [...bySpace.keys()], query, { limit: limit * 3 });
  const out: SiteSearchResult[] = [];
  for (const result of results) {
    const variant = bySpace.get(result.spaceId);
    // Hidden pages open by URL but are not found by search, as they are not in the navigation.
    if (!variant || !readablePage(variant, result.pageId, ctx.reader, true)) continue;
    const visible = await visibleSearchSections(deps, ctx, variant, result, query);
    if (!visible) continue;
    const href = pageHref(ctx, variant, result.pageId);
    out.push({
      title: result.title,
      href,
      path: [
        ...(visibleSections(ctx.view, ctx.reader).length > 1 && variant.section ? [variant.section.title] : []),
        ...result.ancestors.map((a) => a.title),
      ],
      sections: visible.map((s) => {
        const anchor = s.path.includes("#") ? s.path.slice(s.path.indexOf("#")) : "";
        return { title: s.title, href: `${href}${anchor}`, snippet: s.body };
      }),
    });
    if (out.length >= limit) break;
  }
  return out;
}

const whitespace = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * The matching sections of a result that this reader may see. The index holds every block's text,
 * conditional ones included, so on a page with conditional blocks each snippet is checked against
 * the text the reader sees (the document with their conditions applied): a snippet from a hidden
 * block is dropped, and a page that matched only through hidden text is not a result at all
 * (undefined). Pages without conditional blocks, nearly all of them, are taken as indexed.
 */
async function visibleSearchSections(
  deps: Deps,
  ctx: LayoutContext,
  variant: VariantView,
  result: PageResult,
  query: string,
): Promise<PageResult["sections"] | undefined> {
  const page = variant.pages.get(result.pageId)?.page;
  const document = page?.documentHash ? await loadDocument<JSONDocument>(deps.db, page.documentHash) : undefined;
  if (!page || !document || !JSON.stringify(document).includes('"type":"if"')) return result.sections;
  const extra = pageContext(variant, page);
  const visible = documentForReader(document, (expression) => conditionHolds(expression, ctx.reader, extra));
  const text = whitespace(
    documentToPlainText(visible)
      .map((section) => `${section.heading?.text ?? ""} ${section.text}`)
      .join(" "),
  );
  const shown = (snippet: string) =>
    snippet
      .split("…")
      .map(whitespace)
      .every((fragment) => fragment === "" || text.includes(fragment));
  const sections = result.sections.filter((section) => shown(section.body));
  if (sections.length > 0) return sections;
  const words = whitespace(query)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
  const title = whitespace(result.title);
  return words.length > 0 && words.every((w) => title.includes(w) || text.includes(w)) ? [] : undefined;
}

/** A search snippet with the query's words marked; the text is escaped like everything else. */
function snippetHtml(snippet: string, query: string): SafeHtml {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
  if (words.length === 0) return html`${snippet}`;
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "giu");
  return html`${snippet.split(pattern).map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : part))}`;
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
                .map((s) => html`<div><a href="${s.href}">${s.title}</a>: ${snippetHtml(s.snippet, query)}</div>`)}</li>`,
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
