/**
 * The customization a published site shows (sites/customization.model.ts checks it), resolved once per
 * view of the site (site.loader.ts rebuilds the view when a customization changes): the site's
 * settings and each site space's, with what the layout needs precomputed (the CSS of its colors, the
 * announcement's id). The parts of the page it draws (logo, header links, announcement, footer)
 * are here too; every user-provided string goes through `html`, which escapes it.
 */
import { createHash } from "node:crypto";
import { emojiCharacter } from "../../content/document/loose.js";
import { html, raw, type SafeHtml, safeLinkUrl } from "../../content/html/index.js";
import type { SiteRow } from "../../db/schema.js";
import { applyOverride, parseCustomization, parseOverride } from "../../modules/sites/customization.model.js";
import type { ContentRefValue, SiteCustomization } from "../../modules/sites/customization.schemas.js";
import type { SiteModel } from "../../modules/sites/structure.model.js";
import { conditionHolds } from "./reader.model.js";
import type { LayoutContext } from "./site-context.model.js";
import type { ResolvedCustomization, SiteCustomizations } from "./site-customization.model.js";
import { pageHref, siteHref } from "./site-urls.paths.js";
import { readablePage, type VariantView, visibleVariants } from "./site-view.model.js";

export type { ResolvedCustomization, SiteCustomizations } from "./site-customization.model.js";

/** Quire's dark background, which the tint is mixed into (site-assets.ts). */
const LIGHT_BG = "#ffffff";
const DARK_BG = "#0d1117";

