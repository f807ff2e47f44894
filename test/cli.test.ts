/**
 * The `quire` command line as tooling outside this repository uses it: exact JSON outputs, and
 * tokens that work against the API. Runs `main()` in process against the test database.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/main.js";
import { createTestContext, type TestContext } from "./helpers/app.js";

let ctx: TestContext;
const saved = { ...process.env };
beforeAll(async () => {
  ctx = await createTestContext();
  const location = ctx.database.location;
  process.env.QUIRE_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "quire-cli-"));
  process.env.LOG_LEVEL = "silent";
  if (location.databaseUrl) process.env.DATABASE_URL = location.databaseUrl;
  else {
    delete process.env.DATABASE_URL;
    // The CLI opens <data dir>/quire.db: point the data dir at the test database's directory.
    process.env.QUIRE_DATA_DIR = path.dirname(location.sqlitePath!);
  }
});
afterAll(async () => {
  process.env = saved;
  await ctx.close();
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["node", "quire", ...args], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("quire init", () => {
  it("prints the organization, the owner and a working token as JSON", async () => {
    const res = await run("init", "--org", "Acme", "--email", "admin@acme.test", "--name", "Ada", "--json");
    expect(res.code).toBe(0);
    const json = JSON.parse(res.out);
    expect(Object.keys(json)).toEqual(["organization", "user", "token"]);
    expect(json).toEqual({
      organization: { id: expect.any(String) },
      user: { id: expect.any(String) },
      token: expect.stringMatching(/^qr_/),
    });
    const org = await ctx.as(json.token).get(`/v1/orgs/${json.organization.id}`);
    expect(org.status).toBe(200);
    expect(org.body).toMatchObject({ title: "Acme", permissions: { admin: true } });
    expect((await ctx.as(json.token).get("/v1/user")).body).toMatchObject({
      id: json.user.id,
      displayName: "Ada",
      email: "admin@acme.test",
    });
  });

  it("refuses an invalid email with exit code 1", async () => {
    const res = await run("init", "--org", "Acme", "--email", "not-an-email", "--name", "Ada", "--json");
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/not an email/);
  });
});

describe("quire users, tokens and orgs", () => {
  it("creates a user with a token, issues and revokes tokens, creates an organization", async () => {
    const created = await run("users", "create", "--email", "bob@acme.test", "--name", "Bob", "--json");
    expect(created.code).toBe(0);
    const user = JSON.parse(created.out);
    expect(user).toEqual({ user: { id: expect.any(String) }, token: expect.stringMatching(/^qr_/) });
    expect((await ctx.as(user.token).get("/v1/user")).body.id).toBe(user.user.id);

    const again = await run("users", "create", "--email", "bob@acme.test", "--name", "Bob", "--json");
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already exists/);

    const second = JSON.parse((await run("tokens", "create", "--user", "bob@acme.test", "--json")).out);
    expect(second).toEqual({ token: expect.stringMatching(/^qr_/) });
    expect(second.token).not.toBe(user.token);
    const byId = JSON.parse((await run("tokens", "create", "--user", user.user.id, "--json")).out);
    expect((await ctx.as(byId.token).get("/v1/user")).status).toBe(200);

    const revoked = await run("tokens", "revoke", second.token, "--json");
    expect(revoked.code).toBe(0);
    expect((await ctx.as(second.token).get("/v1/user")).status).toBe(401);
    expect((await ctx.as(user.token).get("/v1/user")).status).toBe(200);
    expect((await run("tokens", "revoke", second.token)).code).toBe(1);

    const org = await run("orgs", "create", "--title", "Bob's Org", "--owner", "bob@acme.test", "--json");
    expect(org.code).toBe(0);
    const orgJson = JSON.parse(org.out);
    expect(orgJson).toEqual({ organization: { id: expect.any(String) } });
    expect((await ctx.as(user.token).get(`/v1/orgs/${orgJson.organization.id}`)).body.permissions.admin).toBe(true);
  });

  it("stores tokens only as hashes", async () => {
    const { token } = JSON.parse((await run("users", "create", "--email", "hash@acme.test", "--name", "H", "--json")).out);
    const rows = await ctx.db.selectFrom("apiTokens").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(token.slice(3));
  });

  it("reports an unknown user and prints help", async () => {
    const res = await run("tokens", "create", "--user", "nobody@acme.test", "--json");
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/No user with email/);
    const help = await run("--help");
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/serve/);
    expect(help.out).toMatch(/tokens/);
  });
});
