/**
 * SCIM 2.0 provisioning. Tokens an organization's admins create for their identity provider's
 * SCIM client (only the SHA-256 of the token is stored; the token names the organization), and
 * the identity provider's `externalId` of the members and teams it provisions.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("scim_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("scim_tokens_org").on("scim_tokens").columns(["org_id", "created_at"]).execute();

  await db.schema
    .createTable("scim_external_ids")
    .addColumn("org_id", "text", (c) => c.notNull())
    .addColumn("resource_type", "text", (c) => c.notNull())
    .addColumn("resource_id", "text", (c) => c.notNull())
    .addColumn("external_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("scim_external_ids_pk", ["org_id", "resource_type", "resource_id"])
    .execute();
  await db.schema
    .createIndex("scim_external_ids_lookup")
    .on("scim_external_ids")
    .columns(["org_id", "resource_type", "external_id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("scim_external_ids").ifExists().execute();
  await db.schema.dropTable("scim_tokens").ifExists().execute();
}
