import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";

let ctx: TestContext;
/** A server whose operator lets users create organizations (QUIRE_ORG_CREATION=users). */
let open: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  open = await createTestContext({ config: { orgCreation: "users" } });
});
afterAll(async () => {
  await ctx.close();
  await open.close();
});

describe("authentication", () => {
  it("requires a bearer token", async () => {
    const res = await ctx.anonymous.get("/v1/orgs");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 401, message: expect.stringContaining("Bearer") } });
  });

  it("rejects unknown and revoked tokens", async () => {
    expect((await ctx.as("qr_unknown").get("/v1/orgs")).status).toBe(401);
    const user = await createUser(ctx);
    await ctx.db.updateTable("apiTokens").set({ revokedAt: new Date().toISOString() }).where("userId", "=", user.id).execute();
    const res = await ctx.as(user).get("/v1/orgs");
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/revoked/);
  });

  it("rejects a malformed Authorization header", async () => {
    const res = await ctx.anonymous.get("/v1/orgs", { headers: { authorization: "Basic abc" } });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/Bearer/);
  });
});

describe("POST /v1/orgs", () => {
  it("is refused by default, naming the setting and the operator's command, and creates nothing", async () => {
    const user = await createUser(ctx);
    const res = await ctx.as(user).post("/v1/orgs", { title: "Acme Docs" });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      "Creating organizations through the API is turned off on this server (QUIRE_ORG_CREATION=operators): " +
        "an operator creates them with `quire orgs create --title <title> --owner <email>`, or sets QUIRE_ORG_CREATION=users to let every user create them.",
    );
    expect((await ctx.as(user).get("/v1/orgs")).body.count).toBe(0);
    expect(await ctx.db.selectFrom("organizations").select("id").where("title", "=", "Acme Docs").execute()).toEqual([]);
  });

  it("creates an organization whose creator is admin, with a Location header, when users may", async () => {
    const user = await createUser(open);
    const res = await open.as(user).post("/v1/orgs", { title: "Acme Docs" });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${open.urls.base}/v1/orgs/${res.body.id}`);
    expect(res.body).toMatchObject({ object: "organization", title: "Acme Docs", defaultRole: null });
    expect(res.body.permissions).toMatchObject({ view: true, admin: true, createContent: true });
    const member = await open.as(user).get(`/v1/orgs/${res.body.id}`);
    expect(member.body.urls.location).toBe(`http://quire.test/v1/orgs/${res.body.id}`);
  });

  it("rejects a title too short with a precise message, and creates nothing", async () => {
    const user = await createUser(open);
    const res = await open.as(user).post("/v1/orgs", { title: "A" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("body.title must be at least 2 characters long.");
    expect((await open.as(user).get("/v1/orgs")).body.count).toBe(0);
  });

  it("refuses email domains the creator does not own", async () => {
    const user = await createUser(open, { email: "ada@acme.test" });
    const bad = await open.as(user).post("/v1/orgs", { title: "Acme", emailDomains: ["gmail.com"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/gmail\.com/);
    const ok = await open.as(user).post("/v1/orgs", { title: "Acme", emailDomains: ["acme.test"] });
    expect(ok.status).toBe(201);
    expect(ok.body.emailDomains).toEqual(["acme.test"]);
  });
});

describe("GET /v1/orgs", () => {
  it("lists only the caller's organizations and pages without gaps or repeats", async () => {
    const user = await createUser(ctx);
    const other = await createUser(ctx);
    await createOrganization(ctx, other, "Not mine");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createOrganization(ctx, user, `Org ${i}`)).id);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await ctx.as(user).get(`/v1/orgs?limit=2${page ? `&page=${page}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(ids.length);
      seen.push(...res.body.items.map((o: { id: string }) => o.id));
      page = res.body.next?.page;
      // An organization created mid-way appears at the end, not as a repeat or a gap.
      if (seen.length === 2) ids.push((await createOrganization(ctx, user, "Late")).id);
    } while (page);
    expect(seen).toEqual(ids);
  });

  it("rejects limit beyond 1000 and a forged cursor", async () => {
    const user = await createUser(ctx);
    const res = await ctx.as(user).get("/v1/orgs?limit=1001");
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('query parameter "limit" must be at most 1000.');
    const forged = await ctx.as(user).get("/v1/orgs?page=not-a-cursor");
    expect(forged.status).toBe(400);
    expect(forged.body.error.message).toMatch(/next\.page/);
  });
});

describe("GET and PATCH /v1/orgs/{organizationId}", () => {
  it("answers 404 to outsiders, the same as for a missing organization", async () => {
    const { org, outsider } = await createOrgWithRoles(ctx);
    const res = await ctx.as(outsider).get(`/v1/orgs/${org.id}`);
    expect(res.status).toBe(404);
    const missing = await ctx.as(outsider).get("/v1/orgs/doesnotexist");
    expect(missing.status).toBe(404);
    expect(res.body.error.message.replace(org.id, "X")).toBe(missing.body.error.message.replace("doesnotexist", "X"));
  });

  it("computes permissions for each role", async () => {
    const { org, members } = await createOrgWithRoles(ctx);
    const perms = async (u: typeof members.read) => (await ctx.as(u).get(`/v1/orgs/${org.id}`)).body.permissions;
    expect(await perms(members.admin)).toMatchObject({ admin: true, createContent: true, listMembers: true });
    expect(await perms(members.create)).toMatchObject({ admin: false, createContent: true, listMembers: true });
    expect(await perms(members.read)).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true });
    expect(await perms(members.guest)).toMatchObject({ view: true, admin: false, listMembers: false, listTeams: false });
  });

  it("lets admins update settings and gives readers 403 with nothing changed", async () => {
    const { org, members } = await createOrgWithRoles(ctx);
    const denied = await ctx.as(members.read).patch(`/v1/orgs/${org.id}`, { title: "Hacked" });
    expect(denied.status).toBe(403);
    const res = await ctx.as(members.admin).patch(`/v1/orgs/${org.id}`, {
      title: "Renamed",
      defaultRole: "comment",
      inviteLinks: false,
      hostname: "renamed-org",
      mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_review" }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: "Renamed",
      defaultRole: "comment",
      inviteLinks: false,
      hostname: "renamed-org",
      mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_review" }] },
    });
  });

  it("refuses organization merge rules that could never be evaluated, naming the rule, and keeps the old ones", async () => {
    const { org, owner, outsider } = await createOrgWithRoles(ctx);
    const stranger = await ctx.as(owner).patch(`/v1/orgs/${org.id}`, {
      mergeRules: { type: "rules", rules: [{ rule: "require_specific_reviewers", users: [outsider.id] }] },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.error.message).toBe(
      `body.mergeRules.rules[0].users names user "${outsider.id}", who is not a member of this organization.`,
    );
    const expression = await ctx.as(owner).patch(`/v1/orgs/${org.id}`, {
      mergeRules: {
        type: "rules",
        rules: [{ rule: "require_at_least_one_review" }, { rule: "custom", expression: "changeRequest.subject ===" }],
      },
    });
    expect(expression.status).toBe(400);
    expect(expression.body.error.message).toMatch(/^body\.mergeRules\.rules\[1\]\.expression is not a valid expression: /);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}`)).body.mergeRules).toEqual({ type: "none" });
  });

  it("validates enums and unions with messages that list the accepted values", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { defaultRole: "superuser" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('body.defaultRole must be one of: "admin", "create", "review", "edit", "comment", "read", null.');
    const wrongType = await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { sso: "yes" });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.message).toBe("body.sso must be of type boolean.");
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}`)).body.defaultRole).toBeNull();
  });

  it("refuses a hostname already taken with 409", async () => {
    const a = await createUser(ctx);
    const orgA = await createOrganization(ctx, a);
    const orgB = await createOrganization(ctx, a);
    expect((await ctx.as(a).patch(`/v1/orgs/${orgA.id}`, { hostname: "taken-name" })).status).toBe(200);
    const res = await ctx.as(a).patch(`/v1/orgs/${orgB.id}`, { hostname: "taken-name" });
    expect(res.status).toBe(409);
  });
});

