/**
 * An organization's SAML provider and a complete sign-in through it, as a browser does it: start
 * at the provider, answer with a response the test IdP signs, post it to the ACS and follow to the
 * completion step. For tests about who a sign-in may reach, not about the SAML checks themselves
 * (src/modules/saml/saml.acs.test.ts has those).
 */
import { expect } from "vitest";
import type { TestContext, TestUser } from "./app.js";
import { authnRequestOf, buildResponse, type TestIdp } from "./saml-idp.js";
import { WebClient, type WebResponse } from "./web.js";

export interface RegisteredProvider {
  id: string;
  orgId: string;
  acsURL: string;
  audience: string;
  idp: TestIdp;
}

/** Registers `idp` as a SAML provider of the organization, by its admin, through the API. */
export async function registerSamlProvider(
  ctx: TestContext,
  admin: TestUser,
  orgId: string,
  idp: TestIdp,
  body: { defaultRole?: string | null } = {},
): Promise<RegisteredProvider> {
  const res = await ctx.as(admin).post(`/v1/orgs/${orgId}/saml`, {
    label: "IdP",
    entityID: idp.entityId,
    ssoURL: idp.ssoUrl,
    certificate: idp.certificate,
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, orgId, acsURL: res.body.service.acsURL, audience: res.body.service.entityID, idp };
}

/**
 * Signs in through the provider in a fresh browser, the IdP asserting `email`. Returns the last
 * answer (303 to the app when signed in) and the browser.
 */
export async function samlSignIn(
  ctx: TestContext,
  provider: RegisteredProvider,
  email: string,
): Promise<WebResponse & { browser: WebClient }> {
  const browser = new WebClient(ctx);
  const started = await browser.get(`/saml/${provider.id}/start?next=/app`);
  expect(started.status).toBe(302);
  const request = authnRequestOf(started.location ?? "");
  const response = buildResponse({
    idp: provider.idp,
    acsUrl: provider.acsURL,
    audience: provider.audience,
    inResponseTo: request.id,
    email,
  });
  const acs = await browser.post(new URL(provider.acsURL).pathname, { SAMLResponse: response, RelayState: "/app" });
  if (acs.status === 303 && acs.location?.startsWith(`/app/saml/${provider.id}/complete?`)) {
    return { ...(await browser.get(acs.location)), browser };
  }
  return { ...acs, browser };
}

/** Creates an API token on the web app's token page of a signed-in browser, as its user would. */
export async function createTokenInBrowser(browser: WebClient, label = "mine"): Promise<string> {
  const form = await browser.get("/app/tokens");
  expect(form.status).toBe(200);
  const created = await browser.post("/app/tokens", { _csrf: WebClient.csrfOf(form.text), label });
  expect(created.status).toBe(201);
  const token = /id="new-token">([^<]+)</.exec(created.text)?.[1];
  if (!token) throw new Error("no new token on the page");
  return token;
}
