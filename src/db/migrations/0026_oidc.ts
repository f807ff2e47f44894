/**
 * OpenID Connect sign-in. An organization's OIDC providers (the client secret sealed under the
 * instance key, never stored in clear); the sign-ins under way (state, nonce and PKCE verifier,
 * each used once: the row is deleted by the callback that answers it); and the provider a
 * published site's visitor authentication may use instead of a fallback URL.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("oidc_providers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret_sealed", "text")
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("email_claim", "text", (c) => c.notNull())
    .addColumn("name_claim", "text", (c) => c.notNull())
    .addColumn("default_role", "text")
    .addColumn("default_team_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oidc_providers_org").on("oidc_providers").columns(["org_id", "created_at"]).execute();

  await db.schema
    .createTable("oidc_logins")
    .addColumn("state_hash", "text", (c) => c.primaryKey())
    .addColumn("provider_id", "text", (c) => c.notNull())
    .addColumn("nonce", "text", (c) => c.notNull())
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("site_id", "text")
    .addColumn("next", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oidc_logins_expiry").on("oidc_logins").column("expires_at").execute();

  await db.schema.alterTable("site_publishing_auth").addColumn("oidc_provider_id", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("site_publishing_auth").dropColumn("oidc_provider_id").execute();
  await db.schema.dropTable("oidc_logins").ifExists().execute();
  await db.schema.dropTable("oidc_providers").ifExists().execute();
}