describe("bad input", () => {
  it("answers malformed JSON with 400", async () => {
    const user = await createUser(ctx);
    const res = await ctx.as(user).post("/v1/orgs", undefined, { rawBody: '{"title": "x' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/not valid JSON/);
  });

  it("answers an over-large body with 413 and creates nothing", async () => {
    const user = await createUser(ctx);
    const res = await ctx.as(user).post("/v1/orgs", { title: "Big", padding: "x".repeat(ctx.config.bodyLimit + 10) });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/larger than the limit/);
    expect((await ctx.as(user).get("/v1/orgs")).body.count).toBe(0);
  });

  it("answers an unknown route with a JSON 404", async () => {
    const user = await createUser(ctx);
    const res = await ctx.as(user).get("/v1/nothing-here");
    expect(res).toMatchObject({ status: 404, body: { error: { code: 404, message: "No such endpoint: GET /v1/nothing-here" } } });
  });

  it("echoes a safe request id and replaces an unsafe one", async () => {
    const user = await createUser(ctx);
    const res = await ctx.as(user).get("/v1/user", { headers: { "x-request-id": "abc-123" } });
    expect(res.headers["x-request-id"]).toBe("abc-123");
    const unsafe = await ctx.as(user).get("/v1/user", { headers: { "x-request-id": "bad id\nwith newline" } });
    expect(unsafe.headers["x-request-id"]).not.toContain("bad");
  });
});

