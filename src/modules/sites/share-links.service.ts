/**
 * Share links: a secret key per link (32 base62 characters, ~190 random bits), stored as its
 * SHA-256 (to find the link from a URL) and sealed under the instance secret (to build the link's
 * URL again for those who manage it). Never stored in clear, never shown to other callers.
 */
import type { Executor } from "../../db/database.js";
import type { SiteShareLinkRow } from "../../db/schema.js";
import { hashToken, newId, randomBase62 } from "../../lib/ids.js";
import { seal, unseal } from "../../lib/sealed.js";
import { nowIso } from "../../lib/time.js";
import { insertShareLink } from "./share-links.queries.js";

const PURPOSE = "site-share-link";
export const SHARE_KEY_LENGTH = 32;

export async function createShareLink(
  trx: Executor,
  input: { siteId: string; name: string; actorId: string; secret: string },
): Promise<SiteShareLinkRow> {
  const key = randomBase62(SHARE_KEY_LENGTH);
  const row: SiteShareLinkRow = {
    id: newId(),
    siteId: input.siteId,
    name: input.name,
    active: 1,
    keyHash: hashToken(key),
    keySealed: JSON.stringify(seal(input.secret, PURPOSE, key)),
    createdBy: input.actorId,
    createdAt: nowIso(),
  };
  await insertShareLink(trx, row);
  return row;
}

/** The secret key of a link, for building its URL. */
export function shareLinkKey(link: SiteShareLinkRow, secret: string): string {
  return unseal(secret, PURPOSE, JSON.parse(link.keySealed));
}
