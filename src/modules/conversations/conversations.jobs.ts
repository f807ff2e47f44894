/**
 * The analysis job: reads every conversation of an organization, finds their issues and clusters
 * (analysis.model.ts), relates each issue to the documentation through the full-text
 * search of the organization's spaces, and replaces the previous analysis in one transaction, so
 * that a crash at any point leaves the previous analysis whole (the job is then retried).
 *
 * Ingestion asks for an analysis with a deduplicated job (round 0). Conversations ingested while an
 * analysis runs cannot enqueue round 0 again (the running job holds its key), so the job, once
 * written, enqueues the other round when the organization's `requestedAt` moved past what it read.
 */
import { hash } from "node:crypto";
import type { Logger } from "pino";
import { fullTextIndex } from "../../content/search/engine.js";
import { searchWords, sectionDetails, wordsQuery } from "../../content/search/fulltext.js";
import { rankPages } from "../../content/search/search.service.js";
import type { Db, DialectName, Executor } from "../../db/database.js";
import type { ConversationClusterRow, ConversationIssueRow } from "../../db/schema.js";
import { enqueue } from "../../jobs/queue.js";
import { defineJob } from "../../jobs/registry.js";
import type { AnalysisPart } from "./analysis.model.js";
import type { StoredDocumentationPage } from "./conversations.presenter.js";
import {
  conversationsForAnalysis,
  deleteAnalysis,
  finishAnalysis,
  getAnalysisState,
  INSERT_BATCH,
  insertClusters,
  insertIssueBatch,
  liveSpaceIds,
  lockAnalysisState,
  markAnalysisStarted,
  previousAnalysis,
} from "./conversations.queries.js";

declare module "../../jobs/registry.js" {
  interface JobPayloads {
    "conversations-analyse": { orgId: string; round?: number };
  }
}

/** Weeks in a cluster's weekly pulse: the current week and the twelve before it. */
export const PULSE_WEEKS = 13;
const WEEK_MS = 7 * 24 * 3600 * 1000;
/** Pages related to one issue at most. */
const PAGES_PER_ISSUE = 3;

/** Asks for an analysis of the organization (one pending job per round is enough). */
export function requestConversationAnalysis(db: Executor, orgId: string, round = 0): Promise<string | null> {
  return enqueue(db, "conversations-analyse", { orgId, round }, { dedupeKey: `conversations-analyse:${orgId}:${round}`, maxAttempts: 5 });
}

export interface AnalysisDeps {
  db: Db;
  dialect: DialectName;
  log?: Logger;
}

export interface AnalysisOptions {
  /** The analysis time (default: now); the weekly pulse counts the weeks up to this one. */
  now?: Date;
  /** The job's round (0 or 1): a follow-up analysis is asked for in the other one. */
  round?: number;
  /** Called once the analysis is computed, before it is written (tests ingest there, as a request would). */
  beforeWrite?: () => Promise<void>;
  /** Called inside the write transaction after each batch of issues (tests use it to crash there). */
  afterIssueBatch?: (written: number) => void | Promise<void>;
}

export interface AnalysisOutcome {
  /** Nothing asked for an analysis since the last one, or a newer one was written meanwhile. */
  skipped: boolean;
  issues: number;
  clusters: number;
  /** `requestedAt` moved while this one ran: another round was asked for. */
  again: boolean;
}

