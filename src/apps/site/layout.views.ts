/**
 * The published site's page layout, server-rendered and working without JavaScript: a header with
 * the site title, sections as tabs (groups as menus), variant and language pickers and search; a
 * sidebar table of contents; the page (title, description, cover, body, previous/next); an "on
 * this page" outline (the sidebar is site-nav.ts). Everything from content is escaped by `html`.
 */

import { html, raw, type SafeHtml } from "../../content/html/index.js";
import type { EditLink } from "./edit-link.model.js";
import { SITE_HEAD_JS } from "./site.assets.js";
import type { LayoutContext, OutlineItem } from "./site-context.model.js";
import {
  announcementBanner,
  customizationHead,
  customizationOf,
  footer,
  headerLinks,
  headerTitle,
  rootAttributes,
} from "./site-customization.views.js";
import { sidebar } from "./site-nav.views.js";
import { siteHref } from "./site-urls.paths.js";
import { groupOf, type VariantView, visibleSections, visibleVariants } from "./site-view.model.js";

export { pageHref, siteHref } from "./site-urls.paths.js";
export type { LayoutContext, OutlineItem };

function variantRootHref(ctx: LayoutContext, variant: VariantView): string {
  return siteHref(ctx, variant.segments.join("/"));
}

function asset(ctx: LayoutContext, name: string): string {
  return `${ctx.assetsBase}/${ctx.assets.get(name) ?? name}`;
}

// Header.

function sectionTabs(ctx: LayoutContext): SafeHtml {
  const { view, reader, variant } = ctx;
  const sections = visibleSections(view, reader);
  if (sections.length === 0) return html``;
  const variants = visibleVariants(view, reader);
  const rootOf = (sectionId: string) => {
    const first =
      variants.find((v) => v.section?.id === sectionId && v.segments.length <= 1) ?? variants.find((v) => v.section?.id === sectionId);
    return first ? variantRootHref(ctx, first) : siteHref(ctx, "");
  };
  const current = variant?.section?.id;
  const items: SafeHtml[] = [];
  const seenGroups = new Set<string>();
  for (const section of sections) {
    const group = groupOf(view, section);
    if (!group) {
      items.push(html`<a href="${rootOf(section.id)}"${current === section.id ? raw(' aria-current="page"') : ""}>${section.title}</a>`);
      continue;
    }
    if (seenGroups.has(group.id)) continue;
    seenGroups.add(group.id);
    const members = sections.filter((s) => groupOf(view, s)?.id === group.id);
    const open = members.some((s) => s.id === current);
    items.push(
      html`<details class="q-menu${open ? " q-current" : ""}"><summary>${group.title}</summary><ul>${members.map(
        (s) => html`<li><a href="${rootOf(s.id)}"${current === s.id ? raw(' aria-current="page"') : ""}>${s.title}</a></li>`,
      )}</ul></details>`,
    );
  }
  return html`<nav class="q-site-tabs" aria-label="Sections">${items}</nav>`;
}

/** Variants of the current section: versions in one picker, translations (spaces with a language) in another. */
function pickers(ctx: LayoutContext): SafeHtml {
  const { variant, view, reader } = ctx;
  if (!variant) return html``;
  const siblings = visibleVariants(view, reader).filter((v) => (v.section?.id ?? null) === (variant.section?.id ?? null));
  if (siblings.length < 2) return html``;
  const languages = siblings.filter((v) => v.siteSpace.space.language);
  const versions = siblings.filter((v) => !v.siteSpace.space.language);
  const picker = (label: string, list: VariantView[], kind: string) => {
    if (list.length < 2 && !(kind === "language" && list.length === 1 && list[0] !== variant)) return html``;
    const currentTitle = list.includes(variant) ? titleOfVariant(variant) : label;
    return html`<details class="q-menu q-picker" data-picker="${kind}"><summary aria-label="${label}">${currentTitle}</summary><ul>${list.map(
      (v) =>
        html`<li><a href="${variantRootHref(ctx, v)}"${v === variant ? raw(' aria-current="page"') : ""}>${titleOfVariant(v)}</a></li>`,
    )}</ul></details>`;
  };
  return html`<div class="q-pickers">${picker("Version", versions, "variant")}${picker("Language", languages, "language")}</div>`;
}

