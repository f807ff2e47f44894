/**
 * The app's layout: one stylesheet for every page, the header (organization switcher, the search
 * of the organization's pages, who is signed in, sign-out), breadcrumbs, then the page's own markup.
 */
import { html, raw, type SafeHtml } from "../../content/html/safe-html.js";
import { SEARCH_SCRIPT_PATH } from "./pages/search/search.client.js";

// One stylesheet for every page of the app: light and dark through CSS variables, readable on a phone.
const STYLE = raw(`<style>
  :root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d0d7de; --soft: #f6f8fa; --accent: #0969da;
    --error: #d1242f; --ok: #1a7f37; --warn: #9a6700; --mark: #fff8c5; --radius: 8px; }
  @media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --soft: #161b22;
    --accent: #4493f8; --error: #f85149; --ok: #3fb950; --warn: #d29922; --mark: #3b2e00; } }
  * { box-sizing: border-box; }
  body { font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: var(--fg); background: var(--bg); }
  a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
  main p a:not(.button) { text-decoration: underline; text-underline-offset: 2px; }
  h1 { font-size: 1.75rem; line-height: 1.25; margin: .25rem 0 1rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; } h3 { font-size: 1rem; }
  .topbar { display: flex; gap: .75rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); background: var(--soft); flex-wrap: wrap; }
  .topbar .brand { font-weight: 700; color: var(--fg); margin-right: .25rem; }
  .topbar .spacer { flex: 1; }
  .topbar .who { color: var(--muted); font-size: .9rem; }
  details.menu { position: relative; } details.menu > summary { cursor: pointer; list-style: none; padding: .2rem .6rem; border: 1px solid var(--line); border-radius: var(--radius); background: var(--bg); }
  details.menu > summary::after { content: " ▾"; color: var(--muted); } details.menu > summary::-webkit-details-marker { display: none; }
  details.menu ul { position: absolute; z-index: 10; margin: .3rem 0 0; padding: .3rem 0; list-style: none; min-width: 14rem; background: var(--bg); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: 0 8px 24px rgba(0,0,0,.15); }
  details.menu li a { display: block; padding: .3rem .8rem; color: var(--fg); } details.menu li a[aria-current] { font-weight: 600; }
  nav.crumbs { padding: .6rem 1rem 0; font-size: .9rem; color: var(--muted); max-width: 72rem; margin: 0 auto; }
  nav.crumbs ol { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem; }
  nav.crumbs li + li::before { content: "/"; margin-right: .3rem; color: var(--line); }
  main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
  main.narrow { max-width: 46rem; }
  .layout { display: grid; grid-template-columns: 16rem minmax(0, 1fr); gap: 2rem; align-items: start; }
  .layout > aside { position: sticky; top: 1rem; max-height: calc(100vh - 2rem); overflow: auto; font-size: .92rem; }
  .layout > aside details > summary { display: none; }
  @media (max-width: 50rem) { .layout { grid-template-columns: 1fr; gap: .5rem; } .layout > aside { position: static; max-height: none; }
    .layout > aside details > summary { display: list-item; cursor: pointer; font-weight: 600; padding: .4rem 0; }
    .layout > article { order: 1; } .layout > aside { order: 2; border-top: 1px solid var(--line); }
    .topbar .who .muted { display: none; } }
  .tree, .tree ul { list-style: none; margin: 0; padding: 0; } .tree ul { padding-left: .9rem; border-left: 1px solid var(--line); margin-left: .35rem; }
  .tree a, .tree .group { display: block; padding: .15rem .4rem; border-radius: 6px; color: var(--fg); }
  .tree .group { color: var(--muted); font-weight: 600; font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; margin-top: .6rem; }
  .tree a[aria-current] { background: var(--soft); color: var(--accent); font-weight: 600; }
  .card { border: 1px solid var(--line); border-radius: var(--radius); padding: .75rem 1rem; margin: .75rem 0; background: var(--bg); }
  .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: .75rem; } .cards .card { margin: 0; }
  .card h3 { margin: 0 0 .2rem; font-size: 1rem; }
  .muted { color: var(--muted); } .error { color: var(--error); } .small { font-size: .85rem; }
  .badge { display: inline-block; font-size: .75rem; padding: 0 .45rem; border-radius: 999px; border: 1px solid var(--line); color: var(--muted); vertical-align: middle; }
  .badge.ok { color: var(--ok); border-color: var(--ok); } .badge.bad { color: var(--error); border-color: var(--error); } .badge.wait { color: var(--warn); border-color: var(--warn); }
  button, .button { font: inherit; font-size: .92rem; padding: .3rem .8rem; border: 1px solid var(--line); border-radius: var(--radius); background: var(--soft); cursor: pointer; color: var(--fg); text-decoration: none; display: inline-block; }
  button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
  input, select, textarea { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); max-width: 100%; }
  code.secret { display: block; padding: .5rem; background: var(--mark); word-break: break-all; }
  .table-wrap { overflow-x: auto; }
  .bars { display: flex; align-items: flex-end; gap: 2px; height: 10rem; padding: .25rem 0; border-bottom: 1px solid var(--line); }
  .bars .day { flex: 1 1 0; min-width: 2px; height: 100%; display: flex; flex-direction: column; justify-content: flex-end; }
  .bars .browser { background: var(--accent); } .bars .agent { background: var(--warn); }
  .legend { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: middle; }
  .legend.browser { background: var(--accent); } .legend.agent { background: var(--warn); }
  .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .75rem; margin: .75rem 0; }
  .figures .card { margin: 0; } .figures strong { display: block; font-size: 1.6rem; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  form.inline { display: inline; }
  form.stack { display: grid; gap: .5rem; max-width: 36rem; } form.stack label { display: grid; gap: .15rem; font-size: .9rem; }
  form.stack label.check { display: flex; gap: .5rem; align-items: center; }
  .actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
  /* A label around a wide select may shrink to the line: the select then fits the phone (max-width above). */
  .actions > label { min-width: 0; max-width: 100%; }
  .page-head { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; justify-content: space-between; }
  .description { color: var(--muted); font-size: 1.05rem; margin: 0 0 1rem; }
  ul.plain { list-style: none; padding: 0; margin: 0; } ul.plain > li { padding: .4rem 0; border-bottom: 1px solid var(--line); }
  .first-page > h2 { font-size: 1.5rem; margin-top: 1rem; }
  #history { border-top: 1px solid var(--line); margin-top: 2.5rem; }
  .search-box { position: relative; flex: 1 1 14rem; max-width: 28rem; display: flex; align-items: center; }
  .search-box input { width: 100%; padding-right: 3.5rem; } .search-keys { position: absolute; right: .5rem; font-size: .75rem; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; }
  .search-box input:focus + .search-keys { display: none; }
  .search-results-box { position: absolute; top: 100%; left: 0; right: 0; z-index: 10; margin: .25rem 0 0; padding: .25rem; list-style: none; background: var(--bg); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: 0 8px 24px rgba(0,0,0,.15); max-height: 70vh; overflow-y: auto; min-width: min(22rem, 90vw); }
  .search-results-box [role=option] { display: grid; padding: .35rem .5rem; border-radius: 6px; cursor: pointer; }
  .search-results-box [role=option][aria-selected=true], .search-results-box [role=option]:hover { background: var(--soft); outline: 2px solid var(--accent); outline-offset: -2px; }
  .search-label { font-weight: 600; } .search-trail { font-size: .8rem; color: var(--muted); } .search-none { padding: .35rem .5rem; color: var(--muted); }
</style>`);

