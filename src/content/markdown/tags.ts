/**
 * GitBook's Liquid-style `{% name arg="value" %}` tags: lexing of one tag, of a line made only of
 * tags, and the catalogue of tag names the converter knows. Scanning is by `indexOf`, never by
 * backtracking regular expressions, so thousands of `{%` without `%}` stay linear.
 */

export interface Tag {
  /** Tag name, lower-cased (`hint`, `endhint`, `content-ref` ...). */
  name: string;
  /** `key="value"` arguments, keys as written. */
  attrs: Record<string, string>;
  /** Bare arguments in order (`{% include "x.md" %}` has one; so has `{% if expr %}`'s words). */
  positional: string[];
  /** Everything between the name and `%}`, trimmed (the expression of `{% if %}`). */
  rawArgs: string;
  /** The tag exactly as written. */
  raw: string;
}

/** Tags that open a block closed by `{% end<name> %}`. */
export const CONTAINER_TAGS = new Set([
  "hint",
  "tabs",
  "tab",
  "code",
  "content-ref",
  "stepper",
  "step",
  "openapi",
  "swagger",
  "openapi-operation",
  "openapi-schemas",
  "openapi-webhook",
]);

/** Tags whose end tag is optional: without one they stand alone. */
export const OPTIONAL_END_TAGS = new Set(["embed", "file"]);

/** Tags that never have an end tag. */
export const VOID_TAGS = new Set(["include", "page-ref"]);

/**
 * Tags GitBook writes for constructs the 0.146 document schema cannot hold where they occur:
 * `if` and `columns` exist in the schema but are not allowed among a document's top-level blocks,
 * and `updates`, `prompt` and the inline-defined `swagger` have no node type at all. Their tag lines
 * are kept as paragraphs holding the tag text verbatim, with the blocks between them converted
 * normally; the serializer writes such a paragraph back as the bare tag line (see parse.ts header).
 */
export const PASS_THROUGH_TAGS = new Set([
  "if",
  "elsif",
  "else",
  "endif",
  "columns",
  "endcolumns",
  "column",
  "endcolumn",
  "updates",
  "endupdates",
  "update",
  "endupdate",
  "prompt",
  "endprompt",
  "swagger",
  "endswagger",
  "swagger-description",
  "endswagger-description",
  "swagger-parameter",
  "endswagger-parameter",
  "swagger-response",
  "endswagger-response",
]);

/** Every tag name the converter interprets (and so escapes when it appears as literal text). */
export function isKnownTagName(name: string): boolean {
  const base = name.startsWith("end") ? name.slice(3) : name;
  return (
    CONTAINER_TAGS.has(base) ||
    OPTIONAL_END_TAGS.has(base) ||
    VOID_TAGS.has(name) ||
    PASS_THROUGH_TAGS.has(name) ||
    PASS_THROUGH_TAGS.has(base)
  );
}

/** Parses one tag `{% ... %}` (the whole string); undefined when it is not one well-formed tag. */
export function parseTag(raw: string): Tag | undefined {
  const text = raw.trim();
  if (!text.startsWith("{%") || !text.endsWith("%}") || text.length < 4) return undefined;
  let inner = text.slice(2, -2);
  if (inner.startsWith("-")) inner = inner.slice(1);
  if (inner.endsWith("-")) inner = inner.slice(0, -1);
  if (inner.includes("%}") || inner.includes("{%")) return undefined;
  inner = inner.trim();
  // Integration blocks are written `{% @integration/block prop="…" %}`.
  const nameMatch = /^@?[A-Za-z][\w-]*(?:\/[\w-]+)?/.exec(inner);
  if (!nameMatch) return undefined;
  const name = nameMatch[0].toLowerCase();
  const rawArgs = inner.slice(nameMatch[0].length).trim();
  const { attrs, positional } = parseArgs(rawArgs);
  return { name, attrs, positional, rawArgs, raw: text };
}

/** `a="x" b='y' c=z bare "quoted"` → attributes and positional arguments. */
function parseArgs(input: string): { attrs: Record<string, string>; positional: string[] } {
  const attrs: Record<string, string> = {};
  const positional: string[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    while (i < n && /\s/.test(input[i]!)) i++;
    if (i >= n) break;
    const keyMatch = /^[A-Za-z_][\w.-]*=/.exec(input.slice(i, i + 200));
    if (keyMatch) {
      const key = keyMatch[0].slice(0, -1);
      i += keyMatch[0].length;
      const [value, next] = readValue(input, i);
      attrs[key] = value;
      i = next;
    } else {
      const [value, next] = readValue(input, i);
      positional.push(value);
      i = next;
    }
  }
  return { attrs, positional };
}

function readValue(input: string, start: number): [string, number] {
  const quote = input[start];
  if (quote === '"' || quote === "'") {
    let out = "";
    let i = start + 1;
    while (i < input.length && input[i] !== quote) {
      if (input[i] === "\\" && input[i + 1] === quote) {
        out += quote;
        i += 2;
      } else out += input[i++];
    }
    return [out, Math.min(i + 1, input.length)];
  }
  let i = start;
  while (i < input.length && !/\s/.test(input[i]!)) i++;
  return [input.slice(start, i), i];
}

/**
 * Splits a line that consists only of tags (and whitespace) into those tags; undefined when the
 * line has anything else on it, or when one of its `{% %}` is malformed.
 */
export function splitTagLine(line: string): string[] | undefined {
  const text = line.trim();
  if (!text.startsWith("{%")) return undefined;
  const tags: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (!text.startsWith("{%", i)) return undefined;
    const end = text.indexOf("%}", i + 2);
    if (end < 0) return undefined;
    const raw = text.slice(i, end + 2);
    if (!parseTag(raw)) return undefined;
    tags.push(raw);
    i = end + 2;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  }
  return tags.length ? tags : undefined;
}

/** Writes a tag: `{% name a="x" b="y" %}`; attributes with undefined values are left out. */
export function formatTag(name: string, attrs: Array<[string, string | undefined]> = [], positional: string[] = []): string {
  const parts = [name];
  for (const p of positional) parts.push(p);
  for (const [key, value] of attrs) if (value !== undefined) parts.push(`${key}="${value.replace(/"/g, '\\"')}"`);
  return `{% ${parts.join(" ")} %}`;
}
