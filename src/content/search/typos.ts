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
import { runInWorker } from "../run-in-worker.js";
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
 * A space's vocabulary, as searched: sorted words (for prefixes), their occurrences (by index), and
 * for each pair of letters (a word's first letter paired with "^") the words holding it. Comparing a
 * word with every word of a large vocabulary took 0.4-0.9 s on the request thread (200,000 words);
 * an edit removes at most three of a word's pairs (a swap: "xaby" to "xbay"), so only words sharing
 * enough pairs are compared.
 */
export interface Vocabulary {
  words: string[];
  /** Occurrences of `words[i]`. */
  occurrences: Int32Array;
  pairs: Map<number, Int32Array>;
}

/**
 * A vocabulary as built in a worker thread (the pairs of 50,000 words took ~300 ms to index): flat
 * typed arrays (each copied back in one piece) and the words as one string (one copy, where
 * 50,000 strings would be cloned one by one). `unpackVocabulary` makes the Vocabulary of
 * it on the calling thread at the cost of a Map entry per distinct pair.
 */
export interface PackedVocabulary {
  /** The sorted words joined by "\n" (no word holds one: words are letters and digits). */
  words: string;
  occurrences: Int32Array;
  /** Distinct pairs, the words of pairKeys[k] being pairWords[pairStarts[k] .. pairStarts[k + 1]). */
  pairKeys: Float64Array;
  pairStarts: Int32Array;
  pairWords: Int32Array;
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

/** The vocabulary of the rows, packed (the work of a worker thread for a large one: `searchVocabulary` in tasks.ts). */
export function packVocabulary(
  rows: readonly { word: string; occurrences: number }[],
  options: { pairs?: boolean } = {},
): PackedVocabulary {
  const sorted = [...rows].sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  const lists = new Map<number, number[]>();
  let total = 0;
  // Without pairs, a vocabulary answers occurrencesOf only (Ask's stems).
  if (options.pairs !== false)
    sorted.forEach(({ word }, i) => {
      for (const pair of pairsOf(word)) {
        const list = lists.get(pair);
        if (list) list.push(i);
        else lists.set(pair, [i]);
        total++;
      }
    });
  const pairKeys = new Float64Array(lists.size);
  const pairStarts = new Int32Array(lists.size + 1);
  const pairWords = new Int32Array(total);
  let k = 0;
  let at = 0;
  for (const [pair, list] of lists) {
    pairKeys[k] = pair;
    pairStarts[k] = at;
    pairWords.set(list, at);
    at += list.length;
    k++;
  }
  pairStarts[k] = at;
  return {
    words: sorted.map((r) => r.word).join("\n"),
    occurrences: Int32Array.from(sorted, (r) => Number(r.occurrences)),
    pairKeys,
    pairStarts,
    pairWords,
  };
}

export function unpackVocabulary(packed: PackedVocabulary): Vocabulary {
  const pairs = new Map<number, Int32Array>();
  for (let k = 0; k < packed.pairKeys.length; k++) {
    pairs.set(packed.pairKeys[k] as number, packed.pairWords.subarray(packed.pairStarts[k], packed.pairStarts[k + 1]));
  }
  return { words: packed.words === "" ? [] : packed.words.split("\n"), occurrences: packed.occurrences, pairs };
}

export function vocabularyOf(rows: readonly { word: string; occurrences: number }[]): Vocabulary {
  return unpackVocabulary(packVocabulary(rows));
}

/** The first index of a word not below `word` in the sorted words. */
function lowerBound(words: readonly string[], word: string): number {
  let low = 0;
  let high = words.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((words[middle] as string) < word) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The occurrences of `word` in the vocabulary (0 when it has none). */
export function occurrencesOf(vocabulary: Vocabulary, word: string): number {
  const i = lowerBound(vocabulary.words, word);
  return vocabulary.words[i] === word ? (vocabulary.occurrences[i] as number) : 0;
}

/** Whether a word of the vocabulary starts with `prefix` (binary search in the sorted words). */
function hasPrefix(vocabulary: Vocabulary, prefix: string): boolean {
  const { words } = vocabulary;
  const low = lowerBound(words, prefix);
  return low < words.length && (words[low] as string).startsWith(prefix);
}

/** Whether the vocabulary holds the term (a prefix term: a word starting with it). */
export function knows(vocabulary: Vocabulary, term: QueryTerm): boolean {
  return term.prefix ? hasPrefix(vocabulary, term.word) : occurrencesOf(vocabulary, term.word) > 0;
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

/**
 * The words of the vocabulary within `max` edits of `term` (for a prefix term, of their start),
 * with their distance and occurrences, in no order; none when the term has too few distinct pairs
 * for the pairs to narrow the search.
 */
export function nearWords(vocabulary: Vocabulary, term: QueryTerm, max: number): { word: string; distance: number; occurrences: number }[] {
  const termPairs = pairsOf(term.word);
  // Each edit removes at most three of the term's pairs: a word (or its start) within `max` edits
  // holds at least this many of them.
  const needed = termPairs.size - 3 * max;
  // A word of few distinct pairs ("qqqqqqqq") would be compared with most of the vocabulary.
  if (needed < 1) return [];
  const shared = new Uint8Array(vocabulary.words.length);
  const candidates: number[] = [];
  for (const pair of termPairs) {
    for (const i of vocabulary.pairs.get(pair) ?? []) {
      shared[i] = (shared[i] as number) + 1;
      if (shared[i] === needed) candidates.push(i);
    }
  }
  const near: { word: string; distance: number; occurrences: number }[] = [];
  for (const i of candidates) {
    const word = vocabulary.words[i] as string;
    if (word.length < term.word.length - max || (!term.prefix && word.length > term.word.length + max)) continue;
    const distance = distanceTo(term, word, max);
    if (distance <= max) near.push({ word, distance, occurrences: vocabulary.occurrences[i] as number });
  }
  return near;
}

/** The closest words of the vocabularies to `term`, best first (none within its edits: empty). */
export function closestWords(vocabularies: readonly Vocabulary[], term: QueryTerm): string[] {
  const max = term.word.length >= TYPO_LIMITS.twoEditsFrom ? 2 : 1;
  const found = new Map<string, { distance: number; occurrences: number }>();
  for (const vocabulary of vocabularies) {
    for (const { word, distance, occurrences } of nearWords(vocabulary, term, max)) {
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

/** Words read per statement: one statement over 50,000 words would hold SQLite's (the request's) thread. */
const WORDS_PER_READ = 5000;
/** Up to this many words, a vocabulary is built on the calling thread (a worker's round trip costs more). */
const INLINE_VOCABULARY_WORDS = 5000;

/** A space's vocabulary, read in slices (the event loop runs between them) and built in a worker thread when large. */
async function loadVocabulary(db: Executor, spaceId: string): Promise<Vocabulary> {
  const words: string[] = [];
  const occurrences: number[] = [];
  let after: string | undefined;
  for (;;) {
    let query = db.selectFrom("searchWords").select(["word", "occurrences"]).where("spaceId", "=", spaceId);
    if (after !== undefined) query = query.where("word", ">", after);
    const rows = await query.orderBy("word").limit(WORDS_PER_READ).execute();
    for (const row of rows) {
      words.push(row.word);
      occurrences.push(Number(row.occurrences));
    }
    if (rows.length < WORDS_PER_READ) break;
    after = (rows.at(-1) as { word: string }).word;
    await yieldToEventLoop();
  }
  if (words.length <= INLINE_VOCABULARY_WORDS)
    return vocabularyOf(words.map((word, i) => ({ word, occurrences: occurrences[i] as number })));
  const packed = await runInWorker("searchVocabulary", { words: words.join("\n"), occurrences: Int32Array.from(occurrences) });
  return unpackVocabulary(packed);
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The vocabularies of the given spaces (empty for a space not indexed yet), kept per indexed revision. */
export async function vocabulariesOf(db: Executor, spaceIds: readonly string[]): Promise<Vocabulary[]> {
  if (spaceIds.length === 0) return [];
  const states = await db.selectFrom("searchIndexState").select(["spaceId", "revisionId"]).where("spaceId", "in", spaceIds).execute();
  return Promise.all(
    states.map((state) => vocabularyCache.get(`${state.spaceId}|${state.revisionId}`, () => loadVocabulary(db, state.spaceId))),
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
