/**
 * The published site's own stylesheet and script, and the content renderer's assets, served
 * fingerprinted (`name.<hash>.ext`) and cached for a year: a new build changes the hash, so readers
 * never keep a stale file. The site's CSS and JS live in this file (not beside it) so that the
 * compiled build (dist/) carries them without a copy step.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { transformSync } from "esbuild";

const SITE_CSS = `
:root { --q-bg: #ffffff; --q-fg: #1f2328; --q-muted: #59636e; --q-border: #d8dee4; --q-accent: #0969da; --q-accent-bg: #ddf4ff; --q-panel: #f6f8fa; --q-header-h: 3.5rem; color-scheme: light; }
@media (prefers-color-scheme: dark) { :root:not([data-theme=light]) { --q-bg: #0d1117; --q-fg: #e6edf3; --q-muted: #9198a1; --q-border: #30363d; --q-accent: #4493f8; --q-accent-bg: #0f2744; --q-panel: #161b22; color-scheme: dark; } }
:root[data-theme=dark] { --q-bg: #0d1117; --q-fg: #e6edf3; --q-muted: #9198a1; --q-border: #30363d; --q-accent: #4493f8; --q-accent-bg: #0f2744; --q-panel: #161b22; color-scheme: dark; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--q-bg); color: var(--q-fg); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--q-link, var(--q-accent)); text-decoration: none; }
a:hover { text-decoration: underline; }
.q-skip { position: absolute; left: -999px; } .q-skip:focus { left: 1rem; top: .5rem; z-index: 10; background: var(--q-bg); padding: .25rem .5rem; }
.q-header { position: sticky; top: 0; z-index: 5; background: var(--q-bg); border-bottom: 1px solid var(--q-border); }
.q-header-row { display: flex; align-items: center; gap: 1rem; max-width: 90rem; margin: 0 auto; padding: 0 1rem; min-height: var(--q-header-h); }
.q-site-title { font-weight: 650; font-size: 1.1rem; color: var(--q-fg); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.q-site-title:hover { text-decoration: none; }
.q-search { margin-left: auto; display: flex; }
.q-search input { font: inherit; font-size: .9rem; padding: .35rem .6rem; border: 1px solid var(--q-border); border-radius: 6px; background: var(--q-panel); color: var(--q-fg); width: 14rem; max-width: 40vw; }
.q-theme { font: inherit; font-size: .9rem; border: 1px solid var(--q-border); border-radius: 6px; background: var(--q-panel); color: var(--q-fg); padding: .3rem .55rem; cursor: pointer; }
.q-site-tabs { display: flex; gap: .25rem; max-width: 90rem; margin: 0 auto; padding: 0 1rem; overflow-x: auto; }
.q-site-tabs > a, .q-site-tabs summary { display: inline-block; padding: .45rem .75rem; color: var(--q-muted); border-bottom: 2px solid transparent; white-space: nowrap; cursor: pointer; list-style: none; }
.q-site-tabs summary::-webkit-details-marker { display: none; }
.q-site-tabs > a[aria-current=page], .q-site-tabs details.q-current > summary { color: var(--q-fg); border-bottom-color: var(--q-accent); }
.q-menu { position: relative; }
.q-menu > ul, .q-menu > div { position: absolute; z-index: 6; margin: 0; padding: .35rem 0; list-style: none; background: var(--q-bg); border: 1px solid var(--q-border); border-radius: 8px; box-shadow: 0 8px 24px rgba(0,0,0,.12); min-width: 12rem; }
.q-menu li a { display: block; padding: .3rem .9rem; color: var(--q-fg); }
.q-menu li a[aria-current=page] { color: var(--q-link, var(--q-accent)); font-weight: 600; }
.q-menu li .q-menu-label { display: block; padding: .3rem .9rem; color: var(--q-muted); font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
.q-pickers { display: flex; gap: .5rem; }
.q-picker > summary { font-size: .9rem; border: 1px solid var(--q-border); border-radius: 6px; padding: .25rem .6rem; cursor: pointer; list-style: none; white-space: nowrap; }
.q-picker > summary::-webkit-details-marker { display: none; }
.q-picker > summary::after { content: " \\25BE"; color: var(--q-muted); }
.q-layout { display: grid; grid-template-columns: 17rem minmax(0, 1fr) 14rem; gap: 2rem; max-width: 90rem; margin: 0 auto; padding: 0 1rem; }
.q-sidebar { position: sticky; top: calc(var(--q-header-h) + 2.5rem); align-self: start; max-height: calc(100vh - var(--q-header-h) - 3rem); overflow-y: auto; padding: 1.25rem 0 2rem; font-size: .93rem; }
.q-sidebar ul { list-style: none; margin: 0; padding: 0; }
.q-sidebar ul ul { margin-left: .75rem; padding-left: .5rem; border-left: 1px solid var(--q-border); }
.q-sidebar a { display: block; padding: .22rem .6rem; border-radius: 6px; color: var(--q-muted); overflow-wrap: anywhere; }
.q-sidebar a:hover { color: var(--q-fg); background: var(--q-panel); text-decoration: none; }
.q-sidebar a[aria-current=page] { color: var(--q-link, var(--q-accent)); background: var(--q-accent-bg); font-weight: 600; }
.q-sidebar ul.q-nav-top { margin-left: 0; padding-left: 0; border-left: none; }
.q-nav-group { margin: 1.1rem 0 .3rem; padding: 0 .6rem; font-size: .78rem; font-weight: 650; text-transform: uppercase; letter-spacing: .05em; color: var(--q-fg); }
.q-sidebar li[data-branch] { display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: center; }
.q-sidebar li[data-branch] > ul { grid-column: 1 / -1; }
.q-nav-expand { display: inline-flex; align-items: center; justify-content: center; width: 1.7rem; height: 1.7rem; margin-left: .1rem; padding: 0; border: 0; border-radius: 6px; background: none; color: var(--q-muted); cursor: pointer; }
.q-nav-expand:hover { color: var(--q-fg); background: var(--q-panel); }
.q-nav-expand:focus-visible, .q-sidebar a:focus-visible { outline: 2px solid var(--q-accent); outline-offset: -2px; }
.q-nav-expand::before { content: ""; width: .4rem; height: .4rem; border-right: 2px solid currentColor; border-bottom: 2px solid currentColor; transform: translateX(-.1rem) rotate(-45deg); transition: transform .12s; }
.q-nav-expand[aria-expanded=true]::before { transform: translateY(-.1rem) rotate(45deg); }
.q-nav-expand[aria-busy=true] { opacity: .5; cursor: progress; }
html:not(.q-js) .q-sidebar li[data-branch]:not(.q-open) > a::after { content: " \\203A"; color: var(--q-muted); }
.q-nav-ext::after { content: " \\2197"; font-size: .8em; }
.q-nav-toggle { display: none; }
.q-nav-button { display: none; }
.q-main { min-width: 0; padding: 1.5rem 0 4rem; }
.q-main.q-wide { grid-column: 2 / 4; }
.q-breadcrumb { font-size: .85rem; color: var(--q-muted); margin-bottom: .25rem; }
.q-page-title { font-size: 2.1rem; line-height: 1.2; margin: .2rem 0 .5rem; }
.q-page-description { font-size: 1.1rem; color: var(--q-muted); margin: 0 0 1.5rem; }
.q-cover { margin: 0 0 1.5rem; } .q-cover img { width: 100%; max-height: 16rem; object-fit: cover; border-radius: 10px; display: block; }
.q-cover-full img { max-height: 24rem; }
.q-pagination { display: flex; gap: 1rem; margin-top: 3rem; }
.q-pagination > * { flex: 1 1 0; min-width: 0; }
.q-pagination a { border: 1px solid var(--q-border); border-radius: 8px; padding: .7rem 1rem; color: var(--q-fg); }
.q-pagination a:hover { border-color: var(--q-accent); text-decoration: none; }
.q-pagination small { display: block; color: var(--q-muted); }
.q-pagination .q-next { text-align: right; }
.q-outline { position: sticky; top: calc(var(--q-header-h) + 2.5rem); align-self: start; padding: 1.5rem 0; font-size: .87rem; max-height: calc(100vh - var(--q-header-h) - 3rem); overflow-y: auto; }
.q-outline h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; margin: 0 0 .5rem; }
.q-outline ul { list-style: none; margin: 0; padding: 0; }
.q-outline li a { display: block; padding: .15rem 0; color: var(--q-muted); }
.q-outline li.q-l2 a { padding-left: .8rem; }
.q-outline li.q-l3 a { padding-left: 1.6rem; }
.q-body-text p { margin: 0 0 1rem; }
.q-results { list-style: none; padding: 0; }
.q-results li { border-bottom: 1px solid var(--q-border); padding: .8rem 0; }
.q-results .q-result-path { font-size: .8rem; color: var(--q-muted); }
.q-results mark, .q-results .q-hit { background: var(--q-accent-bg); color: inherit; }
.q-footer { border-top: 1px solid var(--q-border); color: var(--q-muted); font-size: .85rem; padding: 1.5rem 1rem; text-align: center; }
.q-footer-top { display: flex; flex-wrap: wrap; gap: 1.5rem 4rem; justify-content: center; max-width: 90rem; margin: 0 auto 1.5rem; text-align: left; }
.q-footer-group h2 { font-size: .78rem; text-transform: uppercase; letter-spacing: .05em; color: var(--q-fg); margin: 0 0 .4rem; }
.q-footer-group ul { list-style: none; margin: 0; padding: 0; } .q-footer-group li { padding: .12rem 0; }
.q-footer-logo .q-logo { height: 1.6rem; }
.q-logo { display: block; height: 1.9rem; width: auto; max-width: 14rem; object-fit: contain; }
img.q-only-dark { display: none; }
:root[data-theme=dark] img.q-only-light { display: none; } :root[data-theme=dark] img.q-only-dark { display: block; }
@media (prefers-color-scheme: dark) { :root:not([data-theme=light]) img.q-only-light { display: none; } :root:not([data-theme=light]) img.q-only-dark { display: block; } }
.q-header-links { display: flex; align-items: center; gap: .9rem; margin-left: auto; }
.q-header-links + .q-search { margin-left: 0; }
.q-search { position: relative; }
.q-search-results { position: absolute; top: calc(100% + .35rem); right: 0; z-index: 7; width: min(30rem, calc(100vw - 2rem)); max-height: min(70vh, 32rem); overflow-y: auto; padding: .3rem; background: var(--q-bg); color: var(--q-fg); border: 1px solid var(--q-border); border-radius: 8px; box-shadow: 0 8px 24px rgba(0,0,0,.15); }
.q-search-results[hidden] { display: none; }
.q-search-results a { display: block; padding: .45rem .6rem; border-radius: 6px; color: var(--q-fg); text-decoration: none; font-size: .9rem; line-height: 1.4; }
.q-search-results a:hover, .q-search-results a[aria-selected=true] { background: var(--q-accent-bg); }
.q-search-results a[aria-selected=true] { outline: 2px solid var(--q-accent); outline-offset: -2px; }
.q-search-results .q-search-title { display: block; font-weight: 600; }
.q-search-results .q-search-section { font-weight: 400; }
.q-search-results .q-search-path, .q-search-results .q-search-snippet { display: block; font-size: .82rem; }
.q-search-results .q-search-snippet { margin-top: .1rem; }
.q-search-results mark { background: var(--q-mark-bg, #fff8c5); color: inherit; font-weight: 600; }
.q-search-results .q-ask-option { font-weight: 600; color: var(--q-accent); }
.q-ask { padding: .5rem .6rem; font-size: .9rem; line-height: 1.5; }
.q-ask-question { font-weight: 600; margin: 0 0 .35rem; }
.q-ask-text { white-space: pre-wrap; margin: 0; }
.q-ask-sources { margin: .5rem 0 0; padding-left: 1.3rem; font-size: .85rem; }
.q-search-results .q-ask-sources a { display: inline; padding: 0; color: var(--q-accent); text-decoration: underline; }
.q-ask[aria-busy=true] .q-ask-text::after { content: "…"; }
.q-search-status { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.q-header-link { color: var(--q-fg); font-size: .93rem; white-space: nowrap; }
.q-header-link:hover { color: var(--q-link, var(--q-accent)); text-decoration: none; }
.q-button { display: inline-block; padding: .28rem .75rem; border-radius: 6px; border: 1px solid var(--q-accent); }
.q-button-primary { background: var(--q-accent); color: var(--q-accent-text, #fff); }
.q-button-primary:hover { color: var(--q-accent-text, #fff); filter: brightness(1.1); }
.q-button-secondary { color: var(--q-accent); background: transparent; }
.q-header-menu > summary { list-style: none; cursor: pointer; }
.q-header-menu > summary::-webkit-details-marker { display: none; }
.q-header-menu > summary::after { content: " \\25BE"; color: var(--q-muted); }
.q-header-menu > ul { right: 0; }
.q-announcement { --q-ann: var(--q-info, #1f6feb); background: color-mix(in srgb, var(--q-ann) 14%, var(--q-bg)); border-bottom: 1px solid color-mix(in srgb, var(--q-ann) 40%, var(--q-bg)); font-size: .92rem; }
.q-announcement-warning { --q-ann: var(--q-warning, #d29922); } .q-announcement-danger { --q-ann: var(--q-danger, #e5534b); } .q-announcement-success { --q-ann: var(--q-success, #2da44e); }
.q-announcement p { position: relative; max-width: 90rem; margin: 0 auto; padding: .5rem 3rem .5rem 1rem; text-align: center; }
.q-announcement-link { font-weight: 600; margin-left: .35rem; }
.q-announcement-close { position: absolute; right: .75rem; top: 50%; transform: translateY(-50%); border: 0; background: none; color: var(--q-muted); font-size: 1.2rem; line-height: 1; cursor: pointer; }
.q-ann-hidden .q-announcement[data-dismiss] { display: none; }
.q-page-actions { display: flex; flex-wrap: wrap; justify-content: flex-end; align-items: center; gap: .4rem; font-size: .85rem; }
.q-page-action { color: var(--q-muted); border: 1px solid var(--q-border); border-radius: 6px; padding: .12rem .55rem; }
.q-page-action:hover { color: var(--q-accent); border-color: var(--q-accent); text-decoration: none; }
.q-actions > summary { list-style: none; cursor: pointer; color: var(--q-muted); border: 1px solid var(--q-border); border-radius: 6px; padding: .12rem .55rem; white-space: nowrap; }
.q-actions > summary::-webkit-details-marker { display: none; }
.q-actions > summary::after { content: " \\25BE"; }
.q-actions > summary:hover, .q-actions[open] > summary { color: var(--q-fg); border-color: var(--q-accent); }
.q-actions > ul { right: 0; min-width: 16rem; }
.q-actions li:has(> [hidden]) { display: none; }
.q-actions li :is(a, button:not([hidden]), summary) { display: block; width: 100%; padding: .35rem .9rem; border: 0; border-radius: 0; background: none; color: var(--q-fg); font: inherit; text-align: left; cursor: pointer; }
.q-actions li :is(a, button, summary):hover { background: var(--q-panel); color: var(--q-fg); text-decoration: none; }
.q-actions li :is(a, button, summary):focus-visible, .q-actions > summary:focus-visible { outline: 2px solid var(--q-accent); outline-offset: -2px; }
.q-actions li a[target=_blank]::after { content: " \\2197"; font-size: .8em; color: var(--q-muted); }
.q-action-mcp > summary { list-style: none; } .q-action-mcp > summary::-webkit-details-marker { display: none; }
.q-action-mcp > summary::after { content: " \\203A"; color: var(--q-muted); } .q-action-mcp[open] > summary::after { content: " \\25BE"; }
.q-action-mcp p { margin: .1rem .9rem .3rem; font-size: .8rem; color: var(--q-muted); }
.q-action-mcp input { display: block; width: calc(100% - 1.8rem); margin: 0 .9rem .45rem; padding: .25rem .4rem; font: inherit; font-size: .8rem; border: 1px solid var(--q-border); border-radius: 4px; background: var(--q-panel); color: var(--q-fg); }
.q-theme:hover { border-color: var(--q-accent); }
.q-feedback { display: flex; align-items: center; gap: .5rem; margin-top: 2.5rem; padding-top: 1rem; border-top: 1px solid var(--q-border); color: var(--q-muted); font-size: .92rem; }
.q-feedback-question { margin-right: .25rem; }
.q-feedback button { font-size: 1.15rem; line-height: 1; padding: .3rem .45rem; border: 1px solid var(--q-border); border-radius: 999px; background: var(--q-bg); cursor: pointer; filter: grayscale(.6); transition: filter .12s, border-color .12s; }
.q-feedback button:hover, .q-feedback button:focus-visible { filter: none; border-color: var(--q-accent); }
.q-feedback-thanks { display: none; margin-top: 2.5rem; padding-top: 1rem; border-top: 1px solid var(--q-border); color: var(--q-muted); font-size: .92rem; }
.q-feedback-thanks:target { display: block; } .q-feedback:has(+ .q-feedback-thanks:target) { display: none; }
[data-corners=straight] :is(.q-sidebar, .q-sidebar a, .q-search input, .q-theme, .q-pagination a, .q-button, .q-page-action, .q-menu > ul, .q-picker > summary, .q-cover img, .q-nav-expand) { border-radius: 0; }
[data-corners=circular] :is(.q-sidebar a, .q-search input, .q-theme, .q-button, .q-page-action, .q-picker > summary, .q-nav-expand) { border-radius: 999px; }
[data-corners=circular] :is(.q-pagination a, .q-menu > ul) { border-radius: 16px; }
[data-depth=flat] :is(.q-menu > ul, .q-menu > div) { box-shadow: none; }
[data-links=accent] .q-body a:not(.q-button) { color: var(--q-fg); text-decoration: underline; text-decoration-color: var(--q-accent); text-underline-offset: .2em; }
[data-sidebar-list=pill] .q-sidebar a { border-radius: 999px; padding-left: .8rem; }
[data-sidebar-list=line] .q-sidebar a { border-radius: 0; border-left: 2px solid var(--q-border); }
[data-sidebar-list=line] .q-sidebar a[aria-current=page] { background: none; border-left-color: var(--q-accent); }
[data-sidebar-background=filled] .q-sidebar { background: var(--q-panel); padding: 1rem .5rem; margin-top: 1rem; border-radius: 10px; }
[data-search=prominent] .q-search { margin: 0 auto; } [data-search=prominent] .q-search input { width: 26rem; }
[data-search=prominent] .q-header-links { order: 3; margin-left: 0; } [data-search=prominent] .q-theme { order: 4; }
/* Header colors: header.backgroundColor / linkColor (--q-header-bg / --q-header-fg) over the theme preset's, over the page's. */
.q-header { background: var(--q-header-bg, var(--q-preset-header-bg, var(--q-bg))); }
.q-header :is(.q-site-title, .q-header-link:not(.q-button), .q-header-menu > summary, .q-picker > summary, .q-nav-button) { color: var(--q-header-fg, var(--q-preset-header-fg, var(--q-fg))); }
.q-header .q-header-link:not(.q-button):hover { color: var(--q-header-fg, var(--q-preset-header-fg, var(--q-accent))); }
.q-header :is(.q-site-tabs > a, .q-site-tabs > details > summary) { color: var(--q-header-fg, var(--q-preset-header-fg, var(--q-muted))); }
.q-header :is(.q-site-tabs > a[aria-current=page], .q-site-tabs > details.q-current > summary) { color: var(--q-header-fg, var(--q-preset-header-fg, var(--q-fg))); }
/* Theme presets (styling.theme), set once a site is customized. clean: translucent header, minimal lines. */
[data-style-theme=clean] .q-header { --q-preset-header-bg: color-mix(in srgb, var(--q-bg) 78%, transparent); backdrop-filter: saturate(180%) blur(12px); -webkit-backdrop-filter: saturate(180%) blur(12px); border-bottom-color: color-mix(in srgb, var(--q-border) 60%, transparent); }
[data-style-theme=clean] .q-sidebar ul ul { border-left-color: color-mix(in srgb, var(--q-border) 60%, transparent); }
/* muted: lower contrast; header and sidebar on one soft, tinted surface. */
/* The content's stylesheet comes after this one and sets --q-text on :root: these rules are more specific. */
:root[data-style-theme=muted] { --q-fg: color-mix(in srgb, #1f2328 82%, var(--q-bg)); --q-text: var(--q-fg); --q-panel: color-mix(in srgb, var(--q-tint, var(--q-accent)) 6%, var(--q-bg)); }
:root[data-style-theme=muted][data-theme=dark] { --q-fg: color-mix(in srgb, #e6edf3 80%, var(--q-bg)); --q-text: var(--q-fg); }
@media (prefers-color-scheme: dark) { :root[data-style-theme=muted]:not([data-theme=light]) { --q-fg: color-mix(in srgb, #e6edf3 80%, var(--q-bg)); --q-text: var(--q-fg); } }
[data-style-theme=muted] body { background: color-mix(in srgb, var(--q-tint, var(--q-accent)) 3%, var(--q-bg)); }
[data-style-theme=muted] .q-header { --q-preset-header-bg: var(--q-panel); border-bottom-color: transparent; }
[data-style-theme=muted] .q-sidebar a[aria-current=page] { background: color-mix(in srgb, var(--q-accent) 10%, transparent); font-weight: 550; }
[data-style-theme=muted] .q-footer { border-top-color: transparent; background: var(--q-panel); }
[data-style-theme=muted] .q-search input { background: var(--q-bg); border-color: transparent; }
/* bold: the header in the primary color, strong contrasts, the current page as a solid pill. */
[data-style-theme=bold] .q-header { --q-preset-header-bg: var(--q-accent); --q-preset-header-fg: var(--q-accent-text, #fff); border-bottom: 0; }
[data-style-theme=bold] .q-header .q-search input, [data-style-theme=bold] .q-header .q-theme, [data-style-theme=bold] .q-header .q-picker > summary, [data-style-theme=bold] .q-header .q-nav-button { background: color-mix(in srgb, var(--q-header-fg, var(--q-accent-text, #fff)) 16%, transparent); border-color: color-mix(in srgb, var(--q-header-fg, var(--q-accent-text, #fff)) 30%, transparent); color: var(--q-header-fg, var(--q-accent-text, #fff)); }
[data-style-theme=bold] .q-header .q-search input::placeholder { color: color-mix(in srgb, var(--q-header-fg, var(--q-accent-text, #fff)) 75%, transparent); }
[data-style-theme=bold] .q-header .q-site-tabs > a[aria-current=page], [data-style-theme=bold] .q-header .q-site-tabs details.q-current > summary { border-bottom-color: var(--q-header-fg, var(--q-accent-text, #fff)); }
[data-style-theme=bold]:not([data-header-colors]) .q-header .q-button-primary { background: var(--q-accent-text, #fff); color: var(--q-accent); border-color: transparent; }
[data-style-theme=bold]:not([data-header-colors]) .q-header .q-button-secondary { color: var(--q-accent-text, #fff); border-color: currentColor; }
[data-style-theme=bold] .q-sidebar a[aria-current=page] { background: var(--q-accent); color: var(--q-accent-text, #fff); }
[data-style-theme=bold] .q-page-title { font-weight: 800; letter-spacing: -.01em; }
/* gradient: the header and the top of the page washed with the primary and tint colors. */
[data-style-theme=gradient] .q-header { --q-preset-header-bg: linear-gradient(90deg, color-mix(in srgb, var(--q-accent) 20%, var(--q-bg)), color-mix(in srgb, var(--q-tint, var(--q-accent)) 20%, var(--q-bg))); border-bottom-color: transparent; }
[data-style-theme=gradient] body { background: radial-gradient(48rem 22rem at 8% 0, color-mix(in srgb, var(--q-accent) 14%, transparent), transparent 70%), radial-gradient(40rem 20rem at 92% 0, color-mix(in srgb, var(--q-tint, var(--q-accent)) 14%, transparent), transparent 70%), var(--q-bg); background-repeat: no-repeat; }
[data-style-theme=gradient] .q-sidebar a[aria-current=page] { background: linear-gradient(90deg, color-mix(in srgb, var(--q-accent) 22%, transparent), color-mix(in srgb, var(--q-tint, var(--q-accent)) 12%, transparent)); }
[data-style-theme=gradient] .q-page-title { background: linear-gradient(90deg, var(--q-accent), var(--q-tint, var(--q-accent))); -webkit-background-clip: text; background-clip: text; color: transparent; }
@media (max-width: 1100px) { .q-layout { grid-template-columns: 15rem minmax(0, 1fr); } .q-outline { display: none; } .q-main.q-wide { grid-column: 2; } }
@media (max-width: 760px) {
  .q-layout { display: block; }
  .q-nav-button { display: inline-block; font-size: .9rem; border: 1px solid var(--q-border); border-radius: 6px; padding: .25rem .6rem; cursor: pointer; }
  .q-sidebar { display: none; position: static; max-height: none; border-bottom: 1px solid var(--q-border); }
  .q-nav-toggle:checked ~ .q-layout .q-sidebar { display: block; }
  .q-search input { width: 8rem; }
  .q-search { position: static; } .q-search-results { top: 100%; left: .5rem; right: .5rem; width: auto; }
  .q-page-title { font-size: 1.7rem; }
  .q-header-row { gap: .5rem; flex-wrap: wrap; padding: .4rem 1rem; }
  .q-pickers { order: 5; }
}
@media print { .q-header, .q-sidebar, .q-outline, .q-pagination, .q-page-actions, .q-feedback { display: none; } .q-layout { display: block; } }
`;

/**
 * What must hold before the page is first painted, inline in <head> (allowed by its hash in the
 * site's Content-Security-Policy, site.routes.ts): the `q-js` class, the theme the reader chose and
 * a dismissed announcement hidden. Everything else is site.js, loaded `defer`, which does not hold
 * up the first paint.
 */
export const SITE_HEAD_JS = `(function(){var r=document.documentElement;r.classList.add("q-js");var s=null;if(r.getAttribute("data-theme-toggle")!=="off"){try{s=localStorage.getItem("quire-theme");}catch(e){}}if(s==="dark"||s==="light")r.setAttribute("data-theme",s);var a=r.getAttribute("data-announcement");if(a){try{if(localStorage.getItem("quire-announcement-dismissed")===a)r.classList.add("q-ann-hidden");}catch(e){}}})();`;
/** The CSP source that admits SITE_HEAD_JS and no other inline script. */
export const SITE_HEAD_JS_HASH = `'sha256-${createHash("sha256").update(SITE_HEAD_JS).digest("base64")}'`;

/**
 * The header's search box made a combobox, with search.js (SEARCH_JS: instant search and Ask)
 * fetched when the reader comes to it; Ctrl+K, Cmd+K or "/" focus the box (without script the box
 * submits to the search page); theme toggle (remembered per browser), closing open menus (a click
 * outside, Escape), "Copy page as Markdown" (fetches the page's .md into the clipboard), and the sidebar's branch toggles (a
 * collapsed branch's children are fetched once; if that fails, its link is followed). Everything
 * works without it: then there are no toggles and a branch opens by following its link.
 */
const SITE_JS = `(function(){
var root=document.documentElement;
function current(){var t=root.getAttribute("data-theme");if(t)return t;return matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light";}
document.addEventListener("DOMContentLoaded",function(){
  var b=document.querySelector(".q-theme");
  if(b){b.hidden=false;b.addEventListener("click",function(){var next=current()==="dark"?"light":"dark";root.setAttribute("data-theme",next);try{localStorage.setItem("quire-theme",next);}catch(e){}});}
  var a=document.querySelector(".q-announcement[data-dismiss]");
  if(a){var c=document.createElement("button");c.type="button";c.className="q-announcement-close";c.setAttribute("aria-label","Dismiss the announcement");c.textContent="\u00d7";a.querySelector("p").appendChild(c);
    c.addEventListener("click",function(){root.classList.add("q-ann-hidden");try{localStorage.setItem("quire-announcement-dismissed",a.getAttribute("data-dismiss"));}catch(e){}});}
  if(root.getAttribute("data-external-links")==="blank")document.querySelectorAll(".q-body a[href]").forEach(function(l){if(/^https?:$/.test(l.protocol)&&l.origin!==location.origin){l.target="_blank";l.rel="noopener noreferrer";}});
  document.addEventListener("click",function(e){document.querySelectorAll("details.q-menu[open]").forEach(function(d){if(!d.contains(e.target))d.removeAttribute("open");});});
  document.addEventListener("keydown",function(e){if(e.key!=="Escape")return;document.querySelectorAll("details.q-menu[open]").forEach(function(d){var had=d.contains(document.activeElement);d.removeAttribute("open");var s=d.querySelector("summary");if(had&&s)s.focus();});});
  document.querySelectorAll(".q-action-copy").forEach(function(b){
    if(!navigator.clipboard)return;
    var label=b.textContent;b.hidden=false;
    var say=function(text){b.textContent=text;setTimeout(function(){b.textContent=label;},2000);};
    b.addEventListener("click",function(){
      var text=fetch(b.getAttribute("data-markdown"),{credentials:"same-origin"}).then(function(r){if(!r.ok)throw new Error(String(r.status));return r.text();});
      var write=window.ClipboardItem&&navigator.clipboard.write
        ?navigator.clipboard.write([new ClipboardItem({"text/plain":text.then(function(t){return new Blob([t],{type:"text/plain"});})})]).catch(function(){return text.then(function(t){return navigator.clipboard.writeText(t);});})
        :text.then(function(t){return navigator.clipboard.writeText(t);});
      write.then(function(){say("Copied");},function(){say("Copy failed");});
    });
  });
  var nav=document.querySelector(".q-sidebar[data-nav]");
  if(nav){
    var listOf=function(li){for(var c=li.lastElementChild;c;c=c.previousElementSibling)if(c.tagName==="UL")return c;return null;};
    var addToggles=function(scope){scope.querySelectorAll("li[data-branch]").forEach(function(li){
      var a=li.firstElementChild;if(!a||a.tagName!=="A"||li.querySelector(":scope > .q-nav-expand"))return;
      var t=document.createElement("button");t.type="button";t.className="q-nav-expand";
      t.setAttribute("aria-label","Pages under "+a.textContent);
      var open=li.classList.contains("q-open");t.setAttribute("aria-expanded",open?"true":"false");
      var list=listOf(li);if(list)t.setAttribute("aria-controls",list.id);
      a.insertAdjacentElement("afterend",t);
    });};
    addToggles(nav);
    nav.addEventListener("click",function(e){
      var t=e.target&&e.target.closest?e.target.closest(".q-nav-expand"):null;if(!t)return;
      var li=t.parentElement,list=listOf(li);
      var show=function(open){t.setAttribute("aria-expanded",open?"true":"false");li.classList.toggle("q-open",open);if(list)list.hidden=!open;};
      if(t.getAttribute("aria-expanded")==="true")return show(false);
      if(list)return show(true);
      if(t.getAttribute("aria-busy")==="true")return;
      t.setAttribute("aria-busy","true");
      var link=li.firstElementChild;
      fetch(nav.getAttribute("data-nav")+"?page="+encodeURIComponent(link.getAttribute("href")),{credentials:"same-origin"})
        .then(function(r){if(!r.ok)throw new Error(String(r.status));return r.text();})
        .then(function(text){
          li.insertAdjacentHTML("beforeend",text);list=listOf(li);addToggles(list);
          t.removeAttribute("aria-busy");t.setAttribute("aria-controls",list.id);show(true);
        })
        .catch(function(){t.removeAttribute("aria-busy");location.href=link.href;});
    });
  }
  var form=document.querySelector(".q-search[data-suggest]"),input=form&&form.querySelector("input[name=q]");
  if(input){
    var box=document.createElement("div");box.id="q-search-results";box.className="q-search-results";box.setAttribute("role","listbox");box.setAttribute("aria-label","Search results");box.hidden=true;
    var said=document.createElement("div");said.className="q-search-status";said.setAttribute("role","status");
    form.appendChild(box);form.appendChild(said);
    input.setAttribute("role","combobox");input.setAttribute("aria-autocomplete","list");input.setAttribute("aria-expanded","false");input.setAttribute("aria-controls",box.id);input.setAttribute("autocomplete","off");
    // The results' behaviour (search.js) is fetched when the reader comes to the box (focus, pointer,
    // Ctrl+K or "/"): a reader who never searches does not download it. Its roles are set here, now.
    var script=form.getAttribute("data-script"),loading=false;
    var load=function(){if(loading||!script)return;loading=true;var s=document.createElement("script");s.src=script;s.async=true;document.head.appendChild(s);};
    form.addEventListener("focusin",load);form.addEventListener("pointerenter",load);form.addEventListener("touchstart",load,{passive:true});
    if(document.activeElement===input)load();
    document.addEventListener("keydown",function(e){
      var t=e.target,typing=t&&(t.isContentEditable||/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if(((e.key==="k"||e.key==="K")&&(e.ctrlKey||e.metaKey)&&!e.altKey)||(e.key==="/"&&!typing&&!e.ctrlKey&&!e.metaKey&&!e.altKey)){
        if(t===input&&e.key==="/")return;e.preventDefault();input.focus();input.select();}
    });
  }
  var cur=document.querySelector(".q-sidebar a[aria-current=page]");
  // Measured in the next frame, once the page is laid out anyway: measuring now would force a layout of the whole page.
  if(cur&&cur.scrollIntoView)requestAnimationFrame(function(){var s=document.querySelector(".q-sidebar");if(s&&cur.offsetTop>s.clientHeight)s.scrollTop=cur.offsetTop-s.clientHeight/3;});
  var menu=document.getElementById("q-nav-toggle");
  if(menu&&cur)menu.addEventListener("change",function(){if(menu.checked)cur.scrollIntoView({block:"center"});});
});
})();`;

/**
 * Instant search and Ask, loaded by site.js when the reader comes to the header's box (it has
 * made the box a combobox and added its list and status): results from `~quire/search.json` as the
 * reader types; arrows choose, Enter opens, Escape closes; "Ask" streams an answer from
 * `~quire/ask`. Without it the box submits to the search page.
 */
const SEARCH_JS = `(function(){
  var form=document.querySelector(".q-search[data-suggest]"),input=form&&form.querySelector("input[name=q]");
  var box=document.getElementById("q-search-results"),said=form&&form.querySelector(".q-search-status");
  if(!input||!box||!said||form.hasAttribute("data-search-ready"))return;
  form.setAttribute("data-search-ready","");
    var timer=0,asked=0,shownFor=null,options=[],active=-1;
    var open=function(on){box.hidden=!on;input.setAttribute("aria-expanded",on?"true":"false");if(!on)pick(-1);};
    var pick=function(i){active=i;options.forEach(function(o,j){o.setAttribute("aria-selected",j===i?"true":"false");});
      if(i>=0){input.setAttribute("aria-activedescendant",options[i].id);options[i].scrollIntoView({block:"nearest"});}else input.removeAttribute("aria-activedescendant");};
    var marked=function(text,marks){var f=document.createDocumentFragment(),at=0;
      (marks||[]).forEach(function(m){if(m[0]<at)return;f.appendChild(document.createTextNode(text.slice(at,m[0])));var k=document.createElement("mark");k.textContent=text.slice(m[0],m[1]);f.appendChild(k);at=m[1];});
      f.appendChild(document.createTextNode(text.slice(at)));return f;};
    var span=function(cls,content){var s=document.createElement("span");s.className=cls;if(typeof content==="string")s.textContent=content;else s.appendChild(content);return s;};
    var show=function(q,data){box.textContent="";options=[];active=-1;shownFor=q;
      data.results.forEach(function(r){
        var sections=r.sections.length?r.sections.slice(0,2):[{title:"",href:r.href,snippet:"",marks:[]}];
        sections.forEach(function(s){
          var a=document.createElement("a");a.href=s.href;a.id="q-search-option-"+options.length;a.setAttribute("role","option");a.setAttribute("aria-selected","false");a.tabIndex=-1;
          var title=span("q-search-title",r.title);
          if(s.title&&s.title!==r.title){title.appendChild(document.createTextNode(" \u203a "));title.appendChild(span("q-search-section",s.title));}
          a.appendChild(title);
          if(r.path.length)a.appendChild(span("q-search-path",r.path.join(" / ")));
          if(s.snippet)a.appendChild(span("q-search-snippet",marked(s.snippet,s.marks)));
          box.appendChild(a);options.push(a);
        });
      });
      askOption(q);
      said.textContent=data.results.length?data.results.length+(data.results.length===1?" result":" results")+", use the arrow keys to choose":"No results for \u201c"+q+"\u201d";
      open(options.length>0);};
    var askUrl=form.getAttribute("data-ask"),source=null;
    // The answer's Markdown shown as text: bold runs bold, escapes undone; nothing from it becomes markup.
    var answerText=function(el,md){el.textContent="";md.split(/\\*\\*(.+?)\\*\\*/).forEach(function(part,i){var t=part.replace(/\\\\(.)/g,"$1");
      if(i%2){var b=document.createElement("strong");b.textContent=t;el.appendChild(b);}else el.appendChild(document.createTextNode(t));});};
    var askNow=function(q){if(source){source.close();source=null;}
      box.textContent="";options=[];active=-1;shownFor=null;
      var panel=document.createElement("div");panel.className="q-ask";panel.setAttribute("aria-busy","true");panel.setAttribute("aria-live","polite");
      var head=document.createElement("p");head.className="q-ask-question";head.textContent=q;
      var text=document.createElement("p");text.className="q-ask-text";var md="";
      panel.appendChild(head);panel.appendChild(text);box.appendChild(panel);open(true);said.textContent="Answering…";
      source=new EventSource(askUrl+"?q="+encodeURIComponent(q));
      source.addEventListener("text",function(e){md+=JSON.parse(e.data).text;answerText(text,md);});
      source.addEventListener("answer",function(e){var a=JSON.parse(e.data);answerText(text,a.markdown);
        if(a.citations.length){var ol=document.createElement("ol");ol.className="q-ask-sources";
          a.citations.forEach(function(c){var li=document.createElement("li"),l=document.createElement("a");l.href=c.href;
            l.textContent=c.section&&c.section!==c.title?c.title+" \u203a "+c.section:c.title;li.appendChild(l);ol.appendChild(li);});
          panel.appendChild(ol);}
        said.textContent=a.answered?"Answer ready, with "+a.citations.length+" sources":"The documentation does not answer this question";});
      var end=function(){panel.removeAttribute("aria-busy");if(source){source.close();source=null;}};
      source.addEventListener("done",end);
      source.addEventListener("error",function(e){if(e.data){try{text.textContent=JSON.parse(e.data).error.message;}catch(_){}}
        else if(!md)text.textContent="The answer could not be loaded; try again.";end();});};
    var askOption=function(q){if(!askUrl)return;var a=document.createElement("a");a.href=askUrl+"?q="+encodeURIComponent(q);
      a.id="q-search-option-"+options.length;a.className="q-ask-option";a.setAttribute("role","option");a.setAttribute("aria-selected","false");a.tabIndex=-1;
      a.textContent="Ask \u201c"+q+"\u201d";a.addEventListener("click",function(e){e.preventDefault();e.stopPropagation();askNow(q);});
      box.appendChild(a);options.push(a);};
    var ask=function(){var q=input.value.trim();
      if(q.length<2){asked++;shownFor=null;box.textContent="";options=[];open(false);return;}
      if(q===shownFor){open(options.length>0);return;}
      var mine=++asked;
      fetch(form.getAttribute("data-suggest")+"?q="+encodeURIComponent(q),{credentials:"same-origin",headers:{accept:"application/json"}})
        .then(function(r){return r.json().then(function(body){return {ok:r.ok,body:body};});})
        .then(function(res){if(mine!==asked)return;
          if(!res.ok){box.textContent="";options=[];shownFor=null;open(false);said.textContent=res.body&&res.body.error?res.body.error.message:"Search failed";return;}
          show(q,res.body);})
        .catch(function(){if(mine===asked)open(false);});};
    input.addEventListener("input",function(){clearTimeout(timer);timer=setTimeout(ask,150);});
    input.addEventListener("focus",function(){if(options.length&&input.value.trim()===shownFor)open(true);});
    input.addEventListener("keydown",function(e){
      if(e.key==="ArrowDown"||e.key==="ArrowUp"){if(!options.length)return;e.preventDefault();if(box.hidden){open(true);}
        var n=options.length;pick(e.key==="ArrowDown"?(active+1)%n:(active<=0?n-1:active-1));}
      else if(e.key==="Enter"){if(!box.hidden&&active>=0){e.preventDefault();if(options[active].className==="q-ask-option")askNow(input.value.trim());else location.href=options[active].href;}}
      else if(e.key==="Escape"){if(!box.hidden){e.preventDefault();e.stopPropagation();open(false);}}
    });
    document.addEventListener("click",function(e){if(!form.contains(e.target))open(false);});
    // What was typed before this script arrived (the box kept it) is searched now; the query a results page shows is not.
    if(document.activeElement===input&&input.value.trim()!==input.defaultValue.trim())ask();
})();`;

export interface Asset {
  /** Fingerprinted file name, as served. */
  file: string;
  contentType: string;
  body: Buffer;
}

const hashOf = (...bodies: Buffer[]) => {
  const hash = createHash("sha256");
  for (const body of bodies) hash.update(body);
  return hash.digest("hex").slice(0, 12);
};

/** `name.<hash>.ext` for a file at the top; for a file in a directory, the directory carries the hash. */
function fingerprintedName(name: string, hash: string): string {
  const slash = name.indexOf("/");
  if (slash > 0) return `${name.slice(0, slash)}.${hash}${name.slice(slash)}`;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}.${hash}${name.slice(dot)}` : `${name}.${hash}`;
}

/** The readable stylesheets and scripts sent minified (the others, KaTeX's and mermaid's, come minified). */
const MINIFIED = new Set(["site.css", "site.js", "search.js", "content.css", "content.js"]);
const minifiedMemo = new Map<string, Buffer>();

/**
 * `body` minified by esbuild (whitespace, comments, local names): on every first visit the site's
 * and the renderer's own files weigh ~2 KB less compressed (content.js 2.2 -> 1.5 KB brotli,
 * content.css 4.5 -> 3.8 KB). Once per process and content; on a failure the file goes as written.
 */
function minified(name: string, body: Buffer): Buffer {
  if (!MINIFIED.has(name)) return body;
  const key = `${name}|${hashOf(body)}`;
  const known = minifiedMemo.get(key);
  if (known) return known;
  let out = body;
  try {
    const loader = name.endsWith(".css") ? "css" : "js";
    out = Buffer.from(transformSync(body.toString("utf8"), { loader, minify: true, legalComments: "none" }).code);
  } catch {
    // The file as written still works.
  }
  minifiedMemo.set(key, out);
  return out;
}

export interface SiteAssets {
  /** Fingerprinted name of each asset by its plain name (`site.css` -> `site.3f2a….css`). */
  names: Map<string, string>;
  /** Assets by fingerprinted name. */
  files: Map<string, Asset>;
}

/**
 * The site's assets plus those the content renderer lists (read once, kept in memory). Files in a
 * directory (KaTeX's stylesheet and the fonts it loads by relative URL) are fingerprinted by their
 * directory (`katex.<hash>/fonts/…`, the hash over every file of it), so relative references hold.
 */
export function buildSiteAssets(extra: ReadonlyArray<{ name: string; path: string; contentType: string }> = []): SiteAssets {
  const names = new Map<string, string>();
  const files = new Map<string, Asset>();
  const all = [
    { name: "site.css", body: minified("site.css", Buffer.from(SITE_CSS)), contentType: "text/css; charset=utf-8" },
    { name: "site.js", body: minified("site.js", Buffer.from(SITE_JS)), contentType: "text/javascript; charset=utf-8" },
    { name: "search.js", body: minified("search.js", Buffer.from(SEARCH_JS)), contentType: "text/javascript; charset=utf-8" },
    ...extra.map((a) => ({ name: a.name, body: minified(a.name, readFileSync(a.path)), contentType: a.contentType })),
  ];
  const directories = new Map<string, Buffer[]>();
  for (const asset of all) {
    const slash = asset.name.indexOf("/");
    if (slash > 0) {
      const dir = asset.name.slice(0, slash);
      directories.set(dir, [...(directories.get(dir) ?? []), Buffer.from(asset.name), asset.body]);
    }
  }
  const directoryHashes = new Map([...directories].map(([dir, bodies]) => [dir, hashOf(...bodies)]));
  for (const asset of all) {
    const slash = asset.name.indexOf("/");
    const hash = slash > 0 ? (directoryHashes.get(asset.name.slice(0, slash)) as string) : hashOf(asset.body);
    const file = fingerprintedName(asset.name, hash);
    names.set(asset.name, file);
    files.set(file, { file, contentType: asset.contentType, body: asset.body });
  }
  return { names, files };
}
