/**
 * Where a user's email address was verified, so that an organization's identity provider is
 * trusted for its own organization only.
 *
 * - `email_verified_via`: `operator` (created or verified with the command line), `sign-in-link`
 *   (signed in with an operator's one-time link), `idp` (an organization's SAML provider vouched
 *   for it), or null (nobody: an invitation created the account).
 * - `email_vouched_by`: with `idp`, the organization whose provider vouched; null when it cannot be
 *   known. The address is then verified inside that organization only.
 * - `email_verified` keeps its column and now means "verified for every organization": 1 exactly
 *   for `operator` and `sign-in-link`.
 *
 * Existing rows. Before this migration a SAML sign-in marked an address verified everywhere, so
 * every account an identity provider may have signed in is re-classified:
 * - an account with an SSO membership that is not a never-used pending invitation: vouched by the
 *   organization of that membership; with SSO memberships in several organizations, by an unknown
 *   one (verified nowhere);
 * - a verified account with no membership at all: an operator's new account and an account a
 *   provider created and that then left (or was removed from) its organization look the same, so
 *   it is treated as vouched by an unknown provider. The operator re-verifies it with
 *   `quire users verify`.
 * - any other verified account was verified by the operator.
 *
 * `held_invitations`: an email invitation to an organization of an address whose account another
 * organization's provider vouched for is held here, not given to that account, until the address is
 * verified for every organization (README "Email addresses and organizations").
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("email_verified_via", "text").execute();
  await db.schema.alterTable("users").addColumn("email_vouched_by", "text").execute();

  await sql`update users set email_verified_via = 'operator' where email_verified = 1`.execute(db);
  await sql`
    update users set
      email_verified = 0,
      email_verified_via = 'idp',
      email_vouched_by = case
        when (select count(distinct m.org_id) from members m where m.user_id = users.id and m.sso = 1) = 1
        then (select min(m.org_id) from members m where m.user_id = users.id and m.sso = 1)
        else null
      end
    where pending = 0 and exists (select 1 from members m where m.user_id = users.id and m.sso = 1)`.execute(db);
  await sql`
    update users set email_verified = 0, email_verified_via = 'idp', email_vouched_by = null
    where email_verified = 1 and not exists (select 1 from members m where m.user_id = users.id)`.execute(db);

  await db.schema
    .createTable("held_invitations")
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text")
    .addColumn("sso", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("held_invitations_pk", ["org_id", "user_id"])
    .execute();
  await db.schema.createIndex("held_invitations_user").on("held_invitations").column("user_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("held_invitations").ifExists().execute();
  // Addresses an identity provider vouched for stay unverified: restoring them would reopen the hole.
  await db.schema.alterTable("users").dropColumn("email_vouched_by").execute();
  await db.schema.alterTable("users").dropColumn("email_verified_via").execute();
}
