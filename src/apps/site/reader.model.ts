/** Who reads a published site, as the access step decided (reader.steps.ts), and what their claims let them see. */
import { conditionHoldsIn, readerContext } from "../../content/document/for-reader.js";

export type VisitorClaims = Record<string, unknown>;

export interface Reader {
  claims: VisitorClaims;
  /** A member of the site's organization who may read its spaces (sees unpublished sites too). */
  member: boolean;
  /** Search engines may index what this reader sees (public sites, read without a share key). */
  indexable: boolean;
  /**
   * A short stable key of everything about this reader that changes what a page looks like (claims,
   * member, the share key every link carries): put it in page cache keys and ETags. "v0" for the
   * common reader without claims.
   */
  variantKey: string;
  /** How the reader was admitted (for logs and for pages that say so, e.g. a preview banner). */
  via: "anyone" | "share-link" | "visitor-token" | "member" | "preview";
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
 * Whether a condition (an expression of GitBook's expression language over `visitor.claims`) lets
 * this reader see the thing it guards. No condition: shown. A missing claim, an expression that
 * does not parse, fails or runs out of its budget: hidden (content/document/for-reader.ts).
 */
export function conditionHolds(condition: string | null | undefined, reader: Reader, extra: Record<string, unknown> = {}): boolean {
  return conditionHoldsIn(condition, readerContext(reader.claims, extra));
}