export interface PageUser {
  displayName: string;
  email: string;
}

/** An organization in the header's switcher. */
export interface PageOrg {
  id: string;
  title: string;
}

export interface PageOptions {
  user?: PageUser;
  /** CSRF token for the header's sign-out form. */
  csrf?: string;
  /** The signed-in user's organizations, for the switcher; `org` is the one shown. */
  orgs?: readonly PageOrg[];
  org?: PageOrg;
  /** Where the page is: a trail of links, the last one the page itself (its href may be omitted). */
  crumbs?: readonly { label: string; href?: string }[];
  /** Wide pages (a sidebar and content); forms and messages read better narrow (the default). */
  wide?: boolean;
  /** Extra markup for <head> (constant markup or escaped values only). */
  head?: SafeHtml;
  /** The words in the header's search box (the results page shows what it searched). */
  search?: string;
}

/** The header's search of the organization's pages: a form to the results page, results as one types with its script. */
function searchBox(org: PageOrg, query: string): SafeHtml {
  const base = `/app/o/${encodeURIComponent(org.id)}`;
  return html`<form id="search-box" class="search-box" role="search" method="get" action="${base}/search" data-json="${base}/search.json">
    <input type="search" id="search-input" name="q" value="${query}" maxlength="512" autocomplete="off" placeholder="Search pages" aria-label="Search pages of ${org.title}" aria-keyshortcuts="Control+K /">
    <kbd class="search-keys" aria-hidden="true">Ctrl K</kbd>
    <ul id="search-results" class="search-results-box" role="listbox" aria-label="Pages found" hidden></ul></form>
    <script src="${SEARCH_SCRIPT_PATH}" defer></script>`;
}

