import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, TEST_PUBLIC_URL, type TestContext } from "../../../test/helpers/app.js";
import { createOrganization, createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createTestIdp, type TestIdp } from "../../../test/helpers/saml-idp.js";
import { createTeam } from "../../../test/helpers/teams.factories.js";
import { parseCertificate } from "./saml-certificate.model.js";

let ctx: TestContext;
let idp: TestIdp;
beforeAll(async () => {
  ctx = await createTestContext();
  idp = createTestIdp("routes-idp");
});
afterAll(() => ctx.close());

async function scenario() {
  const base = await createOrgWithRoles(ctx);
  const otherOrg = await createOrganization(ctx, base.outsider, "Other");
  const otherProvider = await ctx.as(base.outsider).post(`/v1/orgs/${otherOrg.id}/saml`, { label: "Theirs" });
  expect(otherProvider.status).toBe(201);
  return { ...base, otherOrg, otherProviderId: otherProvider.body.id as string };
}

function fullBody(overrides: Record<string, unknown> = {}) {
  return { label: "Acme IdP", entityID: idp.entityId, ssoURL: idp.ssoUrl, certificate: idp.certificate, ...overrides };
}

describe("SAML providers API", () => {
  it("requires a token", async () => {
    const { org } = await scenario();
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/saml`)).status).toBe(401);
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/saml`, fullBody())).status).toBe(401);
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/sso`)).status).toBe(401);
  });

  it("creates an active provider with the service provider's addresses, then reads, lists, updates and deletes it", async () => {
    const { org, owner } = await scenario();
    const team = await createTeam(ctx, owner, org.id, { title: "SSO people" });
    const created = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, fullBody({ defaultTeam: team.id, defaultRole: "edit" }));
    expect(created.status).toBe(201);
    const id = created.body.id;
    const base = `${TEST_PUBLIC_URL}/saml/${id}`;
    expect(created.body).toEqual({
      object: "saml-provider",
      id,
      label: "Acme IdP",
      ssoURL: idp.ssoUrl,
      entityID: idp.entityId,
      certificate: parseCertificate(idp.certificate).pem,
      defaultTeam: expect.objectContaining({ object: "team", id: team.id, title: "SSO people" }),
      defaultRole: "edit",
      createdAt: expect.any(String),
      status: "active",
      service: {
        acsURL: `${base}/acs`,
        startURL: `${base}/start`,
        entityID: `${base}/metadata`,
        sloURL: `${base}/slo`,
        encryptionCertificate: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/),
      },
      requireEncryptedAssertions: false,
      urls: { location: `${TEST_PUBLIC_URL}/v1/orgs/${org.id}/saml/${id}` },
    });
    expect(created.headers.location).toBe(created.body.urls.location);

    const read = await ctx.as(owner).get(`/v1/orgs/${org.id}/saml/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const list = await ctx.as(owner).get(`/v1/orgs/${org.id}/saml`);
    expect(list.body).toMatchObject({ count: 1, items: [{ id }] });

    const patched = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${id}`, { label: "Okta", defaultRole: null, defaultTeam: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ label: "Okta", defaultRole: null, entityID: idp.entityId, status: "active" });
    expect(patched.body.defaultTeam).toBeUndefined();
    expect(patched.body.sloURL).toBeUndefined();

    // Single logout (a Quire extension): set, shown, cleared with null.
    const withSlo = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${id}`, { sloURL: "https://idp.test/slo" });
    expect(withSlo.body.sloURL).toBe("https://idp.test/slo");
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/saml/${id}`)).body.sloURL).toBe("https://idp.test/slo");
    const withoutSlo = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${id}`, { sloURL: null });
    expect(withoutSlo.status).toBe(200);
    expect(withoutSlo.body.sloURL).toBeUndefined();

    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/saml/${id}`)).status).toBe(204);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/saml/${id}`)).status).toBe(404);
    // DELETE is 204 also when nothing was there.
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/saml/${id}`)).status).toBe(204);
  });

  it("keeps a provider created with only a label pending, and read as default role by default", async () => {
    const { org, owner } = await scenario();
    const created = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, { label: "Later" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "pending", ssoURL: "about:blank", entityID: "", certificate: "", defaultRole: "read" });
    const sso = await ctx.as(owner).get(`/v1/orgs/${org.id}/sso`);
    expect(sso.body).toEqual({ items: [] });
    const completed = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${created.body.id}`, {
      entityID: idp.entityId,
      ssoURL: idp.ssoUrl,
      certificate: idp.certificate,
    });
    expect(completed.body.status).toBe("active");
    const after = await ctx.as(owner).get(`/v1/orgs/${org.id}/sso`);
    expect(after.body).toEqual({
      items: [{ id: created.body.id, label: "Later", startURL: `${TEST_PUBLIC_URL}/saml/${created.body.id}/start` }],
    });
  });

  it("answers precise 400s for bad input and stores nothing", async () => {
    const { org, owner, otherOrg, outsider } = await scenario();
    const post = (body: Record<string, unknown>) => ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, body);
    const cases: [Record<string, unknown>, string][] = [
      [{}, "body.label is required."],
      [fullBody({ label: "" }), "body.label must be at least 1 characters long."],
      [fullBody({ label: "x".repeat(31) }), "body.label must be at most 30 characters long."],
      [fullBody({ entityID: "e".repeat(1025) }), "body.entityID must be at most 1024 characters long."],
      [fullBody({ certificate: "c".repeat(10001) }), "body.certificate must be at most 10000 characters long."],
      [fullBody({ ssoURL: "not a url" }), "body.ssoURL must be a valid uri."],
      [fullBody({ ssoURL: `https://idp.test/${"p".repeat(2048)}` }), "body.ssoURL must be at most 2048 characters long."],
      [
        fullBody({ ssoURL: "javascript:alert(1)" }),
        'body.ssoURL must be an http or https address (the browser is sent there), got "javascript:".',
      ],
      [fullBody({ sloURL: "not a url" }), "body.sloURL must be a valid uri."],
      [fullBody({ sloURL: "data:text/html,hi" }), 'body.sloURL must be an http or https address (the browser is sent there), got "data:".'],
      [fullBody({ certificate: "hello" }), "body.certificate is not a valid X.509 certificate: its content could not be parsed."],
      [fullBody({ certificate: "not base64 !" }), "body.certificate must be an X.509 certificate in PEM form (or its base64 body)."],
      [
        fullBody({ certificate: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----" }),
        'body.certificate must be an X.509 certificate ("-----BEGIN CERTIFICATE-----"), not another kind of PEM block.',
      ],
      [fullBody({ certificate: idp.certificate + idp.certificate }), "body.certificate must hold one certificate, not 2."],
      [
        fullBody({ defaultRole: "owner" }),
        'body.defaultRole must be one of: "admin", "create", "review", "edit", "comment", "read", null.',
      ],
      [fullBody({ defaultTeam: "nope" }), 'body.defaultTeam names "nope", which is not a team of this organization.'],
    ];
    const otherTeam = await createTeam(ctx, outsider, otherOrg.id, { title: "Theirs" });
    cases.push([
      fullBody({ defaultTeam: otherTeam.id }),
      `body.defaultTeam names "${otherTeam.id}", which is not a team of this organization.`,
    ]);
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/saml`)).body.count).toBe(0);

    const created = await post(fullBody());
    const patch = await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${created.body.id}`, { certificate: "hello" });
    expect(patch.status).toBe(400);
    expect(patch.body.error.message).toBe("body.certificate is not a valid X.509 certificate: its content could not be parsed.");
  });

  it("accepts the certificate's base64 body alone and stores it as PEM", async () => {
    const { org, owner } = await scenario();
    const body = idp.certificate.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
    const res = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, fullBody({ certificate: body }));
    expect(res.status).toBe(201);
    expect(res.body.certificate).toBe(parseCertificate(idp.certificate).pem);
  });

  it("refuses an expired certificate", () => {
    expect(() => parseCertificate(idp.certificate, "body.certificate", new Date(Date.now() + 10 * 86400_000))).toThrow(
      /^body\.certificate expired on .*; paste the identity provider's current signing certificate\.$/,
    );
  });

  it("is for organization admins only: 403 for other members, 404 for outsiders and other organizations' providers", async () => {
    const { org, owner, members, outsider, otherOrg, otherProviderId } = await scenario();
    const created = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, fullBody());
    const id = created.body.id;
    expect((await ctx.as(members.admin).get(`/v1/orgs/${org.id}/saml/${id}`)).status).toBe(200);
    for (const member of [members.create, members.edit, members.read, members.guest]) {
      const list = await ctx.as(member).get(`/v1/orgs/${org.id}/saml`);
      expect(list.status).toBe(403);
      expect(list.body.error.message).toBe("Only organization admins can manage SAML single sign-on.");
      expect((await ctx.as(member).get(`/v1/orgs/${org.id}/saml/${id}`)).status).toBe(403);
      expect((await ctx.as(member).post(`/v1/orgs/${org.id}/saml`, fullBody())).status).toBe(403);
      expect((await ctx.as(member).patch(`/v1/orgs/${org.id}/saml/${id}`, { label: "x" })).status).toBe(403);
      expect((await ctx.as(member).delete(`/v1/orgs/${org.id}/saml/${id}`)).status).toBe(403);
      // Every member may see the sign-in options.
      expect((await ctx.as(member).get(`/v1/orgs/${org.id}/sso`)).body.items.map((i: { id: string }) => i.id)).toEqual([id]);
    }
    for (const call of [
      ctx.as(outsider).get(`/v1/orgs/${org.id}/saml`),
      ctx.as(outsider).get(`/v1/orgs/${org.id}/saml/${id}`),
      ctx.as(outsider).patch(`/v1/orgs/${org.id}/saml/${id}`, { label: "x" }),
      ctx.as(outsider).delete(`/v1/orgs/${org.id}/saml/${id}`),
      ctx.as(outsider).get(`/v1/orgs/${org.id}/sso`),
    ]) {
      expect((await call).status).toBe(404);
    }
    // Another organization's provider id behaves as an id that does not exist.
    const foreign = await ctx.as(owner).get(`/v1/orgs/${org.id}/saml/${otherProviderId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toBe(`No SAML provider with id "${otherProviderId}" in this organization.`);
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}/saml/${otherProviderId}`, { label: "x" })).status).toBe(404);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/saml/${otherProviderId}`)).status).toBe(204);
    expect((await ctx.as(outsider).get(`/v1/orgs/${otherOrg.id}/saml/${otherProviderId}`)).status).toBe(200);
    expect((await ctx.as(members.edit).get(`/v1/orgs/${org.id}/saml/${id}`)).body.error.message).toBe(
      "Only organization admins can manage SAML single sign-on.",
    );
  });

  it("serves the service provider's metadata", async () => {
    const { org, owner } = await scenario();
    const created = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, fullBody());
    const res = await ctx.anonymous.get(`/saml/${created.body.id}/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toContain("application/samlmetadata+xml");
    expect(res.text).toContain(`entityID="${created.body.service.entityID}"`);
    expect(res.text).toContain(`Location="${created.body.service.acsURL}"`);
    expect(res.text).toContain("urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress");
    // Single logout by redirect, and the certificate that checks the requests it signs.
    expect(res.text).toContain(
      `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${created.body.service.sloURL}"/>`,
    );
    expect(res.text).toMatch(/<KeyDescriptor use="signing">/);
    expect((await ctx.anonymous.get("/saml/nope/metadata")).status).toBe(404);
  });
});
