/**
 * The analysis of support conversations, pure and deterministic (same conversations in, same
 * issues and clusters out; no clock, no randomness, no database). docs/conversations.md states the
 * algorithm; in short:
 *
 * 1. Text: the user's messages, without HTML, code, links and redaction placeholders, read by
 *    wink-nlp (tokens, sentence boundaries, stop words, Porter-2 stems).
 * 2. Units: each user message is a unit; a paragraph that opens with a topic-shift phrase
 *    ("Also,", "Another question", "Separately", ...) starts a unit of its own. Units are weighted
 *    by BM25 (wink-nlp's BM25 vectorizer, l2-normalised) over all units of the run; the words of
 *    questions (sentences ending with "?") count twice.
 * 3. Issues: a conversation's first unit opens its first issue; a later unit opens a new issue when
 *    it starts with a topic-shift phrase, or when it asks something (a question or a problem
 *    statement) and its cosine similarity to the current issue is below SPLIT_SIMILARITY. An issue's
 *    vector is the normalised sum of its units'. Title, question and summary are sentences taken
 *    from the conversation (extractive: nothing is made up).
 * 4. Clusters: single-pass leader clustering in a fixed order (an issue joins the most similar
 *    cluster centroid when the cosine is at least JOIN_SIMILARITY, else it leads a new cluster),
 *    then spherical k-means iterations from those centroids until no issue moves, then clusters
 *    whose centroids are at least MERGE_SIMILARITY alike are merged, and clusters of fewer than
 *    MIN_CLUSTER_SIZE issues are dissolved (their issues join the nearest cluster when similar
 *    enough, else stay unclustered).
 */

import model from "wink-eng-lite-web-model";
import winkNLP, { type ItemSentence, type ItemToken, type ItsFunction } from "wink-nlp";
import bm25Vectorizer from "wink-nlp/utilities/bm25-vectorizer.js";
import { PLACEHOLDER_PATTERN } from "./redact.model.js";

/** Below this cosine to the current issue, a unit that asks something opens a new issue. */
export const SPLIT_SIMILARITY = 0.1;
/** An issue joins a cluster whose centroid is at least this similar. */
export const JOIN_SIMILARITY = 0.22;
/** Clusters whose centroids are at least this similar are merged. */
export const MERGE_SIMILARITY = 0.3;
/** Smaller clusters are dissolved. */
export const MIN_CLUSTER_SIZE = 2;
/** Spherical k-means iterations at most (they stop earlier when no issue moves). */
const MAX_ITERATIONS = 8;
/** Terms kept in a centroid: the rest weigh little and only slow the comparisons. */
const CENTROID_TERMS = 60;

export interface AnalysisPart {
  role: string;
  body: string;
}

export interface AnalysisConversation {
  id: string;
  subject: string | null;
  parts: AnalysisPart[];
}

export interface AnalysedIssue {
  conversationId: string;
  /** Order within the conversation, from 0. */
  position: number;
  title: string;
  question: string;
  summary: string;
  /** The issue's most weighted words, as written (used to search the documentation). */
  keywords: string[];
  /** Index into `clusters`, or null when the issue fits no cluster. */
  cluster: number | null;
}

export interface AnalysedCluster {
  /** Indexes into `issues`, in issue order. */
  issues: number[];
  /** The centroid's most weighted words, as written. */
  keywords: string[];
  label: string;
  icon: string;
  /** The question of the issue closest to the centroid. */
  typicalQuestion: string;
}

export interface AnalysisResult {
  issues: AnalysedIssue[];
  clusters: AnalysedCluster[];
}

type Vector = Map<string, number>;

/** `list[index]`, which the caller knows to exist (a broken invariant throws rather than run on). */
function at<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`conversation analysis: no item at ${index}`);
  return value;
}

const nlp = winkNLP(model, ["sbd"]);
const its = nlp.its;
// The type declarations of `its.stem` disagree with those of `out()`; it is an ordinary token property.
const STEM = its.stem as unknown as ItsFunction<string>;

