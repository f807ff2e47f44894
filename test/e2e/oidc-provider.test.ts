/**
 * OpenID Connect sign-in in Chromium against oidc-provider (test/helpers/oidc-idp.ts) through its
 * own login form: a member signs in to the web app; the same callback replayed shows the person
 * what to do rather than an error code; a published site's visitor signs in and the provider's
 * claims decide which section of the site they see (adaptive content).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../helpers/app.js";
import { connectChromium } from "../helpers/browser.js";
import { commitContent } from "../helpers/content.factories.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { startTestIdp, type TestIdp } from "../helpers/oidc-idp.js";
import { freePort } from "../helpers/ports.js";
import { addSection, createSite } from "../helpers/sites.factories.js";
import { createSpace } from "../helpers/spaces.factories.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS_DIR;

let ctx: TestContext;
let base: string;
let idp: TestIdp;
let owner: TestUser;
let orgId: string;
let providerId: string;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ config: { publicUrl: base, fetchAllowNetworks: ["127.0.0.0/8"] } });
  await ctx.app.listen({ port, host: "127.0.0.1" });
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Relying Party")).id;
  const placeholder = await ctx.as(owner).post(`/v1/orgs/${orgId}/oidc`, {
    label: "Test IdP",
    issuer: "https://idp.invalid",
    clientID: "quire-test",
    defaultRole: "comment",
    scopes: "openid email profile groups",
  });
  expect(placeholder.status, JSON.stringify(placeholder.body)).toBe(201);
  providerId = placeholder.body.id;
  idp = await startTestIdp({ redirectUris: [placeholder.body.service.redirectURI] });
  const configured = await ctx
    .as(owner)
    .patch(`/v1/orgs/${orgId}/oidc/${providerId}`, { issuer: idp.issuer, clientSecret: idp.clientSecret });
  expect(configured.status).toBe(200);
  browser = await connectChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await idp?.stop();
  await ctx?.close();
});

async function shot(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/oidc-${name}.png`, fullPage: true });
}

/** oidc-provider's own login form (its development interactions), as a person fills it in. */
async function loginAtProvider(page: Page, login: string, name: string) {
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.locator("input[name=login]").fill(login);
  await page.locator("input[name=password]").fill("any password");
  await shot(page, name);
  await page.locator("input[name=password]").press("Enter");
  await page.waitForURL((url) => url.origin === base, { timeout: 20_000 });
}

describe("OpenID Connect sign-in in Chromium", () => {
  it("signs a member in through the provider's form; the replayed callback shows what to do", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const callbacks: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes(`/app/oidc/${providerId}/callback`)) callbacks.push(request.url());
    });
    try {
      await page.goto(`${base}/app/login?org=${orgId}&next=${encodeURIComponent("/app")}`);
      await shot(page, "01-login");
      await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
      await loginAtProvider(page, "ada@idp.test", "02-provider-login");
      expect(new URL(page.url()).pathname).toBe("/app");
      await shot(page, "03-home");
      await expect(page.locator("h1").textContent()).resolves.toBe("Welcome, Ada");
      expect(await page.locator(`[data-org="${orgId}"]`).textContent()).toContain("Relying Party");
      const user = await ctx.db.selectFrom("users").select("id").where("email", "=", "ada@idp.test").executeTakeFirstOrThrow();
      const member = await ctx.db
        .selectFrom("members")
        .selectAll()
        .where("orgId", "=", orgId)
        .where("userId", "=", user.id)
        .executeTakeFirstOrThrow();
      expect(member).toMatchObject({ role: "comment", sso: 1 });

      // The provider's answer, sent again (a back button, a leaked URL): refused with what to do next.
      expect(callbacks).toHaveLength(1);
      const replay = await page.goto(callbacks[0] as string);
      expect(replay?.status()).toBe(400);
      await shot(page, "04-replayed-callback");
      const text = (await page.locator("body").textContent())?.replace(/\s+/g, " ") ?? "";
      expect(text).toContain("already completed");
      expect(text).toContain("Start signing in again");
      expect(text).not.toMatch(/Internal server error|\b500\b/);
    } finally {
      await context.close();
    }
  });

  it("refuses an answer whose state this browser did not start, visibly", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const res = await page.goto(`${base}/app/oidc/${providerId}/callback?code=forged&state=not-ours`);
      expect(res?.status()).toBeGreaterThanOrEqual(400);
      expect(res?.status()).toBeLessThan(500);
      await shot(page, "05-forged-state");
      expect((await page.locator("body").textContent())?.replace(/\s+/g, " ")).toContain("Start signing in again");
    } finally {
      await context.close();
    }
  });

  it("signs a site's visitor in with the provider; their groups claim opens the gated section", async () => {
    const handbook = await createSpace(ctx, owner, orgId, { title: "Handbook" });
    const beta = await createSpace(ctx, owner, orgId, { title: "Beta programme" });
    await commitContent(ctx, handbook.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Everyone reads this."] }] });
    await commitContent(ctx, beta.id, { pages: [{ title: "Beta notes", slug: "notes", paragraphs: ["Only testers read this."] }] });
    const site = await createSite(ctx, owner, orgId, { title: "Handbook", visibility: "visitor-auth", spaces: [handbook.id] });
    const url = `/v1/orgs/${orgId}/sites/${site.id}`;
    const schema = {
      type: "object",
      additionalProperties: false,
      properties: { groups: { type: "array", items: { type: "string", description: "A group" }, description: "Groups" } },
    };
    const put = await ctx.as(owner).put(`${url}/adaptive-schema`, { jsonSchema: schema });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const section = await addSection(ctx, owner, orgId, site.id, { spaceId: beta.id, title: "Beta" });
    const gated = await ctx.as(owner).patch(`${url}/sections/${section.id}`, { condition: 'visitor.claims.groups.includes("beta")' });
    expect(gated.status, JSON.stringify(gated.body)).toBe(200);
    expect((await ctx.as(owner).patch(`${url}/publishing/auth`, { backend: "custom", oidcProvider: providerId })).status).toBe(200);
    expect((await ctx.as(owner).post(`${url}/publish`)).status).toBe(200);

    for (const [who, groups, seesBeta] of [
      ["vera@idp.test", ["beta"], true],
      ["otto@idp.test", ["staff"], false],
    ] as const) {
      idp.extraClaims = { groups };
      const context = await browser.newContext();
      const page = await context.newPage();
      try {
        await page.goto(`${base}/s/${site.basename}/`);
        await loginAtProvider(page, who, `06-visitor-login-${groups[0]}`);
        await page.waitForLoadState("load");
        expect(new URL(page.url()).pathname).toBe(`/s/${site.basename}/`);
        expect(new URL(page.url()).searchParams.has("jwt_token")).toBe(false);
        await expect(page.locator("body").textContent()).resolves.toContain("Everyone reads this.");
        await shot(page, `07-visitor-site-${groups[0]}`);
        expect(await page.getByRole("link", { name: "Beta" }).count()).toBe(seesBeta ? 1 : 0);
        const opened = await page.goto(`${base}/s/${site.basename}/${section.path}`);
        if (seesBeta) {
          expect(opened?.status()).toBe(200);
          await expect(page.locator("body").textContent()).resolves.toContain("Only testers read this.");
          await shot(page, "08-visitor-beta-section");
        } else {
          expect(opened?.status()).toBe(404);
        }
      } finally {
        idp.extraClaims = {};
        await context.close();
      }
    }
    // Visitors get no account.
    expect(await ctx.db.selectFrom("users").select("id").where("email", "in", ["vera@idp.test", "otto@idp.test"]).execute()).toEqual([]);
  });
});
