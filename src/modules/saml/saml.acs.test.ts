/**
 * The SAML sign-in flow against responses built and signed here with test keys: the happy path
 * (just-in-time member, linking of SSO memberships) and the hostile cases (unsigned, wrongly
 * signed, signature wrapping, expired, wrong audience, destination or recipient, replayed, another
 * organization's provider).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../../../test/helpers/factories.js";
import {
  assertionXml,
  authnRequestOf,
  buildEncryptedResponse,
  buildResponse,
  createTestIdp,
  type ResponseOptions,
  signElement,
  type TestIdp,
  wrapInResponse,
} from "../../../test/helpers/saml-idp.js";
import { createTeam } from "../../../test/helpers/teams.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { buildApp } from "../../app.js";

let ctx: TestContext;
let idp: TestIdp;
let intruder: TestIdp;
beforeAll(async () => {
  ctx = await createTestContext();
  idp = createTestIdp("acs-idp");
  intruder = createTestIdp("intruder");
});
afterAll(() => ctx.close());

let counter = 0;
const uniqueEmail = (name: string) => `${name}-${++counter}-${Date.now().toString(36)}@acme.test`;

interface Provider {
  id: string;
  orgId: string;
  acsURL: string;
  audience: string;
  encryptionCertificate: string;
}

async function orgWithProvider(options: { defaultRole?: string | null } = {}) {
  const owner = await createUser(ctx);
  const org = await createOrganization(ctx, owner, "Acme");
  const team = await createTeam(ctx, owner, org.id, { title: "Everyone" });
  const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, {
    label: "Acme IdP",
    entityID: idp.entityId,
    ssoURL: idp.ssoUrl,
    certificate: idp.certificate,
    defaultTeam: team.id,
    defaultRole: options.defaultRole === undefined ? "edit" : options.defaultRole,
  });
  expect(res.status).toBe(201);
  const provider: Provider = {
    id: res.body.id,
    orgId: org.id,
    acsURL: res.body.service.acsURL,
    audience: res.body.service.entityID,
    encryptionCertificate: res.body.service.encryptionCertificate,
  };
  return { owner, org, team, provider };
}

/** SP-initiated start in a fresh browser: the AuthnRequest's ID. */
async function start(browser: WebClient, provider: Provider, next = "/app") {
  const res = await browser.get(`/saml/${provider.id}/start?next=${encodeURIComponent(next)}`);
  expect(res.status).toBe(302);
  const location = res.location ?? "";
  expect(location.startsWith(`${idp.ssoUrl}?`)).toBe(true);
  return authnRequestOf(location);
}

function options(provider: Provider, requestId: string, email: string, extra: Partial<ResponseOptions> = {}): ResponseOptions {
  return { idp, acsUrl: provider.acsURL, audience: provider.audience, inResponseTo: requestId, email, ...extra };
}

const path = (url: string) => new URL(url).pathname;

/**
 * Posts a response to the ACS as the IdP's page makes the browser do, and follows the ACS's
 * redirect to the completion step as the browser would. Returns the last answer.
 */
async function post(browser: WebClient, provider: Provider, samlResponse: string, relayState = "/app") {
  const res = await browser.post(path(provider.acsURL), { SAMLResponse: samlResponse, RelayState: relayState });
  if (res.status === 303 && res.location?.startsWith(`/app/saml/${provider.id}/complete?`)) {
    return { ...(await browser.get(res.location)), browser };
  }
  return { ...res, browser };
}

async function userByEmail(email: string) {
  return ctx.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
}

async function userByEmailOrFail(email: string) {
  return ctx.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
}

async function expectRefused(res: { status: number; text: string; browser: WebClient }, message: RegExp, email?: string) {
  expect(res.status).toBe(400);
  expect(res.text).toMatch(message);
  // Nobody is signed in in that browser.
  const home = await res.browser.get("/app");
  expect(home.status).toBe(303);
  if (email) expect(await userByEmail(email)).toBeUndefined();
}