const TOPIC_SHIFT =
  /^\s*(?:also|additionally|another (?:question|thing|issue|problem)|one more (?:thing|question)|separately|unrelated(?:ly)?|second(?:ly)?|next question|on (?:a|another) (?:different|separate|unrelated) (?:note|topic|subject)|(?:btw|by the way)|p\.?s\.?)\b/i;
const PROBLEM_CUE =
  /\?|\b(?:how|why|what|where|when|which|can(?:not|'t)?|could|is there|does|doesn't|don't|didn't|won't|unable|fails?|failed|failing|error|broken|not working|stuck|issue|problem|help|wrong|missing|trying)\b/i;
/** Words of politeness and small talk: frequent in support threads, never what an issue is about. */
const FILLER_WORDS = new Set(
  "hi hello hey dear morning afternoon evening greetings thanks thank thx cheers regards best please pls help helping appreciate appreciated great awesome ok okay sure yes no worked works working fine team guys folks kind kindly question questions issue issues problem problems hope happy sorry ask asked asking say says said tell told new use used using get got want wanted need needed like try tried trying write wrote know let".split(
    " ",
  ),
);
const LEADING_GREETING =
  /^(?:(?:hi|hello|hey|dear|greetings)(?: (?:there|team|all|everyone|guys|folks))?|good (?:morning|afternoon|evening))\s*[,!.:-]?\s*/i;
const GREETING = /^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings|thanks?|thank you|cheers|regards|best)\b/i;

/** A message body as plain words: no HTML, no code, no links (placeholders stay: see contentStems). */
export function plainText(body: string): string {
  return body
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/<(?:script|style)[\s\S]*?<\/(?:script|style)>/gi, " ")
    .replace(/<br\s*\/?>|<\/p>|<\/div>|<\/li>/gi, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\bhttps?:\/\/\S+/g, " ")
    .replace(/[ \t]+/g, " ");
}

interface Unit {
  conversation: number;
  /** Index of the message the unit ends in. */
  message: number;
  text: string;
  sentences: Sentence[];
  stems: string[];
  vector: Vector;
  shift: boolean;
  asks: boolean;
}

/** Surface forms seen for each stem, to write keywords as people do. */
class SurfaceForms {
  private readonly forms = new Map<string, Map<string, number>>();

  add(stem: string, normal: string): void {
    let forms = this.forms.get(stem);
    if (!forms) {
      forms = new Map();
      this.forms.set(stem, forms);
    }
    forms.set(normal, (forms.get(normal) ?? 0) + 1);
  }

  /** The most frequent form (ties: the shortest, then alphabetical). */
  of(stem: string): string {
    const forms = this.forms.get(stem);
    if (!forms) return stem;
    let best = stem;
    let bestCount = -1;
    for (const [form, count] of forms) {
      if (count > bestCount || (count === bestCount && (form.length < best.length || (form.length === best.length && form < best)))) {
        best = form;
        bestCount = count;
      }
    }
    return best;
  }
}

interface Sentence {
  text: string;
  stems: string[];
}

/** Stands for a redaction placeholder while text is read (sentences holding one are left out). */
const REDACTED_MARK = "redactedmark";

/**
 * One read of a text by wink-nlp: its sentences as written (without leading greetings; those that
 * held redacted data are left out) and the stems of its content words (no stop words, numbers,
 * small talk or placeholders), each sentence with its own.
 */
