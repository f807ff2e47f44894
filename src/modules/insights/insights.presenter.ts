/** The site question operations' bodies (GitBook 0.202's shapes) and the insights summary, from rows loaded before. */
import { seedKeys } from "../../content/document/index.js";
import { parseMarkdownPage } from "../../content/markdown/index.js";
import type { SiteQuestionsTable } from "../../db/schema.js";
import type { InsightsLoaded } from "./insights.loader.js";
import { daysBetween, weeklyPulse } from "./insights.model.js";
import type { AnswerFacts, AnswerRow, DayCounts } from "./insights.queries.js";
import { QUESTION_TYPES, type SiteInsightsValue, type SiteQuestionStatsValue } from "./insights.schemas.js";

/**
 * Stats of answers (and of the questions they answer). Quire records no rating of an answer
 * (every answer is `unrated`) and does not judge relevance (every question is `relevant`).
 */
export function questionStats(answers: readonly AnswerFacts[], now: Date): SiteQuestionStatsValue {
  const types = Object.fromEntries(QUESTION_TYPES.map((t) => [t, 0])) as SiteQuestionStatsValue["types"];
  const questions = new Map<string, AnswerFacts["type"]>();
  const answered = { yes: 0, partially: 0, no: 0 };
  const channelTypes: Record<string, number> = {};
  for (const answer of answers) {
    questions.set(answer.questionId, answer.type);
    answered[answer.answered]++;
    channelTypes[answer.channel] = (channelTypes[answer.channel] ?? 0) + 1;
  }
  for (const type of questions.values()) types[type]++;
  return {
    total: questions.size,
    answers: answers.length,
    feedback: { positive: 0, negative: 0, unrated: answers.length },
    answered,
    relevance: { relevant: questions.size, spam: 0, "off-topic": 0, unclear: 0 },
    types,
    channelTypes,
    channels: {},
    weeklyPulse: weeklyPulse(
      answers.map((a) => a.createdAt),
      now,
    ),
  };
}

export function presentQuestion(question: SiteQuestionsTable, answers: readonly AnswerFacts[], location: string, now: Date) {
  return {
    object: "site-question" as const,
    id: question.id,
    question: question.question,
    type: question.type,
    createdAt: question.createdAt,
    askedAt: question.askedAt,
    stats: questionStats(answers, now),
    urls: { location },
  };
}

export function presentAnswer(answer: AnswerRow, location: string) {
  return {
    object: "site-question-answer" as const,
    id: answer.id,
    question: { id: answer.questionId, type: answer.type },
    topics: [],
    input: { text: answer.raw.trim().replace(/\s+/g, " "), raw: answer.raw },
    responseId: answer.id,
    // Quire does not detect the language of a question.
    language: "und",
    answered: answer.answered,
    helpfulness: answer.answered === "yes" ? ("medium" as const) : ("low" as const),
    relevance: "relevant" as const,
    channel: { type: answer.channel },
    createdAt: answer.createdAt,
    urls: { location },
  };
}

/** An answer's Markdown as a document, with the same keys on every read. */
function answerDocument(answerId: string, markdown: string) {
  const { document } = parseMarkdownPage(markdown);
  seedKeys(document, answerId);
  return document;
}

/**
 * An answer with what the reader read: the assistant's message, its one step the answer's Markdown
 * as a document. The message has no step when the text was not kept (an answer recorded before
 * Quire kept it) or may not be shown (`showText` false: it quotes a space the caller cannot read).
 */
export function presentAnswerWithResponse(answer: AnswerRow, location: string, showText: boolean) {
  const text = showText ? answer.response : null;
  return {
    ...presentAnswer(answer, location),
    response: {
      id: answer.id,
      role: "assistant" as const,
      steps: text === null ? [] : [{ phase: "final_answer" as const, content: answerDocument(answer.id, text) }],
      createdAt: answer.createdAt,
    },
  };
}