function orgSwitcher(orgs: readonly PageOrg[], current: PageOrg | undefined): SafeHtml {
  if (orgs.length === 0) return html``;
  const items = orgs.map(
    (o) =>
      html`<li><a href="/app/o/${encodeURIComponent(o.id)}"${current?.id === o.id ? raw(' aria-current="true"') : ""}>${o.title}</a></li>`,
  );
  return html`<details class="menu org-switcher"><summary>${current?.title ?? "Organizations"}</summary><ul>${items}</ul></details>`;
}

/**
 * The app's icon, inline (an SVG data URL, which the CSP's img-src admits): a browser given no
 * <link rel="icon"> asks the host for /favicon.ico, a 404 on every first page; this costs no request.
 */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0969da"/><circle cx="15" cy="15" r="7.5" fill="none" stroke="#fff" stroke-width="3.4"/><path d="M18.5 18.5l6 6" stroke="#fff" stroke-width="3.4" stroke-linecap="round"/></svg>`;
export const FAVICON_HREF = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/** A whole page: the header (organization switcher, who is signed in, sign-out), breadcrumbs, then `body`. */
export function page(title: string, body: SafeHtml, options: PageOptions = {}): string {
  const user = options.user;
  const header = user
    ? html`<header class="topbar"><a class="brand" href="/app">Quire</a>${orgSwitcher(options.orgs ?? [], options.org)}${options.org ? searchBox(options.org, options.search ?? "") : ""}<span class="spacer"></span>
        <span class="who">${user.displayName} <span class="muted">(${user.email})</span></span> <a href="/app/tokens">API tokens</a>
        <form class="inline" method="post" action="/app/logout"><input type="hidden" name="_csrf" value="${options.csrf ?? ""}"><button type="submit">Sign out</button></form></header>`
    : html`<header class="topbar"><a class="brand" href="/app">Quire</a></header>`;
  const crumbs = options.crumbs?.length
    ? html`<nav class="crumbs" aria-label="Breadcrumbs"><ol>${options.crumbs.map((c, i) =>
        c.href && i < (options.crumbs?.length ?? 0) - 1
          ? html`<li><a href="${c.href}">${c.label}</a></li>`
          : html`<li aria-current="page">${c.label}</li>`,
      )}</ol></nav>`
    : "";
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Quire</title><link rel="icon" type="image/svg+xml" href="${FAVICON_HREF}">${STYLE}${options.head ?? ""}</head>
<body>${header}${crumbs}<main${options.wide ? "" : raw(' class="narrow"')}>${body}</main></body></html>`.value;
}
