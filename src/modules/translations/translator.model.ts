/**
 * The machine translation engine behind translations: one small interface, two adapters
 * (Apertium, run offline from Debian's packages, and LibreTranslate's HTTP API), chosen by the
 * configuration (`QUIRE_TRANSLATOR`, see engines.adapter.ts).
 */
import { invalid } from "../../lib/errors.js";
import { LANGUAGES } from "../spaces/spaces.schemas.js";

export type Language = (typeof LANGUAGES)[number];

export interface LanguagePair {
  from: Language;
  to: Language;
}

export interface Translator {
  /** `apertium` or `libretranslate`: part of what a translated page's fingerprint records. */
  readonly engine: string;
  /** The pairs this engine can translate now. */
  pairs(signal?: AbortSignal): Promise<LanguagePair[]>;
  /** Translations of `segments`, in the same order (one output per input). */
  translate(pair: LanguagePair, segments: readonly string[], signal?: AbortSignal): Promise<string[]>;
}

/** The engine failed in a way a later attempt may not (a timeout, a crash, a service answering 5xx). */
export class TranslatorError extends Error {
  override name = "TranslatorError";
}

export const isLanguage = (value: string): value is Language => (LANGUAGES as readonly string[]).includes(value);

export const formatPair = (pair: LanguagePair) => `${pair.from} → ${pair.to}`;

/** A 400 naming the installed pairs when the engine cannot translate `from` into `to`. */
export async function requirePair(translator: Translator, pair: LanguagePair): Promise<void> {
  const pairs = await translator.pairs();
  if (pairs.some((p) => p.from === pair.from && p.to === pair.to)) return;
  const installed = pairs.length ? pairs.map(formatPair).join(", ") : "none";
  const howTo =
    translator.engine === "apertium"
      ? " Install the pair's Debian package (for example apt-get install apertium-eng-spa) on every machine that runs Quire; the README explains how."
      : " Load the languages into the LibreTranslate service.";
  throw invalid(`The language pair ${formatPair(pair)} is not installed for ${translator.engine}. Installed pairs: ${installed}.${howTo}`);
}

/** Splits segments into batches of at most `maxChars` characters (and at least one segment each). */
export function batches(
  segments: readonly string[],
  maxChars: number,
  maxItems = Number.POSITIVE_INFINITY,
): Array<{ start: number; items: string[] }> {
  const out: Array<{ start: number; items: string[] }> = [];
  let current: { start: number; items: string[] } = { start: 0, items: [] };
  let size = 0;
  segments.forEach((segment, index) => {
    if (current.items.length > 0 && (size + segment.length > maxChars || current.items.length >= maxItems)) {
      out.push(current);
      current = { start: index, items: [] };
      size = 0;
    }
    current.items.push(segment);
    size += segment.length;
  });
  if (current.items.length) out.push(current);
  return out;
}
