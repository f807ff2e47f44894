/**
 * Download URLs for revision files: signed and expiring, so that they work where no bearer token
 * can be sent (an <img> tag, a browser tab) and are only handed to callers allowed to see the file.
 */
import { isDerivable, variantWidths } from "../../content/images/widths.js";
import { sign, verifySignature } from "../../lib/signing.js";

/** How long a download URL stays valid. */
export const DOWNLOAD_URL_TTL_SECONDS = 60 * 60;

export interface DownloadTarget {
  blobHash: string;
  name: string;
  contentType: string;
}

function message(target: DownloadTarget, expires: number): string {
  return [target.blobHash, target.name, target.contentType, String(expires)].join("\n");
}

/**
 * Expiry is rounded up to the next TTL boundary, so the same file keeps the same URL for a while
 * (browsers and proxies can cache it) and every URL lives between one and two TTLs.
 */
export function downloadUrl(base: string, secret: string, target: DownloadTarget, now = Date.now()): string {
  const ttl = DOWNLOAD_URL_TTL_SECONDS;
  const expires = (Math.floor(now / 1000 / ttl) + 2) * ttl;
  const query = new URLSearchParams({ type: target.contentType, expires: String(expires), sig: sign(secret, message(target, expires)) });
  return `${base}/files/${target.blobHash}/${encodeURIComponent(target.name)}?${query}`;
}

/**
 * A signed image URL (`downloadUrl`) at each width it is offered at, as a `srcset` of `w`
 * descriptors (GET /files serves `&w=`), or undefined for a type or size that has none.
 */
export function widthsSrcset(url: string, contentType: string, width: number | undefined): string | undefined {
  if (!width || !isDerivable(contentType)) return undefined;
  const widths = variantWidths(width);
  if (widths.length === 0) return undefined;
  const separator = url.includes("?") ? "&" : "?";
  return widths.map((w) => `${url}${separator}w=${w} ${w}w`).join(", ");
}

export function verifyDownload(
  secret: string,
  target: DownloadTarget,
  expires: number,
  signature: string,
  now = Date.now(),
): "ok" | "expired" | "invalid" {
  if (!verifySignature(secret, message(target, expires), signature)) return "invalid";
  return expires * 1000 < now ? "expired" : "ok";
}
