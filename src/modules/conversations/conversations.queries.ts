/** Reads and writes of conversations, their issues and clusters, and the analysis state (Kysely). */
import type { Executor } from "../../db/database.js";
import type { ConversationClusterRow, ConversationIssueRow, ConversationRow } from "../../db/schema.js";
import { type Page, paginate, type SortKey } from "../../lib/pagination.js";
import type { ClusterOrderBy } from "./conversations.schemas.js";

/** Rows per multi-row insert (well under both engines' limits on bound parameters). */
export const INSERT_BATCH = 200;

export function getConversation(db: Executor, orgId: string, id: string): Promise<ConversationRow | undefined> {
  return db.selectFrom("conversations").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

export async function conversationsByIds(db: Executor, orgId: string, ids: string[]): Promise<Map<string, ConversationRow>> {
  const out = new Map<string, ConversationRow>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db
      .selectFrom("conversations")
      .selectAll()
      .where("orgId", "=", orgId)
      .where("id", "in", unique.slice(i, i + 500))
      .execute();
    for (const row of rows) out.set(row.id, row);
  }
  return out;
}

/** The organization's conversations of one source with these external ids: id, content hash and dates. */
export async function existingConversations(
  db: Executor,
  orgId: string,
  source: string,
  externalIds: string[],
): Promise<Map<string, Pick<ConversationRow, "id" | "contentHash" | "createdAt">>> {
  const out = new Map<string, Pick<ConversationRow, "id" | "contentHash" | "createdAt">>();
  for (let i = 0; i < externalIds.length; i += 500) {
    const rows = await db
      .selectFrom("conversations")
      .select(["id", "externalId", "contentHash", "createdAt"])
      .where("orgId", "=", orgId)
      .where("source", "=", source)
      .where("externalId", "in", externalIds.slice(i, i + 500))
      .execute();
    for (const { externalId, ...row } of rows) out.set(externalId, row);
  }
  return out;
}

export async function insertConversations(db: Executor, rows: ConversationRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH)
    await db
      .insertInto("conversations")
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
}

/** Replaces a conversation's content (a re-ingest): it waits for the next analysis again. */
export async function replaceConversation(
  db: Executor,
  id: string,
  values: Pick<ConversationRow, "subject" | "parts" | "metadataUrl" | "metadataAttributes" | "contentHash" | "createdAt" | "ingestedAt">,
): Promise<void> {
  await db
    .updateTable("conversations")
    .set({ ...values, processedAt: null })
    .where("id", "=", id)
    .execute();
}

/** One page of the organization's conversations, newest first. */
export function listConversations(
  db: Executor,
  orgId: string,
  options: { source?: string | undefined; page?: string | undefined; limit?: number | undefined },
): Promise<Page<ConversationRow>> {
  let query = db.selectFrom("conversations").selectAll().where("orgId", "=", orgId);
  if (options.source) query = query.where("source", "=", options.source);
  return paginate(
    query,
    [
      { column: "createdAt", direction: "desc", value: (r) => r.createdAt },
      { column: "id", direction: "desc", value: (r) => r.id },
    ],
    options,
  );
}

/**
 * Everything the analysis reads, oldest first, then by source and external id: the order is part of
 * its input, so it depends only on what was ingested (not on the random ids given at ingestion).
 */
export function conversationsForAnalysis(db: Executor, orgId: string) {
  return db
    .selectFrom("conversations")
    .select(["id", "source", "externalId", "subject", "parts", "createdAt", "ingestedAt"])
    .where("orgId", "=", orgId)
    .orderBy("createdAt", "asc")
    .orderBy("source", "asc")
    .orderBy("externalId", "asc")
    .execute();
}