/** The pages the answers cited, most cited first. */
export function citedPages(answers: readonly AnswerRow[]): { spaceId: string; pageId: string; title: string; count: number }[] {
  const cited = new Map<string, { spaceId: string; pageId: string; title: string; count: number }>();
  for (const answer of answers) {
    let sources: { spaceId: string; pageId: string; title: string }[] = [];
    try {
      sources = JSON.parse(answer.sources) as typeof sources;
    } catch {
      sources = [];
    }
    // An answer citing a page twice counts it once.
    for (const source of new Map(sources.map((s) => [`${s.spaceId}/${s.pageId}`, s])).values()) {
      const key = `${source.spaceId}/${source.pageId}`;
      const entry = cited.get(key) ?? { ...source, count: 0 };
      entry.count++;
      cited.set(key, entry);
    }
  }
  return [...cited.values()].sort((a, b) => b.count - a.count || a.pageId.localeCompare(b.pageId));
}

/** Every day of the range, zero where nothing was counted. */
export function everyDay(counts: readonly DayCounts[], from: string, to: string): DayCounts[] {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  return daysBetween(from, to).map((day) => byDay.get(day) ?? { day, browser: 0, agent: 0 });
}

const sum = (counts: readonly DayCounts[], key: "browser" | "agent") => counts.reduce((n, c) => n + c[key], 0);

/** The summary the Insights page shows and getSiteInsights answers; questions most asked first. */
export function presentInsights(loaded: InsightsLoaded, questionLimit = 20): SiteInsightsValue {
  const byQuestion = new Map<string, { answers: number; unanswered: number }>();
  for (const answer of loaded.answers) {
    const entry = byQuestion.get(answer.questionId) ?? { answers: 0, unanswered: 0 };
    entry.answers++;
    if (answer.answered === "no") entry.unanswered++;
    byQuestion.set(answer.questionId, entry);
  }
  const questions = [...byQuestion]
    .flatMap(([id, counts]) => {
      const question = loaded.questions.get(id);
      return question ? [{ id, question: question.question, askedAt: question.askedAt, ...counts }] : [];
    })
    .sort((a, b) => b.answers - a.answers || b.askedAt.localeCompare(a.askedAt))
    .slice(0, questionLimit);
  return {
    object: "site-insights",
    from: loaded.from,
    to: loaded.to,
    totals: {
      views: { browser: sum(loaded.views, "browser"), agent: sum(loaded.views, "agent") },
      visitors: { browser: sum(loaded.visitors, "browser"), agent: sum(loaded.visitors, "agent") },
      searches: loaded.searchTotals.searches,
      searchesWithoutResult: loaded.searchTotals.noResult,
      questions: loaded.answers.length,
      unanswered: loaded.answers.filter((a) => a.answered === "no").length,
    },
    views: everyDay(loaded.views, loaded.from, loaded.to),
    visitors: everyDay(loaded.visitors, loaded.from, loaded.to),
    sources: loaded.sources,
    pages: loaded.pages.map((p) => ({
      space: p.spaceId,
      page: p.pageId,
      title: loaded.title(p.spaceId, p.pageId),
      browser: p.browser,
      agent: p.agent,
    })),
    searches: loaded.searches,
    searchesWithoutResult: loaded.searchesWithoutResult,
    questions,
    feedback: loaded.feedback.map((f) => ({
      space: f.spaceId,
      page: f.pageId,
      title: loaded.title(f.spaceId, f.pageId),
      good: f.good,
      ok: f.ok,
      bad: f.bad,
    })),
  };
}

/** A segment's title: its claims as "path: value", or what its visitors brought none of. */
export function segmentTitle(claims: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [name, inner] of Object.entries(value)) walk(inner, path ? `${path}.${name}` : name);
    } else parts.push(`${path}: ${Array.isArray(value) ? value.join(", ") : String(value)}`);
  };
  walk(claims, "");
  return parts.length ? parts.join(" · ") : "Visitors without claims";
}

/** A visitor segment (listSiteVisitorSegments), with its stored key kept for paging. */
export function presentVisitorSegment(row: { segment: string; events: number; visitors: number; sessions: number }) {
  const claims = JSON.parse(row.segment) as Record<string, unknown>;
  return { title: segmentTitle(claims), claims, events: row.events, visitors: row.visitors, sessions: row.sessions, key: row.segment };
}
