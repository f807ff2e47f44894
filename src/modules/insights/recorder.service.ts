/**
 * The recorder of a published site's insights: what readers do is counted in memory as requests
 * are answered (never awaiting the database on the request path) and written in batches, one
 * transaction every QUIRE_INSIGHTS_FLUSH_MS, by a timer, and once more as the server closes.
 *
 * Nothing personal is kept. A visitor is an HMAC of the address (IPv6 by /64) and user agent under
 * the instance secret while in memory, written as an HMAC of that under the salt of the day
 * (`site_insight_salts`, rotated every UTC day): the same visitor counts once a day and cannot be
 * followed across days; neither the address nor the user agent is written.
 *
 * Each read is also an event (site_events, for aggregateSiteEvents), and so is each event a client
 * reports (trackEventsInSiteById): held the same way, its visitor and session hashed under the
 * day's salt at the write, its addresses without query or fragment (events.model.ts).
 *
 * The search box searches as the reader types: a search that extends (or shortens) the same
 * visitor's previous one on the same site within SETTLE_MS replaces it, so "install" counts once,
 * not as "i", "in", "ins"...
 */
import { createHmac, randomBytes } from "node:crypto";
import { normalizeIP } from "@fastify/rate-limit";
import type { Logger } from "pino";
import type { Db, Executor } from "../../db/database.js";
import type {
  SiteEventClaimsTable,
  SiteEventsTable,
  SitePageViewsTable,
  SiteQuestionAnswersTable,
  SiteQuestionsTable,
  SiteViewSource,
  SiteVisitorsTable,
} from "../../db/schema.js";
import { busy } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import {
  bucketsOf,
  canonicalJson,
  classifyUserAgent,
  cleanUrl,
  type EventFields,
  type EventType,
  emptyFields,
  keptClaims,
  languageOf,
  type ReadEvent,
} from "./events.model.js";
import { insertEvents } from "./events.queries.js";
import { dayOf, isAgentUserAgent, MAX_QUESTION_CHARS, MAX_RESPONSE_CHARS, questionKey, questionType, searchKey } from "./insights.model.js";
import {
  addPageViews,
  addSearches,
  addVisitors,
  existingSiteIds,
  insertAnswers,
  insertQuestions,
  questionsByKey,
  saltOfDay,
  touchQuestion,
} from "./insights.queries.js";

/** A search box's searches that follow each other within this time are one search. */
export const SETTLE_MS = 3000;
/** The most distinct counters held between two writes; beyond, new ones are dropped (and said in the log). */
const MAX_PENDING = 100_000;

export interface Visit {
  siteId: string;
  ip: string;
  userAgent: string | undefined;
  /** Where the read was (an event of aggregateSiteEvents): the address, its referrer, the reader's language. */
  url?: string | undefined;
  referrer?: string | undefined;
  language?: string | undefined;
}

/** An event held until the next write: its row but for the salted hashes, and its kept claims. */
type EventRow = Omit<SiteEventsTable, "visitor" | "session">;
interface PendingEvent {
  siteId: string;
  /** The row, or (a read the site served) how to make it: made when written, not while the reader waits. */
  row: EventRow | (() => EventRow);
  visitor: string;
  session: string;
  claims: { property: string; value: string }[];
}

/** The most events one site may report between two writes; beyond, a report answers 429 (a caller flooding it). */
export const MAX_SITE_EVENTS_PER_WRITE = 5000;

/** Events made and written per transaction, the event loop free between two (see write()). */
const EVENTS_PER_TRANSACTION = 200;

/**
 * The HMACs of one write under each day's salt, by the value hashed: a visitor (site_visitors and
 * site_events.visitor: the same hash) and a session ("session\n" and the value, so that a session
 * never hashes like a visitor). A reader's reads share them: one HMAC each per day, not per read.
 */
interface HashesOfDay {
  salt: string;
  visitors: Map<string, string>;
  sessions: Map<string, string>;
}
type DayHashes = Map<string, HashesOfDay>;

function hashed(ofDay: HashesOfDay, kind: "visitors" | "sessions", value: string): string {
  const known = ofDay[kind];
  let hash = known.get(value);
  if (hash === undefined) {
    hash = createHmac("sha256", ofDay.salt)
      .update(kind === "sessions" ? `session\n${value}` : value)
      .digest("base64url");
    known.set(value, hash);
  }
  return hash;
}