export function getIssue(db: Executor, orgId: string, id: string): Promise<ConversationIssueRow | undefined> {
  return db.selectFrom("conversationIssues").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

/** One page of issues, those of the newest conversations first, in their order within each. */
export function listIssues(
  db: Executor,
  orgId: string,
  options: { cluster?: string | undefined; conversation?: string | undefined; page?: string | undefined; limit?: number | undefined },
): Promise<Page<ConversationIssueRow>> {
  let query = db.selectFrom("conversationIssues").selectAll().where("orgId", "=", orgId);
  if (options.cluster) query = query.where("clusterId", "=", options.cluster);
  if (options.conversation) query = query.where("conversationId", "=", options.conversation);
  return paginate(
    query,
    [
      { column: "conversationCreatedAt", direction: "desc", value: (r) => r.conversationCreatedAt },
      { column: "conversationId", direction: "desc", value: (r) => r.conversationId },
      { column: "position", direction: "asc", value: (r) => r.position },
    ],
    options,
  );
}

export function getCluster(db: Executor, orgId: string, id: string): Promise<ConversationClusterRow | undefined> {
  return db.selectFrom("conversationClusters").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

/**
 * One page of clusters in the asked order (ties by id, in the same direction). Quire has no tasks:
 * every `tasks*` count is 0, so ordering by one of them orders by id.
 */
export function listClusters(
  db: Executor,
  orgId: string,
  options: { orderBy: ClusterOrderBy; order: "asc" | "desc"; page?: string | undefined; limit?: number | undefined },
): Promise<Page<ConversationClusterRow>> {
  const query = db.selectFrom("conversationClusters").selectAll().where("orgId", "=", orgId);
  const direction = options.order;
  const keys: SortKey<ConversationClusterRow>[] = [];
  if (options.orderBy === "updatedAt") keys.push({ column: "updatedAt", direction, value: (r) => r.updatedAt });
  if (options.orderBy === "issues") keys.push({ column: "issues", direction, value: (r) => Number(r.issues) });
  if (options.orderBy === "conversations") keys.push({ column: "conversations", direction, value: (r) => Number(r.conversations) });
  keys.push({ column: "id", direction, value: (r) => r.id });
  return paginate(query, keys, options);
}

export function getAnalysisState(db: Executor, orgId: string) {
  return db.selectFrom("conversationAnalysis").selectAll().where("orgId", "=", orgId).executeTakeFirst();
}

/**
 * Records that the organization's conversations changed and want an analysis. `requestedAt` only
 * grows (at least a millisecond past the last request), so that an analysis can tell whether
 * anything was asked after the moment it read.
 */
export async function requestAnalysis(db: Executor, orgId: string, at: string): Promise<void> {
  const before = await getAnalysisState(db, orgId);
  const requestedAt = before && before.requestedAt >= at ? new Date(Date.parse(before.requestedAt) + 1).toISOString() : at;
  await db
    .insertInto("conversationAnalysis")
    .values({ orgId, requestedAt, startedAt: null, analysedUpTo: null, analysedAt: null })
    .onConflict((oc) => oc.column("orgId").doUpdateSet({ requestedAt }))
    .execute();
}

export async function markAnalysisStarted(db: Executor, orgId: string, at: string | null): Promise<void> {
  await db.updateTable("conversationAnalysis").set({ startedAt: at }).where("orgId", "=", orgId).execute();
}

/**
 * Inside the transaction that writes an analysis: holds the state row's lock until it ends (a
 * no-op update) so that two analyses of one organization write one after the other on
 * PostgreSQL, and returns the state as it is under that lock.
 */
export async function lockAnalysisState(trx: Executor, orgId: string) {
  await trx
    .updateTable("conversationAnalysis")
    .set((eb) => ({ requestedAt: eb.ref("requestedAt") }))
    .where("orgId", "=", orgId)
    .execute();
  return getAnalysisState(trx, orgId);
}

/** What the previous analysis left: issue creation dates and clusters, to keep ids and dates stable. */
export async function previousAnalysis(db: Executor, orgId: string) {
  const [issues, clusters] = await Promise.all([
    db.selectFrom("conversationIssues").select(["id", "clusterId", "createdAt"]).where("orgId", "=", orgId).execute(),
    db
      .selectFrom("conversationClusters")
      .select(["id", "createdAt", "updatedAt", "fingerprint"])
      .where("orgId", "=", orgId)
      .orderBy("id")
      .execute(),
  ]);
  return { issues, clusters };
}

export async function deleteAnalysis(trx: Executor, orgId: string): Promise<void> {
  await trx.deleteFrom("conversationIssues").where("orgId", "=", orgId).execute();
  await trx.deleteFrom("conversationClusters").where("orgId", "=", orgId).execute();
}

export async function insertClusters(trx: Executor, rows: ConversationClusterRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await trx
      .insertInto("conversationClusters")
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
  }
}

export async function insertIssueBatch(trx: Executor, rows: ConversationIssueRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto("conversationIssues").values(rows).execute();
}

/** Marks the conversations ingested up to `upTo` as analysed, and the state as written. */
export async function finishAnalysis(trx: Executor, orgId: string, input: { upTo: string; requestedAt: string; at: string }) {
  await trx
    .updateTable("conversations")
    .set({ processedAt: input.at })
    .where("orgId", "=", orgId)
    .where("ingestedAt", "<=", input.upTo)
    .execute();
  await trx
    .updateTable("conversationAnalysis")
    .set({ analysedUpTo: input.requestedAt, analysedAt: input.at, startedAt: null })
    .where("orgId", "=", orgId)
    .execute();
}

/** Ids of the organization's live spaces (the documentation the analysis searches). */
export async function liveSpaceIds(db: Executor, orgId: string): Promise<string[]> {
  const rows = await db.selectFrom("spaces").select("id").where("orgId", "=", orgId).where("deletedAt", "is", null).orderBy("id").execute();
  return rows.map((r) => r.id);
}