function readText(text: string, surface: SurfaceForms): { sentences: Sentence[]; stems: string[] } {
  const doc = nlp.readDoc(text.replace(PLACEHOLDER_PATTERN, ` ${REDACTED_MARK} `));
  const sentences: Sentence[] = [];
  const stems: string[] = [];
  doc.sentences().each((sentence: ItemSentence) => {
    const own: string[] = [];
    let redacted = false;
    sentence.tokens().each((token: ItemToken) => {
      if (token.out(its.type) !== "word" || token.out(its.stopWordFlag)) return;
      const normal = token.out(its.normal);
      if (normal === REDACTED_MARK) redacted = true;
      if (normal.length < 2 || /^\d+$/.test(normal) || FILLER_WORDS.has(normal) || normal === REDACTED_MARK) return;
      const stem = token.out(STEM);
      own.push(stem);
      surface.add(stem, normal);
    });
    for (const stem of own) stems.push(stem);
    if (redacted) return;
    const cleaned = sentence
      .out()
      .replace(/\s+/g, " ")
      .replace(LEADING_GREETING, "")
      .replace(/^(?:also|additionally|btw|by the way)\s*,?\s*/i, "")
      .trim();
    if (cleaned) sentences.push({ text: cleaned.charAt(0).toUpperCase() + cleaned.slice(1), stems: own });
  });
  return { sentences, stems };
}

/** Paragraph groups of one message: a paragraph opening with a topic shift starts a new group. */
function messageUnits(text: string): { text: string; shift: boolean }[] {
  const groups: { text: string; shift: boolean }[] = [];
  for (const paragraph of text.split(/\n\s*\n|\r\n\s*\r\n/)) {
    const trimmed = paragraph.trim();
    if (!trimmed) continue;
    const shift = TOPIC_SHIFT.test(trimmed);
    const last = groups[groups.length - 1];
    if (last && !shift) last.text += `\n\n${trimmed}`;
    else groups.push({ text: trimmed, shift });
  }
  return groups;
}

function norm(vector: Vector): number {
  let sum = 0;
  for (const w of vector.values()) sum += w * w;
  return Math.sqrt(sum);
}

function normalised(vector: Vector): Vector {
  const n = norm(vector);
  if (n === 0) return vector;
  const out: Vector = new Map();
  for (const [t, w] of vector) out.set(t, w / n);
  return out;
}

function addInto(target: Vector, vector: Vector, factor = 1): void {
  for (const [t, w] of vector) target.set(t, (target.get(t) ?? 0) + w * factor);
}

function dot(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let sum = 0;
  for (const [t, w] of small) {
    const v = large.get(t);
    if (v !== undefined) sum += w * v;
  }
  return sum;
}

/** The `n` heaviest terms, heaviest first (ties alphabetical, for determinism). */
function topTerms(vector: Vector, n: number): string[] {
  return [...vector.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, n)
    .map(([t]) => t);
}

function truncated(vector: Vector, n: number): Vector {
  if (vector.size <= n) return vector;
  return new Map(topTerms(vector, n).map((t) => [t, vector.get(t) ?? 0]));
}

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

function isFiller(sentence: string): boolean {
  return GREETING.test(sentence) && sentence.split(/\s+/).length <= 6;
}

function pickQuestion(sentences: string[]): string {
  const useful = sentences.filter((s) => !isFiller(s) && s.split(/\s+/).length >= 4);
  return (useful.find((s) => s.endsWith("?")) ?? useful.find((s) => PROBLEM_CUE.test(s)) ?? useful[0] ?? sentences[0] ?? "").trim();
}

