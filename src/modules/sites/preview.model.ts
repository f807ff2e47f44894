/**
 * Preview links of a site: its address (or a site space's) with a signature under the instance
 * secret, valid one hour, so that the published site (the next issue) can show an unpublished site,
 * or a site to claims it would not otherwise see, to whoever holds the link. Pure.
 */
import { sign, verifySignature } from "../../lib/signing.js";

export const PREVIEW_TTL_MS = 60 * 60 * 1000;

function message(siteId: string, siteSpaceId: string, expires: number, claims: string): string {
  return `site-preview\n${siteId}\n${siteSpaceId}\n${expires}\n${claims}`;
}

/** Query parameters to add to a published address: `preview` (expiry, ms since epoch), `claims`, `signature`. */
export function previewParams(
  secret: string,
  input: { siteId: string; siteSpaceId: string; claims?: string | undefined; now?: number },
): URLSearchParams {
  const expires = (input.now ?? Date.now()) + PREVIEW_TTL_MS;
  const claims = input.claims ?? "";
  const params = new URLSearchParams({ preview: String(expires), siteSpace: input.siteSpaceId });
  if (claims) params.set("claims", claims);
  params.set("signature", sign(secret, message(input.siteId, input.siteSpaceId, expires, claims)));
  return params;
}

/** Whether preview parameters are genuine and unexpired for this site. */
export function verifyPreview(secret: string, siteId: string, params: URLSearchParams, now = Date.now()): boolean {
  const expires = Number(params.get("preview"));
  const signature = params.get("signature");
  if (!Number.isFinite(expires) || expires < now || !signature) return false;
  return verifySignature(secret, message(siteId, params.get("siteSpace") ?? "", expires, params.get("claims") ?? ""), signature);
}
