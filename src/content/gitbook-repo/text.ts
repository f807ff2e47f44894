/** Small text helpers of the repository format: slugs, titles, front matter, link destinations. */
import { parse as parseYaml } from "yaml";

/** URL segment for a title or file name: lowercase letters and digits (any script) joined by "-". */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return slug || "page";
}

/** Splits `---\nyaml\n---` off the top of a Markdown file. */
export function splitFrontMatter(source: string): { yaml: string | undefined; body: string } {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return { yaml: undefined, body: source };
  return { yaml: match[1], body: source.slice(match[0].length) };
}

/** The front matter as an object; undefined when absent; throws on invalid YAML. */
export function parseFrontMatter(source: string): Record<string, unknown> | undefined {
  const { yaml } = splitFrontMatter(source);
  if (yaml === undefined) return undefined;
  const value: unknown = parseYaml(yaml);
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Text of the first `# ` heading outside code fences, or undefined. */
export function firstHeading(source: string): string | undefined {
  const { body } = splitFrontMatter(source);
  let fence: string | undefined;
  for (const line of body.split(/\r?\n/)) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (opener) {
      const marker = opener[1] as string;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading?.[1]) return heading[1].trim();
  }
  return undefined;
}

/** Decodes %XX escapes; leaves the text as it is when it is not valid percent-encoding. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1]?.toLowerCase() === "x" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** True for "https://x", "mailto:x", "//host/x": references that are not repository paths. */
export function isExternal(reference: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith("//");
}

/** A link destination as a repository-relative path: no fragment or query, escapes decoded. */
export function destinationToPath(destination: string): string {
  let value = destination.trim();
  if (value.startsWith("<") && value.endsWith(">")) value = value.slice(1, -1);
  value = value.replace(/\\([!-/:-@[-`{-~])/g, "$1");
  value = value.replace(/[?#].*$/, "");
  return safeDecode(value);
}

/** Relative path from directory `fromDir` to `to` (both repository paths). */
export function relativePath(fromDir: string, to: string): string {
  const from = fromDir.split("/").filter(Boolean);
  const target = to.split("/").filter(Boolean);
  let common = 0;
  while (common < from.length && common < target.length - 1 && from[common] === target[common]) common++;
  return [...from.slice(common).map(() => ".."), ...target.slice(common)].join("/");
}