/** What a server-side read is as an event of 0.202. */
const VIEW_EVENTS: Record<SiteViewSource, { type: EventType; displayContext: EventFields["displayContext"]; llms?: string }> = {
  page: { type: "page_view", displayContext: "site" },
  markdown: { type: "page_markdown_request", displayContext: "server" },
  "llms.txt": { type: "llms_request", displayContext: "server", llms: "standard" },
  "llms-full.txt": { type: "llms_request", displayContext: "server", llms: "full" },
  mcp: { type: "mcp_request", displayContext: "mcp" },
};

export interface AskedQuestion {
  siteId: string;
  question: string;
  answered: boolean;
  channel: SiteQuestionAnswersTable["channel"];
  sources: { spaceId: string; pageId: string; title: string }[];
  /** The answer's Markdown, as the reader read it. */
  response: string;
}

interface PendingSearch {
  siteId: string;
  day: string;
  query: string;
  noResult: boolean;
  at: number;
  /** Who searched, for the search's event (written when the search is counted). */
  visit: Visit;
}

export class InsightsRecorder {
  private views = new Map<string, number>();
  private visitors = new Set<string>();
  private searches = new Map<string, { searches: number; noResult: number }>();
  private typing = new Map<string, PendingSearch>();
  private questions: (AskedQuestion & { at: string })[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private salts = new Map<string, string>();
  private events: PendingEvent[] = [];
  /**
   * Visitors' first hashes by address and user agent until the next write: a reader reads several
   * pages, and an HMAC per read is a third of what recording it costs. Emptied at each write, so no
   * address stays in memory longer than the counts it is part of.
   */
  private visitorHashes = new Map<string, string>();
  private eventsBySite = new Map<string, number>();

  constructor(
    private readonly deps: { db: Db; secret: string; log: Logger },
    /** Whether anything is counted (QUIRE_INSIGHTS); the bench turns it off and on in one run. */
    public enabled: boolean,
    private readonly flushMs: number,
  ) {}

  /** Starts the timer that writes what was counted (unref'd: it keeps no process alive). */
  start(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Stops the timer and writes everything still held, searches being typed included. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush(true);
  }

  /** A read of a page (`spaceId`/`pageId`) or of an address that is no page (llms.txt, MCP: both ""). */
  view(visit: Visit, source: SiteViewSource, spaceId = "", pageId = ""): void {
    if (!this.enabled) return;
    const agent = source !== "page" || isAgentUserAgent(visit.userAgent) ? 1 : 0;
    const day = dayOf(new Date());
    const key = JSON.stringify([visit.siteId, day, spaceId, pageId, source, agent]);
    if (!this.views.has(key) && !this.room()) return;
    this.views.set(key, (this.views.get(key) ?? 0) + 1);
    const who = this.visitorOf(visit);
    const visitor = JSON.stringify([visit.siteId, day, who, agent]);
    if (this.visitors.has(visitor) || this.room()) this.visitors.add(visitor);
    const kind = VIEW_EVENTS[source];
    this.serverEvent(visit, who, kind.type, kind.displayContext, (fields) => {
      fields.spaceId = spaceId || null;
      fields.pageId = pageId || null;
      fields.llmsVariant = kind.llms ?? null;
    });
  }

  /** A page of the site asked for and not found (a 404): a page view of no page, for aggregateSiteEvents. */
  notFound(visit: Visit): void {
    if (!this.enabled) return;
    this.serverEvent(visit, this.visitorOf(visit), "page_view", "site", () => {});
  }

  /** An event of a read the site served (not reported): held when the read says where it was. */
  private serverEvent(
    visit: Visit,
    who: string,
    type: EventType,
    displayContext: EventFields["displayContext"],
    fill: (fields: EventFields) => void,
    at = new Date(),
  ): void {
    const { url } = visit;
    if (!url || !this.room()) return;
    // A server read carries no session of its own: the visitor's day is its session.
    this.events.push({
      siteId: visit.siteId,
      row: () => {
        const fields = emptyFields(type, url, displayContext);
        const referrer = visit.referrer ? cleanUrl(visit.referrer) : null;
        fields.referrer = referrer?.url ?? null;
        fields.referrerDomain = referrer?.host ?? null;
        fields.language = languageOf(visit.language);
        fill(fields);
        return this.rowOf(visit.siteId, fields, at, visit.userAgent, null, []);
      },
      visitor: who,
      session: who,
      claims: [],
    });
  }

  /**
   * Events a client reported (trackEventsInSiteById), held for the next write like every count.
   * `ip`: the caller's address, for events that name none. `schema`: the site's adaptive schema
   * (which claims are kept). Refused with 429 when the site already holds MAX_SITE_EVENTS_PER_WRITE.
   */
  track(siteId: string, events: readonly ReadEvent[], ip: string, schema: unknown): void {
    if (!this.enabled) return;
    const held = this.eventsBySite.get(siteId) ?? 0;
    if (held + events.length > MAX_SITE_EVENTS_PER_WRITE || this.pending() + events.length > MAX_PENDING) {
      throw busy("This site has reported too many events in the last few seconds; try again in a few seconds.");
    }
    for (const event of events) {
      const who = this.visitorOf({ siteId, ip: event.ip ?? ip, userAgent: event.userAgent });
      const session = event.sessionId
        ? createHmac("sha256", this.deps.secret).update(`insights-session\n${siteId}\n${event.sessionId}`).digest("base64url")
        : who;
      const claims = keptClaims(event.claims, schema);
      const brought = event.claims && typeof event.claims === "object" && Object.keys(event.claims).length > 0;
      const row = this.rowOf(siteId, event.fields, event.at, event.userAgent, brought ? 1 : 0, claims);
      this.events.push({ siteId, row, visitor: who, session, claims });
      this.eventsBySite.set(siteId, (this.eventsBySite.get(siteId) ?? 0) + 1);
    }
  }

  private rowOf(
    siteId: string,
    fields: EventFields,
    at: Date,
    userAgent: string | undefined,
    authenticated: number | null,
    claims: { property: string; value: string }[],
  ): EventRow {
    const { browser, device, os, bot } = classifyUserAgent(userAgent);
    // Most events (every read the site served) bring no claims: their segment is "{}", made as such.
    if (claims.length === 0)
      return { id: newId(), siteId, ...bucketsOf(at), ...fields, browser, device, os, bot, authenticated, segment: "{}" };
    const segment: Record<string, unknown> = {};
    for (const claim of claims) {
      // The segment is the claims as the visitor brought them: nested by path, values typed again.
      const names = claim.property.split(".");
      let into = segment;
      for (const name of names.slice(0, -1)) into = (into[name] ??= {}) as Record<string, unknown>;
      into[names.at(-1) ?? ""] =
        claim.value === "true"
          ? true
          : claim.value === "false"
            ? false
            : claim.value.startsWith("[")
              ? JSON.parse(claim.value)
              : claim.value;
    }
    return { id: newId(), siteId, ...bucketsOf(at), ...fields, browser, device, os, bot, authenticated, segment: canonicalJson(segment) };
  }

  /**
   * A search and whether it found anything. `typed`: from the search box, as the reader types (a
   * later search by the same visitor that extends or shortens it replaces it).
   */
  search(visit: Visit, query: string, results: number, typed: boolean): void {
    if (!this.enabled) return;
    const key = searchKey(query);
    if (key === "") return;
    const now = Date.now();
    const search: PendingSearch = { siteId: visit.siteId, day: dayOf(new Date(now)), query: key, noResult: results === 0, at: now, visit };
    if (!typed) {
      this.countSearch(search);
      return;
    }
    const who = `${visit.siteId}|${this.visitorOf(visit)}`;
    const before = this.typing.get(who);
    if (before && !(now - before.at <= SETTLE_MS && (key.startsWith(before.query) || before.query.startsWith(key)))) {
      this.countSearch(before);
    }
    if (!before && !this.room()) return;
    this.typing.set(who, search);
  }

  /** A question asked of the site, and whether the docs answered it. */
  question(asked: AskedQuestion): void {
    if (!this.enabled) return;
    if (questionKey(asked.question) === "" || !this.room()) return;
    this.questions.push({
      ...asked,
      question: asked.question.slice(0, MAX_QUESTION_CHARS),
      response: asked.response.slice(0, MAX_RESPONSE_CHARS),
      at: new Date().toISOString(),
    });
  }

  /** Writes what was counted, in one transaction. `all`: searches still being typed too. */
  async flush(all = false): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.write(all).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private pending(): number {
    return this.views.size + this.visitors.size + this.searches.size + this.typing.size + this.questions.length + this.events.length;
  }

  private room(): boolean {
    if (this.pending() < MAX_PENDING) return true;
    this.dropped++;
    return false;
  }

  private visitorOf(visit: Visit): string {
    const key = `${visit.ip}\n${visit.userAgent ?? ""}`;
    let hash = this.visitorHashes.get(key);
    if (hash === undefined) {
      hash = createHmac("sha256", this.deps.secret)
        .update(`insights-visitor\n${normalizeIP(visit.ip)}\n${visit.userAgent ?? ""}`)
        .digest("base64url");
      if (this.visitorHashes.size >= MAX_PENDING) this.visitorHashes.clear();
      this.visitorHashes.set(key, hash);
    }
    return hash;
  }

  private countSearch(search: PendingSearch): void {
    // The search as an event too: what was searched (as counted), when, by whom.
    this.serverEvent(
      search.visit,
      this.visitorOf(search.visit),
      "search_type_query",
      "site",
      (fields) => {
        fields.searchQuery = search.query;
      },
      new Date(search.at),
    );
    const key = JSON.stringify([search.siteId, search.day, search.query]);
    const count = this.searches.get(key) ?? { searches: 0, noResult: 0 };
    count.searches++;
    if (search.noResult) count.noResult++;
    this.searches.set(key, count);
  }

  private async saltOf(day: string): Promise<string> {
    let salt = this.salts.get(day);
    if (!salt) {
      salt = await saltOfDay(this.deps.db, day, randomBytes(32).toString("base64url"));
      this.salts.clear();
      this.salts.set(day, salt);
    }
    return salt;
  }

  private async write(all: boolean): Promise<void> {
    this.visitorHashes.clear();
    const now = Date.now();
    for (const [who, search] of this.typing) {
      if (all || now - search.at > SETTLE_MS) {
        this.countSearch(search);
        this.typing.delete(who);
      }
    }
    const views = this.views;
    const visitors = this.visitors;
    const searches = this.searches;
    const questions = this.questions;
    const dropped = this.dropped;
    const events = this.events;
    this.events = [];
    this.eventsBySite = new Map();
    this.views = new Map();
    this.visitors = new Set();
    this.searches = new Map();
    this.questions = [];
    this.dropped = 0;
    if (views.size + visitors.size + searches.size + questions.length + events.length === 0) return;
    try {
      const viewRows = [...views].map(([key, count]) => {
        const [siteId, day, spaceId, pageId, source, agent] = JSON.parse(key) as [string, string, string, string, SiteViewSource, number];
        return { siteId, day, spaceId, pageId, source, agent, views: count } satisfies SitePageViewsTable;
      });
      // Hashes under each day's salt, made once per visitor in this write: site_visitors and the
      // visitor's events share them (the same HMAC of the same value under the same salt).
      const hashes: DayHashes = new Map();
      const visitorRows: SiteVisitorsTable[] = [];
      for (const key of visitors) {
        const [siteId, day, visitor, agent] = JSON.parse(key) as [string, string, string, number];
        visitorRows.push({ siteId, day, visitor: hashed(await this.hashesOf(hashes, day), "visitors", visitor), agent });
      }
      const searchRows = [...searches].map(([key, count]) => {
        const [siteId, day, query] = JSON.parse(key) as [string, string, string];
        return { siteId, day, query, searches: count.searches, noResult: count.noResult };
      });
      let sites = new Set<string>();
      await this.deps.db.transaction().execute(async (trx) => {
        // A site deleted since its visit takes its counts with it.
        sites = await existingSiteIds(trx, [
          ...new Set([...viewRows, ...visitorRows, ...searchRows, ...questions, ...events].map((r) => r.siteId)),
        ]);
        const live = <T extends { siteId: string }>(rows: T[]) => rows.filter((r) => sites.has(r.siteId));
        await addPageViews(trx, live(viewRows));
        await addVisitors(trx, live(visitorRows));
        await addSearches(trx, live(searchRows));
        await this.writeQuestions(trx, live(questions));
      });
      // Events in slices, each made and written in its own transaction with the event loop free
      // between them: on SQLite the server's own thread writes, and a batch of many reads written at
      // once would hold every request for all of it.
      for (let i = 0; i < events.length; i += EVENTS_PER_TRANSACTION) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        await this.writeEvents(
          events.slice(i, i + EVENTS_PER_TRANSACTION).filter((event) => sites.has(event.siteId)),
          hashes,
        );
      }
      if (dropped > 0) this.deps.log.warn({ dropped }, "insights: counts dropped (too many between two writes)");
    } catch (err) {
      // Counts are not worth a retry loop: a failed write loses this batch, and says so.
      this.deps.log.warn(
        { err, views: views.size, searches: searches.size, questions: questions.length, events: events.length },
        "insights: a batch could not be written",
      );
    }
  }

