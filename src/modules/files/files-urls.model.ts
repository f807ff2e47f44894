/**
 * Download URLs for revision files: signed and expiring, so that they work where no bearer token
 * can be sent (an <img> tag, a browser tab) and are only handed to callers allowed to see the file.
 */
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
