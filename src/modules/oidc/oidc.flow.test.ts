/**
 * OpenID Connect sign-in against oidc-provider (a certified OpenID provider) on loopback: the
 * member's sign-in to the web app, a published site's visitor sign-in, the account rules SAML has,
 * and the refused answers (wrong state, another browser, replayed callback, wrong audience,
 * expired, `alg: none`, a key the provider no longer publishes), and a key rotated at the provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../../../test/helpers/factories.js";
import { CookieJar, loginAtIdp, newSigningKey, resign, startTestIdp, type TestIdp, unsigned } from "../../../test/helpers/oidc-idp.js";
import { freePort } from "../../../test/helpers/ports.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createSpace } from "../../../test/helpers/spaces.factories.js";
import { createTeam } from "../../../test/helpers/teams.factories.js";

let ctx: TestContext;
let base: string;
let idp: TestIdp;
let owner: TestUser;
let orgId: string;
let teamId: string;
let providerId: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ config: { publicUrl: base, fetchAllowNetworks: ["127.0.0.0/8"] } });
  await ctx.app.listen({ port, host: "127.0.0.1" });
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Relying Party")).id;
  teamId = (await createTeam(ctx, owner, orgId, { title: "Readers" })).id;
  // The redirect URI is known only once the provider exists at Quire; oidc-provider needs it at start.
  const placeholder = await ctx.as(owner).post(`/v1/orgs/${orgId}/oidc`, {
    label: "Test IdP",
    issuer: "https://idp.invalid",
    clientID: "quire-test",
    defaultRole: "comment",
    defaultTeam: teamId,
  });
  expect(placeholder.status).toBe(201);
  providerId = placeholder.body.id;
  idp = await startTestIdp({ redirectUris: [placeholder.body.service.redirectURI] });
  const configured = await ctx.as(owner).patch(`/v1/orgs/${orgId}/oidc/${providerId}`, {
    issuer: idp.issuer,
    clientSecret: idp.clientSecret,
  });
  expect(configured.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await idp?.stop();
  await ctx?.close();
});

/** Starts a sign-in at Quire as a browser: the provider's authorization URL and Quire's cookies. */
async function start(query = "next=/app"): Promise<{ authorizationUrl: string; jar: CookieJar }> {
  const jar = new CookieJar();
  const res = await fetch(`${base}/app/oidc/${providerId}/start?${query}`, { redirect: "manual" });
  expect(res.status).toBe(302);
  jar.take(res.headers);
  return { authorizationUrl: res.headers.get("location") ?? "", jar };
}

async function callback(url: URL | string, jar: CookieJar): Promise<Response> {
  const res = await fetch(url, { redirect: "manual", headers: { cookie: jar.header() } });
  jar.take(res.headers);
  return res;
}

async function signIn(login: string): Promise<{ res: Response; jar: CookieJar; back: URL }> {
  const { authorizationUrl, jar } = await start();
  const back = await loginAtIdp(authorizationUrl, login);
  return { res: await callback(back, jar), jar, back };
}

async function errorOf(res: Response): Promise<string> {
  return (await res.text()).replace(/\s+/g, " ");
}

describe("OpenID Connect providers (API)", () => {
  it("never returns the client secret, and only admins manage providers", async () => {
    const got = await ctx.as(owner).get(`/v1/orgs/${orgId}/oidc/${providerId}`);
    expect(got.status).toBe(200);
    expect(got.body.hasClientSecret).toBe(true);
    expect(got.text).not.toContain(idp.clientSecret);
    expect(got.body.service.redirectURI).toBe(`${base}/app/oidc/${providerId}/callback`);
    const row = await ctx.db.selectFrom("oidcProviders").selectAll().where("id", "=", providerId).executeTakeFirstOrThrow();
    expect(row.clientSecretSealed).not.toContain(idp.clientSecret);

    const reader = await createUser(ctx, { displayName: "Reader" });
    await addMemberToOrg(ctx, orgId, reader, "read");
    expect((await ctx.as(reader).get(`/v1/orgs/${orgId}/oidc`)).status).toBe(403);
    const outsider = await createUser(ctx, { displayName: "Outsider" });
    expect((await ctx.as(outsider).get(`/v1/orgs/${orgId}/oidc/${providerId}`)).status).toBe(404);
    const other = await createOrganization(ctx, outsider, "Elsewhere");
    expect((await ctx.as(outsider).get(`/v1/orgs/${other.id}/oidc/${providerId}`)).status).toBe(404);
    expect((await ctx.as(outsider).delete(`/v1/orgs/${other.id}/oidc/${providerId}`)).status).toBe(404);
  });

  it("refuses an issuer that is not https outside the networks the operator allowed, and a team of another organization", async () => {
    const http = await ctx.as(owner).post(`/v1/orgs/${orgId}/oidc`, { label: "Plain", issuer: "http://idp.example.com", clientID: "x" });
    expect(http.status).toBe(400);
    expect(http.body.error.message).toContain("https");
    const metadata = await ctx.as(owner).post(`/v1/orgs/${orgId}/oidc`, { label: "Meta", issuer: "http://169.254.169.254", clientID: "x" });
    expect(metadata.status).toBe(400);
    const team = await ctx.as(owner).post(`/v1/orgs/${orgId}/oidc`, {
      label: "Team",
      issuer: "https://idp.example.com",
      clientID: "x",
      defaultTeam: "nope",
    });
    expect(team.status).toBe(400);
    expect(team.body.error.message).toContain("defaultTeam");
  });
});

