import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../../../test/helpers/factories.js";
import { createTestIdp } from "../../../test/helpers/saml-idp.js";
import { WebClient } from "../../../test/helpers/web.js";
import { SESSION_COOKIE, SITE_MEMBER_COOKIE } from "../../http/member-session.js";
import { webAccessAllowed } from "../../modules/saml/saml.policy.js";
import { createLoginLink, LOGIN_LINK_TTL_MS } from "./web.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const signedIn = (user: { id: string }) => WebClient.signedIn(ctx, user);

describe("web sessions", () => {
  it("sends a visitor without a session to the sign-in page, keeping where they were going", async () => {
    const res = await new WebClient(ctx).get("/app/tokens");
    expect(res.status).toBe(303);
    expect(res.location).toBe("/app/login?next=%2Fapp%2Ftokens");
    const login = await new WebClient(ctx).get("/app/login?next=%2Fapp%2Ftokens");
    expect(login.status).toBe(200);
    expect(login.text).toContain("quire users login-link --user");
    expect(login.headers["content-type"]).toContain("text/html");
  });

  it("signs in with a one-time link, once, in a signed HttpOnly SameSite cookie", async () => {
    const user = await createUser(ctx, { displayName: "Linda Link" });
    const browser = new WebClient(ctx);
    const { token } = await createLoginLink(ctx.db, user.id);
    const form = await browser.get(`/app/login/link/${token}`);
    expect(form.text).toContain("Sign in as Linda Link");
    // Opening the link does not use it: only the posted form does, and only with its CSRF token.
    expect((await browser.post(`/app/login/link/${token}`, {})).status).toBe(403);
    expect((await browser.post(`/app/login/link/${token}`, { _csrf: "forged" })).status).toBe(403);
    const before = browser.cookies.get(SESSION_COOKIE);
    expect(before).toBeDefined();
    const res = await browser.post(`/app/login/link/${token}`, { _csrf: WebClient.csrfOf(form.text) });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/app");
    // A new session id after signing in: a session planted before (fixation) is worth nothing.
    expect(browser.cookies.get(SESSION_COOKIE)).not.toBe(before);
    const planted = new WebClient(ctx);
    planted.cookies.set(SESSION_COOKIE, before ?? "");
    expect((await planted.get("/app")).status).toBe(303);
    const cookie = res.setCookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\/app(;|$)/);
    expect(cookie).not.toMatch(/Secure/); // QUIRE_PUBLIC_URL is http in tests; https turns it on
    const home = await browser.get("/app");
    expect(home.status).toBe(200);
    expect(home.text).toContain("Welcome, Linda Link");
    expect(home.text).toContain("with a sign-in link");

    // Used once: a second browser cannot use it.
    const other = new WebClient(ctx);
    const again = await other.get(`/app/login/link/${token}`);
    expect(again.status).toBe(410);
    expect(again.text).toContain("This sign-in link has expired or was already used.");
  });

  it("refuses an expired link, an unknown one, and a tampered session cookie", async () => {
    const user = await createUser(ctx);
    const { token } = await createLoginLink(ctx.db, user.id, Date.now() - LOGIN_LINK_TTL_MS - 1000);
    expect((await new WebClient(ctx).get(`/app/login/link/${token}`)).status).toBe(410);
    expect((await new WebClient(ctx).get("/app/login/link/unknown")).status).toBe(410);

    const browser = await signedIn(user);
    const value = browser.cookies.get(SESSION_COOKIE) ?? "";
    browser.cookies.set(SESSION_COOKIE, `${value.slice(0, -3)}abc`);
    expect((await browser.get("/app")).status).toBe(303);
  });

  it("signs out with a CSRF-protected form, and the old cookie no longer works anywhere", async () => {
    const user = await createUser(ctx);
    const browser = await signedIn(user);
    const stolen = browser.cookies.get(SESSION_COOKIE) ?? "";
    const home = await browser.get("/app");
    expect((await browser.post("/app/logout", { _csrf: "forged" })).status).toBe(403);
    expect((await browser.get("/app")).status).toBe(200);
    const out = await browser.post("/app/logout", { _csrf: WebClient.csrfOf(home.text) });
    expect(out.status).toBe(303);
    expect(out.location).toBe("/app/login");
    const replay = new WebClient(ctx);
    replay.cookies.set(SESSION_COOKIE, stolen);
    expect((await replay.get("/app")).status).toBe(303);
  });

  it("scopes the session cookie to /app, so published sites never receive it; they get a pass of their own", async () => {
    const user = await createUser(ctx);
    const browser = new WebClient(ctx);
    const { token } = await createLoginLink(ctx.db, user.id);
    const form = await browser.get(`/app/login/link/${token}`);
    const res = await browser.post(`/app/login/link/${token}`, { _csrf: WebClient.csrfOf(form.text) });
    expect(res.status).toBe(303);
    const session = res.setCookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    expect(session).toMatch(/; Path=\/app(;|$)/);
    const pass = res.setCookies.find((c) => c.startsWith(`${SITE_MEMBER_COOKIE}=`)) ?? "";
    expect(pass).toMatch(/; Path=\/s(;|$)/);
    expect(pass).toMatch(/HttpOnly/i);
    expect(pass).toMatch(/SameSite=Lax/i);
    // What a browser sends: the session to the web app only, the pass to sites only.
    expect(browser.cookieHeader("/s/docs/guide")).toBe(`${SITE_MEMBER_COOKIE}=${browser.cookies.get(SITE_MEMBER_COOKIE)}`);
    expect(browser.cookieHeader("/app/tokens")).toBe(`${SESSION_COOKIE}=${browser.cookies.get(SESSION_COOKIE)}`);
    for (const elsewhere of ["/", "/v1/user", "/sites", "/application"]) expect(browser.cookieHeader(elsewhere)).toBeUndefined();

    // The pass is not a session: the web app does not take it for one.
    const impostor = new WebClient(ctx);
    impostor.cookies.set(SESSION_COOKIE, browser.cookies.get(SITE_MEMBER_COOKIE) ?? "");
    expect((await impostor.get("/app")).status).toBe(303);
    // Signing out removes the pass from the browser too.
    const home = await browser.get("/app");
    const out = await browser.post("/app/logout", { _csrf: WebClient.csrfOf(home.text) });
    expect(out.setCookies.find((c) => c.startsWith(`${SITE_MEMBER_COOKIE}=;`))).toMatch(/; Max-Age=0; Path=\/s;/i);
    expect(browser.cookies.has(SITE_MEMBER_COOKIE)).toBe(false);
  });

  it("tells a browser to drop the session cookie earlier versions scoped to the whole host", async () => {
    const browser = new WebClient(ctx);
    browser.cookies.set("quire_session", "s%3Aold.signature");
    const res = await browser.get("/app/login");
    expect(res.status).toBe(200);
    expect(res.setCookies).toContain("quire_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    expect(browser.cookies.has("quire_session")).toBe(false);
    // A browser without it is told nothing.
    expect((await browser.get("/app/login")).setCookies).toEqual([]);
  });

  it("lets a member create (shown once) and revoke their own API tokens, never another's", async () => {
    const user = await createUser(ctx, { displayName: "Tokyo" });
    const someone = await createUser(ctx);
    const browser = await signedIn(user);
    const page = await browser.get("/app/tokens");
    const csrf = WebClient.csrfOf(page.text);
    // A forged post (no token, or a token of another session) creates nothing.
    expect((await browser.post("/app/tokens", { label: "x" })).status).toBe(403);
    const elsewhere = await signedIn(someone);
    const otherCsrf = WebClient.csrfOf((await elsewhere.get("/app/tokens")).text);
    expect((await browser.post("/app/tokens", { label: "x", _csrf: otherCsrf })).status).toBe(403);
    const before = await ctx.db.selectFrom("apiTokens").select("id").where("userId", "=", user.id).execute();

    const created = await browser.post("/app/tokens", { label: "ci <bot>", _csrf: csrf });
    expect(created.status).toBe(201);
    const token = /id="new-token">([^<]+)</.exec(created.text)?.[1] ?? "";
    expect(created.text).toContain("ci &lt;bot&gt;");
    expect((await ctx.as(token).get("/v1/user")).body).toMatchObject({ id: user.id });
    const after = await ctx.db.selectFrom("apiTokens").select(["id", "label"]).where("userId", "=", user.id).execute();
    expect(after.length).toBe(before.length + 1);
    expect((await browser.get("/app/tokens")).text).not.toContain(token);

    const created2 = after.find((t) => t.label === "ci <bot>") ?? { id: "missing" };
    const theirs = await ctx.db.selectFrom("apiTokens").select("id").where("userId", "=", someone.id).executeTakeFirstOrThrow();
    const refused = await browser.post(`/app/tokens/${theirs.id}/revoke`, { _csrf: csrf });
    expect(refused.status).toBe(404);
    expect((await ctx.as(someone).get("/v1/user")).status).toBe(200);
    expect((await browser.post(`/app/tokens/${created2.id}/revoke`, {})).status).toBe(403);
    const revoked = await browser.post(`/app/tokens/${created2.id}/revoke`, { _csrf: csrf });
    expect(revoked.status).toBe(303);
    expect((await ctx.as(token).get("/v1/user")).status).toBe(401);
  });

  it("escapes what people typed", async () => {
    const user = await createUser(ctx, { displayName: '<script>alert("x")</script>' });
    const org = await createOrganization(ctx, user, "<img src=x onerror=alert(1)>");
    const browser = await signedIn(user);
    const home = await browser.get("/app");
    expect(home.text).not.toContain("<script>alert");
    expect(home.text).not.toContain("<img src=x");
    expect(home.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(home.text).toContain(`data-org="${org.id}"`);
    expect(home.headers["content-security-policy"]).toContain("default-src 'none'");
    expect((await browser.get("/app/login?next=https://evil.test")).location).toBe("/app");
  });

  it("lets only admins into an SSO-only organization without single sign-on", async () => {
    const owner = await createUser(ctx, { displayName: "Owner" });
    const org = await createOrganization(ctx, owner, "Strict");
    const member = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, member, "edit");
    const provider = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, {
      label: "Corp IdP",
      entityID: "https://idp.corp.test",
      ssoURL: "https://idp.corp.test/sso",
      certificate: createTestIdp("corp").certificate,
    });
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { sso: true })).status).toBe(200);

    const memberHome = (await (await signedIn(member)).get("/app")).text;
    expect(memberHome).toContain("This organization requires single sign-on.");
    expect(memberHome).toContain(`href="http://quire.test/saml/${provider.body.id}/start?next=/app"`);
    const ownerHome = (await (await signedIn(owner)).get("/app")).text;
    expect(ownerHome).not.toContain("This organization requires single sign-on.");
    expect(ownerHome).toContain("Role: admin · single sign-on required");
  });
});

