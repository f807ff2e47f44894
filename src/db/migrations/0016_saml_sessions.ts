/**
 * SAML single sign-on and web sessions: an organization's identity providers; the AuthnRequests
 * this service sent (an answer must be to one of them); the assertions already used (a unique key
 * refuses a replay in every process); the web app's sessions; one-time sign-in links.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("saml_providers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("entity_id", "text", (c) => c.notNull())
    .addColumn("sso_url", "text")
    .addColumn("certificate", "text", (c) => c.notNull())
    .addColumn("default_team_id", "text")
    .addColumn("default_role", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("saml_providers_org").on("saml_providers").columns(["org_id", "created_at"]).execute();

  await db.schema
    .createTable("saml_requests")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("saml_requests_expiry").on("saml_requests").column("expires_at").execute();

  await db.schema
    .createTable("saml_assertions")
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("assertion_id", "text", (c) => c.notNull())
    .addColumn("used_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("saml_assertions_pk", ["provider_id", "assertion_id"])
    .execute();
  await db.schema.createIndex("saml_assertions_expiry").on("saml_assertions").column("expires_at").execute();

  await db.schema
    .createTable("web_sessions")
    .addColumn("id_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("web_sessions_expiry").on("web_sessions").column("expires_at").execute();

  await db.schema
    .createTable("login_links")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["login_links", "web_sessions", "saml_assertions", "saml_requests", "saml_providers"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
