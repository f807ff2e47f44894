import type { DialectName, Executor } from "../../db/database.js";
import { containsInsensitive } from "../../db/dialect.js";
import type { SiteRow, SitesTable } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { type Page, paginate } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";

export async function getSite(db: Executor, orgId: string, siteId: string): Promise<SiteRow | undefined> {
  return db.selectFrom("sites").selectAll().where("id", "=", siteId).where("orgId", "=", orgId).executeTakeFirst();
}

/**
 * Takes the site's row lock for the rest of the transaction (a no-op write: PostgreSQL locks the
 * row, SQLite takes its write lock), so that writes to one site's structure follow each other.
 */
export async function lockSiteRow(trx: Executor, siteId: string): Promise<void> {
  await trx
    .updateTable("sites")
    .set((eb) => ({ updatedAt: eb.ref("updatedAt") }))
    .where("id", "=", siteId)
    .execute();
}

export async function insertSite(db: Executor, row: SiteRow): Promise<void> {
  await db.insertInto("sites").values(row).execute();
}

export async function updateSiteRow(db: Executor, siteId: string, changes: Partial<Omit<SitesTable, "id" | "orgId">>): Promise<void> {
  await db
    .updateTable("sites")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", siteId)
    .execute();
}

export async function deleteSiteRow(db: Executor, orgId: string, siteId: string): Promise<void> {
  // Structure, share links, schema, signing key and redirects follow through their foreign keys;
  // grants have none (their target may be a space, a collection or a site).
  await db.deleteFrom("grants").where("targetId", "=", siteId).where("targetType", "=", "site").execute();
  await db.deleteFrom("sites").where("id", "=", siteId).where("orgId", "=", orgId).execute();
}

/** Whether a basename is used by another site (of any organization: the URL space is shared). */
export async function basenameTaken(db: Executor, basename: string, exceptSiteId?: string): Promise<boolean> {
  let query = db.selectFrom("sites").select("id").where("basename", "=", basename);
  if (exceptSiteId) query = query.where("id", "!=", exceptSiteId);
  const row = await query.executeTakeFirst();
  return !!row;
}

export interface ListSitesOptions {
  page?: string | undefined;
  limit?: number | undefined;
  space?: string | undefined;
  title?: string | undefined;
  published?: boolean | undefined;
  type?: string[] | undefined;
  /** Only these sites (a guest's granted ones; other ids are ignored). */
  only?: readonly string[] | undefined;
}

/** One page of an organization's sites, oldest first. */
export function listSites(db: Executor, dialect: DialectName, orgId: string, options: ListSitesOptions): Promise<Page<SiteRow>> {
  let query = db.selectFrom("sites").selectAll("sites").where("sites.orgId", "=", orgId);
  const title = options.title?.trim();
  if (title) query = query.where(containsInsensitive(dialect, "sites.title", title));
  if (options.published !== undefined) query = query.where("sites.published", "=", options.published ? 1 : 0);
  if (options.type?.length) query = query.where("sites.type", "in", options.type);
  if (options.only) {
    if (options.only.length === 0) return Promise.resolve({ rows: [], count: 0 });
    query = query.where("sites.id", "in", [...options.only]);
  }
  if (options.space) {
    const spaceId = options.space;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("siteSpaces")
          .innerJoin("spaces", "spaces.id", "siteSpaces.spaceId")
          .select("siteSpaces.id")
          .whereRef("siteSpaces.siteId", "=", "sites.id")
          .where("siteSpaces.spaceId", "=", spaceId)
          .where("spaces.deletedAt", "is", null),
      ),
    );
  }
  return paginate(
    query,
    [
      { column: "sites.createdAt", direction: "asc", value: (r) => r.createdAt },
      { column: "sites.id", direction: "asc", value: (r) => r.id },
    ],
    options,
  );
}

/** Site spaces per site, those of deleted spaces left out (they are not shown). */
export async function siteSpaceCounts(db: Executor, siteIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(siteIds.map((id) => [id, 0]));
  if (siteIds.length === 0) return counts;
  const rows = await db
    .selectFrom("siteSpaces")
    .innerJoin("spaces", "spaces.id", "siteSpaces.spaceId")
    .innerJoin("sites", "sites.id", "siteSpaces.siteId")
    .select(["siteSpaces.siteId", (eb) => eb.fn.countAll().as("count")])
    .where("siteSpaces.siteId", "in", [...siteIds])
    .where("spaces.deletedAt", "is", null)
    .whereRef("spaces.orgId", "=", "sites.orgId")
    .groupBy("siteSpaces.siteId")
    .execute();
  for (const row of rows) counts.set(row.siteId, Number(row.count));
  return counts;
}

/**
 * The spaces each site shows, as access resolution needs them: one row per site space whose space
 * is (still) in the site's organization, deleted ones included (a restore shows them again).
 */
