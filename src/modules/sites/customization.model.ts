/**
 * Site customization as a value: Quire's defaults, the checks a schema cannot express, how a
 * PUT body becomes the stored settings, and how a site space's overrides apply over its site's.
 * Pure functions: the routes store the results, published sites read them (once per view).
 */
import { invalid } from "../../lib/errors.js";
import type {
  ContentRefValue,
  SiteCustomization,
  SiteSpaceCustomizationOverride,
  UpdateSiteCustomizationBody,
} from "./customization.schemas.js";
import { checkCondition } from "./structure.model.js";

type UpdateBody = import("typebox").Static<typeof UpdateSiteCustomizationBody>;

/** What a site shows until its customization is set (and what a PUT leaves out keeps). */
export const DEFAULT_CUSTOMIZATION: Readonly<SiteCustomization> = Object.freeze({
  styling: {
    theme: "clean",
    primaryColor: { light: "#346DDB", dark: "#346DDB" },
    infoColor: { light: "#787878", dark: "#787878" },
    successColor: { light: "#02A36F", dark: "#02A36F" },
    warningColor: { light: "#D67D00", dark: "#D67D00" },
    dangerColor: { light: "#FB4E4E", dark: "#FB4E4E" },
    corners: "rounded",
    depth: "subtle",
    links: "default",
    font: "Inter",
    monospaceFont: "IBMPlexMono",
    background: "plain",
    icons: "regular",
    sidebar: { background: "default", list: "default" },
    search: "subtle",
  },
  internationalization: { locale: "en" },
  favicon: {},
  header: { preset: "default", links: [] },
  footer: { groups: [] },
  themes: { default: "light", toggeable: true },
  pdf: { enabled: true },
  feedback: { enabled: false },
  ai: { mode: "none" },
  advancedCustomization: { enabled: false },
  // GitBook shows its "Powered by GitBook" mark unless a site turns it off; Quire's mark does the same.
  trademark: { enabled: true },
  externalLinks: { target: "self" },
  pagination: { enabled: true },
  pageActions: { externalAI: false, markdown: true, mcp: false },
  git: { showEditLink: false },
  privacyPolicy: {},
  socialPreview: {},
  insights: { trackingCookie: false },
} satisfies SiteCustomization);

/** Link kinds a published page can turn into an address. */
const LINKABLE_KINDS = new Set(["url", "page", "anchor", "space"]);
const REF_FIELDS: Record<string, readonly string[]> = {
  url: ["url"],
  page: ["page", "space"],
  anchor: ["anchor", "page", "space"],
  space: ["space"],
};
const REQUIRED_FIELD: Record<string, string> = { url: "url", page: "page", anchor: "anchor", space: "space" };

/** An absolute http(s) URL without credentials, or a 400 naming the field. */
export function checkWebUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} "${value}" is not an absolute URL; give one starting with https:// or http://.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw invalid(`${field} must be an http or https URL (got "${url.protocol}").`);
  }
  if (url.username || url.password) throw invalid(`${field} must not hold a user name or password.`);
  return value;
}

/**
 * A link target as stored: a kind a published page can follow, with the fields that kind needs and
 * no others. URLs are http(s) (no credentials), `mailto:`, or a path on this host (`/...`).
 */
