/**
 * Writes that change a spec's source: each records the source and enqueues its processing in the
 * caller's transaction, so a spec is never left pending without a job to process it.
 */
import type { Executor } from "../../db/database.js";
import { isUniqueViolation } from "../../db/dialect.js";
import { enqueue } from "../../jobs/queue.js";
import { conflicting, invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { getSpecBySlug, insertSpec, replaceSource } from "./openapi.queries.js";
import type { OpenAPISpecSourceValue } from "./openapi.schemas.js";

/** The job that processes one generation of a spec's source (openapi.jobs.ts). */
export function enqueueProcessing(db: Executor, specId: string, generation: number) {
  return enqueue(db, "openapi-process", { specId, generation }, { dedupeKey: `openapi-process:${specId}:${generation}`, maxAttempts: 3 });
}

/** The stored form of a source: exactly one of an http(s) URL or the document's text. */
export function sourceColumns(source: OpenAPISpecSourceValue): { sourceUrl: string | null; sourceText: string | null } {
  const { url: rawUrl, text } = source;
  if ((rawUrl === undefined) === (text === undefined)) {
    throw invalid(
      rawUrl !== undefined
        ? "body.source must have either `url` or `text`, not both."
        : "body.source must have either `url` (an http or https URL of the document) or `text` (the document itself).",
    );
  }
  if (rawUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw invalid("body.source.url must be an absolute http or https URL.");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw invalid(`body.source.url must be an http or https URL, not ${url.protocol}`);
    }
    if (url.username || url.password) throw invalid("body.source.url must not carry credentials.");
    return { sourceUrl: url.toString(), sourceText: null };
  }
  if (!text?.trim()) throw invalid("body.source.text must not be blank: send the OpenAPI document as JSON or YAML.");
  return { sourceUrl: null, sourceText: text };
}

const slugTaken = (slug: string) =>
  conflicting(`An OpenAPI spec with slug "${slug}" already exists in this organization; PUT /openapi/${slug} updates its source.`);

/** Creates a spec and enqueues its processing. */
export async function createSpec(trx: Executor, input: { orgId: string; slug: string; source: OpenAPISpecSourceValue }): Promise<void> {
  const columns = sourceColumns(input.source);
  if (await getSpecBySlug(trx, input.orgId, input.slug)) throw slugTaken(input.slug);
  const id = newId();
  try {
    await insertSpec(trx, { id, orgId: input.orgId, slug: input.slug, ...columns });
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(input.slug);
    throw error;
  }
  await enqueueProcessing(trx, id, 1);
}

/**
 * PUT: creates the spec, or gives it a new source (the same URL again forces a re-fetch) and
 * processes it again. Returns whether it was created.
 */
export async function putSpec(trx: Executor, input: { orgId: string; slug: string; source: OpenAPISpecSourceValue }): Promise<boolean> {
  const columns = sourceColumns(input.source);
  const existing = await getSpecBySlug(trx, input.orgId, input.slug);
  if (!existing) {
    const id = newId();
    try {
      await insertSpec(trx, { id, orgId: input.orgId, slug: input.slug, ...columns });
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflicting(`The OpenAPI spec "${input.slug}" was created by another request at the same time; retry.`);
      throw error;
    }
    await enqueueProcessing(trx, id, 1);
    return true;
  }
  const generation = await replaceSource(trx, existing.id, columns);
  await enqueueProcessing(trx, existing.id, generation);
  return false;
}