export async function siteSpaceNodes(
  db: Executor,
  siteIds: readonly string[],
): Promise<{ siteId: string; siteSpaceId: string; id: string; parentId: string | null; defaultLevel: string | null }[]> {
  if (siteIds.length === 0) return [];
  return db
    .selectFrom("siteSpaces")
    .innerJoin("spaces", "spaces.id", "siteSpaces.spaceId")
    .innerJoin("sites", "sites.id", "siteSpaces.siteId")
    .select(["siteSpaces.siteId", "siteSpaces.id as siteSpaceId", "spaces.id", "spaces.parentId", "spaces.defaultLevel"])
    .where("siteSpaces.siteId", "in", [...siteIds])
    .whereRef("spaces.orgId", "=", "sites.orgId")
    .orderBy("siteSpaces.id")
    .execute();
}

// Visitor authentication (the signing key of visitor tokens).

export interface PublishingAuthRow {
  siteId: string;
  backend: string;
  privateKeySealed: string;
  fallbackUrl: string | null;
  /** The organization's OpenID Connect provider visitors sign in with; null: the fallback URL. */
  oidcProviderId: string | null;
  updatedAt: string;
}

export async function getPublishingAuth(db: Executor, siteId: string): Promise<PublishingAuthRow | undefined> {
  return db.selectFrom("sitePublishingAuth").selectAll().where("siteId", "=", siteId).executeTakeFirst();
}

export async function putPublishingAuth(db: Executor, row: PublishingAuthRow): Promise<void> {
  await db
    .insertInto("sitePublishingAuth")
    .values(row)
    .onConflict((oc) =>
      oc.column("siteId").doUpdateSet({
        backend: row.backend,
        privateKeySealed: row.privateKeySealed,
        fallbackUrl: row.fallbackUrl,
        oidcProviderId: row.oidcProviderId,
        updatedAt: row.updatedAt,
      }),
    )
    .execute();
}

/** Whether the organization has this OpenID Connect provider (what a site's visitor authentication may name). */
export async function hasOidcProvider(db: Executor, orgId: string, providerId: string): Promise<boolean> {
  const row = await db.selectFrom("oidcProviders").select("id").where("orgId", "=", orgId).where("id", "=", providerId).executeTakeFirst();
  return row !== undefined;
}

// Adaptive schema.

export async function getAdaptiveSchema(db: Executor, siteId: string): Promise<{ jsonSchema: string; updatedAt: string } | undefined> {
  return db.selectFrom("siteAdaptiveSchemas").select(["jsonSchema", "updatedAt"]).where("siteId", "=", siteId).executeTakeFirst();
}

export async function putAdaptiveSchema(db: Executor, siteId: string, jsonSchema: string): Promise<string> {
  const updatedAt = nowIso();
  await db
    .insertInto("siteAdaptiveSchemas")
    .values({ siteId, jsonSchema, updatedAt })
    .onConflict((oc) => oc.column("siteId").doUpdateSet({ jsonSchema, updatedAt }))
    .execute();
  return updatedAt;
}

// Redirects of old paths.

/**
 * Keeps `fromPath` (a path from the site's root) answering: it now leads to the given section or
 * site space. A newer redirect from the same path replaces the older one.
 */
export async function recordRedirect(
  db: Executor,
  input: { siteId: string; fromPath: string; targetType: "site-section" | "site-space"; targetId: string },
): Promise<void> {
  await db.deleteFrom("sitePathRedirects").where("siteId", "=", input.siteId).where("fromPath", "=", input.fromPath).execute();
  await db
    .insertInto("sitePathRedirects")
    .values({ id: newId(), ...input, createdAt: nowIso() })
    .execute();
}

export async function listRedirects(db: Executor, siteId: string) {
  return db
    .selectFrom("sitePathRedirects")
    .select(["fromPath", "targetType", "targetId"])
    .where("siteId", "=", siteId)
    .orderBy("fromPath")
    .execute();
}

// Customization.

/** Stores a site's customization (JSON, or null for Quire's defaults); the site's updatedAt moves, so published pages render afresh. */
export async function setSiteCustomization(db: Executor, siteId: string, customization: string | null): Promise<void> {
  await updateSiteRow(db, siteId, { customization });
}

/** Stores a site space's overrides (JSON, or null for none); its updatedAt moves, so published pages render afresh. */
export async function setSiteSpaceCustomization(
  db: Executor,
  siteId: string,
  siteSpaceId: string,
  customization: string | null,
): Promise<void> {
  await db
    .updateTable("siteSpaces")
    .set({ customization, updatedAt: nowIso() })
    .where("id", "=", siteSpaceId)
    .where("siteId", "=", siteId)
    .execute();
}