describe("member sign-in", () => {
  it("creates the account and the SSO membership with the provider's role and team, and opens a session", async () => {
    const { res, jar } = await signIn("nora@idp.test");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app");
    const user = await ctx.db.selectFrom("users").selectAll().where("email", "=", "nora@idp.test").executeTakeFirstOrThrow();
    expect(user.displayName).toBe("Nora");
    expect(user.emailVerifiedVia).toBe("idp");
    expect(user.emailVouchedBy).toBe(orgId);
    const member = await ctx.db
      .selectFrom("members")
      .selectAll()
      .where("orgId", "=", orgId)
      .where("userId", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(member.role).toBe("comment");
    expect(member.sso).toBe(1);
    const inTeam = await ctx.db.selectFrom("teamMembers").selectAll().where("teamId", "=", teamId).where("userId", "=", user.id).execute();
    expect(inTeam).toHaveLength(1);
    const home = await fetch(`${base}/app`, { headers: { cookie: jar.header() } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("nora@idp.test");
  });

  it("does not sign in an existing account that is not an SSO member, nor one another organization holds", async () => {
    const existing = await createUser(ctx, { displayName: "Existing" });
    await addMemberToOrg(ctx, orgId, existing, "read");
    const refused = await signIn(existing.email);
    expect(refused.res.status).toBe(403);
    expect(await errorOf(refused.res)).toContain("not an SSO member");

    // Marked SSO but also a member elsewhere: this organization's provider may not speak for it.
    await ctx.db.updateTable("members").set({ sso: 1 }).where("orgId", "=", orgId).where("userId", "=", existing.id).execute();
    const elsewhere = await createOrganization(ctx, owner, "Another");
    await addMemberToOrg(ctx, elsewhere.id, existing, "read");
    const held = await signIn(existing.email);
    expect(held.res.status).toBe(403);
    expect(await errorOf(held.res)).toContain("another organization");
  });

  it("refuses a wrong state, a callback in another browser, and a replayed callback", async () => {
    const { authorizationUrl, jar } = await start();
    const back = await loginAtIdp(authorizationUrl, "sam@idp.test");
    const forged = new URL(back);
    forged.searchParams.set("state", "forged-state-value");
    expect((await callback(forged, jar)).status).toBe(400);

    // The genuine answer, brought by a browser that did not start the sign-in.
    const again = await start();
    const answer = await loginAtIdp(again.authorizationUrl, "sam@idp.test");
    const otherBrowser = await callback(answer, new CookieJar());
    expect(otherBrowser.status).toBe(403);
    expect(await errorOf(otherBrowser)).toContain("not started in this browser");

    const third = await start();
    const ok = await loginAtIdp(third.authorizationUrl, "sam@idp.test");
    const first = await callback(ok, third.jar);
    expect(first.status).toBe(303);
    const replay = await callback(ok, third.jar);
    expect(replay.status).toBe(400);
    expect(await errorOf(replay)).toContain("already completed");
  });

  it.each([
    [
      "a wrong audience",
      async (t: string, keys: Awaited<ReturnType<typeof newSigningKey>>[]) => resign(t, keys[0]!, (p) => void (p.aud = "someone-else")),
    ],
    [
      "an expired token",
      async (t: string, keys: Awaited<ReturnType<typeof newSigningKey>>[]) =>
        resign(t, keys[0]!, (p) => {
          p.iat = Math.floor(Date.now() / 1000) - 7200;
          p.exp = Math.floor(Date.now() / 1000) - 3600;
        }),
    ],
    ["alg none", async (t: string) => unsigned(t)],
    ["a key the provider does not publish", async (t: string) => resign(t, await newSigningKey("key-1"), () => {})],
    [
      "another nonce",
      async (t: string, keys: Awaited<ReturnType<typeof newSigningKey>>[]) => resign(t, keys[0]!, (p) => void (p.nonce = "n")),
    ],
  ])("refuses an ID token with %s", async (_name, tamper) => {
    idp.tamper = tamper;
    try {
      const before = await ctx.db.selectFrom("users").select("id").execute();
      const { res } = await signIn("mallory@idp.test");
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toContain("answer was refused");
      expect(await ctx.db.selectFrom("users").select("id").execute()).toHaveLength(before.length);
    } finally {
      idp.tamper = undefined;
    }
  });

  it("uses a key rotated at the provider at once, and refuses the key it removed", async () => {
    const old = idp.keys()[0]!;
    await idp.rotateKeys([await newSigningKey("key-2")]);
    const { res } = await signIn("rita@idp.test");
    expect(res.status).toBe(303);
    // A token signed with the removed key (its kid no longer in the JWKS) is refused.
    idp.tamper = async (t) => resign(t, old, () => {});
    try {
      const refused = await signIn("rita@idp.test");
      expect(refused.res.status).toBe(403);
    } finally {
      idp.tamper = undefined;
    }
  });

  it("tells the member when the provider refused them", async () => {
    const { jar } = await start();
    const res = await callback(`${base}/app/oidc/${providerId}/callback?error=access_denied&error_description=No`, jar);
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toContain("access_denied");
  });
});

describe("a published site's visitor sign-in", () => {
  it("sends a visitor to the provider and gives them a visitor token whose claims are the ID token's", async () => {
    const space = await createSpace(ctx, owner, orgId, { title: "Handbook" });
    const site = await createSite(ctx, owner, orgId, { title: "Handbook", visibility: "visitor-auth", spaces: [space.id] });
    expect((await ctx.as(owner).post(`/v1/orgs/${orgId}/sites/${site.id}/publish`)).status).toBe(200);
    const set = await ctx
      .as(owner)
      .patch(`/v1/orgs/${orgId}/sites/${site.id}/publishing/auth`, { backend: "custom", oidcProvider: providerId });
    expect(set.status).toBe(200);
    expect(set.body.oidcProvider).toBe(providerId);
    const foreign = await ctx
      .as(owner)
      .patch(`/v1/orgs/${orgId}/sites/${site.id}/publishing/auth`, { backend: "custom", oidcProvider: "nope" });
    expect(foreign.status).toBe(400);

    const page = await fetch(`${base}/s/${site.basename}/`, { redirect: "manual" });
    expect(page.status).toBe(302);
    const login = new URL(page.headers.get("location") ?? "");
    expect(login.pathname).toBe(`/app/oidc/${providerId}/start`);
    expect(login.searchParams.get("site")).toBe(site.id);

    expect((await ctx.as(owner).patch(`/v1/orgs/${orgId}/oidc/${providerId}`, { scopes: "openid email profile groups" })).status).toBe(200);
    idp.extraClaims = { groups: ["beta"] };
    try {
      const jar = new CookieJar();
      const started = await fetch(login, { redirect: "manual" });
      jar.take(started.headers);
      const back = await loginAtIdp(started.headers.get("location") ?? "", "vera@idp.test");
      const res = await callback(back, jar);
      expect(res.status).toBe(303);
      const target = new URL(res.headers.get("location") ?? "");
      expect(target.pathname).toBe(`/s/${site.basename}/`);
      const token = target.searchParams.get("jwt_token") ?? "";
      const { decodeJwt } = await import("jose");
      const claims = decodeJwt(token);
      expect(claims.email).toBe("vera@idp.test");
      expect(claims.groups).toEqual(["beta"]);
      expect(claims.nonce).toBeUndefined();
      const read = await fetch(target, { redirect: "manual" });
      expect(read.status).toBe(302); // the token moves into the site's cookie
      const siteJar = new CookieJar();
      siteJar.take(read.headers);
      // With the token's cookie the reader is admitted (the empty space answers its own 404), without it sent to sign in.
      const cleaned = new URL(read.headers.get("location") ?? "", target);
      expect(cleaned.searchParams.has("jwt_token")).toBe(false);
      const shown = await fetch(cleaned, { redirect: "manual", headers: { cookie: siteJar.header() } });
      expect(shown.status).not.toBe(302);
      expect((await fetch(cleaned, { redirect: "manual" })).status).toBe(302);
    } finally {
      idp.extraClaims = {};
    }
    // No account is made for a visitor.
    expect(await ctx.db.selectFrom("users").select("id").where("email", "=", "vera@idp.test").execute()).toHaveLength(0);
  });
});