  /**
   * Events with their visitor and session as hashes under the salt of the event's day, like
   * site_visitors. `hashes`: the hashes made so far in this write (a visitor's events share them:
   * one HMAC each per day, not per event).
   */
  private async writeEvents(events: readonly PendingEvent[], hashes: DayHashes): Promise<void> {
    if (events.length === 0) return;
    const eventRows: SiteEventsTable[] = [];
    const claimRows: SiteEventClaimsTable[] = [];
    let day = "";
    let ofDay: HashesOfDay | undefined;
    for (const event of events) {
      // The rows made here are this write's own: they take their hashes in place rather than as copies.
      const row = (typeof event.row === "function" ? event.row() : event.row) as SiteEventsTable;
      if (ofDay === undefined || row.day !== day) {
        day = row.day;
        ofDay = await this.hashesOf(hashes, day);
      }
      row.visitor = hashed(ofDay, "visitors", event.visitor);
      row.session = hashed(ofDay, "sessions", event.session);
      eventRows.push(row);
      for (const claim of event.claims) claimRows.push({ eventId: row.id, siteId: row.siteId, ...claim });
    }
    await this.deps.db.transaction().execute((trx) => insertEvents(trx, eventRows, claimRows));
  }

  /** The hashes of `day` in this write, its salt fetched (or made) the first time. */
  private async hashesOf(hashes: DayHashes, day: string): Promise<HashesOfDay> {
    let ofDay = hashes.get(day);
    if (ofDay === undefined) hashes.set(day, (ofDay = { salt: await this.saltOf(day), visitors: new Map(), sessions: new Map() }));
    return ofDay;
  }

