/** Kysely queries of OpenAPI specs and their versions. */
import type { Executor } from "../../db/database.js";
import type { OpenApiSpecRow } from "../../db/schema.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import type { ProcessingStateValue } from "./openapi.schemas.js";

/** A spec without its source text (which can be megabytes and only the processing job reads). */
export type OpenApiSpec = Omit<OpenApiSpecRow, "sourceText">;

const SPEC_COLUMNS = [
  "openapiSpecs.id",
  "openapiSpecs.orgId",
  "openapiSpecs.slug",
  "openapiSpecs.sourceUrl",
  "openapiSpecs.sourceGeneration",
  "openapiSpecs.visibility",
  "openapiSpecs.processingState",
  "openapiSpecs.lastVersionId",
  "openapiSpecs.lastProcessedAt",
  "openapiSpecs.lastFetchedAt",
  "openapiSpecs.lastProcessErrorCode",
  "openapiSpecs.lastProcessedErrors",
  "openapiSpecs.createdAt",
  "openapiSpecs.updatedAt",
] as const;

/** A version without its document. */
export interface OpenApiVersion {
  id: string;
  specId: string;
  contentHash: string;
  createdAt: string;
}

const VERSION_COLUMNS = [
  "openapiSpecVersions.id",
  "openapiSpecVersions.specId",
  "openapiSpecVersions.contentHash",
  "openapiSpecVersions.createdAt",
] as const;

/** The organization's spec with this slug (slugs are compared exactly). */
export function getSpecBySlug(db: Executor, orgId: string, slug: string): Promise<OpenApiSpec | undefined> {
  return db.selectFrom("openapiSpecs").select(SPEC_COLUMNS).where("orgId", "=", orgId).where("slug", "=", slug).executeTakeFirst();
}

/** What the processing job needs: the source (with its text) and the generation it belongs to. */
export function getSpecSource(
  db: Executor,
  specId: string,
): Promise<Pick<OpenApiSpecRow, "id" | "orgId" | "sourceUrl" | "sourceText" | "sourceGeneration" | "lastVersionId"> | undefined> {
  return db
    .selectFrom("openapiSpecs")
    .select(["id", "orgId", "sourceUrl", "sourceText", "sourceGeneration", "lastVersionId"])
    .where("id", "=", specId)
    .executeTakeFirst();
}

/** One page of the organization's specs, by slug. */
export function listSpecs(db: Executor, orgId: string, options: { page?: string | undefined; limit?: number | undefined }) {
  const query = db.selectFrom("openapiSpecs").select(SPEC_COLUMNS).where("openapiSpecs.orgId", "=", orgId);
  return paginate(query, [{ column: "openapiSpecs.slug", direction: "asc", value: (r) => r.slug }], options) as Promise<Page<OpenApiSpec>>;
}

export interface NewSpec {
  id: string;
  orgId: string;
  slug: string;
  sourceUrl: string | null;
  sourceText: string | null;
}

