/**
 * The published site's page layout, server-rendered and working without JavaScript: a header with
 * the site title, sections as tabs (groups as menus), variant and language pickers and search; a
 * sidebar table of contents; the page (title, description, cover, body, previous/next); an "on
 * this page" outline (the sidebar is site-nav.ts). Everything from content is escaped by `html`.
 */

import { html, raw, type SafeHtml } from "../../content/html/index.js";
import type { EditLink } from "./edit-link.js";
import type { Reader } from "./reader.js";
import {
  announcementBanner,
  customizationHead,
  customizationOf,
  footer,
  headerLinks,
  headerTitle,
  rootAttributes,
} from "./site-customization.js";
import { sidebar } from "./site-nav.js";
import { siteHref } from "./site-urls.js";
import { groupOf, type SiteView, type VariantView, visibleSections, visibleVariants } from "./site-view.js";

export { pageHref, siteHref } from "./site-urls.js";

export interface LayoutContext {
  view: SiteView;
  reader: Reader;
  /** The site's base URL path on this request, with any share key (`/s/docs`, `/s/docs/<key>`, or ``). */
  base: string;
  /** Where the assets are served (`<site base without share key>/~quire/assets`). */
  assetsBase: string;
  /** Where file download URLs start: the public URL's path on the server's own host, else its full address. */
  filesBase: string;
  /** Fingerprinted asset names by plain name. */
  assets: ReadonlyMap<string, string>;
  /** The variant being read (absent on a site-wide page such as a 404 without a variant). */
  variant: VariantView | undefined;
  /** The current page, for the sidebar's highlight. */
  pageId?: string | undefined;
}

export interface OutlineItem {
  id: string;
  title: string;
  level: 1 | 2 | 3;
}

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
<form class="q-search" role="search" method="get" action="${siteHref(ctx, "~quire/search")}"><input type="search" name="q" value="${query}" placeholder="Search…" aria-label="Search this site"></form>
${toggle ? html`<button class="q-theme" type="button" hidden aria-label="Switch between light and dark theme">◐</button>` : ""}
</div>
${sectionTabs(ctx)}
</header>`;
}

// The page.

export interface PageParts {
  title: string;
  description?: string | undefined;
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
  /** The search query shown in the header's box. */
  query?: string | undefined;
  /** The page's Markdown address, for the "View as Markdown" action. */
  markdownHref?: string | undefined;
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

function pageActions(ctx: LayoutContext, parts: PageParts): SafeHtml {
  const actions = customizationOf(ctx).settings;
  const items: SafeHtml[] = [];
  if (parts.markdownHref && actions.pageActions.markdown) {
    items.push(html`<a class="q-page-action" href="${parts.markdownHref}" type="text/markdown">View as Markdown</a>`);
  }
  if (parts.pdfHref && actions.pdf.enabled) {
    items.push(html`<a class="q-page-action" href="${parts.pdfHref}" type="application/pdf" download>Download as PDF</a>`);
  }
  if (parts.editLink && actions.git.showEditLink) {
    items.push(
      html`<a class="q-page-action q-edit-link" href="${parts.editLink.href}" target="_blank" rel="noopener noreferrer">Edit on ${parts.editLink.provider}</a>`,
    );
  }
  return items.length ? html`<div class="q-page-actions">${items}</div>` : html``;
}

function outlineOf(parts: PageParts): SafeHtml {
  const items = parts.outline.filter((o) => o.level >= 2);
  if (!parts.layout.outline || items.length === 0) return html`<aside class="q-outline"></aside>`;
  return html`<aside class="q-outline" aria-label="On this page"><h2>On this page</h2><ul>${items.map(
    (o) => html`<li class="q-l${o.level}"><a href="#${o.id}">${o.title}</a></li>`,
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

/** A whole HTML document of the site. */
export function sitePage(ctx: LayoutContext, parts: PageParts): string {
  const language = ctx.variant?.siteSpace.space.language ?? "en";
  const custom = customizationOf(ctx);
  const title = parts.title === custom.title ? parts.title : `${parts.title} | ${custom.title}`;
  return html`<!doctype html>
<html lang="${language}"${rootAttributes(ctx)}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${parts.description ? html`<meta name="description" content="${parts.description}">` : ""}
<link rel="stylesheet" href="${asset(ctx, "site.css")}">
${parts.head ?? ""}
${customizationHead(ctx)}
<script src="${asset(ctx, "site.js")}"></script>
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
