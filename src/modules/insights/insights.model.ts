/**
 * What insights count, decided without the database: who is an agent, what a search and a question
 * are keyed by (the same words are the same search, the same question), a question's type, the
 * days and weeks counts are grouped by.
 */
import type { SiteQuestionsTable } from "../../db/schema.js";

/**
 * User agents of programs that read for a model or an index rather than for a person in a browser:
 * AI crawlers and assistants' fetchers, search engines' crawlers, and generic HTTP clients (a
 * browser never sends `curl/` or `python-requests/`). Matched case-insensitively anywhere.
 */
const AGENT_PATTERN = new RegExp(
  [
    "gptbot",
    "chatgpt-user",
    "oai-searchbot",
    "claudebot",
    "claude-user",
    "claude-searchbot",
    "claude-web",
    "anthropic-ai",
    "perplexitybot",
    "perplexity-user",
    "google-extended",
    "googleother",
    "googlebot",
    "bingbot",
    "applebot",
    "ccbot",
    "bytespider",
    "amazonbot",
    "meta-externalagent",
    "facebookbot",
    "cohere-ai",
    "diffbot",
    "youbot",
    "duckassistbot",
    "mistralai-user",
    "\\bbot\\b",
    "crawler",
    "spider",
    "^curl/",
    "^wget/",
    "python-requests",
    "python-httpx",
    "aiohttp",
    "node-fetch",
    "^undici",
    "^axios/",
    "go-http-client",
    "^okhttp",
    "headlesschrome",
  ].join("|"),
  "i",
);

/** Whether a request comes from an agent (no user agent at all is a program too). */
export function isAgentUserAgent(userAgent: string | undefined): boolean {
  if (!userAgent || userAgent.trim() === "") return true;
  return AGENT_PATTERN.test(userAgent);
}

/** The UTC day of a time, YYYY-MM-DD. */
export function dayOf(time: Date | string): string {
  return (typeof time === "string" ? time : time.toISOString()).slice(0, 10);
}

export const MAX_QUERY_CHARS = 200;

/** A search as it is counted: lowercased, spaces collapsed, at most MAX_QUERY_CHARS; "" for no words. */
export function searchKey(query: string): string {
  return query.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_CHARS);
}

export const MAX_QUESTION_CHARS = 1000;
/** The most of an answer's Markdown kept (an offline answer is a few passages, a model's a few paragraphs). */
export const MAX_RESPONSE_CHARS = 20_000;

/** What makes two questions the same: their words, lowercased, punctuation and spacing aside. */
export function questionKey(question: string): string {
  return question
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .slice(0, MAX_QUESTION_CHARS);
}

/**
 * GitBook's types of question, told by the words a question opens with or holds: a problem to fix
 * (troubleshooting), a way to do something (how-to), a fact to look up (reference), a wider
 * question (exploring); unknown when nothing says.
 */
export function questionType(question: string): SiteQuestionsTable["type"] {
  const q = ` ${questionKey(question)} `;
  if (
    /\b(error|errors|fail|fails|failed|failing|broken|crash|crashes|not working|doesn t work|does not work|can t|cannot|unable|issue|problem|bug|wrong|timeout|denied|refused|why (is|does|do|am|are|did) .*\bnot\b)\b/.test(
      q,
    )
  ) {
    return "troubleshooting";
  }
  if (/^ (how|how do|how can|how to|can i|is it possible|steps|guide)\b/.test(q) || /\bhow (do|can|to|should)\b/.test(q)) return "how-to";
  if (/^ (what is|what are|what s|which|where|when|define|list|is there|does|do|is|are)\b/.test(q)) return "reference";
  if (/^ (why|should|compare|difference|what|tell me|explain|overview)\b/.test(q) || /\b(vs|versus|best|recommend)\b/.test(q)) {
    return "exploring";
  }
  return "unknown";
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The days from `from` to `to` (both YYYY-MM-DD, inclusive), in order. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && days.length < 3700; t += DAY_MS) days.push(dayOf(new Date(t)));
  return days;
}

/**
 * GitBook's `weeklyPulse`: how many answers in each of the 13 weeks up to `now`, oldest first (the
 * last is the 7 days ending now).
 */
export function weeklyPulse(times: readonly string[], now: Date): number[] {
  const pulse = new Array<number>(13).fill(0);
  const end = now.getTime();
  for (const time of times) {
    const weeksAgo = Math.floor((end - Date.parse(time)) / (7 * DAY_MS));
    if (weeksAgo >= 0 && weeksAgo < 13) pulse[12 - weeksAgo] = (pulse[12 - weeksAgo] ?? 0) + 1;
  }
  return pulse;
}

/** One day's count on a chart: its share of the largest day, as a whole percent (at least 1 when not zero). */
export function barPercent(value: number, max: number): number {
  if (value <= 0 || max <= 0) return 0;
  return Math.max(1, Math.round((100 * value) / max));
}

/** A list read from the site's events, or why it could not be (over the time limit, too many reads at once). */
export type EventList<T> = { rows: T[] } | { unavailable: string };

/** What the Insights page reads from the site's events (the aggregations of aggregateSiteEvents). */
export interface EventInsights {
  /** Sites that sent readers, most first (not the site itself, nor reads without a referrer). */
  referrers: EventList<{ domain: string; views: number; visitors: number }>;
  /** Addresses of the site read and found no page (404s), most first. */
  broken: EventList<{ path: string; views: number }>;
  /** Programs that read the site, by name ("unknown": a program that did not say which), most first. */
  agents: EventList<{ bot: string; reads: number }>;
}