/** Splits every conversation into units, then into issues. */
function findIssues(conversations: AnalysisConversation[], surface: SurfaceForms) {
  const units: Unit[] = [];
  const vectorizer = bm25Vectorizer({ k: 1, k1: 1.2, b: 0.75, norm: "l2" });
  conversations.forEach((conversation, c) => {
    let first = true;
    conversation.parts.forEach((part, m) => {
      if (part.role !== "user") return;
      for (const group of messageUnits(plainText(part.body))) {
        // The subject describes the first thing asked: its words count with the first unit.
        const { sentences, stems } = readText(group.text, surface);
        // What the user asks says more about the issue than the details around it: questions count twice.
        for (const sentence of sentences) if (sentence.text.endsWith("?")) stems.push(...sentence.stems);
        if (first && conversation.subject) stems.push(...readText(plainText(conversation.subject), surface).stems);
        first = false;
        units.push({
          conversation: c,
          message: m,
          text: group.text,
          sentences,
          stems,
          vector: new Map(),
          shift: group.shift,
          asks: PROBLEM_CUE.test(group.text),
        });
      }
    });
  });
  if (units.length === 0) return { units, issues: [] as { conversation: number; units: Unit[]; vector: Vector }[] };
  // An empty unit still takes a row, so that row numbers match units.
  for (const unit of units) vectorizer.learn(unit.stems.length > 0 ? unit.stems : ["\u0000"]);
  units.forEach((unit, i) => {
    if (unit.stems.length === 0) return;
    const bow = vectorizer.doc(i).out(its.bow) as Record<string, number>;
    unit.vector = new Map(Object.entries(bow));
  });

  const issues: { conversation: number; units: Unit[]; vector: Vector }[] = [];
  let current: { conversation: number; units: Unit[]; vector: Vector } | undefined;
  for (const unit of units) {
    const sameConversation = current?.conversation === unit.conversation;
    const contentful = unit.stems.length >= 3;
    const opens =
      !sameConversation ||
      !current ||
      (contentful && unit.shift) ||
      (contentful && unit.asks && dot(unit.vector, normalised(current.vector)) < SPLIT_SIMILARITY);
    if (opens && (unit.stems.length > 0 || !sameConversation)) {
      current = { conversation: unit.conversation, units: [unit], vector: new Map(unit.vector) };
      issues.push(current);
    } else if (current) {
      current.units.push(unit);
      // "I tried that, still broken" adds to the issue; "Thanks, that worked!" has nothing to add.
      if (unit.stems.length >= 2) addInto(current.vector, unit.vector);
    }
  }
  // Conversations whose user said nothing with content have no issue.
  return { units, issues: issues.filter((issue) => issue.vector.size > 0).map((i) => ({ ...i, vector: normalised(i.vector) })) };
}