describe("POST /v1/orgs/{organizationId}/join", () => {
  it("lets a verified address at a listed domain join with the default role", async () => {
    const admin = await createUser(ctx, { email: "boss@joinme.test" });
    const org = await createOrganization(ctx, admin);
    await ctx.as(admin).patch(`/v1/orgs/${org.id}`, { emailDomains: ["joinme.test"], defaultRole: "read" });
    const joiner = await createUser(ctx, { email: "new@joinme.test" });
    const res = await ctx.as(joiner).post(`/v1/orgs/${org.id}/join`);
    expect(res.status).toBe(204);
    expect((await ctx.as(joiner).get(`/v1/orgs/${org.id}`)).body.permissions).toMatchObject({ view: true, createContent: false });
  });

  it("answers other domains, unverified addresses and unknown organizations alike: an outsider learns nothing", async () => {
    const admin = await createUser(ctx, { email: "boss@joinme2.test" });
    const org = await createOrganization(ctx, admin);
    await ctx.as(admin).patch(`/v1/orgs/${org.id}`, { emailDomains: ["joinme2.test"] });
    const stranger = await createUser(ctx, { email: "x@elsewhere.test" });
    const unverified = await createUser(ctx, { email: "y@joinme2.test", emailVerified: false });
    const missing = "nope00000000000000000";
    const answer = async (user: typeof stranger, id: string) => {
      const res = await ctx.as(user).post(`/v1/orgs/${id}/join`);
      return { status: res.status, message: res.body.error.message.replace(id, "ID") };
    };
    const expected = {
      status: 404,
      message:
        'No organization with id "ID" that you can join: joining needs a verified email address at one of the organization\'s email domains; otherwise ask an admin for an invite.',
    };
    expect(await answer(stranger, org.id)).toEqual(expected);
    expect(await answer(unverified, org.id)).toEqual(expected);
    expect(await answer(stranger, missing)).toEqual(expected);
    expect((await ctx.as(stranger).get(`/v1/orgs/${org.id}`)).status).toBe(404);
  });

  it("counts an address vouched for by an organization's own identity provider there, and nowhere else", async () => {
    const admin = await createUser(ctx, { email: "boss@joinme3.test" });
    const own = await createOrganization(ctx, admin);
    const other = await createOrganization(ctx, admin);
    for (const org of [own, other]) await ctx.as(admin).patch(`/v1/orgs/${org.id}`, { emailDomains: ["joinme3.test"] });
    const vouched = await createUser(ctx, { email: "sso@joinme3.test", verification: { via: "idp", orgId: own.id } });
    expect((await ctx.as(vouched).post(`/v1/orgs/${other.id}/join`)).status).toBe(404);
    expect((await ctx.as(vouched).post(`/v1/orgs/${own.id}/join`)).status).toBe(204);
    const unknown = await createUser(ctx, { email: "legacy@joinme3.test", verification: { via: "idp", orgId: null } });
    expect((await ctx.as(unknown).post(`/v1/orgs/${own.id}/join`)).status).toBe(404);
    const linked = await createUser(ctx, { email: "link@joinme3.test", verification: { via: "sign-in-link" } });
    expect((await ctx.as(linked).post(`/v1/orgs/${other.id}/join`)).status).toBe(204);
  });
});

