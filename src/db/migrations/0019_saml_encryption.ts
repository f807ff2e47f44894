/**
 * Each SAML provider gets this service's own key pair for it: the identity provider encrypts
 * assertions to its certificate (published in the SP metadata), the ACS decrypts with its key.
 * Existing providers get theirs here, so that every row has one and their metadata changes only by
 * gaining the encryption certificate. Whether a plain (signed, unencrypted) assertion is still
 * accepted is the provider's `require_encrypted_assertions` (1 = refuse it); existing ones accept both.
 */
import type { Kysely } from "kysely";
import { generateServiceProviderKeys } from "../../lib/self-signed.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("saml_providers")
    .addColumn("sp_private_key", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("saml_providers")
    .addColumn("sp_certificate", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("saml_providers")
    .addColumn("require_encrypted_assertions", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  const rows: { id: string }[] = await db.selectFrom("saml_providers").select("id").execute();
  for (const row of rows) {
    const keys = await generateServiceProviderKeys(`Quire SAML SP ${row.id}`);
    await db
      .updateTable("saml_providers")
      .set({ sp_private_key: keys.privateKey, sp_certificate: keys.certificate })
      .where("id", "=", row.id)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("saml_providers").dropColumn("require_encrypted_assertions").execute();
  await db.schema.alterTable("saml_providers").dropColumn("sp_certificate").execute();
  await db.schema.alterTable("saml_providers").dropColumn("sp_private_key").execute();
}
