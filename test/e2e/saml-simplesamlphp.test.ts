/**
 * The whole SAML sign-in in a real browser against a real identity provider nobody here wrote:
 * SimpleSAMLphp from Debian's package, served by `php -S`, and Chromium driven by playwright-core.
 * Quire listens on 127.0.0.1 and the IdP is reached as `localhost`, so the ACS post is cross-site
 * as in production: the SameSite=Lax session cookie of the browser that started the sign-in is
 * not sent with it, and must be with the completion step that follows. SimpleSAMLphp encrypts the
 * assertions to the provider's own certificate and the provider requires it, so every sign-in here
 * goes through the decryption.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { connectChromium } from "../helpers/browser.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { freePort } from "../helpers/ports.js";
import { type SimpleSamlPhp, simpleSamlPhpMissing, startSimpleSamlPhp } from "../helpers/simplesamlphp.js";
import { createTeam } from "../helpers/teams.factories.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS_DIR;

let ctx: TestContext;
let base: string;
let ssp: SimpleSamlPhp;
let browser: Browser;
let orgId: string;
let teamId: string;
let existingEmail: string;
const ada = { username: "ada", password: "ada-pass-1", email: "ada@idp.test", firstName: "Ada", lastName: "Lovelace" };
const bea = { username: "bea", password: "bea-pass-1", email: "", firstName: "Bea", lastName: "Existing" };

beforeAll(async () => {
  const missing = simpleSamlPhpMissing();
  if (missing) throw new Error(`${missing}: run .ci/run's apt-get line (simplesamlphp php-cli php-xml php-mbstring chromium).`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ config: { publicUrl: base } });
  await ctx.app.listen({ port, host: "127.0.0.1" });

  const owner = await createUser(ctx, { displayName: "Owner" });
  const org = await createOrganization(ctx, owner, "Analytical Engines");
  orgId = org.id;
  teamId = (await createTeam(ctx, owner, org.id, { title: "Engineers" })).id;
  const existing = await createUser(ctx, { displayName: "Bea Before" });
  await addMemberToOrg(ctx, org.id, existing, "read");
  existingEmail = existing.email;
  bea.email = existing.email;

  const created = await ctx
    .as(owner)
    .post(`/v1/orgs/${org.id}/saml`, { label: "SimpleSAMLphp", defaultTeam: teamId, defaultRole: "comment" });
  expect(created.status).toBe(201);
  ssp = await startSimpleSamlPhp({
    sp: {
      entityId: created.body.service.entityID,
      acsUrl: created.body.service.acsURL,
      encryptionCertificate: created.body.service.encryptionCertificate,
      sloUrl: created.body.service.sloURL,
    },
    users: [ada, bea],
  });
  const configured = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${created.body.id}`, {
    entityID: ssp.entityId,
    ssoURL: ssp.ssoUrl,
    sloURL: ssp.sloUrl,
    certificate: ssp.certificate,
    // SimpleSAMLphp encrypts to the provider's certificate: a plain assertion would be refused.
    requireEncryptedAssertions: true,
  });
  expect(configured.body.status).toBe("active");

  browser = await connectChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ssp?.stop();
  await ctx?.close();
});

async function shot(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

async function signInAtIdp(page: Page, user: { username: string; password: string }) {
  await page.goto(`${base}/app/login?org=${orgId}&next=${encodeURIComponent("/app")}`);
  await shot(page, "01-login");
  await page.getByRole("link", { name: "Sign in with SimpleSAMLphp" }).click();
  await page.waitForURL((url) => url.hostname === "localhost");
  await page.locator("input[name=username]").fill(user.username);
  await page.locator("input[name=password]").fill(user.password);
  await shot(page, "02-idp-login");
  await page.locator("input[name=password]").press("Enter");
  // SimpleSAMLphp posts the response to the ACS (by script), which redirects to RelayState.
  try {
    await page.waitForURL((url) => url.hostname === "127.0.0.1", { timeout: 20_000 });
  } catch (err) {
    await shot(page, "99-stuck");
    const text = (await page.locator("body").textContent())?.replace(/\s+/g, " ").slice(0, 1500);
    throw new Error(`Stuck at ${page.url()}: ${text}\n${ssp.log().slice(-3000)}`, { cause: err });
  }
}

describe("SAML sign-in with SimpleSAMLphp in Chromium", () => {
  it("signs a new person in just in time, lets them make and revoke a token, and signs them out", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signInAtIdp(page, ada);
      expect(new URL(page.url()).pathname, ssp.log().slice(-3000)).toBe("/app");
      await shot(page, "03-home");
      await expect(page.locator("h1").textContent()).resolves.toBe("Welcome, Ada Lovelace");
      expect(await page.locator(`[data-org="${orgId}"]`).textContent()).toContain("Analytical Engines");

      // The session is sent to the web app only, a pass to published sites only; the sign-in's request is gone.
      const cookies = (await context.cookies()).filter((c) => c.domain === new URL(base).hostname);
      expect(cookies.map((c) => `${c.name} ${c.path}`).sort()).toEqual(["quire_app_session /app", "quire_site_member /s"]);
      for (const cookie of cookies) expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });

      const user = await ctx.db.selectFrom("users").selectAll().where("email", "=", ada.email).executeTakeFirstOrThrow();
      expect(user.displayName).toBe("Ada Lovelace");
      const member = await ctx.db
        .selectFrom("members")
        .selectAll()
        .where("orgId", "=", orgId)
        .where("userId", "=", user.id)
        .executeTakeFirstOrThrow();
      expect(member).toMatchObject({ role: "comment", sso: 1 });
      expect(await ctx.db.selectFrom("teamMembers").select("userId").where("teamId", "=", teamId).execute()).toEqual([{ userId: user.id }]);

      // A token made in the app works on the API until it is revoked there.
      await page.getByRole("link", { name: "Manage your API tokens" }).click();
      await page.locator("input[name=label]").fill("laptop");
      await page.getByRole("button", { name: "Create a token" }).click();
      const token = ((await page.locator("#new-token").textContent()) ?? "").trim();
      await shot(page, "04-token");
      expect(token).toMatch(/^qr_/);
      expect((await ctx.as(token).get("/v1/user")).body).toMatchObject({ id: user.id });
      await page.goto(`${base}/app/tokens`);
      expect(await page.locator("#new-token").count()).toBe(0);
      await page.getByRole("button", { name: "Revoke" }).click();
      await page.waitForURL(`${base}/app/tokens`);
      expect((await ctx.as(token).get("/v1/user")).status).toBe(401);

      // Signing out ends the Quire session, then the IdP's by single logout, which answers back.
      // The IdP is held back for a moment: the Quire session must already be over before it is reached.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached = (_url: string) => {};
      const leaving = new Promise<string>((resolve) => (reached = resolve));
      const toIdp = (url: URL) => url.href.startsWith(ssp.sloUrl);
      await page.route(toIdp, async (route) => {
        reached(route.request().url());
        await held;
        await route.continue();
      });
      // The click is not awaited here: Playwright's click waits for the navigation it starts, and
      // that navigation is the one held at the IdP until release() below.
      const clicked = page.getByRole("button", { name: "Sign out" }).click();
      expect(await leaving).toMatch(/\?SAMLRequest=[^&]+&SigAlg=[^&]+&Signature=/);
      expect(await ctx.db.selectFrom("webSessions").select("idHash").where("userId", "=", user.id).execute()).toEqual([]);
      release();
      await clicked;
      await page.waitForURL((url) => url.hostname === "127.0.0.1" && url.pathname.endsWith("/slo"), { timeout: 20_000 });
      await page.unroute(toIdp);
      await shot(page, "05-signed-out");
      expect(await page.locator("main").textContent(), ssp.log().slice(-3000)).toContain(
        "You are signed out of Quire and of SimpleSAMLphp.",
      );
      await page.goto(`${base}/app`);
      expect(new URL(page.url()).pathname).toBe("/app/login");
      // The IdP's session is gone too: signing in again asks for the password.
      await page.goto(`${base}/app/login?org=${orgId}`);
      await page.getByRole("link", { name: "Sign in with SimpleSAMLphp" }).click();
      await page.waitForURL((url) => url.hostname === "localhost");
      await expect(page.locator("input[name=password]").isVisible()).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });

  it("ends the Quire session when the IdP signs the member out (IdP-initiated single logout)", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signInAtIdp(page, ada);
      expect(new URL(page.url()).pathname).toBe("/app");
      const sessions = () => ctx.db.selectFrom("webSessions").select("samlNameId").where("samlNameId", "=", ada.email).execute();
      expect(await sessions()).toHaveLength(1);
      // SimpleSAMLphp sends its LogoutRequest to Quire through the browser, takes Quire's answer, then goes to ReturnTo.
      await page.goto(`${ssp.sloUrl}?ReturnTo=${encodeURIComponent(`${base}/app/login`)}`);
      await page.waitForURL((url) => url.hostname === "127.0.0.1" && url.pathname === "/app/login", { timeout: 20_000 });
      await shot(page, "06-idp-logout");
      expect(await sessions(), ssp.log().slice(-3000)).toHaveLength(0);
      await page.goto(`${base}/app`);
      expect(new URL(page.url()).pathname).toBe("/app/login");
      expect(ssp.log()).not.toMatch(/Error|Exception/);
    } finally {
      await context.close();
    }
  });

  it("does not take over an existing account whose membership is not marked SSO", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signInAtIdp(page, bea);
      await shot(page, "07-refused");
      expect(await page.locator("p.error").textContent()).toContain(`An account with the email ${existingEmail} already exists`);
      // The browser holds the session that started the sign-in, but nobody is signed in with it.
      await page.goto(`${base}/app`);
      expect(new URL(page.url()).pathname).toBe("/app/login");
    } finally {
      await context.close();
    }
  });
});
