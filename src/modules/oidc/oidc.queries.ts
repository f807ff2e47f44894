import type { Executor } from "../../db/database.js";
import type { OidcProviderRow } from "../../db/schema.js";
import { hashToken, newId } from "../../lib/ids.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";

/** A provider of this organization; another organization's id finds nothing. */
export function getOidcProvider(db: Executor, orgId: string, id: string): Promise<OidcProviderRow | undefined> {
  return db.selectFrom("oidcProviders").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

/** A provider by id alone, for the sign-in endpoints (the id is in their URL). */
export function getOidcProviderById(db: Executor, id: string): Promise<OidcProviderRow | undefined> {
  return db.selectFrom("oidcProviders").selectAll().where("id", "=", id).executeTakeFirst();
}

export function listOidcProviders(
  db: Executor,
  orgId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<OidcProviderRow>> {
  return paginate(
    db.selectFrom("oidcProviders").selectAll().where("orgId", "=", orgId),
    [
      { column: "createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

/** Every provider of an organization (a handful at most), oldest first. */
export function allOidcProviders(db: Executor, orgId: string): Promise<OidcProviderRow[]> {
  return db.selectFrom("oidcProviders").selectAll().where("orgId", "=", orgId).orderBy("createdAt").orderBy("id").execute();
}

export async function insertOidcProvider(
  db: Executor,
  input: Omit<OidcProviderRow, "id" | "createdAt" | "updatedAt">,
): Promise<OidcProviderRow> {
  const now = nowIso();
  const row: OidcProviderRow = { ...input, id: newId(), createdAt: now, updatedAt: now };
  await db.insertInto("oidcProviders").values(row).execute();
  return row;
}

export async function updateOidcProvider(
  db: Executor,
  orgId: string,
  id: string,
  change: Partial<Omit<OidcProviderRow, "id" | "orgId" | "createdAt" | "updatedAt">>,
): Promise<void> {
  await db
    .updateTable("oidcProviders")
    .set({ ...change, updatedAt: nowIso() })
    .where("orgId", "=", orgId)
    .where("id", "=", id)
    .execute();
}

/** Deletes a provider, its sign-ins under way, and its use by the organization's sites' visitor authentication. */
export async function deleteOidcProvider(db: Executor, orgId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("oidcProviders").where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) return false;
  await db.deleteFrom("oidcLogins").where("providerId", "=", id).execute();
  await db.updateTable("sitePublishingAuth").set({ oidcProviderId: null }).where("oidcProviderId", "=", id).execute();
  return true;
}

// --- Sign-ins under way ---

export interface OidcLogin {
  providerId: string;
  nonce: string;
  codeVerifier: string;
  siteId: string | null;
  next: string;
}

export async function saveOidcLogin(db: Executor, state: string, login: OidcLogin, ttlMs: number): Promise<void> {
  const now = Date.now();
  await db
    .insertInto("oidcLogins")
    .values({
      stateHash: hashToken(state),
      ...login,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
    })
    .execute();
}

/**
 * The sign-in a `state` names, deleted in the same statement's transaction: only the first callback
 * that brings it is answered (a replayed callback finds nothing). Undefined when unknown or expired.
 */
export async function takeOidcLogin(db: Executor, providerId: string, state: string): Promise<OidcLogin | undefined> {
  const stateHash = hashToken(state);
  const row = await db
    .selectFrom("oidcLogins")
    .selectAll()
    .where("stateHash", "=", stateHash)
    .where("providerId", "=", providerId)
    .where("expiresAt", ">", nowIso())
    .executeTakeFirst();
  if (!row) return undefined;
  const deleted = await db.deleteFrom("oidcLogins").where("stateHash", "=", stateHash).executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) return undefined;
  return { providerId: row.providerId, nonce: row.nonce, codeVerifier: row.codeVerifier, siteId: row.siteId, next: row.next };
}

export async function purgeExpiredOidcLogins(db: Executor): Promise<void> {
  await db.deleteFrom("oidcLogins").where("expiresAt", "<=", nowIso()).execute();
}
