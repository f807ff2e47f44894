/**
 * Redaction of personal data and secrets, applied to every text of a conversation before anything
 * is stored: the originals never reach the database, the job queue or the logs. Each finding is
 * replaced by a placeholder naming its kind (`[REDACTED:email]`), so the text stays readable and
 * the analysis can skip placeholders.
 *
 * - emails: the usual `local@domain.tld` shape (also inside `mailto:`);
 * - payment card numbers: 13 to 19 digits, spaces or dashes allowed, that pass the Luhn check
 *   (other long digit runs, such as order numbers, are kept);
 * - phone numbers: what libphonenumber-js (Google's libphonenumber metadata) finds as a valid
 *   number, international (`+44 …`) or national for a set of common countries;
 * - secrets: private key blocks, values after `password=`, `token:`, `api_key=`, `Bearer` and the
 *   like, well-known token formats (GitHub, Stripe, Slack, AWS access keys, JWTs, Quire's own
 *   `qr_` tokens), and any other long random-looking word (high character entropy, letters and
 *   digits mixed).
 */
import { createRequire } from "node:module";
import type { CountryCode } from "libphonenumber-js/max";

/**
 * libphonenumber-js with its full metadata (~90 modules): required by the first text redacted, not
 * when the server starts (most processes never ingest a conversation). Synchronous, as redaction is.
 */
let phoneNumbers: typeof import("libphonenumber-js/max") | undefined;
function libphonenumber() {
  phoneNumbers ??= createRequire(import.meta.url)("libphonenumber-js/max") as typeof import("libphonenumber-js/max");
  return phoneNumbers;
}

export type RedactionKind = "email" | "phone" | "card" | "secret";

export const PLACEHOLDER_PATTERN = /\[REDACTED:(?:email|phone|card|secret)\]/g;

const placeholder = (kind: RedactionKind) => `[REDACTED:${kind}]`;

/** National numbers are recognised for these countries (international `+` numbers for all). */
const PHONE_COUNTRIES: CountryCode[] = ["US", "GB", "FR", "DE", "ES", "IT", "NL", "IN", "BR", "AU"];

const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;
/** `password: hunter2`, `api_key="…"`, `Authorization: Bearer …`: the label stays, the value goes. */
const LABELLED_SECRET =
  /\b((?:pass(?:word|wd|phrase)?|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token)\s*(?:[:=]|\bis\b)\s*["']?)([^\s"',;]{4,})/gi;
const BEARER = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{8,})/g;
const KNOWN_TOKENS = [
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  /\bqr_[A-Za-z0-9]{40}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];
const EMAIL =
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,}/g;
const CARD_CANDIDATE = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g;
const LONG_WORD = /[A-Za-z0-9_+/=-]{24,}/g;

/** The Luhn checksum of payment card numbers. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Shannon entropy in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function looksRandom(word: string): boolean {
  if (!/[0-9]/.test(word) || !/[A-Za-z]/.test(word)) return false;
  // Paths and hyphenated words: long, but made of ordinary words.
  if (/^(?:[a-z]+[-_/])+[a-z]+$/i.test(word)) return false;
  return entropy(word) >= 3.5;
}

function redactPhones(text: string): string {
  if (!/\d{2}/.test(text)) return text;
  const spans: [number, number][] = [];
  const { findPhoneNumbersInText } = libphonenumber();
  for (const country of PHONE_COUNTRIES) {
    for (const found of findPhoneNumbersInText(text, { defaultCountry: country })) {
      const raw = text.slice(found.startsAt, found.endsAt);
      // Dates and short digit runs (build numbers, ids) are valid numbers somewhere; not phones here.
      if (/^\d{4}[-./]\d{2}[-./]\d{2}$/.test(raw) || /^\d{1,8}$/.test(raw)) continue;
      spans.push([found.startsAt, found.endsAt]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    if (start < at) continue;
    out += text.slice(at, start) + placeholder("phone");
    at = end;
  }
  return out + text.slice(at);
}

/** The text with every email, phone number, payment card number and secret replaced. */
export function redact(text: string): string {
  let out = text.replace(PRIVATE_KEY, placeholder("secret"));
  out = out.replace(LABELLED_SECRET, (_m, label: string) => `${label}${placeholder("secret")}`);
  out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${placeholder("secret")}`);
  for (const pattern of KNOWN_TOKENS) out = out.replace(pattern, placeholder("secret"));
  out = out.replace(EMAIL, placeholder("email"));
  out = out.replace(CARD_CANDIDATE, (match) => {
    const digits = match.replace(/[ -]/g, "");
    return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? placeholder("card") : match;
  });
  out = redactPhones(out);
  out = out.replace(LONG_WORD, (word) => (looksRandom(word) ? placeholder("secret") : word));
  return out;
}

/**
 * A URL with secrets and personal data removed from it (emails and tokens in paths and query
 * strings); the placeholders are percent-encoded so that the result is still a valid URL.
 */
export function redactUrl(url: string): string {
  return redact(url).replace(PLACEHOLDER_PATTERN, (placeholder) => encodeURIComponent(placeholder));
}
