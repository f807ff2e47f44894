/**
 * Apertium (https://www.apertium.org), the offline rule-based engine of Debian's `apertium`
 * package, with one package per language pair (`apertium-eng-spa`, `apertium-fra-spa`, …). Each
 * batch of segments is one run of `apertium -u -f html <mode>`: segments are HTML-escaped and
 * separated by `<hr data-q="N">` tags, which Apertium's HTML deformatter keeps verbatim (tags are
 * "superblanks": nothing is translated across them and they come out in order), so the output
 * splits back into exactly one translation per segment, checked by the numbers.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { batches, isLanguage, type Language, type LanguagePair, type Translator, TranslatorError } from "./translator.model.js";

const execFileAsync = promisify(execFile);

/** Apertium's language codes (ISO 639-3, and the older two-letter ones) for each TranslationLanguage. */
const APERTIUM_CODES: Record<Language, string[]> = {
  en: ["eng", "en"],
  fr: ["fra", "fr"],
  de: ["deu", "de"],
  es: ["spa", "es"],
  it: ["ita", "it"],
  pt: ["por", "pt"],
  "pt-br": ["por_BR", "pt_BR"],
  ru: ["rus", "ru"],
  ja: ["jpn", "ja"],
  zh: ["zho", "cmn", "zh"],
  yue: ["yue"],
  ko: ["kor", "ko"],
  ar: ["ara", "ar"],
  hi: ["hin", "hi"],
  nl: ["nld", "nl"],
  pl: ["pol", "pl"],
  tr: ["tur", "tr"],
  sv: ["swe", "sv"],
  no: ["nob", "nor", "nb", "no"],
  da: ["dan", "da"],
  fi: ["fin", "fi"],
  el: ["ell", "el"],
  cs: ["ces", "cs"],
  hu: ["hun", "hu"],
  ro: ["ron", "ro"],
  th: ["tha", "th"],
  vi: ["vie", "vi"],
  id: ["ind", "id"],
  ms: ["msa", "zlm", "ms"],
  he: ["heb", "he"],
  uk: ["ukr", "uk"],
  sk: ["slk", "sk"],
  bg: ["bul", "bg"],
  hr: ["hbs_HR", "hrv", "hr"],
  lt: ["lit", "lt"],
  lv: ["lvs", "lav", "lv"],
  et: ["est", "et"],
  sl: ["slv", "sl"],
};

const BY_CODE = new Map<string, Language>();
for (const [language, codes] of Object.entries(APERTIUM_CODES)) for (const code of codes) BY_CODE.set(code, language as Language);

/** The TranslationLanguage of an Apertium code such as `spa`, `eng_US` or `por_BR`. */
export function languageOfApertiumCode(code: string): Language | undefined {
  const exact = BY_CODE.get(code);
  if (exact) return exact;
  const language = BY_CODE.get(code.replace(/_.*$/, ""));
  return language && isLanguage(language) ? language : undefined;
}