function checkRef(ref: ContentRefValue, field: string): ContentRefValue {
  if (!LINKABLE_KINDS.has(ref.kind)) {
    throw invalid(`${field}.kind "${ref.kind}" cannot be a link of a published site; use "url", "page", "anchor" or "space".`);
  }
  const required = REQUIRED_FIELD[ref.kind] as string;
  if ((ref as Record<string, unknown>)[required] === undefined)
    throw invalid(`${field}.${required} is required when kind is "${ref.kind}".`);
  if (ref.kind === "url") {
    const url = ref.url as string;
    if (url.startsWith("/") && !url.startsWith("//")) {
      if (/[\s\\]/.test(url)) throw invalid(`${field}.url "${url}" is not a valid path.`);
    } else if (/^mailto:/i.test(url)) {
      if (/[\s<>"]/.test(url)) throw invalid(`${field}.url "${url}" is not a valid mailto: address.`);
    } else checkWebUrl(url, `${field}.url`);
  }
  const out: Record<string, unknown> = { kind: ref.kind };
  for (const key of REF_FIELDS[ref.kind] ?? []) {
    const value = (ref as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as ContentRefValue;
}

type Link = { title: string; to: ContentRefValue };
const checkLinks = (links: readonly Link[], field: string): Link[] =>
  links.map((link, i) => ({ title: link.title, to: checkRef(link.to, `${field}[${i}].to`) }));

type ThemedUrl = { light: string; dark: string };
const checkThemedUrl = (value: ThemedUrl | undefined | null, field: string) => {
  if (!value) return;
  checkWebUrl(value.light, `${field}.light`);
  checkWebUrl(value.dark, `${field}.dark`);
};

type Font = SiteCustomization["styling"]["font"] | SiteCustomization["styling"]["monospaceFont"];
const checkFont = (font: Font | undefined, field: string) => {
  if (!font || typeof font === "string") return;
  font.fontFaces.forEach((face, i) => {
    face.sources.forEach((source, j) => {
      checkWebUrl(source.url, `${field}.fontFaces[${i}].sources[${j}].url`);
    });
  });
};

type Favicon = SiteCustomization["favicon"];
const checkFavicon = (favicon: Favicon | undefined | null, field: string): Favicon | undefined | null => {
  if (!favicon) return favicon;
  if (favicon.icon && favicon.emoji) throw invalid(`${field} takes either icon or emoji, not both.`);
  checkThemedUrl(favicon.icon, `${field}.icon`);
  return favicon;
};

type Header = SiteCustomization["header"];
const checkHeaderLinks = (links: Header["links"], field: string): Header["links"] =>
  links.map((item, i) => {
    const at = `${field}[${i}]`;
    const condition = item.condition === undefined ? null : checkCondition(item.condition, `${at}.condition`);
    return {
      title: item.title,
      ...(item.style ? { style: item.style } : {}),
      to: item.to === null ? null : checkRef(item.to, `${at}.to`),
      links: checkLinks(item.links, `${at}.links`),
      ...(condition ? { condition } : {}),
    };
  });

type Announcement = NonNullable<SiteCustomization["announcement"]>;
const checkAnnouncement = (announcement: Announcement, field: string): Announcement => ({
  ...announcement,
  ...(announcement.link ? { link: { title: announcement.link.title, to: checkRef(announcement.link.to, `${field}.link.to`) } } : {}),
});

/** The settings a PUT stores: Quire's defaults for the sections left out, every rule checked (400 otherwise). */
export function customizationFromBody(body: UpdateBody): SiteCustomization {
  const out = { ...structuredClone(DEFAULT_CUSTOMIZATION), ...structuredClone(body) } as SiteCustomization;
  if (body.title === undefined) delete out.title;
  checkFont(out.styling.font, "body.styling.font");
  checkFont(out.styling.monospaceFont, "body.styling.monospaceFont");
  checkFavicon(out.favicon, "body.favicon");
  checkThemedUrl(out.header.logo, "body.header.logo");
  out.header.links = checkHeaderLinks(out.header.links, "body.header.links");
  checkThemedUrl(out.footer.logo, "body.footer.logo");
  out.footer.groups = out.footer.groups.map((g, i) => ({ title: g.title, links: checkLinks(g.links, `body.footer.groups[${i}].links`) }));
  if (out.announcement) out.announcement = checkAnnouncement(out.announcement, "body.announcement");
  if (out.privacyPolicy.url !== undefined) checkWebUrl(out.privacyPolicy.url, "body.privacyPolicy.url");
  if (out.socialPreview.url !== undefined) checkWebUrl(out.socialPreview.url, "body.socialPreview.url");
  return out;
}

/** Stored settings read back: sections missing from an older row take the defaults. */
export function parseCustomization(json: string | null): SiteCustomization {
  if (!json) return structuredClone(DEFAULT_CUSTOMIZATION) as SiteCustomization;
  return { ...structuredClone(DEFAULT_CUSTOMIZATION), ...(JSON.parse(json) as Partial<SiteCustomization>) } as SiteCustomization;
}

type Override = SiteSpaceCustomizationOverride;
type Section = Record<string, unknown>;

/** The top-level fields of an override that replace the site's value whole (the others are sections of fields). */
const WHOLE = new Set(["title", "favicon", "announcement"]);

/**
 * A PATCH applied to a site space's stored overrides: a value overrides the site's, `null` removes
 * the override. Link lists are checked like a PUT's. The result holds only overrides that are set.
 */
export function mergeOverride(stored: Override, patch: Override): Override {
  const out: Record<string, unknown> = structuredClone(stored);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (WHOLE.has(key) || value === null) {
      if (value === null) delete out[key];
      else out[key] = value;
      continue;
    }
    const section: Section = { ...((out[key] as Section | undefined) ?? {}) };
    for (const [field, fieldValue] of Object.entries(value as Section)) {
      if (fieldValue === undefined) continue;
      if (key === "styling" && field === "sidebar" && fieldValue !== null) {
        const sidebar: Section = { ...((section.sidebar as Section | undefined) ?? {}) };
        for (const [k, v] of Object.entries(fieldValue as Section)) {
          if (v === null) delete sidebar[k];
          else if (v !== undefined) sidebar[k] = v;
        }
        if (Object.keys(sidebar).length) section.sidebar = sidebar;
        else delete section.sidebar;
      } else if (fieldValue === null) delete section[field];
      else section[field] = fieldValue;
    }
    if (Object.keys(section).length) out[key] = section;
    else delete out[key];
  }
  const merged = out as Override;
  checkFavicon(merged.favicon, "body.favicon");
  if (merged.announcement) merged.announcement = checkAnnouncement(merged.announcement, "body.announcement");
  checkThemedUrl(merged.header?.logo, "body.header.logo");
  if (merged.header?.links) merged.header.links = checkHeaderLinks(merged.header.links, "body.header.links");
  checkThemedUrl(merged.footer?.logo, "body.footer.logo");
  if (merged.footer?.groups) {
    merged.footer.groups = merged.footer.groups.map((g, i) => ({
      title: g.title,
      links: checkLinks(g.links, `body.footer.groups[${i}].links`),
    }));
  }
  if (merged.privacyPolicy?.url) checkWebUrl(merged.privacyPolicy.url, "body.privacyPolicy.url");
  if (merged.socialPreview?.url) checkWebUrl(merged.socialPreview.url, "body.socialPreview.url");
  return merged;
}

export function parseOverride(json: string | null): Override {
  return json ? (JSON.parse(json) as Override) : {};
}

/** A site space's settings: its site's, with its overrides over them. */
export function applyOverride(site: SiteCustomization, override: Override): SiteCustomization {
  const out = structuredClone(site) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined || value === null) continue;
    if (WHOLE.has(key)) {
      out[key] = structuredClone(value);
      continue;
    }
    const section: Section = { ...((out[key] as Section | undefined) ?? {}) };
    for (const [field, fieldValue] of Object.entries(value as Section)) {
      if (fieldValue === undefined || fieldValue === null) continue;
      section[field] = field === "sidebar" ? { ...(section.sidebar as Section), ...(fieldValue as Section) } : structuredClone(fieldValue);
    }
    out[key] = section;
  }
  return out as unknown as SiteCustomization;
}

/** Space ids named by the links of some settings (to check they are the organization's). */
export function spacesNamedBy(settings: {
  header?: { links?: readonly { to: ContentRefValue | null; links: readonly Link[] }[] | null | undefined } | undefined;
  footer?: { groups?: readonly { links: readonly Link[] }[] | null | undefined } | undefined;
  announcement?: { link?: Link | undefined } | null | undefined;
}): string[] {
  const ids = new Set<string>();
  const add = (ref: ContentRefValue | null | undefined) => {
    if (ref?.space) ids.add(ref.space);
  };
  for (const item of settings.header?.links ?? []) {
    add(item.to);
    for (const link of item.links) add(link.to);
  }
  for (const group of settings.footer?.groups ?? []) for (const link of group.links) add(link.to);
  add(settings.announcement?.link?.to);
  return [...ids];
}
