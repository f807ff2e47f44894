/**
 * The text side of Ask, pure and deterministic (it runs in a worker thread for large inputs): a
 * question's terms, typo expansion against the index's vocabulary, the score of a candidate
 * section and the passage of it that answers best.
 */

import { invalid } from "../../lib/errors.js";
import { fold, stem } from "../search/snippets.js";
import {
  nearWords,
  occurrencesOf,
  type PackedVocabulary,
  packVocabulary,
  type Vocabulary as TypoVocabulary,
  unpackVocabulary,
} from "../search/typos.js";

/** Bounds of a question: past these, words are ignored rather than looked up. */
export const ASK_LIMITS = {
  /** Characters of a question (the spec's maxLength for streamAskInSite). */
  questionChars: 512,
  /** Content words looked up in the index. */
  terms: 8,
  /** Words of a question corrected against the vocabulary, and corrections kept for each. */
  typoTerms: 3,
  correctionsPerTerm: 2,
  /** Distinct words a vocabulary keeps (the most frequent ones win past it). */
  vocabularyWords: 200_000,
  /** Characters of the index read to build a vocabulary. */
  vocabularyChars: 32 * 1024 * 1024,
};

/** The question, trimmed; `invalid` (400) when it is empty or longer than ASK_LIMITS.questionChars. */
export function checkQuestion(question: string, where = "the question"): string {
  const asked = question.trim();
  if (asked === "") throw invalid(`Ask a question: ${where} is empty.`);
  if (asked.length > ASK_LIMITS.questionChars) {
    throw invalid(
      `${where[0]?.toUpperCase()}${where.slice(1)} is longer than ${ASK_LIMITS.questionChars} characters; ask it in fewer words.`,
    );
  }
  return asked;
}

/** Words that say how a question is asked rather than what about. */
const STOP_WORDS = new Set(
  (
    "a about above after again all also am an and any are as at be been before being below between both but by can " +
    "could did do does doing done down during each either else ever every few for from further get gets getting got had has " +
    "have having he her here hers him his how however i if in into is it its itself just let me might more most must my " +
    "need needs no nor not now of off on once one only or other our ours out over own please same shall she should so some " +
    "such than that the their theirs them then there these they this those through to too under until up us use used using " +
    "very via was way we were what whats when where whether which while who whom whose why will with within without would " +
    "yes you your yours tell show explain know want possible anyone someone something thing things"
  ).split(" "),
);

/** A term of a question: its folded word and stem, its weight, and the vocabulary words it may stand for. */
export interface AskTerm {
  word: string;
  stem: string;
  /** Inverse document frequency in the searched rows (higher: rarer, more telling). */
  weight: number;
  /** Vocabulary words a misspelt term is read as (empty when the word itself is indexed). */
  corrections: string[];
}

/** The content words of a question, folded, in order, without repeats or stop words; at most ASK_LIMITS.terms. */
export function questionWords(question: string): string[] {
  const words: string[] = [];
  const seen = new Set<string>();
  for (const raw of question.slice(0, ASK_LIMITS.questionChars).match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = fold(raw);
    if (word.length < 2 || word.length > 64 || STOP_WORDS.has(word)) continue;
    const key = stem(word);
    if (seen.has(key)) continue;
    seen.add(key);
    words.push(word);
    if (words.length >= ASK_LIMITS.terms) break;
  }
  return words;
}

/**
 * Document frequencies of the words of some rows (each row counts once per word), as typos.ts keeps
 * a vocabulary: sorted words with their counts by index, and the words' letter pairs, so that a
 * misspelt word is compared with the few words sharing enough of its pairs, not with all of them
 * (200,000 words, on the request thread).
 */
export interface Vocabulary {
  rows: number;
  /** Words and the rows holding each (`occurrencesOf`). */
  words: TypoVocabulary;
  /** Stems and the rows holding a word of each (summed over words: an upper bound); no pairs. */
  stems: TypoVocabulary;
}

/** A vocabulary as a worker thread builds it (tasks.ts `askVocabulary`): flat arrays, cheap to hand back. */
export interface PackedAskVocabulary {
  rows: number;
  words: PackedVocabulary;
  stems: PackedVocabulary;
}

