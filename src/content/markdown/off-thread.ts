/**
 * Markdown given to the API (a change request's content edits, the web editor's preview) converted
 * to a document off the thread that answers requests: a 1 MB page holds a thread for a second or
 * more. Small pages are converted inline, where the round trip to a worker thread would cost more
 * than the conversion itself.
 */

import { tooLarge } from "../../lib/errors.js";
import { INLINE_DOCUMENT_JSON_CHARS } from "../document/off-thread.js";
import type { JSONDocument } from "../document/types.js";
import { runInWorker } from "../run-in-worker.js";
import { canonicalJson, objectHash } from "../store/canonical.js";
import { type ContentLinkTable, contentLinkResolver, unwrapUnresolvedLinks } from "./content-links.js";
import type { PageFrontmatter } from "./frontmatter.js";
import { parseMarkdownPage } from "./parse.js";

/**
 * Below this many characters Markdown is converted inline. Measured (bench/markdown-api.bench.ts,
 * 2 shared cores): converting costs ~5-7 ms per KB of ordinary Markdown, a round trip to a warm
 * worker thread (copying the input and the link table of 1,000 pages, the JSON back) ~1-5 ms,
 * what 0.5-1 KB costs to convert. So all but small pages go to the thread: inline, a page under
 * 2 KB holds the request thread ~15 ms at most; a 16 KB page would hold it ~100 ms.
 */
export const INLINE_MARKDOWN_CHARS = 2 * 1024;

/**
 * A conversion in a worker thread stopped past this (the thread is replaced; the caller gets a
 * 413). Parsing is linear in the Markdown's length (micromark-linear.ts, inline-pieces.ts), but not
 * at one cost per KB: ordinary Markdown costs ~5-7 ms per KB, text that is nothing but construct
 * openers micromark must try and then give back as text (`[a ` or `a*` repeated: every `[` is
 * tried as a link, an image and a footnote call, every `*` as emphasis) 15-30 ms per KB on 2 shared
 * cores, so a 2 MB page of them would hold the thread a minute. What the limit allows is still far
 * more than any real page takes (the 2 MB page of bench/markdown-shapes.ts: a few seconds).
 */
export const MARKDOWN_CONVERT_TIMEOUT_MS = 30_000;

export interface MarkdownConversion {
  markdown: string;
  /**
   * The stored JSON of the page's previous document, whose block keys unchanged blocks keep: as
   * text, so that a large one is parsed only by the thread that converts.
   */
  previousJson?: string | undefined;
  /** Links resolve against it and those resolving to nothing become text; none: links stay as written. */
  links?: ContentLinkTable | undefined;
}

export interface ConvertedMarkdown {
  title?: string | undefined;
  frontmatter: PageFrontmatter;
  warnings: string[];
  /** The document's object hash (kind "document") and canonical JSON, ready to store. */
  hash: string;
  json: string;
}

/** The conversion itself, the same on either thread. */
export function convertMarkdownNow(input: MarkdownConversion): ConvertedMarkdown {
  const previous = input.previousJson === undefined ? undefined : (JSON.parse(input.previousJson) as JSONDocument);
  const parsed = parseMarkdownPage(input.markdown, {
    ...(input.links ? { resolve: contentLinkResolver(input.links) } : {}),
    ...(previous ? { previous } : {}),
  });
  if (input.links) unwrapUnresolvedLinks(parsed.document);
  const json = canonicalJson(parsed.document);
  return { title: parsed.title, frontmatter: parsed.frontmatter, warnings: parsed.warnings, hash: objectHash("document", json), json };
}

/**
 * Converts the Markdown, in a worker thread when it is large enough to be worth it: when the
 * Markdown is, or the previous document is (a small edit of a large page still parses the page's
 * JSON and matches its blocks, ~0.4 ms per KB). The document comes back as the JSON to store: a
 * large document is never rebuilt as objects on this thread (parsing, canonicalizing and hashing
 * 8 MB of JSON took ~500 ms here).
 */
export async function convertMarkdown(
  input: MarkdownConversion,
  { timeoutMs = MARKDOWN_CONVERT_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<ConvertedMarkdown> {
  const { links, previousJson } = input;
  if (input.markdown.length < INLINE_MARKDOWN_CHARS && (previousJson?.length ?? 0) < INLINE_DOCUMENT_JSON_CHARS)
    return convertMarkdownNow(input);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await runInWorker(
      "convertMarkdown",
      {
        markdown: input.markdown,
        ...(previousJson !== undefined ? { previousJson } : {}),
        // A plain copy: the table's lazily built parts are built here, once, for the copy to the thread.
        ...(links ? { links: { ...links } } : {}),
      },
      { signal },
    );
  } catch (error) {
    if (signal.aborted) {
      throw tooLarge(
        `Converting this Markdown (${Math.round(input.markdown.length / 1024)} KB) took longer than ${timeoutMs / 1000} s and was stopped: split it into smaller pages, or check it for long runs of unmatched [ or * that are meant as text (escape them as \\[ and \\*).`,
      );
    }
    throw error;
  }
}
