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
import { addMemberToOrg, createOrganization, createUser } from "./helpers/factories.js";

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

  it("makes an invited account the owner and vouches for its address", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: ["owner-to-be@acme.test"] });
    const res = await run("init", "--org", "Second", "--email", "owner-to-be@acme.test", "--name", "Ola", "--json");
    expect(res.code, res.err).toBe(0);
    expect(
      await ctx.db.selectFrom("users").selectAll().where("id", "=", JSON.parse(res.out).user.id).executeTakeFirstOrThrow(),
    ).toMatchObject({
      email: "owner-to-be@acme.test",
      pending: 0,
      emailVerified: 1,
      emailVerifiedVia: "operator",
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

  it("vouches for an invited account's address when creating it", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: ["invitee@acme.test"] })).body.invited).toBe(1);
    const before = await ctx.db.selectFrom("users").selectAll().where("email", "=", "invitee@acme.test").executeTakeFirstOrThrow();
    expect(before).toMatchObject({ pending: 1, emailVerified: 0, emailVerifiedVia: null });
    const created = await run("users", "create", "--email", "invitee@acme.test", "--name", "Invitee", "--json");
    expect(created.code, created.err).toBe(0);
    expect(JSON.parse(created.out).user.id).toBe(before.id);
    expect(await ctx.db.selectFrom("users").selectAll().where("id", "=", before.id).executeTakeFirstOrThrow()).toMatchObject({
      pending: 0,
      displayName: "Invitee",
      emailVerified: 1,
      emailVerifiedVia: "operator",
    });
  });

  it("verifies an address an identity provider vouched for: revokes its credentials, then gives it the invitations held for it", async () => {
    const vouchingOwner = await createUser(ctx);
    const vouching = await createOrganization(ctx, vouchingOwner, "Vouching");
    const sso = await createUser(ctx, { email: "sso@held.test", verification: { via: "idp", orgId: vouching.id } });
    await addMemberToOrg(ctx, vouching.id, sso, "read");
    await ctx.db.updateTable("members").set({ sso: 1 }).where("userId", "=", sso.id).execute();
    const inviterOwner = await createUser(ctx);
    const inviter = await createOrganization(ctx, inviterOwner, "Inviter");
    const held = await ctx.as(inviterOwner).post(`/v1/orgs/${inviter.id}/invites`, { emails: ["sso@held.test"], role: "edit" });
    expect(held.body).toEqual({ users: [], invited: 0, heldEmails: ["sso@held.test"] });
    // An expired held invitation is not claimed.
    const expiredOwner = await createUser(ctx);
    const expired = await createOrganization(ctx, expiredOwner, "Expired");
    await ctx.as(expiredOwner).post(`/v1/orgs/${expired.id}/invites`, { emails: ["sso@held.test"], role: "admin" });
    await ctx.db
      .updateTable("heldInvitations")
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where("orgId", "=", expired.id)
      .execute();

    const res = await run("users", "verify", "--user", "sso@held.test", "--json");
    expect(res.code, res.err).toBe(0);
    expect(JSON.parse(res.out)).toEqual({ user: { id: sso.id }, revokedTokens: 1, endedSessions: 0, joined: [inviter.id] });
    // The token the provider's sign-ins may have made no longer works; a new one reaches the invitation's organization.
    expect((await ctx.as(sso).get("/v1/user")).status).toBe(401);
    const { token } = JSON.parse((await run("tokens", "create", "--user", "sso@held.test", "--json")).out);
    expect((await ctx.as(token).get(`/v1/orgs/${inviter.id}`)).body.permissions).toMatchObject({ view: true, admin: false });
    expect((await ctx.as(token).get(`/v1/orgs/${expired.id}`)).status).toBe(404);
    expect(await ctx.db.selectFrom("heldInvitations").selectAll().where("userId", "=", sso.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom("users").selectAll().where("id", "=", sso.id).executeTakeFirstOrThrow()).toMatchObject({
      emailVerified: 1,
      emailVerifiedVia: "operator",
      emailVouchedBy: null,
    });

    // Verifying an address verified already changes nothing else.
    const again = await run("users", "verify", "--user", sso.id);
    expect(again.code).toBe(0);
    expect(again.out).toBe(`verified ${sso.id}: 0 token(s) revoked, 0 session(s) ended`);
    expect((await ctx.as(token).get("/v1/user")).status).toBe(200);
  });

  it("issues, lists and revokes an organization's SCIM tokens", async () => {
    const owner = JSON.parse((await run("users", "create", "--email", "scim-owner@acme.test", "--name", "Owner", "--json")).out);
    const orgId = JSON.parse((await run("orgs", "create", "--title", "Provisioned", "--owner", "scim-owner@acme.test", "--json")).out)
      .organization.id;
    const created = await run("scim", "tokens", "create", "--org", orgId, "--label", "Okta", "--json");
    expect(created.code, created.err).toBe(0);
    const token = JSON.parse(created.out);
    expect(token).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^qscim_/),
      baseURL: expect.stringMatching(/\/scim\/v2$/),
    });
    const scimUsers = () => ctx.anonymous.get("/scim/v2/Users", { headers: { authorization: `Bearer ${token.token}` } });
    const users = await scimUsers();
    expect(users.status).toBe(200);
    expect(JSON.stringify(users.body)).toContain("scim-owner@acme.test");

    const listed = JSON.parse((await run("scim", "tokens", "list", "--org", orgId, "--json")).out);
    expect(listed.items).toEqual([expect.objectContaining({ id: token.id, label: "Okta", revokedAt: null })]);
    expect(JSON.stringify(listed)).not.toContain(token.token);
    // The API lists it too, for the organization's admins.
    expect(JSON.stringify((await ctx.as(owner.token).get(`/v1/orgs/${orgId}/scim/tokens`)).body)).toContain(token.id);

    expect((await run("scim", "tokens", "revoke", "--org", orgId, token.id, "--json")).out).toBe('{"revoked":true}');
    expect((await scimUsers()).status).toBe(401);
    const unknown = await run("scim", "tokens", "revoke", "--org", orgId, "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/no SCIM token with id "nope"/);
    const noOrg = await run("scim", "tokens", "create", "--org", "missing-org", "--label", "Okta");
    expect(noOrg.code).toBe(1);
    expect(noOrg.err).toMatch(/No organization with id "missing-org"/);
    expect((await run("scim", "tokens", "create", "--org", orgId, "--label", "  ")).code).toBe(1);
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

describe("the audit log of commands", () => {
  it("records what a command changes, as the command line's, in the organizations it touches", async () => {
    const user = await createUser(ctx, { displayName: "Audited by CLI" });
    const org = await createOrganization(ctx, user, "CLI audited");
    const res = await run("tokens", "create", "--user", user.email, "--label", "deploy", "--json");
    expect(res.code).toBe(0);
    const token = JSON.parse(res.out).token as string;
    const rows = await ctx.db
      .selectFrom("auditEvents")
      .selectAll()
      .where("orgId", "=", org.id)
      .where("action", "=", "api_token.created")
      .execute();
    const created = rows.find((r) => r.targetLabel === "deploy");
    expect(created).toMatchObject({ actorType: "system", actorId: "cli", source: "script", targetType: "api-token" });
    expect(JSON.stringify(rows)).not.toContain(token);

    expect((await run("tokens", "revoke", token)).code).toBe(0);
    const revoked = await ctx.db
      .selectFrom("auditEvents")
      .selectAll()
      .where("orgId", "=", org.id)
      .where("action", "=", "api_token.revoked")
      .execute();
    expect(revoked.map((r) => r.targetId)).toEqual([created!.targetId]);

    const made = JSON.parse((await run("orgs", "create", "--title", "Made by CLI", "--owner", user.email, "--json")).out);
    const orgEvents = await ctx.db
      .selectFrom("auditEvents")
      .select(["action", "targetId"])
      .where("orgId", "=", made.organization.id)
      .execute();
    expect(orgEvents).toContainEqual({ action: "organization.created", targetId: made.organization.id });
  });
});