function titleOfVariant(variant: VariantView): string {
  const { space } = variant.siteSpace;
  return space.language ? `${space.title} (${space.language})` : space.title;
}

function header(ctx: LayoutContext, query = ""): SafeHtml {
  const toggle = customizationOf(ctx).settings.themes.toggeable;
  return html`<header class="q-header">
<div class="q-header-row">
<label class="q-nav-button" for="q-nav-toggle">Menu</label>
${headerTitle(ctx, siteHref(ctx, ""))}
${pickers(ctx)}
${headerLinks(ctx)}
<form class="q-search" role="search" method="get" action="${siteHref(ctx, "~quire/search")}" data-suggest="${siteHref(ctx, "~quire/search.json")}" data-ask="${siteHref(ctx, "~quire/ask")}" data-script="${asset(ctx, "search.js")}"><input type="search" name="q" value="${query}" placeholder="Search…" aria-label="Search this site" aria-keyshortcuts="Control+K Meta+K /"></form>
${toggle ? html`<button class="q-theme" type="button" hidden aria-label="Switch between light and dark theme">◐</button>` : ""}
</div>
${sectionTabs(ctx)}
</header>`;
}

// The page.

export interface PageParts {
  title: string;
  description?: string | undefined;
  /** The body's opening words: the page's description for search engines when it has none. */
  summary?: string | undefined;
  cover?: { src: string; srcDark?: string | undefined; full: boolean } | undefined;
  breadcrumb?: string[] | undefined;
  body: SafeHtml;
  outline: OutlineItem[];
  previous?: { href: string; title: string } | undefined;
  next?: { href: string; title: string } | undefined;
  layout: { title: boolean; description: boolean; outline: boolean; pagination: boolean; wide: boolean; cover: boolean };
  /** Extra tags in <head> (content assets of the page, alternates, robots). */
  head?: SafeHtml | undefined;
  /** Scripts at the end of <body>. */
  scripts?: SafeHtml | undefined;
  /** The page's public address (absolute): `<link rel="canonical">` and `og:url`. */
  canonical?: string | undefined;
  /** The search query shown in the header's box. */
  query?: string | undefined;
  /** The page's Markdown address, for the "View as Markdown" action. */
  markdownHref?: string | undefined;
  /** The page's Markdown address in full (with the site's origin), for the AI assistants' actions. */
  markdownUrl?: string | undefined;
  /** The site's MCP endpoint in full, for "Connect to MCP". */
  mcpUrl?: string | undefined;
  /** The page's PDF address, for the "Download as PDF" action (when the customization enables it). */
  pdfHref?: string | undefined;
  /** The page's file in its Git repository (when the customization shows edit links). */
  editLink?: EditLink | undefined;
  /** Where "Was this page helpful?" answers go (when the customization enables feedback). */
  feedback?: { action: string; siteSpaceId: string; pageId: string } | undefined;
}

/** "Was this page helpful?": a plain form (three answers, as GitBook's), then a thanks note shown by its anchor. */
function feedbackControl(ctx: LayoutContext, parts: PageParts): SafeHtml {
  const target = parts.feedback;
  if (!target || !customizationOf(ctx).settings.feedback.enabled) return html``;
  const answer = (rating: string, face: string, label: string) =>
    html`<button type="submit" name="rating" value="${rating}" title="${label}" aria-label="${label}">${face}</button>`;
  return html`<form class="q-feedback" method="post" action="${target.action}"><input type="hidden" name="siteSpace" value="${target.siteSpaceId}"><input type="hidden" name="page" value="${target.pageId}"><span class="q-feedback-question">Was this page helpful?</span>${answer("good", "😀", "Yes")}${answer("ok", "😐", "Somewhat")}${answer("bad", "😞", "No")}</form><p class="q-feedback-thanks" id="q-feedback-thanks" role="status">Thanks for your feedback.</p>`;
}