describe("SAML sign-in", () => {
  it("creates the member just in time with the provider's role and team, and opens a session", async () => {
    const { org, team, provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const request = await start(browser, provider, "/app/tokens");
    expect(request.relayState).toBe("/app/tokens");
    expect(request.xml).toContain(`AssertionConsumerServiceURL="${provider.acsURL}"`);
    expect(request.xml).toContain(provider.audience);
    const email = uniqueEmail("ada");
    const res = await post(
      browser,
      provider,
      buildResponse(options(provider, request.id, email.toUpperCase(), { firstName: "Ada", lastName: "Lovelace" })),
      "/app/tokens",
    );
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe("/app/tokens");
    const cookie = res.setCookies.find((c) => c.startsWith("quire_app_session=")) ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);

    const user = await userByEmailOrFail(email);
    // The provider vouches for the address inside its own organization only.
    expect(user).toMatchObject({
      displayName: "Ada Lovelace",
      emailVerified: 0,
      emailVerifiedVia: "idp",
      emailVouchedBy: org.id,
      pending: 0,
    });
    const member = await ctx.db
      .selectFrom("members")
      .selectAll()
      .where("orgId", "=", org.id)
      .where("userId", "=", user.id)
      .executeTakeFirst();
    expect(member).toMatchObject({ role: "edit", sso: 1, disabled: 0 });
    const inTeam = await ctx.db.selectFrom("teamMembers").selectAll().where("teamId", "=", team.id).where("userId", "=", user.id).execute();
    expect(inTeam).toHaveLength(1);

    const home = await browser.get("/app");
    expect(home.status).toBe(200);
    expect(home.text).toContain("Welcome, Ada Lovelace");
    expect(home.text).toContain(`data-org="${org.id}"`);
    expect(home.text).toContain("single sign-on");

    // Signed in again later: the same account, no second membership.
    const again = new WebClient(ctx);
    const second = await start(again, provider);
    expect((await post(again, provider, buildResponse(options(provider, second.id, email)))).status).toBe(303);
    expect(await ctx.db.selectFrom("users").select("id").where("email", "=", email).execute()).toHaveLength(1);
  });

  it("accepts a response signed as a whole instead of the assertion", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const request = await start(browser, provider);
    const email = uniqueEmail("whole");
    const res = await post(browser, provider, buildResponse(options(provider, request.id, email, { sign: "response" })));
    expect(res.status, res.text).toBe(303);
    expect(await userByEmail(email)).toBeDefined();
  });

  it("answers 400, never 500, to a posted value that is not a SAML response", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    await start(browser, provider);
    for (const value of ["garbage!", Buffer.from("<not-closed").toString("base64"), Buffer.from("<a/>").toString("base64"), ""]) {
      const res = await browser.post(path(provider.acsURL), { SAMLResponse: value });
      expect(res.status, value).toBe(400);
      expect(res.headers["content-type"]).toContain("text/html");
    }
    expect((await browser.post(path(provider.acsURL), {})).status).toBe(400);
  });

  it("refuses an unsigned response", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const request = await start(browser, provider);
    const email = uniqueEmail("unsigned");
    await expectRefused(
      await post(browser, provider, buildResponse(options(provider, request.id, email, { sign: "none" }))),
      /signature/i,
      email,
    );
  });

  it("refuses a response signed with another key", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const request = await start(browser, provider);
    const email = uniqueEmail("forged");
    const forged = buildResponse(options(provider, request.id, email, { signingKey: intruder.privateKey }));
    await expectRefused(await post(browser, provider, forged), /signature/i, email);
    const forgedWhole = buildResponse(
      options(provider, (await start(browser, provider)).id, email, { sign: "response", signingKey: intruder.privateKey }),
    );
    await expectRefused(await post(browser, provider, forgedWhole), /signature/i, email);
  });

  it("refuses signature wrapping: an unsigned assertion beside or around a validly signed one", async () => {
    const { owner, provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const victim = owner.email;
    const attacker = uniqueEmail("attacker");

    // 1. The signed assertion (for the attacker) hidden in an Extensions element, an evil one for the victim in its place.
    let request = await start(browser, provider);
    const signed = signElement(assertionXml(options(provider, request.id, attacker)), "Assertion", idp.privateKey, idp.certificate);
    const evil = assertionXml(options(provider, request.id, victim));
    const hidden = wrapInResponse(options(provider, request.id, victim), evil).replace(
      "<samlp:Status>",
      `<samlp:Extensions>${signed}</samlp:Extensions><samlp:Status>`,
    );
    await expectRefused(await post(browser, provider, Buffer.from(hidden).toString("base64")), /signature/i);

    // 2. The signed assertion's content changed (NameID) with its signature kept: the digest no longer matches.
    request = await start(browser, provider);
    const original = signElement(assertionXml(options(provider, request.id, attacker)), "Assertion", idp.privateKey, idp.certificate);
    const tampered = wrapInResponse(options(provider, request.id, attacker), original.replace(attacker, victim));
    await expectRefused(await post(browser, provider, Buffer.from(tampered).toString("base64")), /signature/i);

    // 3. The signed assertion nested inside an evil assertion with the same ID.
    request = await start(browser, provider);
    const inner = signElement(
      assertionXml(options(provider, request.id, attacker, { assertionId: "_same" })),
      "Assertion",
      idp.privateKey,
      idp.certificate,
    );
    const outer = assertionXml(options(provider, request.id, victim, { assertionId: "_same" })).replace(
      "</saml:Subject>",
      `</saml:Subject>${inner}`,
    );
    await expectRefused(
      await post(browser, provider, Buffer.from(wrapInResponse(options(provider, request.id, victim), outer)).toString("base64")),
      /signature|assertion/i,
    );

    expect(await browser.get("/app")).toMatchObject({ status: 303 });
    expect(await userByEmail(attacker)).toBeUndefined();
  });

  it("refuses an expired assertion and one not yet valid", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const email = uniqueEmail("late");
    const expired = buildResponse(options(provider, (await start(browser, provider)).id, email, { shiftMs: -60 * 60 * 1000 }));
    await expectRefused(await post(browser, provider, expired), /expired/i, email);
    const early = buildResponse(options(provider, (await start(browser, provider)).id, email, { shiftMs: 60 * 60 * 1000 }));
    await expectRefused(await post(browser, provider, early), /not yet valid|NotBefore/i, email);
  });

  it("refuses a wrong audience, destination, recipient, issuer or NameID", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const email = uniqueEmail("wrong");
    const cases: [Partial<ResponseOptions>, RegExp][] = [
      [{ audience: "https://other-sp.test/metadata" }, /audience mismatch/i],
      [{ destination: "https://other-sp.test/acs" }, /another destination/],
      [{ recipient: "https://other-sp.test/acs" }, /another recipient/],
      [{ issuer: "https://other-idp.test/metadata" }, /issuer/i],
      [{ nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" }, /must send the email address as NameID/],
    ];
    for (const [extra, message] of cases) {
      const request = await start(browser, provider);
      await expectRefused(await post(browser, provider, buildResponse(options(provider, request.id, email, extra))), message, email);
    }
    const request = await start(browser, provider);
    await expectRefused(
      await post(browser, provider, buildResponse(options(provider, request.id, "not-an-email"))),
      /not an email address/,
    );
  });

  it("refuses a response to no request of ours, and a replayed response or assertion, also in another process", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const email = uniqueEmail("replay");
    await expectRefused(await post(browser, provider, buildResponse(options(provider, "_never-sent", email))), /InResponseTo/, email);

    const request = await start(browser, provider);
    const response = buildResponse(options(provider, request.id, email, { assertionId: `_fixed-${counter}` }));
    expect((await post(browser, provider, response)).status).toBe(303);
    // The same response again: its request was answered already.
    await expectRefused(await post(new WebClient(ctx), provider, response), /InResponseTo|already answered/);

    // The same assertion id in an answer to a new request, received by another app instance over the same database.
    const other = await buildApp(ctx.deps);
    await other.ready();
    try {
      const second = await start(browser, provider);
      const replay = buildResponse(options(provider, second.id, email, { assertionId: `_fixed-${counter}` }));
      const res = await other.inject({
        method: "POST",
        url: path(provider.acsURL),
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ SAMLResponse: replay }).toString(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain("This SAML assertion was already used to sign in");
    } finally {
      await other.close();
    }
  });

  it("accepts one of the same response posted twice at once", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const request = await start(browser, provider);
    const response = buildResponse(options(provider, request.id, uniqueEmail("twice")));
    const form = { SAMLResponse: response, RelayState: "/app" };
    const answers = await Promise.all([
      new WebClient(ctx).post(path(provider.acsURL), form),
      new WebClient(ctx).post(path(provider.acsURL), form),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 400]);
  });

  it("refuses an answer meant for another organization's provider, even from the same identity provider", async () => {
    const first = await orgWithProvider();
    const second = await orgWithProvider();
    const browser = new WebClient(ctx);
    const email = uniqueEmail("cross");
    // A request of the first provider answered at the second's ACS.
    const request = await start(browser, first.provider);
    const forFirst = buildResponse(options(first.provider, request.id, email));
    await expectRefused(await post(browser, second.provider, forFirst), /another destination|InResponseTo/, email);
    // A request of the second provider, answered with the first provider's audience and recipient.
    const elsewhere = new WebClient(ctx);
    const secondRequest = await start(elsewhere, second.provider);
    const mixed = buildResponse(options(first.provider, secondRequest.id, email, { destination: second.provider.acsURL }));
    await expectRefused(await post(elsewhere, second.provider, mixed), /audience mismatch|another recipient/i, email);
    // Untouched by all this, the first provider's own answer still works.
    expect((await post(browser, first.provider, forFirst)).status).toBe(303);
  });

  it("completes a sign-in only in the browser that started it (no login CSRF)", async () => {
    const { provider } = await orgWithProvider();
    const attacker = new WebClient(ctx);
    const email = uniqueEmail("csrf-attacker");
    const request = await start(attacker, provider);
    const response = buildResponse(options(provider, request.id, email));
    // The attacker makes a victim's browser (with or without a session of its own) post their response.
    const victim = new WebClient(ctx);
    await start(victim, provider);
    const acs = await victim.post(path(provider.acsURL), { SAMLResponse: response, RelayState: "/app" });
    expect(acs.status).toBe(303);
    const completed = await victim.get(acs.location ?? "");
    expect(completed.status).toBe(403);
    expect(completed.text).toContain("This sign-in was not started in this browser");
    expect((await victim.get("/app")).status).toBe(303);
    // A damaged or foreign ticket is refused too.
    const ticket = new URL(acs.location ?? "", "http://x").searchParams.get("ticket") ?? "";
    const damaged = await attacker.get(`/app/saml/${provider.id}/complete?ticket=${encodeURIComponent(`${ticket.slice(0, -2)}xx`)}`);
    expect(damaged.status).toBe(400);
    // The browser that started it completes it, once.
    const own = await attacker.get(acs.location ?? "");
    expect(own.status).toBe(303);
    expect((await attacker.get("/app")).status).toBe(200);
    expect((await attacker.get(acs.location ?? "")).status).toBe(403);
  });

  it("links an existing account only when its membership is marked SSO", async () => {
    const { owner, org, provider } = await orgWithProvider();
    const existing = await createUser(ctx, { email: uniqueEmail("existing") });
    await addMemberToOrg(ctx, org.id, existing, "comment");
    const browser = new WebClient(ctx);
    let res = await post(browser, provider, buildResponse(options(provider, (await start(browser, provider)).id, existing.email)));
    expect(res.status).toBe(403);
    expect(res.text).toContain("already exists and is not an SSO member of this organization");

    // An account that is not a member at all is not taken over either.
    const stranger = await createUser(ctx, { email: uniqueEmail("stranger") });
    res = await post(browser, provider, buildResponse(options(provider, (await start(browser, provider)).id, stranger.email)));
    expect(res.status).toBe(403);
    expect(await ctx.db.selectFrom("members").selectAll().where("orgId", "=", org.id).where("userId", "=", stranger.id).execute()).toEqual(
      [],
    );

    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/members/${existing.id}/sso`)).status).toBe(200);
    res = await post(browser, provider, buildResponse(options(provider, (await start(browser, provider)).id, existing.email)));
    expect(res.status, res.text).toBe(303);
    const member = await ctx.db
      .selectFrom("members")
      .selectAll()
      .where("orgId", "=", org.id)
      .where("userId", "=", existing.id)
      .executeTakeFirst();
    expect(member).toMatchObject({ role: "comment", sso: 1 });
    expect((await browser.get("/app")).text).toContain(existing.displayName);
  });

  it("signs in an address invited with sso: true and activates its pending account", async () => {
    const { owner, org, provider } = await orgWithProvider();
    const email = uniqueEmail("invited");
    const invite = await ctx.as(owner).post(`/v1/orgs/${org.id}/invites`, { emails: [{ email, role: "review" }], sso: true });
    expect(invite.status, JSON.stringify(invite.body)).toBe(200);
    expect(await userByEmail(email)).toMatchObject({ pending: 1 });
    const browser = new WebClient(ctx);
    const res = await post(
      browser,
      provider,
      buildResponse(options(provider, (await start(browser, provider)).id, email, { firstName: "Grace" })),
    );
    expect(res.status, res.text).toBe(303);
    expect(await userByEmail(email)).toMatchObject({ pending: 0, displayName: "Grace" });
  });

  it("refuses a disabled member, sends RelayState only to this site, and refuses to start with a pending provider", async () => {
    const { owner, org, provider } = await orgWithProvider({ defaultRole: null });
    const browser = new WebClient(ctx);
    const email = uniqueEmail("guest");
    const res = await post(
      browser,
      provider,
      buildResponse(options(provider, (await start(browser, provider)).id, email)),
      "https://evil.test/",
    );
    expect(res.status).toBe(303);
    expect(res.location).toBe("/app");
    const user = await userByEmailOrFail(email);
    expect(
      await ctx.db.selectFrom("members").select("role").where("orgId", "=", org.id).where("userId", "=", user.id).executeTakeFirst(),
    ).toEqual({
      role: null,
    });
    await ctx.db.updateTable("members").set({ disabled: 1 }).where("orgId", "=", org.id).where("userId", "=", user.id).execute();
    const again = await post(browser, provider, buildResponse(options(provider, (await start(browser, provider)).id, email)));
    expect(again.status).toBe(403);
    expect(again.text).toContain("Your membership of this organization is disabled");

    const pending = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, { label: "Unfinished" });
    const started = await browser.get(`/saml/${pending.body.id}/start`);
    expect(started.status).toBe(400);
    expect(started.text).toContain("This SAML provider is not fully configured yet");
    expect((await browser.get("/saml/nope/start")).status).toBe(404);
  });
});

describe("encrypted assertions", () => {
  it("publishes the provider's own encryption certificate, never its key, and decrypts an assertion encrypted to it", async () => {
    const { owner, org, provider } = await orgWithProvider();
    const fetched = await ctx.as(owner).get(`/v1/orgs/${org.id}/saml/${provider.id}`);
    expect(fetched.body.service.encryptionCertificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(fetched.body.requireEncryptedAssertions).toBe(false);
    expect(fetched.text).not.toMatch(/PRIVATE KEY/);
    const metadata = await new WebClient(ctx).get(`/saml/${provider.id}/metadata`);
    const body = provider.encryptionCertificate.replace(/-----[A-Z ]+-----|\s/g, "");
    expect(metadata.text).toMatch(/<KeyDescriptor use="encryption">/);
    expect(metadata.text.replace(/\s/g, "")).toContain(body);
    expect(metadata.text).not.toMatch(/PRIVATE KEY/);

    for (const sign of ["assertion", "response"] as const) {
      const browser = new WebClient(ctx);
      const request = await start(browser, provider);
      const email = uniqueEmail(`sealed-${sign}`);
      const res = await post(
        browser,
        provider,
        await buildEncryptedResponse(options(provider, request.id, email, { sign, firstName: "Enc" }), provider.encryptionCertificate),
      );
      expect(res.status, res.text).toBe(303);
      expect(await userByEmailOrFail(email)).toMatchObject({ displayName: "Enc" });
    }
  });

  it("refuses an assertion encrypted to another key with a 400 that says what to fix", async () => {
    const { provider } = await orgWithProvider();
    const other = await orgWithProvider();
    const browser = new WebClient(ctx);
    const email = uniqueEmail("misaddressed");
    // Encrypted to another provider's certificate (as an IdP holding stale or wrong metadata would).
    const request = await start(browser, provider);
    const wrong = await buildEncryptedResponse(options(provider, request.id, email), other.provider.encryptionCertificate);
    await expectRefused(await post(browser, provider, wrong), /could not be decrypted with this provider.{1,8}s key.*SP metadata/, email);
    // Encrypted to an unrelated certificate.
    const again = await start(browser, provider);
    const unrelated = await buildEncryptedResponse(options(provider, again.id, email), intruder.certificate);
    await expectRefused(await post(browser, provider, unrelated), /could not be decrypted/, email);
  });

  it("still checks the signature of a decrypted assertion", async () => {
    const { provider } = await orgWithProvider();
    const browser = new WebClient(ctx);
    const email = uniqueEmail("sealed-forged");
    const request = await start(browser, provider);
    const forged = await buildEncryptedResponse(
      options(provider, request.id, email, { signingKey: intruder.privateKey }),
      provider.encryptionCertificate,
    );
    await expectRefused(await post(browser, provider, forged), /signature/i, email);
    const again = await start(browser, provider);
    const unsigned = await buildEncryptedResponse(options(provider, again.id, email, { sign: "none" }), provider.encryptionCertificate);
    await expectRefused(await post(browser, provider, unsigned), /signature/i, email);
  });

  it("refuses an unencrypted assertion when the provider requires encryption", async () => {
    const { owner, org, provider } = await orgWithProvider();
    const patched = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${provider.id}`, { requireEncryptedAssertions: true });
    expect(patched.status).toBe(200);
    expect(patched.body.requireEncryptedAssertions).toBe(true);
    const browser = new WebClient(ctx);
    const email = uniqueEmail("plain");
    const request = await start(browser, provider);
    await expectRefused(
      await post(browser, provider, buildResponse(options(provider, request.id, email))),
      /requires encrypted assertions/,
      email,
    );
    const sealed = await start(browser, provider);
    const res = await post(
      browser,
      provider,
      await buildEncryptedResponse(options(provider, sealed.id, email), provider.encryptionCertificate),
    );
    expect(res.status, res.text).toBe(303);
  });
});
