/**
 * Typo tolerance for published sites' search: a query word that is in no space's vocabulary is
 * also looked for as the vocabulary's closest words (one edit for words of 4 to 7 letters, two from
 * 8; an edit is a letter added, removed, changed, or two neighbours swapped), and the pages found
 * only so rank after the pages the query found as typed.
 *
 * The vocabulary of a space (`search_words`, written by the search index job) holds only words every
 * reader of its published sites sees: text outside conditional blocks of pages that have no
 * condition and are not hidden, with the pages' titles and headings. Whether a word is corrected,
 * and into what, therefore depends on nothing a reader may not see; and the corrected query is
 * matched against the reader's rows under the same filter as any search, so a correction never
 * lists a page or a snippet the reader may not see.
 */
import type { Executor } from "../../db/database.js";
import { ResultCache } from "../../lib/result-cache.js";
import { type QueryTerm, type SearchQuery, searchWords } from "./fulltext.js";

export const TYPO_LIMITS = {
  /** Shorter query words are not corrected (one edit turns them into too many other words). */
  minChars: 4,
  /** From this length a word may be two edits away. */
  twoEditsFrom: 8,
  /** Corrections per query word, the closest (then the commonest) first. */
  corrections: 5,
  /** Words kept in a space's vocabulary, the commonest first. */
  vocabularyWords: 50_000,
  /** Letters a vocabulary word has at least and at most (the query's own bounds apply too). */
  wordMinChars: 3,
  wordMaxChars: 64,
};

