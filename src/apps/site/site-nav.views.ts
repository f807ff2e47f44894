/**
 * The sidebar of a published site, drawn as GitBook draws it: top-level pages and groups, the
 * branches on the way to the current page expanded (the current page's own branch too), every other
 * branch collapsed. A collapsed branch carries none of its descendants' HTML, so a page of a large
 * site holds a few dozen links of navigation instead of the whole tree.
 *
 * A collapsed branch opens two ways. Its link opens the page, whose sidebar has that branch expanded:
 * that needs no JavaScript. Its toggle (added by site.js) fetches the branch's children, one level,
 * from `<base>/~quire/nav/<site space>/<fingerprint>?page=<the branch link's href>`: the fingerprint
 * hashes the reader's whole tree, so a fragment URL names one content for good and the browser may
 * keep it. A branch is named by its link, which the page holds anyway, and marked by a bare
 * attribute: a page id on each (20 random characters) cost ~1 KB of a page's compressed HTML.
 */
import { createHash } from "node:crypto";
import { emojiCharacter } from "../../content/document/loose.js";
import { html, raw, type SafeHtml } from "../../content/html/index.js";
import type { PageNode } from "../../content/revision/model.js";
import type { LayoutContext } from "./site-context.model.js";
import { pageHref } from "./site-urls.paths.js";
import { pageVisible, readablePage, readerKey, type VariantView } from "./site-view.model.js";

interface NavItem {
  id: string;
  kind: "group" | "page" | "link";
  depth: number;
  /** The label as shown (a page's emoji first); escaped when rendered. */
  label: string;
  /** A page's address. */
  href: string;
  /** The pages and groups under it that the reader sees listed. */
  children: NavItem[];
  /** Its HTML with every branch below it collapsed (a group always shows its items). */
  collapsed: string;
}

export interface NavTree {
  items: NavItem[];
  /** Items of pages and groups by page id. */
  byId: Map<string, NavItem>;
  /** The whole tree collapsed: the sidebar of a page outside it (search, a 404). */
  collapsed: string;
  /** A hash of the tree as this reader sees it: it changes when anything shown in it changes. */
  fingerprint: string;
  /** Branches (pages with children) by their link's href, as the toggle names them. */
  byHref: Map<string, NavItem>;
  /** Where branch fragments are fetched (`?page=<href>` is appended). */
  fragmentBase: string;
}

function renderGroup(item: NavItem, inner: string): string {
  return item.depth === 0
    ? html`<li><div class="q-nav-group">${item.label}</div><ul class="q-nav-top">${raw(inner)}</ul></li>`.value
    : html`<li><span class="q-nav-group">${item.label}</span><ul>${raw(inner)}</ul></li>`.value;
}

function renderPage(item: NavItem, state: { current: boolean; expanded: boolean; inner: string }): string {
  const link = html`<a href="${item.href}"${state.current ? raw(' aria-current="page"') : ""}>${item.label}</a>`;
  if (item.children.length === 0) return html`<li>${link}</li>`.value;
  // A branch is marked, not given its toggle: site.js adds the button (with aria-expanded), so a page
  // without JavaScript has no control that does nothing, and a collapsed branch stays a few bytes.
  return html`<li${state.expanded ? raw(' class="q-open"') : ""} data-branch>${link}${
    state.expanded ? html`<ul id="q-nav-${item.id}">${raw(state.inner)}</ul>` : ""
  }</li>`.value;
}

/** Where a link page points: a page of a variant of this site, or an outside URL (only http(s) and mailto). */
function linkPageHref(ctx: LayoutContext, page: PageNode): { href: string; external: boolean } | undefined {
  const target = page.target;
  if (target?.kind === "page" && ctx.variant) {
    const variant = target.space ? [...ctx.view.variants.values()].find((v) => v.siteSpace.spaceId === target.space) : ctx.variant;
    if (variant && readablePage(variant, target.page, ctx.reader, false))
      return { href: pageHref(ctx, variant, target.page), external: false };
    return undefined;
  }
  const url = target?.kind === "url" ? target.url : page.href;
  if (url && /^(https?:|mailto:)/i.test(url)) return { href: url, external: true };
  return undefined;
}

