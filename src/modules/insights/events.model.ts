/**
 * A published site's insight events, decided without the database: what an event reported by a
 * client (GitBook 0.202's SiteInsightsEvent) becomes as a row, with nothing personal in it; the
 * browser, device, system and bot told from a user agent; the UTC buckets an aggregation groups by;
 * which visitor claims are kept (the categories of the site's adaptive schema, never free text).
 */
import { isIP } from "node:net";
import type { SiteEventsTable } from "../../db/schema.js";
import { invalid } from "../../lib/errors.js";

export const EVENT_TYPES = [
  "page_view",
  "page_markdown_request",
  "search_open",
  "search_type_query",
  "search_open_result",
  "page_post_feedback",
  "page_post_feedback_comment",
  "agent_feedback",
  "ask_question",
  "ask_view",
  "ask_rate_response",
  "link_click",
  "api_client_open",
  "api_client_request",
  "ad_click",
  "ad_display",
  "trademark_click",
  "llms_request",
  "mcp_request",
  "rss_request",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DISPLAY_CONTEXTS = ["site", "server", "embed", "mcp"] as const;
export const BROWSERS = ["chrome", "firefox", "safari", "edge", "ie", "opera", "unknown"] as const;
export const DEVICES = ["desktop", "tablet", "mobile", "unknown"] as const;
export const SYSTEMS = ["windows", "macos", "linux", "android", "ios", "unknown"] as const;
export const BOTS = [
  "unknown",
  "googlebot",
  "bingbot",
  "duckduckbot",
  "facebookbot",
  "applebot",
  "chatgpt",
  "openai",
  "claude",
  "anthropic",
  "gemini",
  "perplexity",
  "cohere",
  "mistral",
  "deepseek",
  "meta",
  "bytespider",
  "ccbot",
  "amazonbot",
  "youbot",
  "cursor",
  "vscode",
  "claude-code",
  "codex",
  "opencode",
  "gptbot",
  "claudebot",
  "meta-fetcher",
  "grok",
  "github-copilot",
  "meta-webindexer",
  "meta-ads",
  "duckassist",
  "amzn-searchbot",
  "amzn-user",
] as const;
export const LINK_KINDS = ["url", "page", "file", "anchor", "space", "collection", "user", "reusable-content"] as const;
export const LINK_POSITIONS = ["announcement", "header", "footer", "sidebar", "content"] as const;
export const FEEDBACK_RATINGS = ["bad", "ok", "good"] as const;
export const TRADEMARK_PLACEMENTS = ["sidebar", "ad", "footer", "pdf", "embed"] as const;

/** Most events one request may report (a client sends what it gathered in a few seconds). */
export const MAX_EVENTS_PER_REQUEST = 100;
/** How far a reported time may be from now (GitBook: "within 5 minutes of the current time"). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** Longest text kept of a query, a comment, an address (a longer one is cut). */
const MAX_TEXT = 512;
const MAX_URL = 2048;

/**
 * The columns of an event row that say what happened (the table's, with the event's type and where
 * it was shown narrowed): not its site, time buckets, visitor, session, user agent or claims, which
 * the recorder adds.
 */
export type EventFields = Omit<
  SiteEventsTable,
  | "id"
  | "siteId"
  | "at"
  | "hour"
  | "day"
  | "week"
  | "month"
  | "hourOfDay"
  | "dayOfWeek"
  | "visitor"
  | "session"
  | "browser"
  | "device"
  | "os"
  | "bot"
  | "authenticated"
  | "segment"
  | "type"
  | "displayContext"
> & { type: EventType; displayContext: (typeof DISPLAY_CONTEXTS)[number] };

export function emptyFields(type: EventType, url: string, displayContext: EventFields["displayContext"]): EventFields {
  const where = cleanUrl(url);
  return {
    type,
    displayContext,
    url: where?.url ?? url,
    urlPath: where?.path ?? "/",
    siteSection: null,
    siteSpace: null,
    siteShareKey: null,
    spaceId: null,
    pageId: null,
    notFoundType: null,
    referrer: null,
    referrerDomain: null,
    utmSource: where?.utm.source ?? null,
    utmMedium: where?.utm.medium ?? null,
    utmCampaign: where?.utm.campaign ?? null,
    utmTerm: where?.utm.term ?? null,
    utmContent: where?.utm.content ?? null,
    language: null,
    searchQuery: null,
    searchResult: null,
    feedbackRating: null,
    feedbackComment: null,
    askRating: null,
    linkTarget: null,
    linkKind: null,
    linkDomain: null,
    linkPosition: null,
    apiPath: null,
    apiMethod: null,
    llmsVariant: null,
    markdownSource: null,
    adDomain: null,
    adPlacement: null,
    trademarkPlacement: null,
  };
}

/**
 * An address as kept: scheme, host and path only. The query and fragment go (a share key, a visitor
 * token or an e-mail address can travel there), except the five utm_ parameters, kept apart.
 */
type CleanUrl = {
  url: string;
  path: string;
  host: string;
  utm: Record<"source" | "medium" | "campaign" | "term" | "content", string | null>;
};

/**
 * Addresses already cleaned: a site's reads come back to the same few hundred pages and
 * referrers, and parsing a URL is most of what recording a read costs. Bounded; emptied when full.
 */
const cleaned = new Map<string, Readonly<CleanUrl> | null>();
const MAX_CLEANED = 2000;

export function cleanUrl(raw: string): Readonly<CleanUrl> | null {
  const known = cleaned.get(raw);
  if (known !== undefined) return known;
  const clean = parseCleanUrl(raw);
  if (cleaned.size >= MAX_CLEANED) cleaned.clear();
  cleaned.set(raw, clean && Object.freeze({ ...clean, utm: Object.freeze(clean.utm) }));
  return cleaned.get(raw)!;
}

function parseCleanUrl(raw: string): CleanUrl | null {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  const utm = (name: string) => parsed.searchParams.get(`utm_${name}`)?.slice(0, 200) || null;
  return {
    url: `${parsed.protocol}//${parsed.host}${parsed.pathname}`.slice(0, MAX_URL),
    path: parsed.pathname.slice(0, MAX_URL),
    host: parsed.hostname.toLowerCase(),
    utm: { source: utm("source"), medium: utm("medium"), campaign: utm("campaign"), term: utm("term"), content: utm("content") },
  };
}

/** The time buckets stored with an event (its table's columns): the same for every read of an hour. */
type HourBuckets = Pick<SiteEventsTable, "hour" | "day" | "week" | "month" | "hourOfDay" | "dayOfWeek">;
/** The buckets of the last hour asked for: every read of that hour shares them. */
let lastHour: { hour: string; buckets: HourBuckets } | undefined;

/** The UTC buckets of a time an aggregation groups by. */
export function bucketsOf(at: Date): HourBuckets & { at: string } {
  const iso = at.toISOString();
  const hour = iso.slice(0, 13);
  if (lastHour?.hour !== hour) {
    const weekday = at.getUTCDay() === 0 ? 7 : at.getUTCDay();
    const monday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - (weekday - 1)));
    lastHour = {
      hour,
      buckets: {
        hour,
        day: iso.slice(0, 10),
        week: monday.toISOString().slice(0, 10),
        month: iso.slice(0, 7),
        hourOfDay: at.getUTCHours(),
        dayOfWeek: weekday,
      },
    };
  }
  return { at: iso, ...lastHour.buckets };
}

