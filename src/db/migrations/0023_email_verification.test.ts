import { Migrator } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { migrateToLatest } from "../migrate.js";
import { migrations } from "./index.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database?.cleanup());

describe("migration 0023: where an email address was verified", () => {
  it("treats accounts an identity provider may have signed in as vouched for by that organization only", async () => {
    const { db } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0022_page_feedback")).error).toBeUndefined();
    const now = new Date().toISOString();
    // Typed as the schema after 0023, so the rows are inserted through an untyped table name.
    const untyped = db as unknown as { insertInto: (t: string) => any };
    const user = (id: string, emailVerified: 0 | 1, pending: 0 | 1 = 0) => ({
      id,
      email: `${id}@example.test`,
      displayName: id,
      photoUrl: null,
      emailVerified,
      pending,
      createdAt: now,
      updatedAt: now,
    });
    await untyped
      .insertInto("users")
      .values([
        user("operator", 1), // made by the CLI, a plain member
        user("saml", 1), // made at a first SAML sign-in: an SSO member
        user("twice", 1), // SSO member of two organizations: which provider made it is unknown
        user("alone", 1), // verified, member of nothing: an operator's new account, or a provider's that left
        user("invited", 0, 1), // invited with sso: true, never used
        user("activated", 0, 0), // invited with sso: true, activated, maybe signed in without a name change
        user("plain", 0, 0), // invited, a plain member
      ])
      .execute();
    const org = (id: string) => ({
      id,
      title: id,
      emailDomains: "[]",
      type: "business",
      mergeRules: '{"type":"none"}',
      createdAt: now,
      updatedAt: now,
    });
    await untyped
      .insertInto("organizations")
      .values([org("o1"), org("o2")])
      .execute();
    const member = (orgId: string, userId: string, sso: 0 | 1) => ({ orgId, userId, role: "read", sso, disabled: 0, joinedAt: now });
    await untyped
      .insertInto("members")
      .values([
        member("o1", "operator", 0),
        member("o2", "saml", 1),
        member("o1", "saml", 0),
        member("o1", "twice", 1),
        member("o2", "twice", 1),
        member("o1", "invited", 1),
        member("o2", "activated", 1),
        member("o1", "plain", 0),
      ])
      .execute();

    expect(await migrateToLatest(db)).toContain("0023_email_verification");
    const rows = await db.selectFrom("users").select(["id", "emailVerified", "emailVerifiedVia", "emailVouchedBy"]).orderBy("id").execute();
    expect(Object.fromEntries(rows.map(({ id, ...rest }) => [id, rest]))).toEqual({
      activated: { emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: "o2" },
      alone: { emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: null },
      invited: { emailVerified: 0, emailVerifiedVia: null, emailVouchedBy: null },
      operator: { emailVerified: 1, emailVerifiedVia: "operator", emailVouchedBy: null },
      plain: { emailVerified: 0, emailVerifiedVia: null, emailVouchedBy: null },
      saml: { emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: "o2" },
      twice: { emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: null },
    });
    // The table of held invitations exists and cascades with its user.
    await db
      .insertInto("heldInvitations")
      .values({ orgId: "o1", userId: "saml", role: "edit", sso: 0, createdAt: now, expiresAt: now })
      .execute();
    await db.deleteFrom("members").where("userId", "=", "saml").execute();
    await db.deleteFrom("users").where("id", "=", "saml").execute();
    expect(await db.selectFrom("heldInvitations").selectAll().execute()).toEqual([]);
  });
});
