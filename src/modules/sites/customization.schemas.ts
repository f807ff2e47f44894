/**
 * Site customization (`SiteCustomizationSettings` of @gitbook/api 0.146.0) and a site space's
 * overrides of it (the body of `overrideSiteSpaceCustomizationById`). Objects refuse unknown
 * properties (they are dropped, never stored); sizes are bounded. What a schema cannot say (URLs are
 * http(s) without credentials, which fields a link's kind needs) is checked by customization.model.ts.
 */
import Type, { type Static, type TSchema } from "typebox";
import { Id } from "../../http/schemas.js";

export const SiteSpaceCustomizationParams = Type.Object({ organizationId: Id, siteId: Id, siteSpaceId: Id });

const strict = { additionalProperties: false } as const;

export const CustomizationColor = Type.String({
  pattern: "^#(?:[0-9a-fA-F]{3}){1,2}$",
  description: "A hex color: `#rgb` or `#rrggbb`",
});
export const ThemedColor = Type.Object({ light: CustomizationColor, dark: CustomizationColor }, strict);

export const CustomizationUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: "An absolute http(s) URL without user name or password",
});
export const ThemedUrl = Type.Object({ light: CustomizationUrl, dark: CustomizationUrl }, strict);

const enumOf = <T extends string>(values: readonly T[], description?: string) => Type.Enum([...values], description ? { description } : {});

export const THEMES = ["clean", "muted", "bold", "gradient"] as const;
export const CORNERS = ["straight", "rounded", "circular"] as const;
export const DEPTHS = ["subtle", "flat"] as const;
export const LINK_STYLES = ["default", "accent"] as const;
export const FONTS = [
  "ABCFavorit",
  "Inter",
  "Roboto",
  "RobotoSlab",
  "OpenSans",
  "SourceSansPro",
  "Lato",
  "Ubuntu",
  "Raleway",
  "Merriweather",
  "Overpass",
  "NotoSans",
  "IBMPlexSerif",
  "Poppins",
  "FiraSans",
] as const;
export const MONOSPACE_FONTS = [
  "FiraCode",
  "IBMPlexMono",
  "JetBrainsMono",
  "SourceCodePro",
  "RobotoMono",
  "SpaceMono",
  "DMMono",
  "Inconsolata",
] as const;
export const BACKGROUNDS = ["plain", "match"] as const;
export const ICON_STYLES = ["regular", "solid", "duotone", "light", "thin"] as const;
export const SIDEBAR_BACKGROUNDS = ["default", "filled"] as const;
export const SIDEBAR_LISTS = ["default", "pill", "line"] as const;
export const SEARCH_STYLES = ["prominent", "subtle"] as const;
export const LOCALES = ["en", "fr", "es", "zh", "ja", "de", "nl", "no", "pt-br", "ru"] as const;
export const HEADER_PRESETS = ["default", "bold", "contrast", "custom", "none"] as const;
export const HEADER_ITEM_STYLES = ["link", "button-primary", "button-secondary"] as const;
export const ANNOUNCEMENT_STYLES = ["info", "warning", "danger", "success"] as const;
export const THEME_MODES = ["light", "dark"] as const;
export const AI_MODES = ["none", "search", "assistant"] as const;
export const EXTERNAL_LINK_TARGETS = ["self", "blank"] as const;
export const CONTENT_REF_KINDS = ["url", "page", "anchor", "space", "file", "user", "collection", "reusable-content", "openapi"] as const;

/** A font of one's own (`CustomizationFontDefinitionInput`). */
const FontDefinition = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    custom: Type.Boolean(),
    fontFamily: Type.String({ minLength: 1, maxLength: 50 }),
    fontFaces: Type.Array(
      Type.Object(
        {
          weight: Type.Integer({ minimum: 1, maximum: 1000 }),
          sources: Type.Array(Type.Object({ url: CustomizationUrl, format: Type.Optional(enumOf(["woff2", "woff"])) }, strict), {
            minItems: 1,
            maxItems: 4,
          }),
        },
        strict,
      ),
      { minItems: 1, maxItems: 12 },
    ),
  },
  strict,
);

/**
 * A `ContentRef` as one object: `kind` says which other field it needs (checked by customization.model.ts),
 * so that a wrong kind is reported as such rather than as every alternative's complaint.
 */
