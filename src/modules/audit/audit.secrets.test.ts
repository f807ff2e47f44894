/**
 * What the audit log records of the changes that handle secrets, and that no secret lands in it:
 * API tokens (made in the web app), an OpenID Connect provider's client secret, a SAML provider's
 * certificate and the private keys Quire makes for it, SCIM tokens and what a SCIM client sends
 * (passwords), a sign-in link. Every stored entry is read back as text and searched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createOrganization, createUser } from "../../../test/helpers/factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { generateServiceProviderKeys } from "../../lib/self-signed.js";

let ctx: TestContext;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Secretive")).id;
});
afterAll(() => ctx?.close());

async function storedEntries() {
  return ctx.db.selectFrom("auditEvents").selectAll().where("orgId", "=", orgId).execute();
}

describe("secrets never land in audit entries", () => {
  it("records token, provider and SCIM changes and sign-ins without any secret they carried", async () => {
    const secrets: string[] = [];

    // A sign-in (a one-time link) and an API token made and revoked in the web app.
    const browser = await WebClient.signedIn(ctx, owner);
    const tokensPage = await browser.get("/app/tokens");
    const made = await browser.post("/app/tokens", { _csrf: WebClient.csrfOf(tokensPage.text), label: "CI" });
    expect(made.status).toBe(201);
    const apiToken = /qr_[A-Za-z0-9_-]+/.exec(made.text)?.[0];
    expect(apiToken).toBeDefined();
    secrets.push(apiToken!);
    const tokenRow = await ctx.db.selectFrom("apiTokens").select(["id", "tokenHash"]).where("label", "=", "CI").executeTakeFirstOrThrow();
    secrets.push(tokenRow.tokenHash);
    const revoked = await browser.post(`/app/tokens/${tokenRow.id}/revoke`, { _csrf: WebClient.csrfOf(made.text) });
    expect(revoked.status).toBe(303);

    // An OpenID Connect provider with a client secret, set at creation and changed after.
    const clientSecret = `oidc-secret-${Math.random().toString(36).slice(2)}`;
    const oidc = await ctx.as(owner).post(`/v1/orgs/${orgId}/oidc`, {
      label: "IdP",
      issuer: "https://idp.invalid",
      clientID: "quire",
      clientSecret,
    });
    expect(oidc.status).toBe(201);
    const newSecret = `${clientSecret}-2`;
    expect((await ctx.as(owner).patch(`/v1/orgs/${orgId}/oidc/${oidc.body.id}`, { clientSecret: newSecret })).status).toBe(200);
    secrets.push(clientSecret, newSecret);

    // A SAML provider: the IdP's certificate, and the signing and encryption keys Quire makes.
    const keys = await generateServiceProviderKeys("idp.example");
    const saml = await ctx.as(owner).post(`/v1/orgs/${orgId}/saml`, {
      label: "SAML IdP",
      entityID: "https://idp.example/entity",
      ssoURL: "https://idp.example/sso",
      certificate: keys.certificate,
    });
    expect(saml.status).toBe(201);
    const certificateBody = keys.certificate.replace(/-----[^-]+-----|\s/g, "");
    secrets.push(certificateBody.slice(0, 64));
    const provider = await ctx.db.selectFrom("samlProviders").selectAll().where("id", "=", saml.body.id).executeTakeFirstOrThrow();
    for (const [column, value] of Object.entries(provider)) {
      if (/sealed|private/i.test(column) && typeof value === "string" && value.length > 20) secrets.push(value.slice(0, 64));
    }

    // A SCIM token, and a SCIM client creating a user with a password.
    const scimToken = await ctx.as(owner).post(`/v1/orgs/${orgId}/scim/tokens`, { label: "Okta" });
    expect(scimToken.status).toBe(201);
    secrets.push(scimToken.body.token);
    const password = `scim-password-${Math.random().toString(36).slice(2)}`;
    const scimUser = await ctx.anonymous.post(
      "/scim/v2/Users",
      { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "new@example.test", password, active: true },
      { headers: { authorization: `Bearer ${scimToken.body.token}`, "content-type": "application/scim+json" } },
    );
    expect(scimUser.status).toBe(201);
    secrets.push(password);

    const entries = await storedEntries();
    const text = JSON.stringify(entries);
    for (const secret of secrets) expect(text, `a secret (${secret.slice(0, 12)}...) is in the audit log`).not.toContain(secret);
    expect(text).not.toMatch(/PRIVATE KEY|BEGIN CERTIFICATE/);

    // ... and the changes themselves are there, with who made them.
    const actions = entries.map((e) => e.action);
    for (const action of [
      "sign_in",
      "api_token.created",
      "api_token.revoked",
      "createOrganizationOIDCProvider",
      "updateOrganizationOIDCProvider",
      "createOrganizationSAMLProvider",
      "createOrganizationSCIMToken",
      "scim.users",
    ]) {
      expect(actions, action).toContain(action);
    }
    const created = entries.find((e) => e.action === "api_token.created")!;
    expect(created).toMatchObject({ actorType: "user", actorId: owner.id, source: "ui", targetType: "api-token", targetId: tokenRow.id });
    const oidcUpdate = entries.find((e) => e.action === "updateOrganizationOIDCProvider")!;
    expect(JSON.parse(oidcUpdate.payload).fields).toEqual({ clientSecret: "[redacted]" });
    const scim = entries.find((e) => e.action === "scim.users")!;
    expect(scim).toMatchObject({ actorType: "integration", actorId: scimToken.body.id, source: "integration", targetType: "user" });
    expect(JSON.parse(scim.payload).fields.password).toBe("[redacted]");
  });
});