/** Translation directions (`eng-spa`, `spa-eng_US`) mapped to pairs; other modes are ignored. */
export function pairsOfModes(modes: readonly string[]): Array<LanguagePair & { mode: string }> {
  const out: Array<LanguagePair & { mode: string }> = [];
  for (const mode of modes) {
    const [source, target, ...rest] = mode.split("-");
    if (!source || !target || rest.length > 0) continue;
    const from = languageOfApertiumCode(source);
    const to = languageOfApertiumCode(target);
    if (from && to && from !== to) out.push({ from, to, mode });
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

/** The input of one Apertium run: every segment after its numbered separator. */
export function encodeBatch(segments: readonly string[]): string {
  return segments.map((segment, i) => `<hr data-q="${i}">${escapeHtml(segment)}`).join("");
}

/** One translation per segment, or an error when Apertium did not keep every separator in order. */
export function decodeBatch(output: string, count: number): string[] {
  const parts = output.split(/<hr data-q="(\d+)">/);
  const out: string[] = [];
  if ((parts[0] ?? "").trim() !== "") throw new TranslatorError("Apertium's output did not start with the first separator.");
  for (let i = 1; i < parts.length; i += 2) {
    if (Number(parts[i]) !== out.length) throw new TranslatorError(`Apertium's output lost segment separator ${out.length}.`);
    out.push(unescapeHtml(parts[i + 1] ?? "").trim());
  }
  if (out.length !== count) throw new TranslatorError(`Apertium returned ${out.length} segments for ${count}.`);
  return out;
}

/**
 * Apertium starts a sentence after each separator and capitalises its first word; a segment that
 * started in lower case is the middle of a sentence (after a link or bold text), so its translation
 * starts in lower case too.
 */
export function keepInitialCase(source: string, translated: string): string {
  const first = /\p{L}/u.exec(source)?.[0];
  if (!first || first !== first.toLowerCase() || first === first.toUpperCase()) return translated;
  const match = /\p{L}/u.exec(translated);
  if (!match) return translated;
  return translated.slice(0, match.index) + match[0].toLowerCase() + translated.slice(match.index + match[0].length);
}

/** Characters per Apertium run: large enough that its start-up (~50 ms) is paid rarely. */
const BATCH_CHARS = 100_000;

export class ApertiumTranslator implements Translator {
  readonly engine = "apertium";
  private readonly command: string;
  private readonly timeoutMs: number;

  constructor(options: { command?: string; timeoutMs: number }) {
    this.command = options.command ?? "apertium";
    this.timeoutMs = options.timeoutMs;
  }

  /** Modes listed by `apertium -l`; none when Apertium is not installed. */
  async modes(signal?: AbortSignal): Promise<string[]> {
    try {
      const { stdout } = await execFileAsync(this.command, ["-l"], { timeout: 10_000, ...(signal ? { signal } : {}) });
      return stdout
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new TranslatorError(`Could not list Apertium's language pairs: ${(error as Error).message}`);
    }
  }

  async pairs(signal?: AbortSignal): Promise<LanguagePair[]> {
    const seen = new Set<string>();
    return pairsOfModes(await this.modes(signal))
      .filter((p) => !seen.has(`${p.from}>${p.to}`) && seen.add(`${p.from}>${p.to}`))
      .map(({ from, to }) => ({ from, to }));
  }

  async translate(pair: LanguagePair, segments: readonly string[], signal?: AbortSignal): Promise<string[]> {
    if (segments.length === 0) return [];
    const candidates = pairsOfModes(await this.modes(signal)).filter((p) => p.from === pair.from && p.to === pair.to);
    // Prefer the plain direction (`spa-eng`) to a regional variant (`spa-eng_US`).
    const mode = candidates.sort((a, b) => a.mode.length - b.mode.length)[0]?.mode;
    if (!mode) throw new TranslatorError(`Apertium has no ${pair.from} → ${pair.to} pair installed.`);
    const out: string[] = [];
    for (const batch of batches(segments, BATCH_CHARS)) {
      const output = await this.run(mode, encodeBatch(batch.items), signal);
      out.push(...decodeBatch(output, batch.items.length).map((text, i) => keepInitialCase(batch.items[i] ?? "", text)));
    }
    return out;
  }

  /**
   * One `apertium` run over `input`, killed after the timeout or when `signal` aborts. The input
   * goes through a private temporary file: the `apertium` script opens `/dev/stdin` by name, which
   * fails when stdin is the socket Node gives a child process.
   */
  private async run(mode: string, input: string, signal?: AbortSignal): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), "quire-apertium-"));
    try {
      const file = path.join(dir, "input.html");
      await writeFile(file, input, { encoding: "utf8", mode: 0o600 });
      return await this.spawn(mode, file, signal);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private spawn(mode: string, file: string, signal?: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, ["-u", "-f", "html", mode, file], { stdio: ["ignore", "pipe", "pipe"] });
      const stdout: Buffer[] = [];
      let stderr = "";
      let settled = false;
      const finish = (error: Error | undefined, value = "") => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (error) {
          child.kill("SIGKILL");
          reject(error);
        } else resolve(value);
      };
      const timer = setTimeout(
        () => finish(new TranslatorError(`Apertium (${mode}) took longer than ${this.timeoutMs} ms.`)),
        this.timeoutMs,
      );
      const onAbort = () => finish(new TranslatorError("The translation was stopped."));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < 4000) stderr += chunk.toString("utf8");
      });
      child.on("error", (error) => finish(new TranslatorError(`Could not run Apertium: ${error.message}`)));
      child.on("close", (code) => {
        if (code === 0) finish(undefined, Buffer.concat(stdout).toString("utf8"));
        else finish(new TranslatorError(`Apertium (${mode}) exited with code ${code}: ${stderr.trim().slice(0, 500)}`));
      });
    });
  }
}