export const CustomizationContentRef = Type.Object(
  {
    kind: enumOf(CONTENT_REF_KINDS),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    page: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    space: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    anchor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    file: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    collection: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    reusableContent: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    spec: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { ...strict, description: "ContentRef: `url` (url), `page` (page, space?), `anchor` (anchor, page?, space?) or `space` (space)" },
);
export type ContentRefValue = Static<typeof CustomizationContentRef>;

export const ContentLink = Type.Object({ title: Type.String({ minLength: 1, maxLength: 64 }), to: CustomizationContentRef }, strict);

export const HeaderItem = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 64 }),
    style: Type.Optional(enumOf(HEADER_ITEM_STYLES)),
    to: Type.Union([CustomizationContentRef, Type.Null()]),
    links: Type.Array(ContentLink, { maxItems: 20 }),
    condition: Type.Optional(Type.String({ maxLength: 1024, description: "Expression: the item shows when it holds for the reader" })),
  },
  strict,
);

export const FooterGroup = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 64 }), links: Type.Array(ContentLink, { maxItems: 20 }) },
  strict,
);

export const Announcement = Type.Object(
  {
    enabled: Type.Boolean(),
    message: Type.String({ minLength: 2, maxLength: 128 }),
    link: Type.Optional(ContentLink),
    style: enumOf(ANNOUNCEMENT_STYLES),
  },
  strict,
);

/** `CustomizationFavicon`: `{icon: {light, dark}}`, `{emoji}` or `{}` (one at most, checked by customization.model.ts). */
export const Favicon = Type.Object(
  { icon: Type.Optional(ThemedUrl), emoji: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })) },
  strict,
);

const Styling = Type.Object(
  {
    theme: enumOf(THEMES),
    primaryColor: ThemedColor,
    tint: Type.Optional(Type.Object({ color: ThemedColor }, strict)),
    infoColor: ThemedColor,
    successColor: ThemedColor,
    warningColor: ThemedColor,
    dangerColor: ThemedColor,
    corners: enumOf(CORNERS),
    depth: enumOf(DEPTHS),
    links: enumOf(LINK_STYLES),
    font: Type.Union([enumOf(FONTS), FontDefinition]),
    monospaceFont: Type.Union([enumOf(MONOSPACE_FONTS), FontDefinition]),
    background: enumOf(BACKGROUNDS),
    icons: enumOf(ICON_STYLES),
    sidebar: Type.Object({ background: enumOf(SIDEBAR_BACKGROUNDS), list: enumOf(SIDEBAR_LISTS) }, strict),
    search: enumOf(SEARCH_STYLES),
  },
  strict,
);

const flag = (name: string) => Type.Object({ [name]: Type.Boolean() }, strict);

const SETTINGS_PROPERTIES = {
  title: Type.Optional(Type.String({ minLength: 2, maxLength: 128, description: "Title readers see; the site's title when absent" })),
  styling: Styling,
  internationalization: Type.Object({ locale: enumOf(LOCALES) }, strict),
  favicon: Favicon,
  header: Type.Object(
    {
      preset: enumOf(HEADER_PRESETS),
      logo: Type.Optional(ThemedUrl),
      backgroundColor: Type.Optional(ThemedColor),
      linkColor: Type.Optional(ThemedColor),
      links: Type.Array(HeaderItem, { maxItems: 20 }),
    },
    strict,
  ),
  footer: Type.Object(
    {
      logo: Type.Optional(ThemedUrl),
      groups: Type.Array(FooterGroup, { maxItems: 10 }),
      copyright: Type.Optional(Type.String({ maxLength: 300 })),
    },
    strict,
  ),
  announcement: Type.Optional(Announcement),
  themes: Type.Object({ default: enumOf(THEME_MODES), toggeable: Type.Boolean() }, strict),
  pdf: flag("enabled"),
  feedback: flag("enabled"),
  ai: Type.Object({ mode: enumOf(AI_MODES) }, strict),
  advancedCustomization: flag("enabled"),
  trademark: flag("enabled"),
  externalLinks: Type.Object({ target: enumOf(EXTERNAL_LINK_TARGETS) }, strict),
  pagination: flag("enabled"),
  pageActions: Type.Object({ externalAI: Type.Boolean(), markdown: Type.Boolean(), mcp: Type.Boolean() }, strict),
  git: flag("showEditLink"),
  privacyPolicy: Type.Object({ url: Type.Optional(CustomizationUrl) }, strict),
  socialPreview: Type.Object({ url: Type.Optional(CustomizationUrl) }, strict),
  insights: flag("trackingCookie"),
};