export async function insertSpec(db: Executor, spec: NewSpec): Promise<void> {
  const now = nowIso();
  await db
    .insertInto("openapiSpecs")
    .values({
      ...spec,
      sourceGeneration: 1,
      visibility: "private",
      processingState: "pending",
      lastVersionId: null,
      lastProcessedAt: null,
      lastFetchedAt: null,
      lastProcessErrorCode: null,
      lastProcessedErrors: null,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
}

/** A new source (or the same one, to be processed again): the next generation, pending. */
export async function replaceSource(
  db: Executor,
  specId: string,
  source: { sourceUrl: string | null; sourceText: string | null },
): Promise<number> {
  const row = await db
    .updateTable("openapiSpecs")
    .set((eb) => ({
      ...source,
      sourceGeneration: eb("sourceGeneration", "+", 1),
      processingState: "pending",
      updatedAt: nowIso(),
    }))
    .where("id", "=", specId)
    .returning("sourceGeneration")
    .executeTakeFirstOrThrow();
  return row.sourceGeneration;
}

export async function setVisibility(db: Executor, specId: string, visibility: string): Promise<void> {
  await db.updateTable("openapiSpecs").set({ visibility, updatedAt: nowIso() }).where("id", "=", specId).execute();
}

/** Deletes the organization's spec with this slug and its versions; false when there was none. */
export async function deleteSpec(db: Executor, orgId: string, slug: string): Promise<boolean> {
  const spec = await db.selectFrom("openapiSpecs").select("id").where("orgId", "=", orgId).where("slug", "=", slug).executeTakeFirst();
  if (!spec) return false;
  await db.deleteFrom("openapiSpecVersions").where("specId", "=", spec.id).execute();
  await db.deleteFrom("openapiSpecs").where("id", "=", spec.id).execute();
  return true;
}

/** Marks the processing of one generation as started; false when the spec moved on or is gone. */
export async function markInProgress(db: Executor, specId: string, generation: number): Promise<boolean> {
  const result = await db
    .updateTable("openapiSpecs")
    .set({ processingState: "progress" satisfies ProcessingStateValue })
    .where("id", "=", specId)
    .where("sourceGeneration", "=", generation)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Locks the spec's row until the transaction ends (PostgreSQL; SQLite serialises writers). */
export async function lockSpecGeneration(db: Executor, specId: string, dialect: "sqlite" | "postgres"): Promise<number | undefined> {
  let query = db.selectFrom("openapiSpecs").select("sourceGeneration").where("id", "=", specId);
  if (dialect === "postgres") query = query.forUpdate();
  return (await query.executeTakeFirst())?.sourceGeneration;
}

export interface ProcessResultUpdate {
  processingState: ProcessingStateValue;
  lastProcessedAt: string;
  lastFetchedAt?: string | null;
  lastProcessErrorCode: string | null;
  lastProcessedErrors: string | null;
  lastVersionId?: string;
}

export async function recordProcessResult(db: Executor, specId: string, update: ProcessResultUpdate): Promise<void> {
  await db.updateTable("openapiSpecs").set(update).where("id", "=", specId).execute();
}

export async function getVersionHash(db: Executor, versionId: string): Promise<string | undefined> {
  return (await db.selectFrom("openapiSpecVersions").select("contentHash").where("id", "=", versionId).executeTakeFirst())?.contentHash;
}

export async function insertVersion(
  db: Executor,
  version: { id: string; specId: string; contentHash: string; document: string; createdAt: string },
): Promise<void> {
  await db.insertInto("openapiSpecVersions").values(version).execute();
}

/** One page of a spec's versions, newest first. */
export function listVersions(db: Executor, specId: string, options: { page?: string | undefined; limit?: number | undefined }) {
  const query = db.selectFrom("openapiSpecVersions").select(VERSION_COLUMNS).where("openapiSpecVersions.specId", "=", specId);
  return paginate(
    query,
    [
      { column: "openapiSpecVersions.createdAt", direction: "desc", value: (r) => r.createdAt },
      { column: "openapiSpecVersions.id", direction: "desc", value: (r) => r.id },
    ],
    options,
  ) as Promise<Page<OpenApiVersion>>;
}

export function getVersion(db: Executor, specId: string, versionId: string): Promise<OpenApiVersion | undefined> {
  return db
    .selectFrom("openapiSpecVersions")
    .select(VERSION_COLUMNS)
    .where("specId", "=", specId)
    .where("id", "=", versionId)
    .executeTakeFirst();
}

/** The processed document of a version, as stored (JSON text). */
export async function getVersionDocument(db: Executor, specId: string, versionId: string): Promise<string | undefined> {
  return (
    await db
      .selectFrom("openapiSpecVersions")
      .select("document")
      .where("specId", "=", specId)
      .where("id", "=", versionId)
      .executeTakeFirst()
  )?.document;
}

/** URL specs whose last fetch is older than `before` (or that were never fetched), oldest first. */
export function specsDueForRefresh(db: Executor, before: string, limit: number): Promise<{ id: string; sourceGeneration: number }[]> {
  return db
    .selectFrom("openapiSpecs")
    .select(["id", "sourceGeneration"])
    .where("sourceUrl", "is not", null)
    .where((eb) => eb.or([eb("lastFetchedAt", "is", null), eb("lastFetchedAt", "<", before)]))
    .orderBy("lastFetchedAt")
    .limit(limit)
    .execute();
}
