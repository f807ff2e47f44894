import type { SiteRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { SITE_FEATURES, type SitePermissionsValue, type SiteResponse } from "./sites.schemas.js";

/** The public shape of a site (`Site`). */
export function presentSite(site: SiteRow, input: { siteSpaces: number; permissions: SitePermissionsValue }, urls: Urls): SiteResponse {
  const published = urls.site(site.basename);
  return {
    object: "site",
    id: site.id,
    type: site.type as SiteResponse["type"],
    title: site.title,
    basename: site.basename,
    ...(site.proxy ? { proxy: { origin: site.proxy, target: published } } : {}),
    visibility: site.visibility as SiteResponse["visibility"],
    published: site.published === 1,
    siteSpaces: input.siteSpaces,
    createdAt: site.createdAt,
    adaptiveContent: { enabled: site.adaptiveContent === 1 },
    agentsContext: site.agentsContext as SiteResponse["agentsContext"],
    // Self-hosted: every feature Quire has, on every site, never frozen.
    features: SITE_FEATURES.map((id) => ({ id, plan: site.type as SiteResponse["type"], frozen: false })),
    urls: {
      location: urls.api(`/orgs/${site.orgId}/sites/${site.id}`),
      app: urls.app(`/o/${site.orgId}/sites/${site.id}`),
      ...(site.published === 1 ? { published } : {}),
    },
    permissions: input.permissions,
  };
}

/**
 * Quire's site customization (`SiteCustomizationSettings`): Quire has no customization API yet, so
 * every site is published with these settings.
 */
export const DEFAULT_CUSTOMIZATION = Object.freeze({
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
  trademark: { enabled: false },
  externalLinks: { target: "self" },
  pagination: { enabled: true },
  pageActions: { externalAI: false, markdown: true, mcp: false },
  git: { showEditLink: false },
  privacyPolicy: {},
  socialPreview: {},
  insights: { trackingCookie: false },
});
