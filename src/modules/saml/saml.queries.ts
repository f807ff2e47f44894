import type { Executor } from "../../db/database.js";
import type { SamlProviderRow } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { generateServiceProviderKeys } from "../../lib/self-signed.js";
import { nowIso } from "../../lib/time.js";

/** A provider of this organization; another organization's id finds nothing. */
export function getSamlProvider(db: Executor, orgId: string, id: string): Promise<SamlProviderRow | undefined> {
  return db.selectFrom("samlProviders").selectAll().where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
}

/** A provider by id alone, for the public sign-in endpoints (the id is in their URL). */
export function getSamlProviderById(db: Executor, id: string): Promise<SamlProviderRow | undefined> {
  return db.selectFrom("samlProviders").selectAll().where("id", "=", id).executeTakeFirst();
}

/** One page of the organization's providers, oldest first. */
export function listSamlProviders(
  db: Executor,
  orgId: string,
  options: { page?: string | undefined; limit?: number | undefined },
): Promise<Page<SamlProviderRow>> {
  return paginate(
    db.selectFrom("samlProviders").selectAll().where("orgId", "=", orgId),
    [
      { column: "createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

/** Every provider of an organization (a handful at most), oldest first. */
export function allSamlProviders(db: Executor, orgId: string): Promise<SamlProviderRow[]> {
  return db.selectFrom("samlProviders").selectAll().where("orgId", "=", orgId).orderBy("createdAt").orderBy("id").execute();
}

export type NewSamlProvider = Omit<SamlProviderRow, "id" | "spPrivateKey" | "spCertificate" | "createdAt" | "updatedAt">;

/** Inserts a provider with a new key pair of this service for it (see lib/self-signed.ts). */
export async function insertSamlProvider(db: Executor, input: NewSamlProvider): Promise<SamlProviderRow> {
  const now = nowIso();
  const id = newId();
  const keys = await generateServiceProviderKeys(`Quire SAML SP ${id}`);
  const row: SamlProviderRow = {
    ...input,
    id,
    spPrivateKey: keys.privateKey,
    spCertificate: keys.certificate,
    createdAt: now,
    updatedAt: now,
  };
  await db.insertInto("samlProviders").values(row).execute();
  return row;
}

export async function updateSamlProvider(
  db: Executor,
  orgId: string,
  id: string,
  change: Partial<Omit<SamlProviderRow, "id" | "orgId" | "createdAt" | "updatedAt">>,
): Promise<void> {
  await db
    .updateTable("samlProviders")
    .set({ ...change, updatedAt: nowIso() })
    .where("orgId", "=", orgId)
    .where("id", "=", id)
    .execute();
}

export async function deleteSamlProvider(db: Executor, orgId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("samlProviders").where("orgId", "=", orgId).where("id", "=", id).executeTakeFirst();
  await db.deleteFrom("samlRequests").where("providerId", "=", id).execute();
  return Number(result.numDeletedRows) > 0;
}

// --- AuthnRequests and LogoutRequests sent, assertions and logout requests received ---

export type SamlRequestKind = "authn" | "logout";

export async function saveSamlRequest(
  db: Executor,
  input: { id: string; providerId: string; ttlMs: number; kind?: SamlRequestKind },
): Promise<void> {
  const now = Date.now();
  await db
    .insertInto("samlRequests")
    .values({
      id: input.id,
      providerId: input.providerId,
      kind: input.kind ?? "authn",
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + input.ttlMs).toISOString(),
    })
    .execute();
}

/** A request of this provider and kind that has not expired. */
export function getSamlRequest(db: Executor, providerId: string, id: string, kind: SamlRequestKind = "authn") {
  return db
    .selectFrom("samlRequests")
    .selectAll()
    .where("id", "=", id)
    .where("providerId", "=", providerId)
    .where("kind", "=", kind)
    .where("expiresAt", ">", nowIso())
    .executeTakeFirst();
}

/** Deletes a request; true when this call deleted it (so only one answer to it is ever accepted). */
export async function takeSamlRequest(db: Executor, providerId: string, id: string, kind: SamlRequestKind = "authn"): Promise<boolean> {
  const result = await db
    .deleteFrom("samlRequests")
    .where("id", "=", id)
    .where("providerId", "=", providerId)
    .where("kind", "=", kind)
    .where("expiresAt", ">", nowIso())
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Records an assertion's use (or a LogoutRequest's: IDs of one IdP's messages are unique, so one
 * table refuses the replay of either). The primary key (provider, assertion id) makes the insert fail for
 * a second use, whichever process sees it; returns false then.
 */
export async function recordAssertionUse(
  db: Executor,
  input: { providerId: string; assertionId: string; expiresAt: string },
): Promise<boolean> {
  const result = await db
    .insertInto("samlAssertions")
    .values({ providerId: input.providerId, assertionId: input.assertionId, usedAt: nowIso(), expiresAt: input.expiresAt })
    .onConflict((oc) => oc.columns(["providerId", "assertionId"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Forgets requests and used assertions whose time has passed. */
export async function purgeExpiredSaml(db: Executor): Promise<void> {
  const now = nowIso();
  await db.deleteFrom("samlRequests").where("expiresAt", "<=", now).execute();
  await db.deleteFrom("samlAssertions").where("expiresAt", "<=", now).execute();
}