const BOT_PATTERNS: [RegExp, (typeof BOTS)[number]][] = [
  [/googlebot|google-inspectiontool|googleother|google-extended/i, "googlebot"],
  [/bingbot|bingpreview/i, "bingbot"],
  [/duckassistbot/i, "duckassist"],
  [/duckduckbot/i, "duckduckbot"],
  [/facebookexternalhit|facebookbot|facebookcatalog/i, "facebookbot"],
  [/meta-externalfetcher/i, "meta-fetcher"],
  [/meta-webindexer/i, "meta-webindexer"],
  [/meta-externalads/i, "meta-ads"],
  [/meta-externalagent/i, "meta"],
  [/applebot/i, "applebot"],
  [/chatgpt-user/i, "chatgpt"],
  [/oai-searchbot/i, "openai"],
  [/gptbot/i, "gptbot"],
  [/claude-code/i, "claude-code"],
  [/claudebot/i, "claudebot"],
  [/claude-user|claude-searchbot|claude-web/i, "claude"],
  [/anthropic-ai/i, "anthropic"],
  [/gemini/i, "gemini"],
  [/perplexity/i, "perplexity"],
  [/cohere-ai/i, "cohere"],
  [/mistralai/i, "mistral"],
  [/deepseek/i, "deepseek"],
  [/bytespider/i, "bytespider"],
  [/ccbot/i, "ccbot"],
  [/amzn-searchbot/i, "amzn-searchbot"],
  [/amzn-user/i, "amzn-user"],
  [/amazonbot/i, "amazonbot"],
  [/youbot/i, "youbot"],
  [/cursor\//i, "cursor"],
  [/github-copilot|copilot/i, "github-copilot"],
  [/vscode/i, "vscode"],
  [/codex/i, "codex"],
  [/opencode/i, "opencode"],
  [/grok|xai-/i, "grok"],
  [
    /\bbot\b|crawler|spider|^curl\/|^wget\/|python-requests|python-httpx|aiohttp|node-fetch|^undici|^axios\/|go-http-client|^okhttp|headlesschrome/i,
    "unknown",
  ],
];

type Classified = ReturnType<typeof classify>;
const classified = new Map<string, Classified>();

/**
 * Browser, device, system and (for a program) which bot, told from a user agent. Remembered for the
 * last 1,000 user agents: a site's readers send few different ones, and each read is told apart.
 */
export function classifyUserAgent(userAgent: string | undefined): Classified {
  const ua = userAgent ?? "";
  let known = classified.get(ua);
  if (!known) {
    if (classified.size >= 1000) classified.clear();
    known = classify(ua);
    classified.set(ua, known);
  }
  return known;
}

function classify(ua: string) {
  const bot = ua.trim() === "" ? "unknown" : (BOT_PATTERNS.find(([pattern]) => pattern.test(ua))?.[1] ?? null);
  const browser: (typeof BROWSERS)[number] = /edg(e|a|ios)?\//i.test(ua)
    ? "edge"
    : /opr\/|opera/i.test(ua)
      ? "opera"
      : /firefox\/|fxios\//i.test(ua)
        ? "firefox"
        : /chrome\/|crios\/|chromium\//i.test(ua)
          ? "chrome"
          : /msie |trident\//i.test(ua)
            ? "ie"
            : /safari\//i.test(ua) && /version\//i.test(ua)
              ? "safari"
              : "unknown";
  const os: (typeof SYSTEMS)[number] = /android/i.test(ua)
    ? "android"
    : /iphone|ipad|ipod/i.test(ua)
      ? "ios"
      : /windows/i.test(ua)
        ? "windows"
        : /mac os x|macintosh/i.test(ua)
          ? "macos"
          : /linux|x11|cros/i.test(ua)
            ? "linux"
            : "unknown";
  const device: (typeof DEVICES)[number] =
    /ipad|tablet/i.test(ua) || (/android/i.test(ua) && !/mobile/i.test(ua))
      ? "tablet"
      : /mobi|iphone|ipod/i.test(ua)
        ? "mobile"
        : /windows|macintosh|x11|cros|linux/i.test(ua)
          ? "desktop"
          : "unknown";
  return { browser, device, os, bot };
}

/** A language tag as kept: its primary language, lowercased ("en-US" counts as "en"); null when none. */
export function languageOf(tag: string | null | undefined): string | null {
  const primary = tag
    ?.split(/[-_,;]/)[0]
    ?.trim()
    .toLowerCase();
  return primary && /^[a-z]{2,3}$/.test(primary) ? primary : null;
}

/** JSON with sorted keys: the same content reference is the same text, whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The claims of a visitor that are kept: only those the site's adaptive schema declares as a
 * category (a boolean, a string of an enum and one of its values, an array of such strings), by
 * their path ("plan", "unsigned.team"). A free string or a number (an e-mail, a name, an id) is
 * never kept, nor a claim the schema does not declare.
 */
export function keptClaims(claims: unknown, schema: unknown): { property: string; value: string }[] {
  const out: { property: string; value: string }[] = [];
  const walk = (values: unknown, properties: unknown, path: string) => {
    if (!isObject(values) || !isObject(properties)) return;
    for (const [name, declared] of Object.entries(properties)) {
      if (!isObject(declared) || !(name in values)) continue;
      const value = values[name];
      const property = path ? `${path}.${name}` : name;
      if (declared.type === "boolean" && typeof value === "boolean") out.push({ property, value: String(value) });
      else if (declared.type === "string" && Array.isArray(declared.enum) && typeof value === "string" && declared.enum.includes(value)) {
        out.push({ property, value });
      } else if (declared.type === "array" && isObject(declared.items) && Array.isArray(declared.items.enum)) {
        const allowed = declared.items.enum as unknown[];
        if (Array.isArray(value) && value.every((v) => typeof v === "string" && allowed.includes(v))) {
          out.push({ property, value: JSON.stringify([...new Set(value as string[])].sort()) });
        }
      } else if (declared.type === "object") walk(value, declared.properties, property);
    }
  };
  if (isObject(schema)) walk(claims, schema.properties, "");
  return out.slice(0, 50);
}

const text = (value: unknown, max = MAX_TEXT): string | null => (typeof value === "string" && value !== "" ? value.slice(0, max) : null);
const oneOf = <T extends string>(value: unknown, allowed: readonly T[]): T | null =>
  typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : null;

/** A reported event, as the request body gives it (checked here field by field). */
export interface ReportedEvent {
  type: string;
  session?: { userAgent?: unknown; ip?: unknown; language?: unknown; referrer?: unknown; visitorAuthClaims?: unknown; sessionId?: unknown };
  location?: Json;
  timestamp?: unknown;
  [field: string]: unknown;
}

/** What a reported event becomes: its row's fields, its time, and who reported it as what. */
export interface ReadEvent {
  fields: EventFields;
  at: Date;
  userAgent: string;
  ip: string | undefined;
  sessionId: string | undefined;
  claims: unknown;
}

/**
 * One reported event, checked against GitBook 0.202's SiteInsightsEvent and reduced to what is
 * kept, or a 400 naming what is wrong (`at`: the event's place in the body, e.g. "body.events[3]").
 */
export function readEvent(event: ReportedEvent, at: string, now: Date): ReadEvent {
  const type = oneOf(event.type, EVENT_TYPES);
  if (!type) throw invalid(`${at}.type: unknown event type ${JSON.stringify(event.type)} (known: ${EVENT_TYPES.join(", ")}).`);
  const session = event.session;
  const location = event.location;
  if (!isObject(session)) throw invalid(`${at}.session is required.`);
  if (!isObject(location)) throw invalid(`${at}.location is required.`);
  if (typeof session.userAgent !== "string") throw invalid(`${at}.session.userAgent is required (a string).`);
  if (typeof location.url !== "string") throw invalid(`${at}.location.url is required.`);
  const where = cleanUrl(location.url);
  if (!where) throw invalid(`${at}.location.url must be an http(s) URL.`);
  let time = now;
  if (event.timestamp !== undefined) {
    const parsed = typeof event.timestamp === "string" ? new Date(event.timestamp) : new Date(Number.NaN);
    if (Number.isNaN(parsed.getTime())) throw invalid(`${at}.timestamp must be a date-time.`);
    if (Math.abs(parsed.getTime() - now.getTime()) > MAX_CLOCK_SKEW_MS) {
      throw invalid(`${at}.timestamp must be within 5 minutes of the current time (it is ${parsed.toISOString()}).`);
    }
    time = parsed;
  }
  const displayContext = location.displayContext === undefined ? "site" : oneOf(location.displayContext, DISPLAY_CONTEXTS);
  if (!displayContext) throw invalid(`${at}.location.displayContext must be one of ${DISPLAY_CONTEXTS.join(", ")}.`);
  const fields = emptyFields(type, location.url, displayContext);
  fields.siteSection = text(location.siteSection, 100);
  fields.siteSpace = text(location.siteSpace, 100);
  fields.siteShareKey = text(location.siteShareKey, 100);
  fields.spaceId = text(location.space, 100);
  fields.pageId = text(location.page, 100);
  const referrer = typeof session.referrer === "string" && session.referrer !== "" ? cleanUrl(session.referrer) : null;
  fields.referrer = referrer?.url ?? null;
  fields.referrerDomain = referrer?.host ?? null;
  fields.language = languageOf(typeof session.language === "string" ? session.language : null);

  const need = (ok: boolean, what: string) => {
    if (!ok) throw invalid(`${at}: a ${type} event needs ${what}.`);
  };
  switch (type) {
    case "page_markdown_request":
      fields.markdownSource = event.markdownSource === undefined ? null : oneOf(event.markdownSource, ["page-action"] as const);
      need(event.markdownSource === undefined || fields.markdownSource !== null, '`markdownSource` "page-action" (or none)');
      break;
    case "search_type_query":
    case "ask_question":
      need(typeof event.query === "string", "`query` (a string)");
      fields.searchQuery = (event.query as string).slice(0, MAX_TEXT);
      break;
    case "search_open_result": {
      need(typeof event.query === "string" && isObject(event.result), "`query` and `result`");
      fields.searchQuery = (event.query as string).slice(0, MAX_TEXT);
      const result = event.result as Json;
      if (typeof result.recordId === "string") fields.searchResult = result.recordId.slice(0, 200);
      else {
        need(
          typeof result.spaceId === "string" && typeof result.pageId === "string",
          "`result.spaceId` and `result.pageId`, or `result.recordId`",
        );
        fields.spaceId = (result.spaceId as string).slice(0, 100);
        fields.pageId = (result.pageId as string).slice(0, 100);
      }
      break;
    }
    case "page_post_feedback":
    case "page_post_feedback_comment": {
      const feedback = isObject(event.feedback) ? event.feedback : {};
      fields.feedbackRating = oneOf(feedback.rating, FEEDBACK_RATINGS);
      need(fields.feedbackRating !== null, "`feedback.rating` (bad, ok or good)");
      if (type === "page_post_feedback_comment") {
        need(
          typeof feedback.comment === "string" && feedback.comment.length >= 1 && feedback.comment.length <= 512,
          "`feedback.comment` (1 to 512 characters)",
        );
        fields.feedbackComment = feedback.comment as string;
      }
      break;
    }
    case "ask_rate_response":
      need(
        typeof event.query === "string" && (event.rating === 1 || event.rating === -1) && typeof event.responseId === "string",
        "`query`, `rating` (1 or -1) and `responseId`",
      );
      fields.searchQuery = (event.query as string).slice(0, MAX_TEXT);
      fields.askRating = event.rating as number;
      break;
    case "link_click": {
      const link = isObject(event.link) ? event.link : {};
      const target = link.target;
      fields.linkPosition = oneOf(link.position, LINK_POSITIONS);
      need(
        isObject(target) && typeof target.kind === "string" && fields.linkPosition !== null,
        "`link.target` (a content reference) and `link.position`",
      );
      const ref = target as Json;
      fields.linkKind = oneOf(ref.kind, LINK_KINDS);
      need(fields.linkKind !== null, `\`link.target.kind\` one of ${LINK_KINDS.join(", ")}`);
      // A URL target loses its query and fragment like every address kept.
      const refUrl = fields.linkKind === "url" && typeof ref.url === "string" ? cleanUrl(ref.url) : null;
      if (fields.linkKind === "url") need(refUrl !== null, "`link.target.url` (an http(s) URL)");
      const kept = refUrl ? { ...ref, url: refUrl.url } : ref;
      const json = canonicalJson(kept);
      need(json.length <= 1024, "a `link.target` of at most 1 KB");
      fields.linkTarget = json;
      fields.linkDomain = refUrl?.host ?? null;
      break;
    }
    case "api_client_open":
    case "api_client_request": {
      const operation = isObject(event.operation) ? event.operation : {};
      need(typeof operation.path === "string" && typeof operation.method === "string", "`operation.path` and `operation.method`");
      fields.apiPath = (operation.path as string).slice(0, 500);
      fields.apiMethod = (operation.method as string).slice(0, 10).toLowerCase();
      break;
    }
    case "ad_click":
    case "ad_display": {
      const ad = isObject(event.ad) ? event.ad : {};
      fields.adPlacement = oneOf(ad.placement, ["aside"] as const);
      need(
        typeof ad.domain === "string" && typeof ad.zoneId === "string" && fields.adPlacement !== null,
        "`ad` (domain, zoneId, placement aside)",
      );
      fields.adDomain = (ad.domain as string).slice(0, 253).toLowerCase();
      break;
    }
    case "trademark_click":
      fields.trademarkPlacement = oneOf(event.placement, TRADEMARK_PLACEMENTS);
      need(fields.trademarkPlacement !== null, `\`placement\` one of ${TRADEMARK_PLACEMENTS.join(", ")}`);
      break;
    case "llms_request":
      fields.llmsVariant = oneOf(event.llmsVariant, ["standard", "full"] as const);
      need(fields.llmsVariant !== null, "`llmsVariant` (standard or full)");
      break;
    default:
      break;
  }
  return {
    fields,
    at: time,
    userAgent: session.userAgent.slice(0, 1000),
    ip: typeof session.ip === "string" && isIP(session.ip) ? session.ip : undefined,
    sessionId: typeof session.sessionId === "string" && session.sessionId !== "" ? session.sessionId.slice(0, 200) : undefined,
    claims: session.visitorAuthClaims,
  };
}
