/**
 * LibreTranslate's HTTP API (https://libretranslate.com/docs): `GET /languages` lists each
 * language with the targets it translates into, `POST /translate` with `q` as an array of texts
 * answers `translatedText` as an array in the same order. The service's URL (and API key, if it
 * asks for one) come from the environment: `QUIRE_LIBRETRANSLATE_URL`, `QUIRE_LIBRETRANSLATE_API_KEY`.
 */
import { batches, isLanguage, type Language, type LanguagePair, type Translator, TranslatorError } from "./translator.model.js";

/** LibreTranslate's codes where they differ from TranslationLanguage's. */
const SERVICE_CODES: Partial<Record<Language, string[]>> = {
  no: ["nb", "no"],
  "pt-br": ["pt-BR", "pb"],
  zh: ["zh", "zh-Hans"],
};

function languageOfServiceCode(code: string): Language | undefined {
  for (const [language, codes] of Object.entries(SERVICE_CODES)) if (codes.includes(code)) return language as Language;
  const lower = code.toLowerCase();
  return isLanguage(lower) ? lower : undefined;
}

interface ServiceLanguage {
  code: string;
  targets?: string[];
}

export class LibreTranslateTranslator implements Translator {
  readonly engine = "libretranslate";

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  private async call<T>(path: string, init: RequestInit, signal?: AbortSignal): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (error) {
      if (timeout.aborted) throw new TranslatorError(`LibreTranslate (${this.baseUrl}) did not answer within ${this.timeoutMs} ms.`);
      throw new TranslatorError(`Could not reach LibreTranslate at ${this.baseUrl}: ${(error as Error).message}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new TranslatorError(`LibreTranslate answered ${response.status} with a body that is not JSON.`);
    }
    if (!response.ok) {
      const message = (body as { error?: unknown })?.error;
      throw new TranslatorError(
        `LibreTranslate answered ${response.status}: ${typeof message === "string" ? message : text.slice(0, 300)}`,
      );
    }
    return body as T;
  }

  /** The service's language codes, by TranslationLanguage, and the pairs they make. */
  private async languages(signal?: AbortSignal) {
    const list = await this.call<ServiceLanguage[]>("/languages", { method: "GET" }, signal);
    if (!Array.isArray(list)) throw new TranslatorError("LibreTranslate's /languages did not answer a list.");
    const codes = new Map<Language, string>();
    const pairs: LanguagePair[] = [];
    for (const entry of list) {
      const from = typeof entry?.code === "string" ? languageOfServiceCode(entry.code) : undefined;
      if (!from) continue;
      if (!codes.has(from)) codes.set(from, entry.code);
      for (const target of entry.targets ?? []) {
        const to = languageOfServiceCode(target);
        if (to && to !== from && !pairs.some((p) => p.from === from && p.to === to)) pairs.push({ from, to });
        if (to && !codes.has(to)) codes.set(to, target);
      }
    }
    return { codes, pairs };
  }

  async pairs(signal?: AbortSignal): Promise<LanguagePair[]> {
    return (await this.languages(signal)).pairs;
  }

  async translate(pair: LanguagePair, segments: readonly string[], signal?: AbortSignal): Promise<string[]> {
    if (segments.length === 0) return [];
    const { codes, pairs } = await this.languages(signal);
    if (!pairs.some((p) => p.from === pair.from && p.to === pair.to)) {
      throw new TranslatorError(`LibreTranslate does not translate ${pair.from} → ${pair.to}.`);
    }
    const out: string[] = [];
    for (const batch of batches(segments, 20_000, 100)) {
      const body = await this.call<{ translatedText?: unknown }>(
        "/translate",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            q: batch.items,
            source: codes.get(pair.from),
            target: codes.get(pair.to),
            format: "text",
            ...(this.apiKey ? { api_key: this.apiKey } : {}),
          }),
        },
        signal,
      );
      const translated = body.translatedText;
      if (!Array.isArray(translated) || translated.length !== batch.items.length || translated.some((t) => typeof t !== "string")) {
        throw new TranslatorError(
          `LibreTranslate answered ${Array.isArray(translated) ? translated.length : "no"} translations for ${batch.items.length} texts.`,
        );
      }
      out.push(...(translated as string[]).map((t) => t.trim()));
    }
    return out;
  }
}