function stableId(...parts: string[]): string {
  return hash("sha256", parts.join("\u0000"), "hex").slice(0, 20);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Monday 00:00 UTC of the week holding `date`. */
function weekStart(date: Date): number {
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return day - ((new Date(day).getUTCDay() + 6) % 7) * 24 * 3600 * 1000;
}

/** Issues per week, oldest first, the week of `now` last; older issues are not counted. */
export function weeklyPulse(dates: string[], now: Date): number[] {
  const pulse = new Array<number>(PULSE_WEEKS).fill(0);
  const first = weekStart(now) - (PULSE_WEEKS - 1) * WEEK_MS;
  for (const date of dates) {
    const t = Date.parse(date);
    if (t < first) continue;
    const week = Math.min(PULSE_WEEKS - 1, Math.floor((t - first) / WEEK_MS));
    pulse[week] = (pulse[week] ?? 0) + 1;
  }
  return pulse;
}

/** Analyses the organization's conversations and replaces the previous analysis. */
export async function runConversationAnalysis(deps: AnalysisDeps, orgId: string, options: AnalysisOptions = {}): Promise<AnalysisOutcome> {
  const { db, dialect } = deps;
  const state = await getAnalysisState(db, orgId);
  if (!state || (state.analysedUpTo !== null && state.analysedUpTo >= state.requestedAt)) {
    return { skipped: true, issues: 0, clusters: 0, again: false };
  }
  const requestedAt = state.requestedAt;
  const now = options.now ?? new Date();
  const at = now.toISOString();
  const loadedAt = new Date().toISOString();
  await markAnalysisStarted(db, orgId, at);
  try {
    const rows = (await conversationsForAnalysis(db, orgId)).sort(
      (a, b) => compareText(a.createdAt, b.createdAt) || compareText(a.source, b.source) || compareText(a.externalId, b.externalId),
    );
    // Loaded on first use: the language model weighs ~35 MB that a server without conversations never needs.
    const { analyseConversations } = await import("./analysis.model.js");
    const result = analyseConversations(
      rows.map((row) => ({ id: row.id, subject: row.subject, parts: JSON.parse(row.parts) as AnalysisPart[] })),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const previous = await previousAnalysis(db, orgId);
    const previousIssues = new Map(previous.issues.map((i) => [i.id, i]));

    // Issues: ids from what was ingested (source, external id, position), dates kept from before.
    const documentation = await documentationFinder(db, dialect, orgId);
    const issueRows: ConversationIssueRow[] = [];
    const sourceOf = new Map<string, string>();
    for (const issue of result.issues) {
      const conversation = byId.get(issue.conversationId);
      if (!conversation) throw new Error(`conversation analysis: unknown conversation ${issue.conversationId}`);
      const id = stableId(orgId, conversation.source, conversation.externalId, String(issue.position));
      sourceOf.set(id, conversation.source);
      issueRows.push({
        id,
        orgId,
        conversationId: conversation.id,
        clusterId: null,
        position: issue.position,
        title: issue.title,
        summary: issue.summary,
        question: issue.question,
        documentation: JSON.stringify(await documentation(issue.keywords)),
        conversationCreatedAt: conversation.createdAt,
        createdAt: previousIssues.get(id)?.createdAt ?? at,
        ingestedAt: conversation.ingestedAt,
      });
    }

    // Clusters: an earlier cluster's id (and creation date) passes to the new cluster holding most of
    // its issues, when that is more than half of the new one; otherwise a new id from its first issue.
    const previousClusterOf = new Map(previous.issues.map((i) => [i.id, i.clusterId]));
    const previousClusters = new Map(previous.clusters.map((c) => [c.id, c]));
    const groups = result.clusters.map((cluster) => ({
      cluster,
      members: cluster.issues.flatMap((i) => issueRows.slice(i, i + 1)),
      id: "",
    }));
    const taken = new Set<string>();
    for (const group of [...groups].sort((a, b) => b.members.length - a.members.length)) {
      const overlap = new Map<string, number>();
      for (const member of group.members) {
        const before = previousClusterOf.get(member.id);
        if (before) overlap.set(before, (overlap.get(before) ?? 0) + 1);
      }
      const [bestId, bestCount] = [...overlap.entries()]
        .filter(([id]) => !taken.has(id))
        .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0] ?? ["", 0];
      const first = group.members[0]?.id ?? "";
      let id = bestCount * 2 > group.members.length ? bestId : stableId(orgId, "cluster", first);
      for (let n = 1; taken.has(id); n++) id = stableId(orgId, "cluster", first, String(n));
      taken.add(id);
      group.id = id;
    }
    const clusterRows: ConversationClusterRow[] = groups.map(({ cluster, members, id }) => {
      for (const member of members) member.clusterId = id;
      const sources: Record<string, number> = {};
      for (const member of members) {
        const source = sourceOf.get(member.id) ?? "";
        sources[source] = (sources[source] ?? 0) + 1;
      }
      const conversations = new Set(members.map((m) => m.conversationId)).size;
      const gaps = members.filter((m) => m.documentation === "[]").length;
      const n = members.length;
      const summary = [
        `${n} ${n === 1 ? "issue" : "issues"} from ${conversations} ${conversations === 1 ? "conversation" : "conversations"} about ${cluster.keywords.join(", ")}.`,
        cluster.typicalQuestion ? `Typical question: "${cluster.typicalQuestion}"` : "",
        gaps === 0
          ? "Every issue has a documentation page that answers it."
          : `${gaps} of ${n} ${n === 1 ? "issue has" : "issues have"} no documentation page that answers ${n === 1 ? "it" : "them"}.`,
      ]
        .filter(Boolean)
        .join(" ");
      const fingerprint = hash("sha256", JSON.stringify([members.map((m) => m.id).sort(), cluster.label, summary]), "hex");
      const before = previousClusters.get(id);
      return {
        id,
        orgId,
        label: cluster.label,
        summary,
        icon: cluster.icon,
        keywords: JSON.stringify(cluster.keywords),
        sources: JSON.stringify(sources),
        weeklyPulse: JSON.stringify(
          weeklyPulse(
            members.map((m) => m.conversationCreatedAt),
            now,
          ),
        ),
        issues: n,
        conversations,
        documentationGaps: gaps,
        fingerprint,
        createdAt: before?.createdAt ?? at,
        updatedAt: before && before.fingerprint === fingerprint ? before.updatedAt : at,
      };
    });

    await options.beforeWrite?.();
    let skipped = false;
    await deps.db.transaction().execute(async (trx) => {
      const locked = await lockAnalysisState(trx, orgId);
      if (locked?.analysedUpTo && locked.analysedUpTo >= requestedAt) {
        skipped = true;
        return;
      }
      await deleteAnalysis(trx, orgId);
      await insertClusters(trx, clusterRows);
      for (let i = 0; i < issueRows.length; i += INSERT_BATCH) {
        await insertIssueBatch(trx, issueRows.slice(i, i + INSERT_BATCH));
        await options.afterIssueBatch?.(Math.min(i + INSERT_BATCH, issueRows.length));
      }
      await finishAnalysis(trx, orgId, { upTo: loadedAt, requestedAt, at });
    });
    // Conversations ingested while this one ran could not queue this round's job again (it held its
    // key): the other round's job picks them up.
    const after = await getAnalysisState(db, orgId);
    const again = !!after && after.requestedAt > requestedAt;
    if (again) await requestConversationAnalysis(db, orgId, (options.round ?? 0) === 0 ? 1 : 0);
    deps.log?.info(
      { orgId, conversations: rows.length, issues: issueRows.length, clusters: clusterRows.length, skipped },
      "conversations analysed",
    );
    return { skipped, issues: issueRows.length, clusters: clusterRows.length, again };
  } catch (error) {
    await markAnalysisStarted(db, orgId, null).catch(() => {});
    throw error;
  }
}

/** Finds the pages that answer an issue: a full-text search of its keywords in the organization's spaces. */
async function documentationFinder(db: Executor, dialect: DialectName, orgId: string) {
  const index = fullTextIndex(dialect);
  const spaceIds = await liveSpaceIds(db, orgId);
  const cache = new Map<string, StoredDocumentationPage[]>();
  const search = async (terms: string[]): Promise<StoredDocumentationPage[]> => {
    const key = terms.join(" ");
    const cached = cache.get(key);
    if (cached) return cached;
    // Conversations are analysed for the organization's members, who read every block.
    const ranked = rankPages(await index.search(db, spaceIds, wordsQuery(terms), 50, "members")).slice(0, PAGES_PER_ISSUE);
    const firstRow = (page: (typeof ranked)[number]) => page.rowIds[0] ?? -1;
    const details = await sectionDetails(db, ranked.map(firstRow));
    const pages = ranked.flatMap((r) => {
      const section = details.get(firstRow(r));
      return section ? [{ spaceId: r.spaceId, pageId: r.pageId, title: section.pageTitle, path: section.path }] : [];
    });
    cache.set(key, pages);
    return pages;
  };
  return async (keywords: string[]): Promise<StoredDocumentationPage[]> => {
    if (spaceIds.length === 0) return [];
    const terms = searchWords(keywords.join(" ")).slice(0, 4);
    // Every term must match: the three main words first, then pairs of the four main ones.
    const queries = [
      [0, 1, 2],
      [0, 1],
      [0, 2],
      [1, 2],
      [0, 3],
      [1, 3],
    ].filter((q) => q.every((i) => i < terms.length));
    for (const query of queries) {
      const pages = await search(query.flatMap((i) => terms.slice(i, i + 1)));
      if (pages.length > 0) return pages;
    }
    return [];
  };
}

export const conversationsAnalyseJob = defineJob({
  kind: "conversations-analyse",
  maxAttempts: 5,
  async run({ orgId, round = 0 }, ctx) {
    const outcome = await runConversationAnalysis({ db: ctx.db, dialect: ctx.dialect, log: ctx.log }, orgId, { round });
    if (outcome.again) ctx.notifyJobs();
  },
});
