/**
 * Links of a revision: every content reference found in its page documents (links, mentions,
 * images, content-ref cards, files, embeds, includes, cards) and page covers, with the status of
 * its target in that revision. Counts are per occurrence, as a reader of the pages would count.
 */
import type { ContentRef } from "../document/types.js";
import type { PageLocation, RevisionContent } from "../revision/model.js";

export type LinkStatus = "ok" | "broken" | "in-app";

export interface LinkUsage {
  /** The page the link is written in. */
  sourcePageId: string;
  /** Key of the block holding it (absent for a page cover). */
  blockKey?: string;
  target: ContentRef;
  status: LinkStatus;
  /** `dependsOn` when the page's content embeds the target (includes, OpenAPI), else `reference`. */
  relation: "reference" | "dependsOn";
}

/** The field each kind of reference must carry (cards tables keep references under column ids). */
const REQUIRED_FIELD: Record<string, string> = {
  file: "file",
  url: "url",
  page: "page",
  anchor: "anchor",
  user: "user",
  collection: "collection",
  space: "space",
  "reusable-content": "reusableContent",
  openapi: "spec",
};

function isContentRef(value: unknown): value is ContentRef {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const field = REQUIRED_FIELD[(value as { kind?: unknown }).kind as string];
  return !!field && typeof (value as Record<string, unknown>)[field] === "string";
}

/** Every content reference inside a document, with the key of the block that holds it. */
export function referencesInDocument(document: unknown): { ref: ContentRef; blockKey?: string }[] {
  const found: { ref: ContentRef; blockKey?: string }[] = [];
  const walk = (node: unknown, blockKey: string | undefined, depth: number) => {
    if (depth > 500 || !node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child, blockKey, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    const key = record.object === "block" && typeof record.key === "string" ? record.key : blockKey;
    for (const value of Object.values(record)) {
      if (isContentRef(value)) {
        found.push({ ref: value, ...(key ? { blockKey: key } : {}) });
      } else if (typeof value === "object") {
        walk(value, key, depth + 1);
      }
    }
  };
  walk(document, undefined, 0);
  return found;
}

/** No scheme, not protocol-relative, not a bare fragment: a path into the content. */
const RELATIVE_URL = /^(?![a-z][a-z0-9+.-]*:)(?!\/\/)(?!#)./i;

export interface LinkContext {
  spaceId: string;
  content: RevisionContent;
  locations: Map<string, PageLocation>;
  /** Base URL of this Quire: URLs under it point into the app (`in-app`). */
  publicUrl: string;
}

export function linkStatus(ref: ContentRef, ctx: LinkContext): LinkStatus {
  const sameSpace = (space: string | undefined) => !space || space === ctx.spaceId;
  switch (ref.kind) {
    case "page":
      return sameSpace(ref.space) && !ctx.locations.has(ref.page) ? "broken" : "ok";
    case "anchor":
      return ref.page && sameSpace(ref.space) && !ctx.locations.has(ref.page) ? "broken" : "ok";
    case "file":
      return ctx.content.files.some((f) => f.id === ref.file) ? "ok" : "broken";
    case "reusable-content":
      return sameSpace((ref as { space?: string }).space) && !ctx.content.reusableContents.some((r) => r.id === ref.reusableContent)
        ? "broken"
        : "ok";
    case "url":
      if (ref.url.startsWith(`${ctx.publicUrl}/`) || ref.url === ctx.publicUrl) return "in-app";
      // A relative URL is a link into the content that did not resolve to a page or file.
      return RELATIVE_URL.test(ref.url) ? "broken" : "ok";
    default:
      return "ok";
  }
}

/** All link usages of the revision, in page reading order. */
export function collectLinks(ctx: LinkContext, documents: Map<string, unknown>): LinkUsage[] {
  const usages: LinkUsage[] = [];
  for (const { page } of ctx.locations.values()) {
    if (page.kind !== "document") continue;
    const refs: { ref: ContentRef; blockKey?: string }[] = [];
    if (page.cover?.ref) refs.push({ ref: page.cover.ref });
    if (page.cover?.refDark) refs.push({ ref: page.cover.refDark });
    if (page.documentHash) refs.push(...referencesInDocument(documents.get(page.documentHash)));
    for (const { ref, blockKey } of refs) {
      usages.push({
        sourcePageId: page.id,
        ...(blockKey ? { blockKey } : {}),
        target: ref,
        status: linkStatus(ref, ctx),
        relation: ref.kind === "reusable-content" || ref.kind === "openapi" ? "dependsOn" : "reference",
      });
    }
  }
  return usages;
}

/** A stable identity of a link target, to group usages by what they point at. */
export function targetKey(ref: ContentRef): string {
  switch (ref.kind) {
    case "page":
      return `page:${ref.space ?? ""}:${ref.page}`;
    case "anchor":
      return `page:${ref.space ?? ""}:${ref.page ?? ""}#${ref.anchor}`;
    case "file":
      return `file:${ref.file}`;
    case "url":
      return `url:${ref.url}`;
    case "reusable-content":
      return `reusable-content:${ref.reusableContent}`;
    default:
      return `${ref.kind}:${JSON.stringify(ref)}`;
  }
}
