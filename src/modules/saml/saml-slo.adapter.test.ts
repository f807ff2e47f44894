/**
 * SAML single logout against messages built and signed here with test keys, as an IdP sends them
 * by HTTP-Redirect: sign-out in Quire sends a signed LogoutRequest and accepts the IdP's answer
 * once; the IdP's LogoutRequest ends exactly the sessions it names and is answered with a signed
 * LogoutResponse; unsigned, wrongly signed, foreign, replayed and stale messages are refused with
 * a 400 and end nothing.
 */
import { createVerify, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrganization, createUser } from "../../../test/helpers/factories.js";
import {
  authnRequestOf,
  buildResponse,
  createTestIdp,
  logoutRequestXml,
  logoutResponseXml,
  redirectMessageOf,
  redirectQuery,
  type TestIdp,
} from "../../../test/helpers/saml-idp.js";
import { WebClient } from "../../../test/helpers/web.js";

let ctx: TestContext;
let idp: TestIdp;
let intruder: TestIdp;
beforeAll(async () => {
  ctx = await createTestContext();
  idp = createTestIdp("slo-idp");
  intruder = createTestIdp("slo-intruder");
});
afterAll(() => ctx.close());

const IDP_SLO = "https://slo-idp.test/slo";
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${++counter}-${Date.now().toString(36)}@slo.test`;

interface Provider {
  id: string;
  orgId: string;
  label: string;
  acsURL: string;
  audience: string;
  sloURL: string;
  spCertificate: string;
}

async function orgWithProvider(options: { sloURL?: string | null } = {}): Promise<Provider> {
  const owner = await createUser(ctx);
  const org = await createOrganization(ctx, owner, "Logout Inc");
  const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, {
    label: "Logout IdP",
    entityID: idp.entityId,
    ssoURL: idp.ssoUrl,
    certificate: idp.certificate,
    ...(options.sloURL === null ? {} : { sloURL: options.sloURL ?? IDP_SLO }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return {
    id: res.body.id,
    orgId: org.id,
    label: res.body.label,
    acsURL: res.body.service.acsURL,
    audience: res.body.service.entityID,
    sloURL: res.body.service.sloURL,
    spCertificate: res.body.service.encryptionCertificate,
  };
}

/** A browser signed in through the provider; the assertion's SessionIndex is `sessionIndex`. */
async function signIn(provider: Provider, email: string, sessionIndex = `_s${randomUUID()}`): Promise<WebClient> {
  const browser = new WebClient(ctx);
  const started = await browser.get(`/saml/${provider.id}/start?next=/app`);
  const request = authnRequestOf(started.location ?? "");
  const samlResponse = buildResponse({
    idp,
    acsUrl: provider.acsURL,
    audience: provider.audience,
    inResponseTo: request.id,
    email,
    sessionIndex,
  });
  const acs = await browser.post(new URL(provider.acsURL).pathname, { SAMLResponse: samlResponse, RelayState: "/app" });
  expect(acs.status, acs.text).toBe(303);
  const complete = await browser.get(acs.location ?? "");
  expect(complete.status, complete.text).toBe(303);
  expect(await signedIn(browser)).toBe(true);
  return browser;
}

async function signedIn(browser: WebClient): Promise<boolean> {
  const res = await browser.get("/app");
  return res.status === 200;
}

const sloPath = (provider: Provider) => new URL(provider.sloURL).pathname;

function verifiesWith(certificate: string, message: { signed: string; signature: string }): boolean {
  return createVerify("RSA-SHA256").update(message.signed).verify(certificate, Buffer.from(message.signature, "base64"));
}

/** Signs out in the web app; returns the LogoutRequest URL the page sends the browser to, if any. */
async function signOut(browser: WebClient): Promise<{ status: number; idpUrl: string | undefined; location: string | undefined }> {
  const home = await browser.get("/app");
  const res = await browser.post("/app/logout", { _csrf: WebClient.csrfOf(home.text) });
  const refresh = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(res.text)?.[1];
  return { status: res.status, idpUrl: refresh?.replace(/&amp;/g, "&"), location: res.location };
}

describe("SP-initiated single logout", () => {
  it("ends the Quire session, sends a signed LogoutRequest for the assertion's subject, and accepts the IdP's answer once", async () => {
    const provider = await orgWithProvider();
    const email = uniqueEmail("ada");
    const browser = await signIn(provider, email, "_session-ada-1");
    const out = await signOut(browser);
    expect(out.status).toBe(200);
    expect(await signedIn(browser)).toBe(false);
    expect(out.idpUrl?.startsWith(`${IDP_SLO}?SAMLRequest=`)).toBe(true);

    const message = redirectMessageOf(out.idpUrl ?? "");
    expect(message.sigAlg).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    expect(verifiesWith(provider.spCertificate, message)).toBe(true);
    expect(message.xml).toContain(`Destination="${IDP_SLO}"`);
    expect(message.xml).toContain(`>${provider.audience}</saml:Issuer>`);
    expect(message.xml).toMatch(
      new RegExp(`<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${email}</saml:NameID>`),
    );
    expect(message.xml).toContain(">_session-ada-1</saml2p:SessionIndex>");
    const requestId = /\bID="([^"]+)"/.exec(message.xml)?.[1] ?? "";

    const answer = redirectQuery({
      idp,
      parameter: "SAMLResponse",
      xml: logoutResponseXml({ idp, destination: provider.sloURL, inResponseTo: requestId }),
    });
    // An unsigned or wrongly signed answer is refused and does not use up the request.
    for (const signingKey of [null, intruder.privateKey]) {
      const forged = redirectQuery({
        idp,
        parameter: "SAMLResponse",
        signingKey,
        xml: logoutResponseXml({ idp, destination: provider.sloURL, inResponseTo: requestId }),
      });
      expect((await browser.get(`${sloPath(provider)}?${forged}`)).status).toBe(400);
    }
    const done = await browser.get(`${sloPath(provider)}?${answer}`);
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain("You are signed out of Quire and of Logout IdP.");

    const replay = await browser.get(`${sloPath(provider)}?${answer}`);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain("answers a logout request that this server did not send, that was already answered, or that expired");
  });

  it("says so when the IdP could not end its session, and Quire's stays ended", async () => {
    const provider = await orgWithProvider();
    const browser = await signIn(provider, uniqueEmail("bob"));
    const out = await signOut(browser);
    const requestId = /\bID="([^"]+)"/.exec(redirectMessageOf(out.idpUrl ?? "").xml)?.[1] ?? "";
    const answer = redirectQuery({
      idp,
      parameter: "SAMLResponse",
      xml: logoutResponseXml({
        idp,
        destination: provider.sloURL,
        inResponseTo: requestId,
        status: "urn:oasis:names:tc:SAML:2.0:status:Responder",
      }),
    });
    const done = await browser.get(`${sloPath(provider)}?${answer}`);
    expect(done.status).toBe(200);
    expect(done.text).toContain("answered that it could not end your session there (urn:oasis:names:tc:SAML:2.0:status:Responder)");
    expect(await signedIn(browser)).toBe(false);
  });

  it("signs out of Quire only when the provider has no single logout URL, or the session was not opened by SAML", async () => {
    const provider = await orgWithProvider({ sloURL: null });
    const browser = await signIn(provider, uniqueEmail("cy"));
    const out = await signOut(browser);
    expect(out).toMatchObject({ status: 303, location: "/app/login", idpUrl: undefined });
    expect(await signedIn(browser)).toBe(false);

    const linked = await WebClient.signedIn(ctx, await createUser(ctx));
    expect(await signOut(linked)).toMatchObject({ status: 303, location: "/app/login" });
  });

  it("refuses a LogoutResponse that answers no LogoutRequest: an unknown id, or the id of an AuthnRequest", async () => {
    const provider = await orgWithProvider();
    const browser = new WebClient(ctx);
    const started = await browser.get(`/saml/${provider.id}/start?next=/app`);
    const authnRequestId = authnRequestOf(started.location ?? "").id;
    for (const inResponseTo of ["_never-sent", authnRequestId]) {
      const answer = redirectQuery({
        idp,
        parameter: "SAMLResponse",
        xml: logoutResponseXml({ idp, destination: provider.sloURL, inResponseTo }),
      });
      const res = await browser.get(`${sloPath(provider)}?${answer}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain("answers a logout request that this server did not send");
    }
  });
});

