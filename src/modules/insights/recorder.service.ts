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
 * The search box searches as the reader types: a search that extends (or shortens) the same
 * visitor's previous one on the same site within SETTLE_MS replaces it, so "install" counts once,
 * not as "i", "in", "ins"...
 */
import { createHmac, randomBytes } from "node:crypto";
import { normalizeIP } from "@fastify/rate-limit";
import type { Logger } from "pino";
import type { Db, Executor } from "../../db/database.js";
import type {
  SitePageViewsTable,
  SiteQuestionAnswersTable,
  SiteQuestionsTable,
  SiteViewSource,
  SiteVisitorsTable,
} from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
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
}

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
    const visitor = JSON.stringify([visit.siteId, day, this.visitorOf(visit), agent]);
    if (this.visitors.has(visitor) || this.room()) this.visitors.add(visitor);
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
    const search: PendingSearch = { siteId: visit.siteId, day: dayOf(new Date(now)), query: key, noResult: results === 0, at: now };
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
    return this.views.size + this.visitors.size + this.searches.size + this.typing.size + this.questions.length;
  }

  private room(): boolean {
    if (this.pending() < MAX_PENDING) return true;
    this.dropped++;
    return false;
  }

  private visitorOf(visit: Visit): string {
    return createHmac("sha256", this.deps.secret)
      .update(`insights-visitor\n${normalizeIP(visit.ip)}\n${visit.userAgent ?? ""}`)
      .digest("base64url");
  }

  private countSearch(search: PendingSearch): void {
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
    this.views = new Map();
    this.visitors = new Set();
    this.searches = new Map();
    this.questions = [];
    this.dropped = 0;
    if (views.size + visitors.size + searches.size + questions.length === 0) return;
    try {
      const viewRows = [...views].map(([key, count]) => {
        const [siteId, day, spaceId, pageId, source, agent] = JSON.parse(key) as [string, string, string, string, SiteViewSource, number];
        return { siteId, day, spaceId, pageId, source, agent, views: count } satisfies SitePageViewsTable;
      });
      const visitorRows: SiteVisitorsTable[] = [];
      for (const key of visitors) {
        const [siteId, day, visitor, agent] = JSON.parse(key) as [string, string, string, number];
        const salted = createHmac("sha256", await this.saltOf(day))
          .update(visitor)
          .digest("base64url");
        visitorRows.push({ siteId, day, visitor: salted, agent });
      }
      const searchRows = [...searches].map(([key, count]) => {
        const [siteId, day, query] = JSON.parse(key) as [string, string, string];
        return { siteId, day, query, searches: count.searches, noResult: count.noResult };
      });
      await this.deps.db.transaction().execute(async (trx) => {
        // A site deleted since its visit takes its counts with it.
        const sites = await existingSiteIds(trx, [
          ...new Set([...viewRows, ...visitorRows, ...searchRows, ...questions].map((r) => r.siteId)),
        ]);
        const live = <T extends { siteId: string }>(rows: T[]) => rows.filter((r) => sites.has(r.siteId));
        await addPageViews(trx, live(viewRows));
        await addVisitors(trx, live(visitorRows));
        await addSearches(trx, live(searchRows));
        await this.writeQuestions(trx, live(questions));
      });
      if (dropped > 0) this.deps.log.warn({ dropped }, "insights: counts dropped (too many between two writes)");
    } catch (err) {
      // Counts are not worth a retry loop: a failed write loses this batch, and says so.
      this.deps.log.warn(
        { err, views: views.size, searches: searches.size, questions: questions.length },
        "insights: a batch could not be written",
      );
    }
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
