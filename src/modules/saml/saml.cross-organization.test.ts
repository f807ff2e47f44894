/**
 * An organization's identity provider is trusted for its own organization only. The takeover this
 * guards against: anyone who may create an organization registers an IdP they control, has it
 * assert an address that belongs to someone else, and uses the account it makes (with an API token
 * made on the web app) to join another organization by email domain or to receive another
 * organization's invitation. And its converse: a provider signing in to an account that reaches
 * another organization.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../../../test/helpers/factories.js";
import { createTokenInBrowser, registerSamlProvider, samlSignIn } from "../../../test/helpers/saml-flow.js";
import { createTestIdp, type TestIdp } from "../../../test/helpers/saml-idp.js";
import { createSpace } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";

let ctx: TestContext;
let attackerIdp: TestIdp;
let employerIdp: TestIdp;
beforeAll(async () => {
  // Users may create organizations here, so that the attacker's first step succeeds and the rest
  // of the chain is what is tested.
  ctx = await createTestContext({ config: { orgCreation: "users" } });
  attackerIdp = createTestIdp("attacker");
  employerIdp = createTestIdp("employer");
});
afterAll(() => ctx.close());

let counter = 0;
const unique = (name: string, domain: string) => `${name}-${++counter}@${domain}`;

async function userByEmail(email: string) {
  return ctx.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
}

async function membership(orgId: string, userId: string) {
  return ctx.db.selectFrom("members").select(["role", "sso"]).where("orgId", "=", orgId).where("userId", "=", userId).executeTakeFirst();
}

/** An organization created through the API by its own admin, with a SAML provider trusting `idp`. */
async function organizationWithProvider(idp: TestIdp, title: string) {
  const admin = await createUser(ctx, { email: unique("admin", `${title.toLowerCase()}.test`) });
  const created = await ctx.as(admin).post("/v1/orgs", { title });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const provider = await registerSamlProvider(ctx, admin, created.body.id, idp, { defaultRole: "admin" });
  return { admin, org: { id: created.body.id as string }, provider };
}

describe("an account a foreign identity provider created", () => {
  it("is refused an email-domain join, and another organization's invitation is held, not handed to it", async () => {
    // The victim organization lets verified corp.test addresses join, and holds content.
    const alice = await createUser(ctx, { email: unique("alice", "corp.test") });
    const corp = await createOrganization(ctx, alice, "Corp");
    expect((await ctx.as(alice).patch(`/v1/orgs/${corp.id}`, { emailDomains: ["corp.test"], defaultRole: "read" })).status).toBe(200);
    const secret = await createSpace(ctx, alice, corp.id, { title: "Secret plans" });
    const partner = await createUser(ctx, { email: unique("pat", "partner.test") });
    const partnerOrg = await createOrganization(ctx, partner, "Partner");

    // The attacker's organization and IdP assert an address at corp.test that has no account yet.
    const evil = await organizationWithProvider(attackerIdp, "Evil");
    const bobEmail = unique("bob", "corp.test");
    const signedIn = await samlSignIn(ctx, evil.provider, bobEmail);
    expect(signedIn.status, signedIn.text).toBe(303);
    const bob = await userByEmail(bobEmail);
    expect(bob).toMatchObject({ emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: evil.org.id });
    expect(await membership(evil.org.id, bob.id)).toEqual({ role: "admin", sso: 1 });
    const token = await createTokenInBrowser(signedIn.browser);

    // Email-domain join: refused like any organization one cannot join; nothing of Corp is readable.
    const join = await ctx.as(token).post(`/v1/orgs/${corp.id}/join`);
    expect(join.status).toBe(404);
    expect(join.body.error.message).toContain("joining needs a verified email address");
    expect(await membership(corp.id, bob.id)).toBeUndefined();
    expect((await ctx.as(token).get(`/v1/orgs/${corp.id}`)).status).toBe(404);
    expect((await ctx.as(token).get(`/v1/spaces/${secret.id}`)).status).toBe(404);
    // Nor may it list the organizations of "its" domain.
    const lookup = await ctx.as(token).get("/v1/email-domains/corp.test/orgs");
    expect(lookup.status).toBe(403);
    expect(lookup.body.error.message).toContain("single sign-on vouches for an address inside its own organization only");

    // Another organization invites the address: the invitation is held, the account gets nothing.
    const invite = await ctx.as(partner).post(`/v1/orgs/${partnerOrg.id}/invites`, { emails: [bobEmail], role: "edit" });
    expect(invite.status, JSON.stringify(invite.body)).toBe(200);
    expect(invite.body).toEqual({ users: [], invited: 0, heldEmails: [bobEmail] });
    expect(await membership(partnerOrg.id, bob.id)).toBeUndefined();
    expect((await ctx.as(token).get(`/v1/orgs/${partnerOrg.id}`)).status).toBe(404);
    expect(await ctx.db.selectFrom("heldInvitations").select(["orgId", "role", "sso"]).where("userId", "=", bob.id).execute()).toEqual([
      { orgId: partnerOrg.id, role: "edit", sso: 0 },
    ]);
    // Corp's own invitation too; other addresses of the same invitation are added as usual.
    const other = await createUser(ctx, { email: unique("carol", "corp.test") });
    const mixed = await ctx.as(alice).post(`/v1/orgs/${corp.id}/invites`, { emails: [bobEmail, other.email], role: "read" });
    expect(mixed.body).toEqual({ users: [other.id], invited: 1, heldEmails: [bobEmail] });
    expect(await membership(corp.id, bob.id)).toBeUndefined();

    // Inside its own organization the provider's word still counts: the account works there.
    expect((await ctx.as(token).get(`/v1/orgs/${evil.org.id}`)).body.permissions).toMatchObject({ admin: true });
  });

  it("cannot list a domain on a new organization either", async () => {
    const evil = await organizationWithProvider(attackerIdp, "Evil");
    const email = unique("ceo", "victim.test");
    const signedIn = await samlSignIn(ctx, evil.provider, email);
    expect(signedIn.status, signedIn.text).toBe(303);
    const token = await createTokenInBrowser(signedIn.browser);
    const created = await ctx.as(token).post("/v1/orgs", { title: "Victim Inc", emailDomains: ["victim.test"] });
    expect(created.status).toBe(400);
    expect(created.body.error.message).toContain('Cannot add the email domain "victim.test"');
    // Nor on the organization whose provider vouched for it (where it is an admin): a listed domain lets outsiders join.
    const promoted = await ctx.as(token).patch(`/v1/orgs/${evil.org.id}`, { emailDomains: ["victim.test"] });
    expect(promoted.status).toBe(400);
  });
});