describe("IdP-initiated single logout", () => {
  it("ends the sessions of the NameID and SessionIndex it names, and answers with a signed LogoutResponse", async () => {
    const provider = await orgWithProvider();
    const email = uniqueEmail("dee");
    const laptop = await signIn(provider, email, "_laptop");
    const phone = await signIn(provider, email, "_phone");
    const someoneElse = await signIn(provider, uniqueEmail("eve"), "_laptop");

    const request = logoutRequestXml({ idp, destination: provider.sloURL, nameId: email, sessionIndexes: ["_laptop"], id: "_idp-req-1" });
    const res = await new WebClient(ctx).get(
      `${sloPath(provider)}?${redirectQuery({ idp, parameter: "SAMLRequest", xml: request, relayState: "state:1/2 (x)" })}`,
    );
    expect(res.status, res.text).toBe(302);
    expect(await signedIn(laptop)).toBe(false);
    expect(await signedIn(phone)).toBe(true);
    expect(await signedIn(someoneElse)).toBe(true);

    expect(res.location?.startsWith(`${IDP_SLO}?SAMLResponse=`)).toBe(true);
    const answer = redirectMessageOf(res.location ?? "");
    expect(verifiesWith(provider.spCertificate, answer)).toBe(true);
    expect(answer.relayState).toBe("state:1/2 (x)");
    expect(answer.xml).toContain('InResponseTo="_idp-req-1"');
    expect(answer.xml).toContain(`Destination="${IDP_SLO}"`);
    expect(answer.xml).toContain("urn:oasis:names:tc:SAML:2.0:status:Success");

    // Without a SessionIndex: every session of that NameID with this provider.
    const all = logoutRequestXml({ idp, destination: provider.sloURL, nameId: email });
    expect(
      (await new WebClient(ctx).get(`${sloPath(provider)}?${redirectQuery({ idp, parameter: "SAMLRequest", xml: all })}`)).status,
    ).toBe(302);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(someoneElse)).toBe(true);
  });

  it("also ends a session whose assertion named no SessionIndex, and says which binding it speaks", async () => {
    const provider = await orgWithProvider();
    const email = uniqueEmail("ian");
    const browser = await signIn(provider, email, "");
    const request = logoutRequestXml({ idp, destination: provider.sloURL, nameId: email, sessionIndexes: ["_elsewhere"] });
    const res = await new WebClient(ctx).get(`${sloPath(provider)}?${redirectQuery({ idp, parameter: "SAMLRequest", xml: request })}`);
    expect(res.status).toBe(302);
    expect(await signedIn(browser)).toBe(false);

    const posted = await new WebClient(ctx).post(sloPath(provider), { SAMLRequest: "abc" });
    expect(posted.status).toBe(400);
    expect(posted.text).toContain("speaks the HTTP-Redirect binding only");
  });

  it("ends the sessions and shows it when the provider has no single logout URL to answer to", async () => {
    const provider = await orgWithProvider({ sloURL: null });
    const email = uniqueEmail("fay");
    const browser = await signIn(provider, email);
    const request = logoutRequestXml({ idp, destination: provider.sloURL, nameId: email });
    const res = await browser.get(`${sloPath(provider)}?${redirectQuery({ idp, parameter: "SAMLRequest", xml: request })}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("Logout IdP signed you out of Quire.");
    expect(await signedIn(browser)).toBe(false);
  });

  it("refuses hostile and broken LogoutRequests with a 400 that says why, and ends no session", async () => {
    const provider = await orgWithProvider();
    const email = uniqueEmail("gus");
    const browser = await signIn(provider, email);
    // Another organization trusting the same IdP, with its own member.
    const other = await orgWithProvider();
    const otherEmail = uniqueEmail("hal");
    const otherBrowser = await signIn(other, otherEmail);

    const xml = (extra: Parameters<typeof logoutRequestXml>[0] extends infer T ? Partial<T> : never = {}) =>
      logoutRequestXml({ idp, destination: provider.sloURL, nameId: email, ...extra });
    const signedQuery = (x: string, extra: Partial<Parameters<typeof redirectQuery>[0]> = {}) =>
      redirectQuery({ idp, parameter: "SAMLRequest", xml: x, ...extra });
    const tampered = (() => {
      const good = new URLSearchParams(signedQuery(xml()));
      const evil = new URLSearchParams(signedQuery(xml({ nameId: "someone@else.test" }), { signingKey: null }));
      return `SAMLRequest=${encodeURIComponent(evil.get("SAMLRequest") ?? "")}&SigAlg=${encodeURIComponent(good.get("SigAlg") ?? "")}&Signature=${encodeURIComponent(good.get("Signature") ?? "")}`;
    })();
    const replayed = signedQuery(xml({ id: "_once" }));
    const replayedOnOther = signedQuery(logoutRequestXml({ idp, destination: other.sloURL, nameId: "nobody@slo.test", id: "_once-other" }));
    expect((await new WebClient(ctx).get(`${sloPath(other)}?${replayedOnOther}`)).status).toBe(302);

    const cases: [string, string, string][] = [
      ["unsigned", signedQuery(xml(), { signingKey: null }), "The logout message is not signed"],
      ["signed by another key", signedQuery(xml(), { signingKey: intruder.privateKey }), "signature does not match"],
      ["a message its signature was not made over", tampered, "signature does not match"],
      [
        "SHA-1",
        signedQuery(xml(), { sigAlg: "http://www.w3.org/2000/09/xmldsig#rsa-sha1", hash: "sha1" }),
        "rsa-sha1, which is not accepted",
      ],
      [
        "meant for another organization's provider",
        signedQuery(xml({ destination: other.sloURL, nameId: otherEmail })),
        "sent to another destination",
      ],
      ["another issuer", signedQuery(xml({ issuer: "https://other-idp.test/metadata" })), "comes from another issuer"],
      ["stale", signedQuery(xml({ shiftMs: -10 * 60_000 })), "too old"],
      ["from the future", signedQuery(xml({ shiftMs: 10 * 60_000 })), "issued in the future"],
      [
        "a LogoutResponse sent as SAMLRequest",
        signedQuery(logoutResponseXml({ idp, destination: provider.sloURL, inResponseTo: "_x" })),
        "is not a LogoutRequest",
      ],
      ["not deflated", "SAMLRequest=bm90IGRlZmxhdGVk&SigAlg=x&Signature=eA%3D%3D", "not accepted"],
      ["nothing", "", "exactly one SAMLRequest or SAMLResponse"],
      ["twice", `${signedQuery(xml())}&SAMLRequest=abc`, "querystring/SAMLRequest must be string"],
    ];
    for (const [name, query, message] of cases) {
      const res = await new WebClient(ctx).get(`${sloPath(provider)}?${query}`);
      expect(res.status, `${name}: ${res.text.slice(0, 300)}`).toBe(400);
      expect(res.text, name).toContain(message);
    }
    // A replay is refused even on the provider where it was first accepted.
    expect((await new WebClient(ctx).get(`${sloPath(other)}?${replayedOnOther}`)).status).toBe(400);
    expect(await signedIn(browser)).toBe(true);
    expect(await signedIn(otherBrowser)).toBe(true);

    expect((await new WebClient(ctx).get(`${sloPath(provider)}?${replayed}`)).status).toBe(302);
    expect(await signedIn(browser)).toBe(false);
    const again = await new WebClient(ctx).get(`${sloPath(provider)}?${replayed}`);
    expect(again.status).toBe(400);
    expect(again.text).toContain("This LogoutRequest was already received");
    // A valid request to this provider naming the other organization's member ends nothing there.
    const foreignName = signedQuery(xml({ nameId: otherEmail }));
    expect((await new WebClient(ctx).get(`${sloPath(provider)}?${foreignName}`)).status).toBe(302);
    expect(await signedIn(otherBrowser)).toBe(true);
    expect((await new WebClient(ctx).get("/saml/nope/slo")).status).toBe(404);
  });
});