/** The question handed to an AI assistant: read this page's Markdown (an absolute address). */
function assistantPrompt(markdownUrl: string): string {
  return `Read ${markdownUrl} so I can ask questions about it.`;
}

/**
 * The page's actions: a menu by the title (a <details>, so it opens without script and from the
 * keyboard) of what the site offers this reader: the page as Markdown (copied by site.js, or
 * opened), asked about in ChatGPT or Claude, as a PDF, and the site's MCP address. The Git edit
 * link stays beside it. Each entry follows its customization switch; the assistants are offered
 * only when the page is public (they fetch the Markdown from outside, and a share link's key
 * must not leave the site).
 */
function pageActions(ctx: LayoutContext, parts: PageParts): SafeHtml {
  const { pageActions: offer, pdf, git } = customizationOf(ctx).settings;
  const items: SafeHtml[] = [];
  const markdown = parts.markdownHref;
  if (markdown && offer.markdown) {
    items.push(
      html`<li><button type="button" class="q-action-copy" data-markdown="${markdown}" hidden>Copy page as Markdown</button></li>`,
      html`<li><a class="q-page-action" href="${markdown}" type="text/markdown">View as Markdown</a></li>`,
    );
  }
  if (parts.markdownUrl && offer.externalAI && ctx.reader.indexable) {
    const q = encodeURIComponent(assistantPrompt(parts.markdownUrl));
    items.push(
      html`<li><a class="q-page-action" href="https://chatgpt.com/?hints=search&q=${q}" target="_blank" rel="noopener noreferrer">Open in ChatGPT</a></li>`,
      html`<li><a class="q-page-action" href="https://claude.ai/new?q=${q}" target="_blank" rel="noopener noreferrer">Open in Claude</a></li>`,
    );
  }
  if (parts.pdfHref && pdf.enabled) {
    items.push(html`<li><a class="q-page-action" href="${parts.pdfHref}" type="application/pdf" download>Download as PDF</a></li>`);
  }
  if (parts.mcpUrl && offer.mcp) {
    items.push(
      html`<li><details class="q-action-mcp"><summary>Connect to MCP</summary><p id="q-mcp-help">Add this address to your AI tool as an MCP server:</p><input type="text" readonly value="${parts.mcpUrl}" aria-label="MCP server address" aria-describedby="q-mcp-help"></details></li>`,
    );
  }
  const edit = parts.editLink && git.showEditLink ? parts.editLink : undefined;
  if (items.length === 0 && !edit) return html``;
  return html`<div class="q-page-actions">${
    edit
      ? html`<a class="q-page-action q-edit-link" href="${edit.href}" target="_blank" rel="noopener noreferrer">Edit on ${edit.provider}</a>`
      : ""
  }${items.length ? html`<details class="q-menu q-actions"><summary class="q-actions-button">Page actions</summary><ul>${items}</ul></details>` : ""}</div>`;
}

/**
 * "On this page": every heading of the body (the document's levels 1 to 3; the page title is not
 * one of them), indented by its depth below the page's highest heading level, so a page whose
 * headings start at level 2 is not indented throughout. Fewer than two headings make no outline.
 */
function outlineOf(parts: PageParts): SafeHtml {
  const items = parts.outline.filter((o) => o.level >= 1 && o.level <= 3);
  if (!parts.layout.outline || items.length < 2) return html`<aside class="q-outline"></aside>`;
  const top = Math.min(...items.map((o) => o.level));
  return html`<aside class="q-outline" aria-label="On this page"><h2>On this page</h2><ul>${items.map(
    (o) => html`<li class="q-l${o.level - top + 1}"><a href="#${o.id}">${o.title}</a></li>`,
  )}</ul></aside>`;
}

