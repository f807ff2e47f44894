/**
 * A site's redirects from the web app's forms: a destination is written as a reader sees it, an
 * address on the site (`/guides/install`, a site space's path then a page's) or an http(s) URL,
 * and a pasted list is one redirect a line. Each becomes an item of the API's bulk upsert
 * (`bulkUpsertRedirects`), which checks it as the API does.
 */
import Type, { type Static } from "typebox";
import { invalid } from "../../../../lib/errors.js";
import type { BulkItem, InputDestinationValue } from "../../../../modules/sites/redirects.schemas.js";
import { type SiteModel, siteSpaceSegments } from "../../../../modules/sites/structure.model.js";
import { Csrf } from "../../web.schemas.js";

/** Operations the API's bulk upsert takes at once; a longer paste is refused with the count. */
export const MAX_PASTED_LINES = 500;

export const RedirectForm = Type.Object({
  ...Csrf,
  source: Type.String({ maxLength: 512 }),
  destination: Type.String({ maxLength: 2048 }),
  permanent: Type.Optional(Type.String({ maxLength: 10 })),
});
export type RedirectFormBody = Static<typeof RedirectForm>;

export const PasteForm = Type.Object({ ...Csrf, lines: Type.String({ maxLength: 600_000 }) });

/** Same pattern as the API's `SourcePath` (redirects.schemas.ts): checked here to name the line. */
const SOURCE = /^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;

export function checkSource(source: string, where: string): string {
  const trimmed = source.trim();
  if (!SOURCE.test(trimmed) || trimmed.length > 512) {
    throw invalid(
      `${where}: "${trimmed.slice(0, 100)}" is not a source path: start with "/", use letters, digits, "-._~+" or %-escapes, and at most a final "*" or "/*" (e.g. /old-guide/*).`,
    );
  }
  return trimmed;
}

/**
 * The destination a reader's address names: an http(s) URL as is; else the site space whose path
 * is the longest prefix of it, then the page at the rest of the path (checked against the space's
 * pages when stored).
 */
export function destinationFromText(model: SiteModel, text: string, where: string): InputDestinationValue {
  const value = text.trim();
  if (/^https?:\/\//i.test(value)) return { kind: "external", url: value };
  if (!value.startsWith("/")) {
    throw invalid(`${where}: "${value.slice(0, 100)}" is neither an address on this site (starting with "/") nor an http(s) URL.`);
  }
  const wanted = value.replace(/^\/+|\/+$/g, "");
  let best: { siteSpaceId: string; spaceId: string; prefix: string } | undefined;
  for (const siteSpace of model.siteSpaces) {
    if (siteSpace.hidden) continue;
    const prefix = siteSpaceSegments(model, siteSpace).join("/");
    const fits = prefix === "" || wanted === prefix || wanted.startsWith(`${prefix}/`);
    if (fits && (!best || prefix.length > best.prefix.length)) best = { siteSpaceId: siteSpace.id, spaceId: siteSpace.spaceId, prefix };
  }
  if (!best) throw invalid(`${where}: "${value.slice(0, 100)}" is not within a space this site shows.`);
  const rest = wanted.slice(best.prefix.length).replace(/^\/+/, "");
  return rest === "" ? { kind: "site-space", siteSpaceId: best.siteSpaceId } : { kind: "path", spaceId: best.spaceId, path: rest };
}

export function itemFromForm(model: SiteModel, body: RedirectFormBody): BulkItem {
  const source = checkSource(body.source, "Source");
  return {
    source,
    destination: destinationFromText(model, body.destination, "Destination"),
    captureWildcard: source.endsWith("*"),
    permanent: body.permanent === "on",
  };
}

/**
 * A pasted list: one redirect a line, `source destination`, then `permanent` for a 308 (else 307);
 * separated by spaces, tabs or a comma (a spreadsheet's columns); empty lines and `#` comments skipped.
 */
export function itemsFromPaste(model: SiteModel, text: string): BulkItem[] {
  const items: BulkItem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const where = `Line ${index + 1}`;
    const [source = "", destination = "", flag, ...extra] = line.split(/\s*[,\t]\s*|\s+/);
    if (destination === "" || extra.length > 0 || (flag !== undefined && !/^(permanent|308|temporary|307)$/i.test(flag))) {
      throw invalid(`${where}: write "source destination", then "permanent" for a permanent redirect (e.g. /old /guides/new permanent).`);
    }
    const checked = checkSource(source, where);
    items.push({
      source: checked,
      destination: destinationFromText(model, destination, where),
      captureWildcard: checked.endsWith("*"),
      permanent: flag !== undefined && /^(permanent|308)$/i.test(flag),
    });
    if (items.length > MAX_PASTED_LINES) throw invalid(`At most ${MAX_PASTED_LINES} redirects at once: paste the list in parts.`);
  }
  if (items.length === 0) throw invalid("Paste at least one line: source, then destination (e.g. /old /guides/new).");
  return items;
}