/** The vocabulary of the given texts (a row's titles and body as one text). */
export function buildVocabulary(texts: readonly string[]): { rows: number; words: [string, number][] } {
  const counts = new Map<string, number>();
  for (const text of texts) {
    const seen = new Set<string>();
    for (const raw of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (raw.length < 2 || raw.length > 40) continue;
      const word = fold(raw);
      if (seen.has(word)) continue;
      seen.add(word);
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  let words = [...counts.entries()];
  if (words.length > ASK_LIMITS.vocabularyWords) {
    words = words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, ASK_LIMITS.vocabularyWords);
  }
  return { rows: texts.length, words };
}

export function packAskVocabulary(built: { rows: number; words: [string, number][] }): PackedAskVocabulary {
  const stems = new Map<string, number>();
  for (const [word, df] of built.words) {
    const s = stem(word);
    stems.set(s, (stems.get(s) ?? 0) + df);
  }
  return {
    rows: built.rows,
    words: packVocabulary(built.words.map(([word, occurrences]) => ({ word, occurrences }))),
    stems: packVocabulary(
      [...stems].map(([word, occurrences]) => ({ word, occurrences })),
      { pairs: false },
    ),
  };
}

export function unpackAskVocabulary(packed: PackedAskVocabulary): Vocabulary {
  return { rows: packed.rows, words: unpackVocabulary(packed.words), stems: unpackVocabulary(packed.stems) };
}

export function vocabularyOf(built: { rows: number; words: [string, number][] }): Vocabulary {
  return unpackAskVocabulary(packAskVocabulary(built));
}

/** Edits a word of this length may hold and still be read as a vocabulary word. */
function allowedEdits(word: string): number {
  if (word.length < 4) return 0;
  return word.length < 8 ? 1 : 2;
}

/** Vocabulary words a word not in the vocabulary may be a misspelling of: closest, then most frequent. */
export function correctionsOf(word: string, vocabulary: Vocabulary): string[] {
  const max = allowedEdits(word);
  if (max === 0) return [];
  return nearWords(vocabulary.words, { word, prefix: false }, max)
    .filter((found) => !/^\p{N}+$/u.test(found.word))
    .sort((a, b) => a.distance - b.distance || b.occurrences - a.occurrences || (a.word < b.word ? -1 : 1))
    .slice(0, ASK_LIMITS.correctionsPerTerm)
    .map((f) => f.word);
}

/** The question's terms with their weights and, for words the index does not hold, their corrections. */
export function askTerms(words: readonly string[], vocabulary: Vocabulary): AskTerm[] {
  let corrected = 0;
  const idf = (df: number) => Math.log(1 + vocabulary.rows / Math.max(1, df));
  return words.map((word) => {
    const s = stem(word);
    const df = occurrencesOf(vocabulary.words, word) || occurrencesOf(vocabulary.stems, s);
    if (df > 0 || corrected >= ASK_LIMITS.typoTerms) return { word, stem: s, weight: idf(df), corrections: [] };
    corrected++;
    const corrections = correctionsOf(word, vocabulary);
    const best = corrections[0] !== undefined ? occurrencesOf(vocabulary.words, corrections[0]) : 0;
    // A word the docs never use weighs as the rarest word: a question about it is not answered by the others alone.
    return { word, stem: s, weight: idf(best), corrections };
  });
}

/** A section that retrieval found, with its text. */
export interface AskCandidate {
  key: string;
  pageTitle: string;
  sectionTitle: string;
  body: string;
}

export interface ScoredCandidate {
  key: string;
  /** Weighted share of the question's terms the section (titles and text) holds, 0 to 1. */
  coverage: number;
  score: number;
  /** The sentences of the section that answer best (its title when it has no text). */
  passage: string;
}

/** For each term, whether a word matches it (its stem, or one of its corrections' stems). */
function termMatcher(terms: readonly AskTerm[]): (word: string) => number[] {
  const stems = terms.map((t) => new Set([t.stem, ...t.corrections.map(stem)]));
  return (word) => {
    const s = stem(fold(word));
    const out: number[] = [];
    stems.forEach((set, i) => {
      if (set.has(s)) out.push(i);
    });
    return out;
  };
}

const PASSAGE_CHARS = 480;

function sentencesOf(body: string): string[] {
  return body
    .split(/\n+|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'`(])/u)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 0);
}

function passageOf(body: string, terms: readonly AskTerm[], match: (word: string) => number[]): string {
  const sentences = sentencesOf(body);
  if (sentences.length === 0) return "";
  const scores = sentences.map((sentence) => {
    const hit = new Set<number>();
    for (const word of sentence.match(/[\p{L}\p{N}]+/gu) ?? []) for (const i of match(word)) hit.add(i);
    return [...hit].reduce((sum, i) => sum + (terms[i]?.weight ?? 0), 0);
  });
  let best = 0;
  for (let i = 1; i < sentences.length; i++) if ((scores[i] as number) > (scores[best] as number)) best = i;
  // The best sentence, then the ones after it while they fit: steps and explanations follow what they explain.
  let passage = sentences[best] as string;
  for (let i = best + 1; i < sentences.length && passage.length < PASSAGE_CHARS / 2; i++) {
    const next = `${passage} ${sentences[i]}`;
    if (next.length > PASSAGE_CHARS) break;
    passage = next;
  }
  if (passage.length > PASSAGE_CHARS) passage = `${passage.slice(0, PASSAGE_CHARS - 1).replace(/\s+\S*$/, "")}…`;
  return passage;
}

/** Scores sections against the question's terms: coverage of its weighted terms, titles counting extra. */
export function scoreCandidates(terms: readonly AskTerm[], candidates: readonly AskCandidate[]): ScoredCandidate[] {
  const total = terms.reduce((sum, t) => sum + t.weight, 0);
  const match = termMatcher(terms);
  return candidates.map((candidate) => {
    const inTitle = new Set<number>();
    const counts = new Map<number, number>();
    for (const word of `${candidate.pageTitle} ${candidate.sectionTitle}`.match(/[\p{L}\p{N}]+/gu) ?? []) {
      for (const i of match(word)) inTitle.add(i);
    }
    for (const word of candidate.body.match(/[\p{L}\p{N}]+/gu) ?? []) {
      for (const i of match(word)) counts.set(i, (counts.get(i) ?? 0) + 1);
    }
    let covered = 0;
    let titled = 0;
    let frequency = 0;
    terms.forEach((term, i) => {
      const tf = counts.get(i) ?? 0;
      if (tf > 0 || inTitle.has(i)) covered += term.weight;
      if (inTitle.has(i)) titled += term.weight;
      frequency += (term.weight * Math.min(tf, 5)) / 5;
    });
    const coverage = total > 0 ? covered / total : 0;
    const score = total > 0 ? coverage + (0.35 * titled) / total + (0.15 * frequency) / total : 0;
    const passage = passageOf(candidate.body, terms, match) || candidate.sectionTitle || candidate.pageTitle;
    return { key: candidate.key, coverage, score, passage };
  });
}