function pagination(ctx: LayoutContext, parts: PageParts): SafeHtml {
  if (!parts.layout.pagination || !customizationOf(ctx).settings.pagination.enabled || (!parts.previous && !parts.next)) return html``;
  return html`<nav class="q-pagination" aria-label="Previous and next pages">${
    parts.previous
      ? html`<a class="q-previous" rel="prev" href="${parts.previous.href}"><small>Previous</small>${parts.previous.title}</a>`
      : html`<span></span>`
  }${parts.next ? html`<a class="q-next" rel="next" href="${parts.next.href}"><small>Next</small>${parts.next.title}</a>` : html`<span></span>`}</nav>`;
}

function cover(parts: PageParts): SafeHtml {
  if (!parts.cover || !parts.layout.cover) return html``;
  const { src, srcDark, full } = parts.cover;
  return html`<figure class="q-cover${full ? " q-cover-full" : ""}"><picture>${
    srcDark ? html`<source srcset="${srcDark}" media="(prefers-color-scheme: dark)">` : ""
  }<img src="${src}" alt=""></picture></figure>`;
}

/**
 * The page's address for search engines and its card where a link to it is shared (Open Graph):
 * the same title as <title> (the page's, then the site's), the page's description, its canonical
 * address. The first page of a variant answers at the variant's root and at its own path: both
 * name the root as canonical.
 */
function socialTags(siteTitle: string, title: string, parts: PageParts): SafeHtml {
  return html`<meta property="og:type" content="website"><meta property="og:site_name" content="${siteTitle}"><meta property="og:title" content="${title}">${
    parts.description || parts.summary ? html`<meta property="og:description" content="${parts.description || parts.summary}">` : ""
  }${parts.canonical ? html`<link rel="canonical" href="${parts.canonical}"><meta property="og:url" content="${parts.canonical}">` : ""}`;
}

/** A whole HTML document of the site. */
export function sitePage(ctx: LayoutContext, parts: PageParts): string {
  const language = ctx.variant?.siteSpace.space.language ?? "en";
  const custom = customizationOf(ctx);
  const title = parts.title === custom.title ? parts.title : `${parts.title} | ${custom.title}`;
  return html`<!doctype html>
<html lang="${language}"${rootAttributes(ctx)}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${parts.description || parts.summary ? html`<meta name="description" content="${parts.description || parts.summary}">` : ""}
${socialTags(custom.title, title, parts)}
<link rel="stylesheet" href="${asset(ctx, "site.css")}">
${parts.head ?? ""}
${customizationHead(ctx)}
<script>${raw(SITE_HEAD_JS)}</script>
<script src="${asset(ctx, "site.js")}" defer></script>
</head>
<body>
<a class="q-skip" href="#q-content">Skip to content</a>
<input type="checkbox" id="q-nav-toggle" class="q-nav-toggle" aria-hidden="true">
${announcementBanner(ctx)}
${header(ctx, parts.query ?? "")}
<div class="q-layout">
${sidebar(ctx)}
<main class="q-main${parts.layout.wide ? " q-wide" : ""}" id="q-content">
${parts.breadcrumb?.length ? html`<div class="q-breadcrumb">${parts.breadcrumb.join(" / ")}</div>` : ""}
${cover(parts)}
${pageActions(ctx, parts)}
${parts.layout.title ? html`<h1 class="q-page-title">${parts.title}</h1>` : ""}
${parts.layout.description && parts.description ? html`<p class="q-page-description">${parts.description}</p>` : ""}
<div class="q-body q-content">${parts.body}</div>
${feedbackControl(ctx, parts)}
${pagination(ctx, parts)}
</main>
${parts.layout.wide ? "" : outlineOf(parts)}
</div>
${footer(ctx)}
${parts.scripts ?? ""}
</body></html>`.value;
}