describe("another organization's identity provider and an existing account", () => {
  it("never signs in an account whose SSO membership is in another organization, even with a forged SSO flag", async () => {
    const employer = await organizationWithProvider(employerIdp, "Employer");
    const evil = await organizationWithProvider(attackerIdp, "Evil");
    // Dana's account: made by her employer's provider at her first sign-in.
    const danaEmail = unique("dana", "employer.test");
    expect((await samlSignIn(ctx, employer.provider, danaEmail)).status).toBe(303);
    const dana = await userByEmail(danaEmail);
    expect(dana.emailVouchedBy).toBe(employer.org.id);

    // The attacker's provider asserts her address: she is no SSO member of that organization.
    const direct = await samlSignIn(ctx, evil.provider, danaEmail);
    expect(direct.status).toBe(403);
    expect(direct.text).toContain("is not an SSO member of this organization");
    // Inviting her does not add her (her account is her employer's), so she cannot be marked SSO.
    const invite = await ctx.as(evil.admin).post(`/v1/orgs/${evil.org.id}/invites`, { emails: [danaEmail], sso: true });
    expect(invite.body).toMatchObject({ invited: 0, heldEmails: [danaEmail] });
    expect((await ctx.as(evil.admin).post(`/v1/orgs/${evil.org.id}/members/${dana.id}/sso`)).status).toBe(404);
    // An SSO membership there that exists anyway (written before these rules) is not enough.
    await addMemberToOrg(ctx, evil.org.id, { id: dana.id, email: dana.email, displayName: dana.displayName, token: "" }, "read");
    await ctx.db.updateTable("members").set({ sso: 1 }).where("orgId", "=", evil.org.id).where("userId", "=", dana.id).execute();
    const forged = await samlSignIn(ctx, evil.provider, danaEmail);
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("also belongs to another organization");
    expect(await userByEmail(danaEmail)).toMatchObject({ emailVouchedBy: employer.org.id });
    // Her own employer's provider still signs her in.
    expect((await samlSignIn(ctx, employer.provider, danaEmail)).status).toBe(303);
  });

  it("cannot be given an account of another organization's member by inviting it and marking it SSO", async () => {
    const evil = await organizationWithProvider(attackerIdp, "Evil");
    const victimOrgAdmin = await createUser(ctx);
    const victimOrg = await createOrganization(ctx, victimOrgAdmin, "Victim");
    const space = await createSpace(ctx, victimOrgAdmin, victimOrg.id, { title: "Internal" });
    // Erin was created by the operator and is a member of her organization (no single sign-on).
    const erin = await createUser(ctx, { email: unique("erin", "victim.test") });
    await addMemberToOrg(ctx, victimOrg.id, erin, "read");

    // Existing accounts are added by an invitation at once: the attacker adds her, then tries SSO.
    const invite = await ctx.as(evil.admin).post(`/v1/orgs/${evil.org.id}/invites`, { emails: [erin.email], role: "read" });
    expect(invite.body).toEqual({ users: [erin.id], invited: 1 });
    const marked = await ctx.as(evil.admin).post(`/v1/orgs/${evil.org.id}/members/${erin.id}/sso`);
    expect(marked.status).toBe(409);
    expect(marked.body.error.message).toContain("also belongs to another organization");
    expect(await membership(evil.org.id, erin.id)).toEqual({ role: "read", sso: 0 });
    // With the flag forced, the attacker's provider still cannot open her account.
    await ctx.db.updateTable("members").set({ sso: 1 }).where("orgId", "=", evil.org.id).where("userId", "=", erin.id).execute();
    const res = await samlSignIn(ctx, evil.provider, erin.email);
    expect(res.status).toBe(403);
    expect(res.text).toContain("also belongs to another organization");
    expect((await res.browser.get("/app")).status).toBe(303);
    // Her own token still reads her organization's content; her address is still verified everywhere.
    expect((await ctx.as(erin).get(`/v1/spaces/${space.id}`)).status).toBe(200);
    expect(await userByEmail(erin.email)).toMatchObject({ emailVerified: 1, emailVerifiedVia: "operator" });
  });

  it("never takes over an invitation that was pending before it asserted the address", async () => {
    const evil = await organizationWithProvider(attackerIdp, "Evil");
    const inviterAdmin = await createUser(ctx);
    const inviter = await createOrganization(ctx, inviterAdmin, "Inviter");
    const gusEmail = unique("gus", "inviter.test");
    const invited = await ctx.as(inviterAdmin).post(`/v1/orgs/${inviter.id}/invites`, { emails: [gusEmail], role: "edit" });
    expect(invited.body.invited).toBe(1);
    const gus = await userByEmail(gusEmail);
    expect(gus).toMatchObject({ pending: 1, emailVerifiedVia: null });

    // Asserted directly: the pending account is no SSO member of the attacker's organization.
    expect((await samlSignIn(ctx, evil.provider, gusEmail)).status).toBe(403);
    // Invited there with sso: true, it is added without SSO (it belongs to the inviting organization).
    const sso = await ctx.as(evil.admin).post(`/v1/orgs/${evil.org.id}/invites`, { emails: [gusEmail], sso: true });
    expect(sso.body).toMatchObject({ users: [gus.id], failedSSOEmails: [gusEmail] });
    expect((await ctx.as(evil.admin).post(`/v1/orgs/${evil.org.id}/members/${gus.id}/sso`)).status).toBe(409);
    await ctx.db.updateTable("members").set({ sso: 1 }).where("orgId", "=", evil.org.id).where("userId", "=", gus.id).execute();
    const forged = await samlSignIn(ctx, evil.provider, gusEmail);
    expect(forged.status).toBe(403);
    expect(await userByEmail(gusEmail)).toMatchObject({ pending: 1, emailVerifiedVia: null });
    expect(await membership(inviter.id, gus.id)).toEqual({ role: "edit", sso: 0 });
  });

  it("may take an account that belongs to no other organization, which is then that organization's only", async () => {
    const employer = await organizationWithProvider(employerIdp, "Employer");
    const other = await createUser(ctx);
    const otherOrg = await createOrganization(ctx, other, "Other");
    // Frank was created by the operator and marked SSO by the only organization he belongs to.
    const frank = await createUser(ctx, { email: unique("frank", "employer.test") });
    expect((await ctx.as(employer.admin).post(`/v1/orgs/${employer.org.id}/invites`, { emails: [frank.email] })).body.invited).toBe(1);
    expect((await ctx.as(employer.admin).post(`/v1/orgs/${employer.org.id}/members/${frank.id}/sso`)).status).toBe(200);
    const signedIn = await samlSignIn(ctx, employer.provider, frank.email);
    expect(signedIn.status, signedIn.text).toBe(303);
    // From now on his address rests on that provider, which may have made tokens in his name.
    expect(await userByEmail(frank.email)).toMatchObject({ emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: employer.org.id });
    const invite = await ctx.as(other).post(`/v1/orgs/${otherOrg.id}/invites`, { emails: [frank.email] });
    expect(invite.body).toEqual({ users: [], invited: 0, heldEmails: [frank.email] });
    expect(await membership(otherOrg.id, frank.id)).toBeUndefined();
    // A sign-in link does not take the account back from the provider.
    await WebClient.signedIn(ctx, frank);
    expect(await userByEmail(frank.email)).toMatchObject({ emailVerifiedVia: "idp", emailVouchedBy: employer.org.id });
  });
});