describe("webAccessAllowed", () => {
  const strict = { id: "o1", sso: 1 };
  const open = { id: "o1", sso: 0 };
  it("admits members of an organization without SSO by any sign-in", () => {
    expect(webAccessAllowed(open, { role: "read" }, { method: "link" })).toBe(true);
    expect(webAccessAllowed(open, undefined, { method: "link" })).toBe(false);
  });
  it("admits non-admins of an SSO-only organization only through its own SAML", () => {
    expect(webAccessAllowed(strict, { role: "edit" }, { method: "link" })).toBe(false);
    expect(webAccessAllowed(strict, { role: "edit" }, { method: "saml", orgId: "o2" })).toBe(false);
    expect(webAccessAllowed(strict, { role: "edit" }, { method: "saml", orgId: "o1" })).toBe(true);
    expect(webAccessAllowed(strict, { role: null }, { method: "saml", orgId: "o1" })).toBe(true);
    expect(webAccessAllowed(strict, { role: "admin" }, { method: "link" })).toBe(true);
  });
});

describe("the API document", () => {
  it("lists the SAML operations and none of the web app's pages", async () => {
    const doc = await ctx.anonymous.get("/openapi.json");
    const paths = Object.keys(doc.body.paths);
    expect(paths).toContain("/v1/orgs/{organizationId}/saml/{samlProviderId}");
    expect(paths).toContain("/v1/orgs/{organizationId}/sso");
    expect(paths.filter((p) => p.startsWith("/app") || p.startsWith("/saml"))).toEqual([]);
  });
});