describe("GET /v1/email-domains/{emailDomain}/orgs", () => {
  it("lists organizations for the caller's own domain only", async () => {
    const admin = await createUser(ctx, { email: "a@domainlookup.test" });
    const org = await createOrganization(ctx, admin);
    await ctx.as(admin).patch(`/v1/orgs/${org.id}`, { emailDomains: ["domainlookup.test"] });
    const colleague = await createUser(ctx, { email: "b@domainlookup.test" });
    const res = await ctx.as(colleague).get("/v1/email-domains/domainlookup.test/orgs");
    expect(res.status).toBe(200);
    expect(res.body.organizations.map((o: { id: string }) => o.id)).toEqual([org.id]);
    const other = await createUser(ctx, { email: "c@other.test" });
    expect((await ctx.as(other).get("/v1/email-domains/domainlookup.test/orgs")).status).toBe(403);
  });
});

describe("agent instructions and ping", () => {
  it("round-trips instructions; only admins write, guests cannot read", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const empty = await ctx.as(members.read).get(`/v1/orgs/${org.id}/agent-instructions`);
    expect(empty.body).toMatchObject({ object: "agent-instructions", instructions: { object: "document", nodes: [] } });
    const instructions = { object: "document", data: {}, nodes: [{ object: "block", type: "paragraph", nodes: [] }] };
    expect((await ctx.as(members.edit).put(`/v1/orgs/${org.id}/agent-instructions`, { instructions })).status).toBe(403);
    const res = await ctx.as(owner).put(`/v1/orgs/${org.id}/agent-instructions`, { instructions });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ instructions, updatedBy: owner.id });
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/agent-instructions`)).status).toBe(403);
  });

  it("records lastSeenAt on ping", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const member = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, member, "read");
    const res = await ctx.as(member).post(`/v1/orgs/${org.id}/ping`);
    expect(res.status).toBe(200);
    const row = await ctx.db.selectFrom("members").select("lastSeenAt").where("userId", "=", member.id).executeTakeFirstOrThrow();
    expect(row.lastSeenAt).toMatch(/^\d{4}-/);
  });

  it("returns signed visitor claims of the member for the organization's sites", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const member = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, member, "edit");
    const res = await ctx.as(member).post(`/v1/orgs/${org.id}/ping`);
    expect(res.body).toEqual({ serviceVisitorClaims: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
    const [header, payload] = res.body.serviceVisitorClaims
      .split(".")
      .slice(0, 2)
      .map((p: string) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header).toEqual({ alg: "HS256", typ: "JWT" });
    expect(payload).toMatchObject({ member: true, role: "edit", iss: "quire", aud: `org:${org.id}`, sub: member.id });
    expect(payload.exp - payload.iat).toBe(600);
    expect((await ctx.as(await createUser(ctx)).post(`/v1/orgs/${org.id}/ping`)).status).toBe(404);
  });

  it("gives a guest no visitor claims (guests read no content unless granted), but records the ping", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const guest = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, guest, null);
    const res = await ctx.as(guest).post(`/v1/orgs/${org.id}/ping`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const row = await ctx.db.selectFrom("members").select("lastSeenAt").where("userId", "=", guest.id).executeTakeFirstOrThrow();
    expect(row.lastSeenAt).toMatch(/^\d{4}-/);
  });
});

describe("malformed URLs", () => {
  it("answers over-long and badly encoded path segments in the error shape", async () => {
    const user = await createUser(ctx);
    const long = await ctx.as(user).get(`/v1/orgs/${"a".repeat(600)}`);
    expect(long).toMatchObject({ status: 414, body: { error: { code: 414, message: expect.stringContaining("longer than 500") } } });
    const bad = await ctx.as(user).get("/v1/orgs/%E0%A4%A");
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 400, message: expect.stringContaining("percent-encoding") } } });
  });
});
