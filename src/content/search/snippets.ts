/**
 * Snippets of search results: a few words of a row's text around what matched, computed here
 * rather than by the engines. FTS5's snippet() compares every match of a row with every other
 * (quadratic: a 1.8 MB section whose every word matched held SQLite's thread for minutes) and
 * PostgreSQL's ts_headline re-parses the whole text; this is one pass over the row's text, rows are
 * at most SEARCH_ROW_LIMITS.rowBodyChars, and only the rows of the results shown are asked for.
 * Large batches run in a worker thread.
 */
import { runInWorker } from "../run-in-worker.js";
import type { QueryTerm, SearchQuery } from "./fulltext.js";

/** Words in a snippet. */
const SNIPPET_WORDS = 24;
/** Words shown before the first match. */
const LEAD_WORDS = 4;

/**
 * Below this many characters of text in all, snippets are computed inline: one pass costs ~1 ms
 * per 50 KB; a page of results (100 rows of 16 KB) would hold the request thread ~30 ms.
 */
export const INLINE_SNIPPET_CHARS = 64 * 1024;

/** A word for comparison: lower-cased, compatibility forms folded, accents removed (as the engines' tokenizers do). */
export function fold(word: string): string {
  return word.toLowerCase().normalize("NFKD").replace(/\p{M}/gu, "");
}

/**
 * A light English stem, so that a snippet finds "installing" for "installs": the engines stem
 * (Porter, PostgreSQL's english), and a snippet that misses a stemmed match shows the row's start.
 */
export function stem(word: string): string {
  for (const [suffix, replacement] of [
    ["ies", "i"],
    ["ied", "i"],
    ["ing", ""],
    ["ed", ""],
    ["es", ""],
    ["ly", ""],
    ["s", ""],
    ["e", ""],
  ] as const) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length) + replacement;
  }
  return word;
}

function matcher(terms: readonly QueryTerm[]): (word: string) => number {
  const folded = terms.map((t) => ({
    word: fold(t.word),
    stem: stem(fold(t.word)),
    prefix: t.prefix,
    // A correction (typos.ts) stands for the term: a snippet shows where it is.
    alternatives: (t.alternatives ?? []).map((a) => stem(fold(a))),
  }));
  return (word) => {
    for (let i = 0; i < folded.length; i++) {
      const t = folded[i] as (typeof folded)[number];
      if (word === t.word || (t.prefix && word.startsWith(t.word)) || stem(word) === t.stem) return i;
      if (t.alternatives.length > 0 && t.alternatives.includes(stem(word))) return i;
    }
    return -1;
  };
}

/**
 * About SNIPPET_WORDS words of `text` where the most of the query's words show, starting a few
 * words before the first of them; the text's start when none shows (a match in a title). "…" marks
 * a cut.
 */
export function snippetOf(text: string, query: SearchQuery): string {
  const match = matcher(query.include);
  const starts: number[] = [];
  const ends: number[] = [];
  const hits: { at: number; term: number }[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const index = m.index ?? 0;
    const term = match(fold(m[0]));
    if (term !== -1) hits.push({ at: starts.length, term });
    starts.push(index);
    ends.push(index + m[0].length);
  }
  if (starts.length === 0) return "";
  let best = 0;
  let bestCount = 0;
  // Windows starting a few words before each match, scored by the distinct query words they hold.
  let from = 0;
  for (const hit of hits) {
    const start = Math.max(0, hit.at - LEAD_WORDS);
    const end = start + SNIPPET_WORDS;
    while (from < hits.length && (hits[from] as { at: number }).at < start) from++;
    const seen = new Set<number>();
    for (let i = from; i < hits.length && (hits[i] as { at: number }).at < end; i++) seen.add((hits[i] as { term: number }).term);
    if (seen.size > bestCount) {
      best = start;
      bestCount = seen.size;
      if (bestCount === query.include.length) break;
    }
  }
  const last = Math.min(starts.length, best + SNIPPET_WORDS) - 1;
  // The text's own start and end (punctuation included) when the window reaches them.
  const body = text
    .slice(best === 0 ? 0 : starts[best], last === starts.length - 1 ? text.length : ends[last])
    .replace(/\s+/g, " ")
    .trim();
  return `${best > 0 ? "…" : ""}${body}${last < starts.length - 1 ? "…" : ""}`;
}

/** Snippets of several texts, in a worker thread when there is much text. */
export async function snippetsOf(texts: readonly string[], query: SearchQuery): Promise<string[]> {
  const chars = texts.reduce((n, t) => n + t.length, 0);
  if (chars < INLINE_SNIPPET_CHARS) return texts.map((text) => snippetOf(text, query));
  return runInWorker("searchSnippets", { texts: [...texts], query });
}