function buildItems(
  ctx: LayoutContext,
  variant: VariantView,
  pages: readonly PageNode[],
  depth: number,
  byId: Map<string, NavItem>,
): NavItem[] {
  const out: NavItem[] = [];
  for (const page of pages) {
    if (page.hidden) continue;
    if (!pageVisible(variant, page.id, ctx.reader)) continue;
    const label = page.label ?? page.title;
    if (page.kind === "group") {
      const children = buildItems(ctx, variant, page.children, depth + 1, byId);
      if (children.length === 0) continue;
      const item: NavItem = { id: page.id, kind: "group", depth, label, href: "", children, collapsed: "" };
      item.collapsed = renderGroup(item, children.map((c) => c.collapsed).join(""));
      byId.set(page.id, item);
      out.push(item);
      continue;
    }
    if (page.kind === "link") {
      const href = linkPageHref(ctx, page);
      if (!href) continue;
      const collapsed =
        html`<li><a class="${href.external ? "q-nav-ext" : ""}" href="${href.href}"${href.external ? raw(' rel="noopener"') : ""}>${page.emoji ? `${emojiCharacter(page.emoji)} ` : ""}${label}</a></li>`
          .value;
      out.push({ id: page.id, kind: "link", depth, label, href: href.href, children: [], collapsed });
      continue;
    }
    if (!readablePage(variant, page.id, ctx.reader, true)) continue;
    const children = buildItems(ctx, variant, page.children, depth + 1, byId);
    const item: NavItem = {
      id: page.id,
      kind: "page",
      depth,
      label: page.emoji ? `${emojiCharacter(page.emoji)} ${label}` : label,
      href: pageHref(ctx, variant, page.id),
      children,
      collapsed: "",
    };
    item.collapsed = renderPage(item, { current: false, expanded: false, inner: "" });
    byId.set(page.id, item);
    out.push(item);
  }
  return out;
}

/**
 * The tree is the same on every page of a variant for one reader and base, so it is built once per
 * variant, reader key and base; a page then renders only the lists on its way down (see `sidebar`).
 */
const navMemo = new WeakMap<VariantView, Map<string, NavTree>>();
const MAX_TREES_PER_VARIANT = 256;

export function navTree(ctx: LayoutContext, variant: VariantView): NavTree {
  let byKey = navMemo.get(variant);
  if (!byKey) navMemo.set(variant, (byKey = new Map()));
  const key = `${readerKey(ctx.reader)}|${ctx.base}`;
  const known = byKey.get(key);
  if (known) return known;
  const byId = new Map<string, NavItem>();
  const items = buildItems({ ...ctx, variant, pageId: undefined }, variant, variant.content.pages, 0, byId);
  const hash = createHash("sha256");
  const walk = (list: readonly NavItem[]) => {
    for (const item of list) {
      hash.update(item.collapsed);
      if (item.children.length === 0) continue;
      hash.update("\u0000(");
      walk(item.children);
      hash.update("\u0000)");
    }
  };
  walk(items);
  const fingerprint = hash.digest("base64url").slice(0, 16);
  const tree: NavTree = {
    items,
    byId,
    collapsed: items.map((i) => i.collapsed).join(""),
    fingerprint,
    byHref: new Map([...byId.values()].filter((i) => i.kind === "page" && i.children.length > 0).map((i) => [i.href, i])),
    fragmentBase: `${ctx.base}/~quire/nav/${encodeURIComponent(variant.siteSpace.id)}/${fingerprint}`,
  };
  if (byKey.size >= MAX_TREES_PER_VARIANT) byKey.clear();
  byKey.set(key, tree);
  return tree;
}

/** Renders a list with the items on the way to the current page expanded; the others are copied as built. */
function renderList(items: readonly NavItem[], open: ReadonlySet<string>, currentId: string | undefined): string {
  let out = "";
  for (const item of items) {
    if (!open.has(item.id) || item.kind === "link") out += item.collapsed;
    else if (item.kind === "group") out += renderGroup(item, renderList(item.children, open, currentId));
    else {
      const expanded = item.children.length > 0;
      out += renderPage(item, {
        current: item.id === currentId,
        expanded,
        inner: expanded ? renderList(item.children, open, currentId) : "",
      });
    }
  }
  return out;
}

/** The sidebar of a page (or of a page outside the tree, when `ctx.pageId` is not set). */
export function sidebar(ctx: LayoutContext): SafeHtml {
  const { variant } = ctx;
  if (!variant) return html`<nav class="q-sidebar" aria-label="Pages"></nav>`;
  const tree = navTree(ctx, variant);
  const location = ctx.pageId ? variant.pages.get(ctx.pageId) : undefined;
  const list =
    location && ctx.pageId
      ? renderList(tree.items, new Set([...location.ancestors.map((a) => a.id), ctx.pageId]), ctx.pageId)
      : tree.collapsed;
  return html`<nav class="q-sidebar" aria-label="Pages" data-nav="${tree.fragmentBase}"><ul>${raw(list)}</ul></nav>`;
}

/**
 * The children of the branch whose link is `href`, collapsed, as the toggle inserts them; undefined
 * when the reader sees no such page or it has nothing under it. `fingerprint` is the tree's now, to
 * compare with the URL's.
 */
export function navBranch(ctx: LayoutContext, variant: VariantView, href: string): { html: string; fingerprint: string } | undefined {
  const tree = navTree(ctx, variant);
  const item = tree.byHref.get(href);
  if (item?.kind !== "page" || item.children.length === 0) return undefined;
  return {
    html: html`<ul id="q-nav-${item.id}">${raw(item.children.map((c) => c.collapsed).join(""))}</ul>`.value,
    fingerprint: tree.fingerprint,
  };
}