/** `SiteCustomizationSettings`, every section present (as answered). */
export const SiteCustomizationSchema = Type.Object(SETTINGS_PROPERTIES, {
  ...strict,
  description: "SiteCustomizationSettings",
});
export type SiteCustomization = Static<typeof SiteCustomizationSchema>;

/**
 * The body of `PUT {site}/customization`: the whole settings. A section left out (`styling`,
 * `header`...) keeps Quire's default for it; inside a section the spec's required fields are required.
 */
export const UpdateSiteCustomizationBody = Type.Object(
  Object.fromEntries(
    Object.entries(SETTINGS_PROPERTIES).map(([key, schema]) => [key, key === "title" ? schema : Type.Optional(schema as TSchema)]),
  ) as { [K in keyof typeof SETTINGS_PROPERTIES]: ReturnType<typeof Type.Optional<(typeof SETTINGS_PROPERTIES)[K]>> },
  strict,
);

const orNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * The body of `PATCH {site}/site-spaces/{id}/customization`: the fields this site space shows
 * differently from its site; `null` removes an override (the site's value shows again).
 */
export const OverrideSiteSpaceCustomizationBody = Type.Object(
  {
    title: orNull(Type.String({ minLength: 2, maxLength: 128 })),
    styling: Type.Optional(
      Type.Object(
        {
          theme: orNull(enumOf(THEMES)),
          primaryColor: orNull(ThemedColor),
          infoColor: orNull(ThemedColor),
          successColor: orNull(ThemedColor),
          warningColor: orNull(ThemedColor),
          dangerColor: orNull(ThemedColor),
          tint: orNull(Type.Object({ color: ThemedColor }, strict)),
          corners: orNull(enumOf(CORNERS)),
          depth: orNull(enumOf(DEPTHS)),
          links: orNull(enumOf(LINK_STYLES)),
          icons: orNull(enumOf(ICON_STYLES)),
          sidebar: Type.Optional(
            Type.Object({ background: orNull(enumOf(SIDEBAR_BACKGROUNDS)), list: orNull(enumOf(SIDEBAR_LISTS)) }, strict),
          ),
          search: orNull(enumOf(SEARCH_STYLES)),
          background: orNull(enumOf(BACKGROUNDS)),
        },
        strict,
      ),
    ),
    internationalization: Type.Optional(Type.Object({ locale: orNull(enumOf(LOCALES)) }, strict)),
    favicon: orNull(Favicon),
    announcement: orNull(Announcement),
    header: Type.Optional(
      Type.Object(
        {
          preset: orNull(enumOf(HEADER_PRESETS)),
          logo: orNull(ThemedUrl),
          backgroundColor: orNull(ThemedColor),
          linkColor: orNull(ThemedColor),
          links: orNull(Type.Array(HeaderItem, { maxItems: 20 })),
        },
        strict,
      ),
    ),
    footer: Type.Optional(
      Type.Object(
        {
          logo: orNull(ThemedUrl),
          groups: orNull(Type.Array(FooterGroup, { maxItems: 10 })),
          copyright: orNull(Type.String({ maxLength: 300 })),
        },
        strict,
      ),
    ),
    themes: Type.Optional(Type.Object({ default: orNull(enumOf(THEME_MODES)), toggeable: orNull(Type.Boolean()) }, strict)),
    pdf: Type.Optional(Type.Object({ enabled: orNull(Type.Boolean()) }, strict)),
    feedback: Type.Optional(Type.Object({ enabled: orNull(Type.Boolean()) }, strict)),
    git: Type.Optional(Type.Object({ showEditLink: orNull(Type.Boolean()) }, strict)),
    externalLinks: Type.Optional(Type.Object({ target: orNull(enumOf(EXTERNAL_LINK_TARGETS)) }, strict)),
    pagination: Type.Optional(Type.Object({ enabled: orNull(Type.Boolean()) }, strict)),
    trademark: Type.Optional(Type.Object({ enabled: orNull(Type.Boolean()) }, strict)),
    privacyPolicy: Type.Optional(Type.Object({ url: orNull(CustomizationUrl) }, strict)),
    socialPreview: Type.Optional(Type.Object({ url: orNull(CustomizationUrl) }, strict)),
  },
  strict,
);
export type SiteSpaceCustomizationOverride = Static<typeof OverrideSiteSpaceCustomizationBody>;
