import { X509Certificate } from "node:crypto";
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

describe("migration 0019: SAML providers get this service's key pair", () => {
  it("gives every existing provider its own key and certificate, and keeps accepting plain assertions", async () => {
    const { db } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0018_git_redirects_cascade")).error).toBeUndefined();
    const now = new Date().toISOString();
    const provider = (id: string) => ({
      id,
      orgId: "o",
      label: id,
      entityId: "",
      ssoUrl: null,
      certificate: "",
      defaultTeamId: null,
      defaultRole: "read",
      createdAt: now,
      updatedAt: now,
    });
    // Typed as the schema after 0019, so the rows are inserted through an untyped table name.
    await (db as unknown as { insertInto: (t: string) => any })
      .insertInto("samlProviders")
      .values([provider("first"), provider("second")])
      .execute();

    expect(await migrateToLatest(db)).toContain("0019_saml_encryption");
    const rows = await db.selectFrom("samlProviders").selectAll().orderBy("id").execute();
    expect(rows.map((r) => r.requireEncryptedAssertions)).toEqual([0, 0]);
    for (const row of rows) {
      const cert = new X509Certificate(row.spCertificate);
      expect(cert.subject).toBe(`CN=Quire SAML SP ${row.id}`);
      expect(row.spPrivateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    }
    expect(rows[0]?.spPrivateKey).not.toBe(rows[1]?.spPrivateKey);
  });
});