/** A checked hex color (`#rgb` or `#rrggbb`) as its three channels, 0 to 255. */
function rgbOf(hex: string): [number, number, number] {
  const value = hex.replace("#", "");
  const full = value.length === 3 ? [...value].map((c) => c + c).join("") : value.slice(0, 6);
  return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance of sRGB channels (0 to 255). */
function luminanceOf(rgb: readonly number[]): number {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
export function textOn(hex: string): "#000000" | "#ffffff" {
  // The luminance where black and white have the same contrast ratio.
  return luminanceOf(rgbOf(hex)) > 0.179 ? "#000000" : "#ffffff";
}

/** WCAG AA's 4.5:1 for text, with a margin for the rounding of colors a browser mixes. */
const READABLE = 4.6;

const contrastOf = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const hexOf = (rgb: readonly number[]) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;

/**
 * `color`, or where it is too close to `background` to read as text (under WCAG AA's 4.5:1: GitBook's
 * default primary #346DDB on Quire's dark background is 3.9:1), the least mix of it with white (on
 * a dark background) or black (on a light one) that reads.
 */
export function readableOn(color: string, background: string): string {
  const bg = luminanceOf(rgbOf(background));
  const rgb = rgbOf(color);
  if (contrastOf(luminanceOf(rgb), bg) >= READABLE) return color;
  const toward = bg < 0.179 ? 255 : 0;
  for (let share = 2; share <= 100; share += 2) {
    const mixed = rgb.map((v) => v + ((toward - v) * share) / 100);
    if (contrastOf(luminanceOf(mixed), bg) >= READABLE) return hexOf(mixed);
  }
  return toward === 255 ? "#ffffff" : "#000000";
}

/**
 * How much of the tint (percent, at most `most`) goes into the current page's highlight in the
 * sidebar, mixed into the background as CSS `color-mix(in srgb, …)` does: as much as keeps the
 * primary color, its text, readable on it (WCAG AA, 4.5:1); none when even the plain background
 * cannot (a primary too close to it).
 */
function highlightShare(primary: string, tint: string, background: string, most: number): number {
  const text = luminanceOf(rgbOf(primary));
  const [t, b] = [rgbOf(tint), rgbOf(background)];
  for (let share = most; share > 0; share--) {
    const mixed = luminanceOf(t.map((v, i) => (v * share + (b[i] as number) * (100 - share)) / 100));
    if (contrastOf(text, mixed) >= READABLE) return share;
  }
  return 0;
}

function colorStyle(settings: SiteCustomization): string {
  const { primaryColor, tint, infoColor, successColor, warningColor, dangerColor } = settings.styling;
  // Links and the current page are written in the primary color, made readable on the page's background.
  const link = { light: readableOn(primaryColor.light, LIGHT_BG), dark: readableOn(primaryColor.dark, DARK_BG) };
  const { backgroundColor, linkColor } = settings.header;
  const tintColor = tint?.color ?? primaryColor;
  const rest = (mode: "light" | "dark") =>
    `--q-info:${infoColor[mode]};--q-success:${successColor[mode]};--q-warning:${warningColor[mode]};--q-danger:${dangerColor[mode]};--q-accent-text:${textOn(primaryColor[mode])};${
      backgroundColor ? `--q-header-bg:${backgroundColor[mode]};--q-header-fg:${linkColor?.[mode] ?? textOn(backgroundColor[mode])};` : ""
    }${!backgroundColor && linkColor ? `--q-header-fg:${linkColor[mode]};` : ""}`;
  // Colors are checked hex values (customization.schemas.ts), so they are safe inside a <style>.
  const light = `--q-accent:${primaryColor.light};--q-link:${link.light};--q-tint:${tintColor.light};--q-accent-bg:color-mix(in srgb,${tintColor.light} ${highlightShare(link.light, tintColor.light, LIGHT_BG, 14)}%,${LIGHT_BG});${rest("light")}`;
  const dark = `--q-accent:${primaryColor.dark};--q-link:${link.dark};--q-tint:${tintColor.dark};--q-accent-bg:color-mix(in srgb,${tintColor.dark} ${highlightShare(link.dark, tintColor.dark, DARK_BG, 24)}%,${DARK_BG});${rest("dark")}`;
  return `:root{${light}}@media (prefers-color-scheme: dark){:root:not([data-theme=light]){${dark}}}:root[data-theme=dark]{${dark}}${fontStyle(settings)}`;
}

/** CSS names of GitBook's built-in fonts. Quire serves no font files: a reader's device shows the font when it has it, else the next in the stack. */
const FONT_NAMES: Record<string, string> = {
  ABCFavorit: "ABC Favorit",
  RobotoSlab: "Roboto Slab",
  OpenSans: "Open Sans",
  SourceSansPro: "Source Sans Pro",
  NotoSans: "Noto Sans",
  IBMPlexSerif: "IBM Plex Serif",
  FiraSans: "Fira Sans",
  FiraCode: "Fira Code",
  IBMPlexMono: "IBM Plex Mono",
  JetBrainsMono: "JetBrains Mono",
  SourceCodePro: "Source Code Pro",
  RobotoMono: "Roboto Mono",
  SpaceMono: "Space Mono",
  DMMono: "DM Mono",
};
const SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const MONO = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, monospace';

/** A string safe inside CSS double quotes and a <style> element. */
const cssString = (value: string) => `"${value.replace(/["\\<>\n\r\f]/g, "")}"`;

type FontSetting = SiteCustomization["styling"]["font"] | SiteCustomization["styling"]["monospaceFont"];

/** The family name of a font setting, and the @font-face rules of a font of one's own (its files at the given http(s) URLs). */
function fontOf(font: FontSetting): { family: string; faces: string } {
  if (typeof font === "string") return { family: cssString(FONT_NAMES[font] ?? font), faces: "" };
  const family = cssString(font.fontFamily);
  const faces = font.fontFaces
    .map((face) => {
      const sources = face.sources
        .map((source) => `url(${cssString(new URL(source.url).href)})${source.format ? ` format("${source.format}")` : ""}`)
        .join(",");
      return `@font-face{font-family:${family};font-weight:${face.weight};font-display:swap;src:${sources}}`;
    })
    .join("");
  return { family, faces };
}

function fontStyle(settings: SiteCustomization): string {
  const { font, monospaceFont } = settings.styling;
  const text = fontOf(font);
  const mono = fontOf(monospaceFont);
  return `${text.faces}${mono.faces}body{font-family:${text.family},${SANS}}.q-content code,.q-content pre,.q-code-inline,.q-content kbd{font-family:${mono.family},${MONO}}`;
}

function resolve(settings: SiteCustomization, fallbackTitle: string, customized: boolean): ResolvedCustomization {
  const announcement = settings.announcement;
  return {
    settings,
    title: settings.title ?? fallbackTitle,
    customized,
    style: customized ? colorStyle(settings) : "",
    announcementId: announcement
      ? createHash("sha256")
          .update(JSON.stringify([announcement.message, announcement.link ?? null, announcement.style]))
          .digest("base64url")
          .slice(0, 12)
      : "",
  };
}

export function resolveCustomizations(site: SiteRow, model: SiteModel): SiteCustomizations {
  const siteSettings = parseCustomization(site.customization);
  const siteResolved = resolve(siteSettings, site.title, site.customization !== null);
  const variants = new Map<string, ResolvedCustomization>();
  for (const siteSpace of model.siteSpaces) {
    if (!siteSpace.customization) {
      variants.set(siteSpace.id, siteResolved);
      continue;
    }
    variants.set(siteSpace.id, resolve(applyOverride(siteSettings, parseOverride(siteSpace.customization)), site.title, true));
  }
  return { site: siteResolved, variants };
}

/** The customization of what this request shows: its variant's, else the site's. */
export function customizationOf(ctx: Pick<LayoutContext, "view" | "variant">): ResolvedCustomization {
  return (ctx.variant && ctx.view.customization.variants.get(ctx.variant.siteSpace.id)) ?? ctx.view.customization.site;
}

// Links.

interface ResolvedLink {
  href: string;
  external: boolean;
}

function variantOfSpace(ctx: LayoutContext, spaceId: string | undefined): VariantView | undefined {
  if (!spaceId || spaceId === ctx.variant?.siteSpace.spaceId) return ctx.variant;
  return visibleVariants(ctx.view, ctx.reader).find((v) => v.siteSpace.spaceId === spaceId);
}

/** Where a link of the customization leads for this reader; undefined when they cannot follow it (the link is left out). */
export function resolveLink(ctx: LayoutContext, ref: ContentRefValue | null | undefined): ResolvedLink | undefined {
  if (!ref) return undefined;
  switch (ref.kind) {
    case "url": {
      const href = safeLinkUrl(ref.url);
      return href ? { href, external: /^https?:/i.test(href) } : undefined;
    }
    case "page":
    case "anchor": {
      const anchor = ref.kind === "anchor" && ref.anchor ? `#${encodeURIComponent(ref.anchor)}` : "";
      if (ref.kind === "anchor" && !ref.page) return { href: anchor, external: false };
      const target = variantOfSpace(ctx, ref.space);
      if (!target || !ref.page || !readablePage(target, ref.page, ctx.reader, false)) return undefined;
      return { href: `${pageHref(ctx, target, ref.page)}${anchor}`, external: false };
    }
    case "space": {
      const target = visibleVariants(ctx.view, ctx.reader).find((v) => v.siteSpace.spaceId === ref.space);
      return target ? { href: siteHref(ctx, target.segments.join("/")), external: false } : undefined;
    }
    default:
      return undefined;
  }
}

function anchor(ctx: LayoutContext, link: ResolvedLink, content: SafeHtml | string, className = ""): SafeHtml {
  const blank = link.external && customizationOf(ctx).settings.externalLinks.target === "blank";
  return html`<a${className ? html` class="${className}"` : ""} href="${link.href}"${blank ? raw(' target="_blank" rel="noopener noreferrer"') : ""}>${content}</a>`;
}

// Parts of the page.

/** A themed image: the light one, and the dark one shown instead in the dark theme. */
function themedImage(urls: { light: string; dark: string }, alt: string, className: string): SafeHtml {
  if (urls.light === urls.dark) return html`<img class="${className}" src="${urls.light}" alt="${alt}">`;
  return html`<img class="${className} q-only-light" src="${urls.light}" alt="${alt}"><img class="${className} q-only-dark" src="${urls.dark}" alt="${alt}">`;
}

/** The header's title: the logo when there is one (its alt text is the title), else the title. */
export function headerTitle(ctx: LayoutContext, href: string): SafeHtml {
  const custom = customizationOf(ctx);
  const logo = custom.settings.header.logo;
  if (logo) return html`<a class="q-site-title q-has-logo" href="${href}">${themedImage(logo, custom.title, "q-logo")}</a>`;
  return html`<a class="q-site-title" href="${href}">${custom.title}</a>`;
}

/** The header's links (those whose condition holds for the reader), a link with sub-links as a menu. */
export function headerLinks(ctx: LayoutContext): SafeHtml {
  const items = customizationOf(ctx).settings.header.links.filter((item) => conditionHolds(item.condition, ctx.reader));
  if (items.length === 0) return html``;
  const rendered = items.map((item) => {
    const style = item.style ?? "link";
    const className = style === "link" ? "q-header-link" : `q-header-link q-button q-${style}`;
    const subLinks = item.links.flatMap((link) => {
      const target = resolveLink(ctx, link.to);
      return target ? [html`<li>${anchor(ctx, target, link.title)}</li>`] : [];
    });
    if (subLinks.length > 0) {
      return html`<details class="q-menu q-header-menu"><summary class="${className}">${item.title}</summary><ul>${subLinks}</ul></details>`;
    }
    const target = resolveLink(ctx, item.to);
    return target ? anchor(ctx, target, item.title, className) : html``;
  });
  return html`<nav class="q-header-links" aria-label="Links">${rendered}</nav>`;
}

/** The announcement banner, when enabled; a reader may dismiss it (site.js) unless its style is `danger`. */
export function announcementBanner(ctx: LayoutContext): SafeHtml {
  const custom = customizationOf(ctx);
  const announcement = custom.settings.announcement;
  if (!announcement?.enabled) return html``;
  const target = announcement.link ? resolveLink(ctx, announcement.link.to) : undefined;
  const dismissible = announcement.style !== "danger";
  return html`<div class="q-announcement q-announcement-${announcement.style}" role="region" aria-label="Announcement"${
    dismissible ? html` data-dismiss="${custom.announcementId}"` : ""
  }><p><span>${announcement.message}</span>${
    target && announcement.link ? html` ${anchor(ctx, target, announcement.link.title, "q-announcement-link")}` : ""
  }</p></div>`;
}

/** The footer: logo, groups of links, then the copyright, privacy policy and Quire's mention (the trademark, unless turned off). */
export function footer(ctx: LayoutContext): SafeHtml {
  const custom = customizationOf(ctx);
  const { footer: settings, privacyPolicy } = custom.settings;
  const groups = settings.groups.flatMap((group) => {
    const links = group.links.flatMap((link) => {
      const target = resolveLink(ctx, link.to);
      return target ? [html`<li>${anchor(ctx, target, link.title)}</li>`] : [];
    });
    return links.length ? [html`<div class="q-footer-group"><h2>${group.title}</h2><ul>${links}</ul></div>`] : [];
  });
  const privacy = privacyPolicy.url ? safeLinkUrl(privacyPolicy.url) : undefined;
  const bottom = [
    html`<span class="q-copyright">${settings.copyright ?? custom.title}</span>`,
    ...(privacy ? [anchor(ctx, { href: privacy, external: true }, "Privacy policy", "q-privacy")] : []),
    ...(custom.settings.trademark.enabled ? [html`<span class="q-trademark">Published with Quire</span>`] : []),
  ];
  return html`<footer class="q-footer">${
    settings.logo || groups.length
      ? html`<div class="q-footer-top">${settings.logo ? html`<div class="q-footer-logo">${themedImage(settings.logo, custom.title, "q-logo")}</div>` : ""}${groups}</div>`
      : ""
  }<div class="q-footer-bottom">${bottom.map((part, i) => (i === 0 ? part : html` · ${part}`))}</div></footer>`;
}

/** Tags in <head>: the colors (after every stylesheet, whose defaults they replace), the favicon and the social preview image (the page's own tags are layout.ts's). */
export function customizationHead(ctx: LayoutContext): SafeHtml {
  const custom = customizationOf(ctx);
  const { favicon, socialPreview } = custom.settings;
  const parts: SafeHtml[] = [];
  if (custom.style) parts.push(html`<style>${raw(custom.style)}</style>`);
  if (favicon.icon) {
    parts.push(
      favicon.icon.light === favicon.icon.dark
        ? html`<link rel="icon" href="${favicon.icon.light}">`
        : html`<link rel="icon" href="${favicon.icon.light}" media="(prefers-color-scheme: light)"><link rel="icon" href="${favicon.icon.dark}" media="(prefers-color-scheme: dark)">`,
    );
  } else if (favicon.emoji) {
    const text = emojiCharacter(favicon.emoji).replace(/[<>&"']/g, "");
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text y=".9em" font-size="90">${text}</text></svg>`;
    parts.push(html`<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}">`);
  } else {
    // No icon chosen: the site's initial, so that browsers do not ask the host for /favicon.ico
    // (a 404 in every first visit's console, and a request spent).
    const initial = (/[\p{L}\p{N}]/u.exec(custom.title)?.[0] ?? "").toUpperCase();
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" rx="22" fill="#1f2328"/><text x="50" y="71" font-size="62" font-family="sans-serif" text-anchor="middle" fill="#fff">${initial}</text></svg>`;
    parts.push(html`<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}">`);
  }
  if (socialPreview.url) parts.push(html`<meta property="og:image" content="${socialPreview.url}">`);
  return html`${parts}`;
}

/** Attributes of <html>: the default theme, whether the reader may switch it, where external links open, the announcement. */
export function rootAttributes(ctx: LayoutContext): SafeHtml {
  const custom = customizationOf(ctx);
  const { themes, externalLinks, announcement } = custom.settings;
  const styling = custom.settings.styling;
  // Styles other than the defaults, for site.css's rules (the values are checked enums).
  const styles = custom.customized
    ? html`${styling.corners !== "rounded" ? html` data-corners="${styling.corners}"` : ""}${styling.depth !== "subtle" ? html` data-depth="${styling.depth}"` : ""}${
        styling.links !== "default" ? html` data-links="${styling.links}"` : ""
      }${styling.sidebar.list !== "default" ? html` data-sidebar-list="${styling.sidebar.list}"` : ""}${
        styling.sidebar.background !== "default" ? html` data-sidebar-background="${styling.sidebar.background}"` : ""
      }${styling.search !== "subtle" ? html` data-search="${styling.search}"` : ""}${
        custom.settings.header.backgroundColor ? raw(" data-header-colors") : ""
      }`
    : "";
  return html`${custom.customized ? html` data-theme="${themes.default}" data-style-theme="${styling.theme}"` : ""}${styles}${themes.toggeable ? "" : raw(' data-theme-toggle="off"')}${
    externalLinks.target === "blank" ? raw(' data-external-links="blank"') : ""
  }${announcement?.enabled && announcement.style !== "danger" ? html` data-announcement="${custom.announcementId}"` : ""}`;
}
