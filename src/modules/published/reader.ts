/**
 * Who is reading a published site, decided once per request, and what their claims let them see.
 *
 * This file is the seam between the site's routes (which resolve sections, variants and pages and
 * render them) and reader access (visibility, share links, visitor tokens, member access, adaptive
 * claims). The routes call `decideReader` before anything else and `conditionHolds` on every
 * condition they meet (site space, section, page front matter `if`, blocks).
 *
 * First version: public and unlisted published sites are read by anyone with no claims; every
 * other visibility answers not-found until share links and visitor tokens are read here.
 */
import type { FastifyRequest } from "fastify";
import type { SiteRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { evaluateCondition } from "../../expr/index.js";

/** The visitor's claims as conditions see them: `visitor.claims`. */
export type VisitorClaims = Record<string, unknown>;

export interface Reader {
  claims: VisitorClaims;
  /** A member of the site's organization who may read its spaces (sees unpublished sites too). */
  member: boolean;
  /** Search engines may index what this reader sees (public sites, read without a share key). */
  indexable: boolean;
}

export type ReaderDecision =
  | {
      kind: "read";
      reader: Reader;
      /** Path segments consumed by access (a share link's key), which every site URL must carry. */
      prefix: string[];
      /** Cookies to set on the answer (a visitor token moved out of the URL, unsigned claims). */
      setCookies: string[];
      /** When set, answer 302 to this address instead (the same URL without `jwt_token`). */
      redirect?: string;
    }
  | { kind: "login"; location: string }
  | { kind: "not-found" };

/**
 * Decides whether this request may read `site`. `segments` are the path segments after the site's
 * base (before any share key is consumed); `basePath` is the site's base path on this request
 * (`/s/<basename>` or `` on the site's own host), for cookie paths and redirects.
 */
export async function decideReader(
  _deps: Deps,
  site: SiteRow,
  _request: FastifyRequest,
  _segments: readonly string[],
  _basePath: string,
): Promise<ReaderDecision> {
  if (site.published !== 1) return { kind: "not-found" };
  if (site.visibility === "public" || site.visibility === "unlisted") {
    return { kind: "read", reader: { claims: {}, member: false, indexable: site.visibility === "public" }, prefix: [], setCookies: [] };
  }
  return { kind: "not-found" };
}

/**
 * Whether a condition (an expression of GitBook's expression language over `visitor.claims`) lets
 * this reader see the thing it guards. No condition: shown. A missing claim or a failing
 * expression: hidden.
 */
export function conditionHolds(condition: string | null | undefined, reader: Reader, extra: Record<string, unknown> = {}): boolean {
  if (!condition || condition.trim() === "") return true;
  try {
    return evaluateCondition(condition, { ...extra, visitor: { claims: reader.claims } });
  } catch {
    return false;
  }
}
