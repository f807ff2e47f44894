/**
 * SAML single logout. A provider may name the identity provider's single logout URL
 * (`slo_url`). A web session signed in with SAML keeps the provider, NameID and SessionIndex of
 * its assertion in columns (not only in its JSON), so that an IdP's LogoutRequest finds every
 * session it ends with one indexed delete, on both dialects. `saml_requests.kind` tells the
 * LogoutRequests this service sent from its AuthnRequests, so that an answer to one is never
 * taken for an answer to the other.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("saml_providers").addColumn("slo_url", "text").execute();
  await db.schema.alterTable("web_sessions").addColumn("saml_provider_id", "text").execute();
  await db.schema.alterTable("web_sessions").addColumn("saml_name_id", "text").execute();
  await db.schema.alterTable("web_sessions").addColumn("saml_session_index", "text").execute();
  await db.schema.createIndex("web_sessions_saml").on("web_sessions").columns(["saml_provider_id", "saml_name_id"]).execute();
  await db.schema
    .alterTable("saml_requests")
    .addColumn("kind", "text", (c) => c.notNull().defaultTo("authn"))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("saml_requests").dropColumn("kind").execute();
  await db.schema.dropIndex("web_sessions_saml").ifExists().execute();
  await db.schema.alterTable("web_sessions").dropColumn("saml_session_index").execute();
  await db.schema.alterTable("web_sessions").dropColumn("saml_name_id").execute();
  await db.schema.alterTable("web_sessions").dropColumn("saml_provider_id").execute();
  await db.schema.alterTable("saml_providers").dropColumn("slo_url").execute();
}