/**
 * Optimal string alignment distance between `a` and `b` (insertions, deletions, substitutions and
 * swaps of neighbours), or `max + 1` as soon as it is known to exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  // Three rows reused from call to call: this runs for every candidate of every corrected word.
  if (b.length + 1 > rows[0].length) rows = newRows(b.length + 1);
  let [previous2, previous, current] = rows;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        value = Math.min(value, (previous2[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [previous2, previous, current] = [previous, current, previous2];
  }
  return Math.min(previous[b.length] as number, max + 1);
}

const newRows = (length: number): [Int32Array, Int32Array, Int32Array] => [
  new Int32Array(length),
  new Int32Array(length),
  new Int32Array(length),
];
let rows = newRows(TYPO_LIMITS.wordMaxChars + 2);

/** Counts the words of `text` into `counts` (vocabulary bounds applied). */
export function countWords(text: string, counts: Map<string, number>): void {
  for (const word of searchWords(text)) {
    if (word.length < TYPO_LIMITS.wordMinChars || word.length > TYPO_LIMITS.wordMaxChars || /^\p{N}+$/u.test(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
}

/** The commonest words of a count, at most TYPO_LIMITS.vocabularyWords. */
export function vocabularyRows(counts: ReadonlyMap<string, number>): { word: string; occurrences: number }[] {
  const rows = [...counts].map(([word, occurrences]) => ({ word, occurrences }));
  if (rows.length > TYPO_LIMITS.vocabularyWords) {
    rows.sort((a, b) => b.occurrences - a.occurrences || (a.word < b.word ? -1 : 1));
    rows.length = TYPO_LIMITS.vocabularyWords;
  }
  return rows;
}

/**
 * A space's vocabulary, as searched: sorted words (for prefixes), their occurrences, and for each
 * pair of letters (a word's first letter paired with "^") the words holding it. Comparing a word
 * with every word of a large vocabulary took 0.4-0.9 s on the request thread (200,000 words); an
 * edit removes at most three of a word's pairs (a swap: "xaby" to "xbay"), so only words sharing
 * enough pairs are compared.
 */
export interface Vocabulary {
  words: string[];
  occurrences: Map<string, number>;
  pairs: Map<number, Int32Array>;
}

/** The distinct letter pairs of a word (UTF-16 units, as numbers), its start marked. */
function pairsOf(word: string): Set<number> {
  const pairs = new Set<number>();
  let previous = 0;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    pairs.add(previous * 65536 + code);
    previous = code;
  }
  return pairs;
}

export function vocabularyOf(rows: readonly { word: string; occurrences: number }[]): Vocabulary {
  const words = rows.map((r) => r.word).sort();
  const lists = new Map<number, number[]>();
  words.forEach((word, i) => {
    for (const pair of pairsOf(word)) {
      const list = lists.get(pair);
      if (list) list.push(i);
      else lists.set(pair, [i]);
    }
  });
  const pairs = new Map([...lists].map(([pair, list]) => [pair, Int32Array.from(list)]));
  return { words, occurrences: new Map(rows.map((r) => [r.word, Number(r.occurrences)])), pairs };
}

/** Whether a word of the vocabulary starts with `prefix` (binary search in the sorted words). */
function hasPrefix(vocabulary: Vocabulary, prefix: string): boolean {
  const { words } = vocabulary;
  let low = 0;
  let high = words.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((words[middle] as string) < prefix) low = middle + 1;
    else high = middle;
  }
  return low < words.length && (words[low] as string).startsWith(prefix);
}

/** Whether the vocabulary holds the term (a prefix term: a word starting with it). */
export function knows(vocabulary: Vocabulary, term: QueryTerm): boolean {
  return term.prefix ? hasPrefix(vocabulary, term.word) : vocabulary.occurrences.has(term.word);
}

/**
 * The edits from `term` to `word`; for a prefix term (a word being typed), to the start of `word`
 * of about the term's length as well.
 */
function distanceTo(term: QueryTerm, word: string, max: number): number {
  let best = editDistance(term.word, word, max);
  if (term.prefix && word.length > term.word.length) {
    for (let length = term.word.length - max; length <= term.word.length + max; length++) {
      if (length < TYPO_LIMITS.minChars - 1 || length >= word.length) continue;
      best = Math.min(best, editDistance(term.word, word.slice(0, length), max));
    }
  }
  return best;
}

/** The closest words of the vocabularies to `term`, best first (none within its edits: empty). */
export function closestWords(vocabularies: readonly Vocabulary[], term: QueryTerm): string[] {
  const max = term.word.length >= TYPO_LIMITS.twoEditsFrom ? 2 : 1;
  const found = new Map<string, { distance: number; occurrences: number }>();
  const termPairs = pairsOf(term.word);
  // Each edit removes at most three of the term's pairs: a word (or its start) within `max` edits
  // holds at least this many of them.
  const needed = termPairs.size - 3 * max;
  // A word of few distinct pairs ("qqqqqqqq") would be compared with most of the vocabulary.
  if (needed < 1) return [];
  for (const vocabulary of vocabularies) {
    const shared = new Uint8Array(vocabulary.words.length);
    const candidates: number[] = [];
    for (const pair of termPairs) {
      for (const i of vocabulary.pairs.get(pair) ?? []) {
        shared[i] = (shared[i] as number) + 1;
        if (shared[i] === needed) candidates.push(i);
      }
    }
    for (const i of candidates) {
      const word = vocabulary.words[i] as string;
      if (word.length < term.word.length - max || (!term.prefix && word.length > term.word.length + max)) continue;
      const distance = distanceTo(term, word, max);
      if (distance > max) continue;
      const occurrences = vocabulary.occurrences.get(word) ?? 0;
      const known = found.get(word);
      if (!known || distance < known.distance) found.set(word, { distance, occurrences: (known?.occurrences ?? 0) + occurrences });
      else known.occurrences += occurrences;
    }
  }
  return [...found]
    .sort(([a, x], [b, y]) => x.distance - y.distance || y.occurrences - x.occurrences || (a < b ? -1 : 1))
    .slice(0, TYPO_LIMITS.corrections)
    .map(([word]) => word);
}

/**
 * The query with each word that no vocabulary knows also matching its closest words
 * (`alternatives`); undefined when no word needed and got a correction.
 */
export function correctedQuery(vocabularies: readonly Vocabulary[], query: SearchQuery): SearchQuery | undefined {
  let corrected = false;
  const include = query.include.map((term) => {
    if (term.word.length < TYPO_LIMITS.minChars || /^\p{N}+$/u.test(term.word)) return term;
    if (vocabularies.some((v) => knows(v, term))) return term;
    const alternatives = closestWords(vocabularies, term);
    if (alternatives.length === 0) return term;
    corrected = true;
    return { ...term, alternatives };
  });
  return corrected ? { include, exclude: query.exclude } : undefined;
}

/** Vocabularies loaded, by space and indexed revision; 64 MB at most. */
const vocabularyCache = new ResultCache<Vocabulary>(64 * 1024 * 1024, (v) => v.words.reduce((n, w) => n + w.length * 6 + 80, 0));

/** The vocabularies of the given spaces (empty for a space not indexed yet). */
export async function vocabulariesOf(db: Executor, spaceIds: readonly string[]): Promise<Vocabulary[]> {
  if (spaceIds.length === 0) return [];
  const states = await db.selectFrom("searchIndexState").select(["spaceId", "revisionId"]).where("spaceId", "in", spaceIds).execute();
  return Promise.all(
    states.map((state) =>
      vocabularyCache.get(`${state.spaceId}|${state.revisionId}`, async () =>
        vocabularyOf(await db.selectFrom("searchWords").select(["word", "occurrences"]).where("spaceId", "=", state.spaceId).execute()),
      ),
    ),
  );
}

/** Replaces a space's vocabulary (call inside the indexing transaction). */
export async function replaceVocabulary(db: Executor, spaceId: string, counts: ReadonlyMap<string, number>): Promise<void> {
  await db.deleteFrom("searchWords").where("spaceId", "=", spaceId).execute();
  const rows = vocabularyRows(counts);
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto("searchWords")
      .values(rows.slice(i, i + 500).map((r) => ({ spaceId, ...r })))
      .execute();
  }
}
