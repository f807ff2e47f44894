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

describe("migration 0021: SAML single logout", () => {
  it("keeps existing requests as AuthnRequests, providers without single logout, sessions without a SAML subject", async () => {
    const { db } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0020_site_customization")).error).toBeUndefined();
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    // Typed as the schema after 0021, so the rows are inserted through an untyped table name.
    const untyped = db as unknown as { insertInto: (t: string) => any };
    await untyped
      .insertInto("samlProviders")
      .values({
        id: "p",
        orgId: "o",
        label: "p",
        entityId: "",
        ssoUrl: null,
        certificate: "",
        defaultTeamId: null,
        defaultRole: "read",
        spPrivateKey: "",
        spCertificate: "",
        requireEncryptedAssertions: 0,
        createdAt: now,
        updatedAt: now,
      })
      .execute();
    await untyped.insertInto("samlRequests").values({ id: "_r", providerId: "p", createdAt: now, expiresAt: later }).execute();
    await untyped.insertInto("webSessions").values({ idHash: "h", userId: "u", data: "{}", expiresAt: later }).execute();

    expect(await migrateToLatest(db)).toContain("0021_saml_logout");
    expect(await db.selectFrom("samlProviders").select("sloUrl").execute()).toEqual([{ sloUrl: null }]);
    expect(await db.selectFrom("samlRequests").select(["id", "kind"]).execute()).toEqual([{ id: "_r", kind: "authn" }]);
    expect(await db.selectFrom("webSessions").select(["samlProviderId", "samlNameId", "samlSessionIndex"]).execute()).toEqual([
      { samlProviderId: null, samlNameId: null, samlSessionIndex: null },
    ]);
  });
});
