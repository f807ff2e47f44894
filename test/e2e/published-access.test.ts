/**
 * Reading access-controlled published sites in a real browser (Debian's Chromium driven by
 * playwright-core): a share link opens a site that is otherwise 404; a visitor-auth site sends the
 * reader to the site owner's login page (a small backend here, which signs visitor tokens with the
 * site's key as a customer's would), lets them in with the token it returns, and shows a page
 * guarded by a condition once their claims allow it.
 */
import { createServer, type Server } from "node:http";
import { SignJWT } from "jose";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.js";
import { connectChromium } from "../helpers/browser.js";
import { commitContent } from "../helpers/content.factories.js";
import { freePort } from "../helpers/ports.js";
import { createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";

const SCREENSHOTS = process.env.QUIRE_SCREENSHOTS_DIR;

let ctx: TestContext;
let base: string;
let browser: Browser;
let login: Server;
let loginUrl: string;
/** The signing key of the visitor-auth site, which the login backend signs with. */
let siteKey = "";
let siteUrl = "";

const PAGES = [
  { title: "Welcome", slug: "welcome", paragraphs: ["Start here."] },
  { title: "Install", slug: "install", paragraphs: ["Run the installer, then restart the gateway."] },
  { title: "Beta program", slug: "beta", paragraphs: ["Beta features for testers."], extra: { condition: "visitor.claims.beta === true" } },
];

/** The site owner's login page: a form; its answer signs a visitor token and sends the reader back to `location`. */
function startLoginBackend(port: number): Server {
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://localhost:${port}`);
    if (url.pathname === "/login") {
      const location = url.searchParams.get("location") ?? "";
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>Acme sign-in</title><h1>Acme sign-in</h1>
<form method="get" action="/signed-in"><input type="hidden" name="location" value="${location.replace(/"/g, "&quot;")}">
<label><input type="checkbox" name="beta" value="1"> Beta tester</label> <button>Sign in</button></form>`);
      return;
    }
    if (url.pathname === "/signed-in") {
      const token = await new SignJWT({ beta: url.searchParams.get("beta") === "1", name: "Ada" })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt()
        .setExpirationTime("2h")
        .sign(new TextEncoder().encode(siteKey));
      const location = url.searchParams.get("location") ?? "";
      res.writeHead(302, { location: `${siteUrl}/${location}${location.includes("?") ? "&" : "?"}jwt_token=${token}` });
      res.end();
      return;
    }
    res.writeHead(404).end();
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ config: { publicUrl: base } });
  await ctx.app.listen({ port, host: "127.0.0.1" });
  const loginPort = await freePort();
  login = startLoginBackend(loginPort);
  await new Promise<void>((resolve) => login.listen(loginPort, "127.0.0.1", resolve));
  // Another host name than the site's, as a customer's login service would be.
  loginUrl = `http://localhost:${loginPort}/login`;
  browser = await connectChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => login?.close(resolve));
  await ctx?.close();
});

async function shot(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

async function publishedSite(visibility: string) {
  const s = await createOrgWithSpace(ctx, { title: "Acme Handbook" });
  await commitContent(ctx, s.space.id, { pages: PAGES });
  await ctx.worker.drain();
  const site = await createSite(ctx, s.owner, s.org.id, { title: "Acme Handbook", visibility, spaces: [s.space.id] });
  const url = `/v1/orgs/${s.org.id}/sites/${site.id}`;
  expect((await ctx.as(s.owner).post(`${url}/publish`)).status).toBe(200);
  return { ...s, site, url };
}

describe("published sites with access control, in a browser", () => {
  it("opens a share-link site only through its link, and follows its navigation with the key", async () => {
    const s = await publishedSite("share-link");
    const link = (await ctx.as(s.owner).post(`${s.url}/share-links`, { name: "Partners" })).body;
    const page = await browser.newPage();
    const closed = await page.goto(`${base}/s/${s.site.basename}/`);
    expect(closed?.status()).toBe(404);
    const opened = await page.goto(link.urls.published);
    expect(opened?.status()).toBe(200);
    expect(await page.locator("body").textContent()).toContain("Start here.");
    await shot(page, "access-01-share-link");
    await page.getByRole("link", { name: "Install", exact: true }).first().click();
    await page.waitForURL(`${link.urls.published}/install`);
    expect(await page.locator("body").textContent()).toContain("Run the installer");
    await ctx.as(s.owner).patch(`${s.url}/share-links/${link.id}`, { active: false });
    expect((await page.reload())?.status()).toBe(404);
    await page.close();
  });

  it("refuses a visitor without a token, lets them in through the login page, and shows the beta page with the claim", async () => {
    const s = await publishedSite("visitor-auth");
    expect((await ctx.as(s.owner).patch(`${s.url}/publishing/auth`, { backend: "custom", fallbackURL: loginUrl })).status).toBe(200);
    siteKey = (await ctx.as(s.owner).get(`${s.url}/publishing/auth`)).body.privateKey;
    siteUrl = `${base}/s/${s.site.basename}`;
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(`${siteUrl}/install`);
    // Refused: the reader is at the owner's login page, which was told where they were going.
    expect(page.url()).toBe(`${loginUrl}?location=install`);
    await shot(page, "access-02-login");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${siteUrl}/install`);
    // In, with the token moved out of the URL into a cookie scoped to the site.
    expect(page.url()).not.toContain("jwt_token");
    const cookies = await context.cookies(siteUrl);
    expect(cookies).toEqual([expect.objectContaining({ path: `/s/${s.site.basename}`, httpOnly: true, sameSite: "Lax" })]);
    const body = await page.locator("body").textContent();
    expect(body).toContain("Run the installer");
    expect(body).not.toContain("Beta program");
    await shot(page, "access-03-signed-in");
    expect((await page.goto(`${siteUrl}/beta`))?.status()).toBe(404);

    // Signing in again as a beta tester: the conditional page appears in the navigation and opens.
    await page.goto(`${loginUrl}?location=install`);
    await page.getByLabel("Beta tester").check();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${siteUrl}/install`);
    await page.getByRole("link", { name: "Beta program" }).first().click();
    await page.waitForURL(`${siteUrl}/beta`);
    expect(await page.locator("body").textContent()).toContain("Beta features for testers.");
    await shot(page, "access-04-beta-page");

    // Another browser without the cookie is still refused.
    const stranger = await browser.newPage();
    await stranger.goto(`${siteUrl}/beta`);
    expect(stranger.url()).toBe(`${loginUrl}?location=beta`);
    await stranger.close();
    await context.close();
  });
});
