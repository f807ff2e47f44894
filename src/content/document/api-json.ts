/**
 * A stored document's JSON text as the API sends it, without parsing it on the request thread when
 * nothing needs to change. Documents are stored as canonical JSON (content/store/canonical.ts:
 * JSON.stringify of the value with sorted keys, no whitespace), which is what the response
 * serializer would write for them, in another key order, except where the response schema
 * (RichDocument: `data` and every node of `nodes` are records whose key pattern does not match a
 * line terminator, `object` is the literal "document") would drop or rewrite something. Such a
 * document is refused here (`undefined`) and goes through the serializer as before.
 */

import { LRUCache } from "lru-cache";
import { withHeadingAnchors } from "./anchor.js";

/**
 * A key holding a line terminator (`\n`, `\r`, U+2028, U+2029): the serializer drops such a key
 * at the top of `data` and of each node. Only keys are matched (a string followed by `:`); in
 * canonical JSON no backslash or line terminator appears outside strings, so a match cannot
 * straddle two strings.
 */
const LINE_TERMINATOR_KEY = /"(?:[^"\\]|\\.)*(?:\\[nr]|\u2028|\u2029)(?:[^"\\]|\\.)*":/;

/**
 * True when the serializer would send this stored document with the same fields and values:
 * a document object (`{"data":{…` or `{"nodes":[…`, ending with `"object":"document"}`) with no
 * key the schema would drop.
 */
export function sendsAsStored(json: string): boolean {
  if (!(json.startsWith('{"data":{') || json.startsWith('{"nodes":['))) return false;
  if (!json.endsWith(',"object":"document"}')) return false;
  if (!/\\[nr]|\u2028|\u2029/.test(json)) return true;
  return !LINE_TERMINATOR_KEY.test(json);
}

/** True when the document may hold a heading block, whose anchor (`meta.id`) the API adds. */
function mayHoldHeading(json: string): boolean {
  return json.includes('"heading-');
}

/**
 * Documents as the page document reads send them (JSON text), by document hash: a document never
 * changes once stored, nor do the anchors of its headings, so the text is read (and anchored) once
 * per document, not once per request. Bounded by text length.
 */
const kept = new LRUCache<string, string>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (json) => Math.max(1, json.length),
});

/**
 * A stored document as the page document reads send it (headings carrying their anchors, see
 * withHeadingAnchors), as JSON text; `undefined` when the response serializer must see it
 * (sendsAsStored). A document without headings is its stored text, as stored.
 */
export function anchoredDocumentJson(hash: string, json: string): string | undefined {
  let text = kept.get(hash);
  if (text !== undefined) return text;
  if (!sendsAsStored(json)) return undefined;
  text = mayHoldHeading(json) ? JSON.stringify(withHeadingAnchors(JSON.parse(json))) : json;
  kept.set(hash, text);
  return text;
}

/** The JSON a page document read sends for this document, when already kept (no need to read the stored text). */
export function keptAnchoredDocumentJson(hash: string): string | undefined {
  return kept.get(hash);
}