  private async writeQuestions(trx: Executor, asked: (AskedQuestion & { at: string })[]) {
    const bySite = new Map<string, (AskedQuestion & { at: string })[]>();
    for (const q of asked) bySite.set(q.siteId, [...(bySite.get(q.siteId) ?? []), q]);
    for (const [siteId, list] of bySite) {
      const known = await questionsByKey(trx, siteId, [...new Set(list.map((q) => questionKey(q.question)))]);
      const created: SiteQuestionsTable[] = [];
      const answers: SiteQuestionAnswersTable[] = [];
      const lastAsked = new Map<string, string>();
      for (const q of list) {
        const key = questionKey(q.question);
        let question = known.get(key);
        if (!question) {
          question = {
            id: newId(),
            siteId,
            key,
            question: q.question.trim(),
            type: questionType(q.question),
            createdAt: q.at,
            askedAt: q.at,
          };
          known.set(key, question);
          created.push(question);
        } else lastAsked.set(question.id, q.at);
        answers.push({
          id: newId(),
          siteId,
          questionId: question.id,
          raw: q.question,
          answered: q.answered ? "yes" : "no",
          channel: q.channel,
          sources: JSON.stringify(q.sources),
          response: q.response,
          createdAt: q.at,
        });
      }
      await insertQuestions(trx, created);
      for (const [id, at] of lastAsked) await touchQuestion(trx, id, at);
      await insertAnswers(trx, answers);
    }
  }
}