function describeIssue(
  conversation: AnalysisConversation,
  issue: { units: Unit[]; vector: Vector },
  position: number,
  surface: SurfaceForms,
): Omit<AnalysedIssue, "cluster" | "conversationId" | "position"> {
  const read = issue.units.flatMap((u) => u.sentences);
  const sentences = read.map((s) => s.text);
  const question = shorten(pickQuestion(sentences), 500);
  const subject = conversation.subject
    ? plainText(conversation.subject)
        .replace(/^\s*(?:re|fwd?):\s*/i, "")
        .trim()
    : "";
  const title = shorten(position === 0 && subject.split(/\s+/).length >= 2 ? subject : question, 120);
  // Details: the sentences most like the issue as a whole, in their order.
  const scored = read
    .map(({ text: sentence, stems }, index) => {
      if (sentence === question || isFiller(sentence)) return { sentence, index, score: -1 };
      let score = 0;
      for (const stem of new Set(stems)) score += issue.vector.get(stem) ?? 0;
      return { sentence, index, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, 2)
    .sort((a, b) => a.index - b.index);
  // The answer: the first message of the team or an assistant after the issue was raised.
  const firstMessage = Math.min(...issue.units.map((u) => u.message));
  const reply = conversation.parts.slice(firstMessage + 1).find((p) => p.role !== "user");
  const replySentence = reply ? pickQuestion(readText(plainText(reply.body), new SurfaceForms()).sentences.map((s) => s.text)) : "";
  let summary = `The user asks: ${question}`;
  if (scored.length > 0) summary += ` ${scored.map((s) => s.sentence).join(" ")}`;
  if (replySentence) summary += ` Reply: ${replySentence}`;
  return {
    title: title || "Untitled issue",
    question: question || title,
    summary: shorten(summary, 1000),
    keywords: topTerms(issue.vector, 4).map((t) => surface.of(t)),
  };
}

const ICONS: [RegExp, string][] = [
  [/^(?:password|login|log|sign|sso|saml|auth|2fa|mfa|otp|lock|session|okta)/, "lock"],
  [/^(?:bill|invoic|payment|card|subscript|refund|price|plan|charg|vat|tax)/, "credit-card"],
  [/^(?:api|token|webhook|sdk|endpoint|rest|graphql|cli|script)/, "code"],
  [/^(?:integr|slack|github|gitlab|sync|zapier|plugin)/, "plug"],
  [/^(?:export|pdf|import|download|upload|backup)/, "file-export"],
  [/^(?:search|index|find)/, "magnifying-glass"],
  [/^(?:domain|dns|ssl|certif|host|cname|url)/, "globe"],
  [/^(?:email|notif|mail|alert)/, "envelope"],
  [/^(?:member|team|invit|user|permiss|role|access|seat)/, "users"],
  [/^(?:error|bug|crash|fail|broken|500|timeout)/, "bug"],
  [/^(?:slow|perform|speed|latenc|load)/, "gauge"],
];

function iconFor(stems: string[]): string {
  for (const stem of stems) for (const [pattern, icon] of ICONS) if (pattern.test(stem)) return icon;
  return "comments";
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Clusters issue vectors; returns each issue's cluster index (or -1) and the clusters' centroids. */
export function clusterVectors(vectors: Vector[]): { assignment: number[]; centroids: Vector[] } {
  // 1. Leader clustering, in input order. Cosine to a centroid = dot(vector, sum) / |sum|, with
  // |sum|² kept up to date as issues join, so that nothing is re-normalised per issue.
  let sums: Vector[] = [];
  const squaredNorms: number[] = [];
  let assignment = vectors.map((vector) => {
    let best = -1;
    let bestSimilarity = JOIN_SIMILARITY;
    sums.forEach((sum, c) => {
      const similarity = dot(vector, sum) / Math.sqrt(at(squaredNorms, c));
      if (similarity >= bestSimilarity) {
        best = c;
        bestSimilarity = similarity;
      }
    });
    if (best < 0) {
      sums.push(new Map(vector));
      squaredNorms.push(1);
      return sums.length - 1;
    }
    const sum = at(sums, best);
    let squared = at(squaredNorms, best);
    for (const [t, w] of vector) {
      const before = sum.get(t) ?? 0;
      squared += (before + w) ** 2 - before * before;
      sum.set(t, before + w);
    }
    squaredNorms[best] = squared;
    return best;
  });
  let centroids: Vector[] = sums.map((sum) => truncated(normalised(sum), CENTROID_TERMS));

  const recompute = () => {
    sums = centroids.map(() => new Map());
    assignment.forEach((c, i) => {
      if (c >= 0) addInto(at(sums, c), at(vectors, i));
    });
    centroids = sums.map((sum) => truncated(normalised(sum), CENTROID_TERMS));
  };
  const nearest = (vector: Vector, exclude?: Set<number>) => {
    let best = -1;
    let bestSimilarity = Number.NEGATIVE_INFINITY;
    centroids.forEach((centroid, c) => {
      if (centroid.size === 0 || exclude?.has(c)) return;
      const similarity = dot(vector, centroid);
      if (similarity > bestSimilarity) {
        best = c;
        bestSimilarity = similarity;
      }
    });
    return { best, similarity: bestSimilarity };
  };

  // 2. Spherical k-means from the leaders' centroids.
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    recompute();
    let moved = 0;
    assignment = assignment.map((c, i) => {
      const { best } = nearest(at(vectors, i));
      if (best !== c) moved++;
      return best;
    });
    if (moved === 0) break;
  }
  recompute();

  // 3. Merge clusters whose centroids are alike (bigger clusters absorb smaller ones).
  const sizes = centroids.map((_, c) => assignment.filter((a) => a === c).length);
  const order = centroids.map((_, c) => c).sort((a, b) => at(sizes, b) - at(sizes, a) || a - b);
  const mergedInto = new Map<number, number>();
  for (const [rank, big] of order.entries()) {
    if (mergedInto.has(big) || sizes[big] === 0) continue;
    for (const small of order.slice(rank + 1)) {
      if (mergedInto.has(small) || sizes[small] === 0) continue;
      if (dot(at(centroids, big), at(centroids, small)) >= MERGE_SIMILARITY) mergedInto.set(small, big);
    }
  }
  if (mergedInto.size > 0) {
    assignment = assignment.map((c) => mergedInto.get(c) ?? c);
    recompute();
  }

  // 4. Dissolve small clusters: their issues join the nearest remaining cluster if similar enough.
  const counts = centroids.map((_, c) => assignment.filter((a) => a === c).length);
  const small = new Set(counts.flatMap((n, c) => (n > 0 && n < MIN_CLUSTER_SIZE ? [c] : [])));
  const empty = new Set(counts.flatMap((n, c) => (n === 0 ? [c] : [])));
  if (small.size > 0) {
    const excluded = new Set([...small, ...empty]);
    assignment = assignment.map((c, i) => {
      if (!small.has(c)) return c;
      const { best, similarity } = nearest(at(vectors, i), excluded);
      return best >= 0 && similarity >= JOIN_SIMILARITY ? best : -1;
    });
    recompute();
  }
  // Renumber the clusters that have issues, in the order of their first issue.
  const renumber = new Map<number, number>();
  for (const c of assignment) if (c >= 0 && !renumber.has(c)) renumber.set(c, renumber.size);
  const finalCentroids: Vector[] = [];
  for (const [old, fresh] of renumber) finalCentroids[fresh] = at(centroids, old);
  return { assignment: assignment.map((c) => (c >= 0 ? (renumber.get(c) ?? -1) : -1)), centroids: finalCentroids };
}

/**
 * Issues and clusters of the given conversations. The order of `conversations` is part of the
 * input: callers pass them in a fixed order (oldest first, then by id).
 */
export function analyseConversations(conversations: AnalysisConversation[]): AnalysisResult {
  const surface = new SurfaceForms();
  const { issues: found } = findIssues(conversations, surface);
  const positions = new Map<number, number>();
  const issues: AnalysedIssue[] = found.map((issue) => {
    const conversation = at(conversations, issue.conversation);
    const position = positions.get(issue.conversation) ?? 0;
    positions.set(issue.conversation, position + 1);
    return { conversationId: conversation.id, position, cluster: null, ...describeIssue(conversation, issue, position, surface) };
  });
  const vectors = found.map((issue) => issue.vector);
  const { assignment, centroids } = clusterVectors(vectors);
  const clusters: AnalysedCluster[] = centroids.map((centroid) => {
    const top = topTerms(centroid, 5);
    const keywords = top.map((t) => surface.of(t));
    return { issues: [], keywords, label: capitalised(keywords.slice(0, 3).join(", ")), icon: iconFor(top), typicalQuestion: "" };
  });
  const typical = clusters.map(() => ({ issue: -1, similarity: Number.NEGATIVE_INFINITY }));
  assignment.forEach((c, i) => {
    if (c < 0) return;
    at(issues, i).cluster = c;
    at(clusters, c).issues.push(i);
    const similarity = dot(at(vectors, i), at(centroids, c));
    if (similarity > at(typical, c).similarity) typical[c] = { issue: i, similarity };
  });
  clusters.forEach((cluster, c) => {
    cluster.typicalQuestion = issues[at(typical, c).issue]?.question ?? "";
  });
  // An issue's keywords (what the documentation is searched for): its words that also weigh in its
  // cluster, so that a rare word of one message does not outweigh what the issue is about.
  assignment.forEach((c, i) => {
    if (c < 0) return;
    const centroid = at(centroids, c);
    const shared: Vector = new Map();
    for (const [t, w] of at(vectors, i)) {
      const v = centroid.get(t);
      if (v !== undefined) shared.set(t, w * v);
    }
    if (shared.size >= 2) at(issues, i).keywords = topTerms(shared, 4).map((t) => surface.of(t));
  });
  return { issues, clusters };
}
