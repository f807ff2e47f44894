/** SCIM 2.0 replayed as Okta's and Microsoft Entra's provisioning clients send it (their documented request sequences). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../../../test/helpers/factories.js";

let ctx: TestContext;
let owner: TestUser;
let orgId: string;
let token: string;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Provisioned")).id;
  const created = await ctx.as(owner).post(`/v1/orgs/${orgId}/scim/tokens`, { label: "Okta" });
  expect(created.status).toBe(201);
  token = created.body.token;
});
afterAll(() => ctx?.close());

const scim = () => {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/scim+json" };
  return {
    get: (url: string) => ctx.anonymous.get(`/scim/v2${url}`, { headers }),
    post: (url: string, body: unknown) => ctx.anonymous.post(`/scim/v2${url}`, body, { headers }),
    put: (url: string, body: unknown, extra: Record<string, string> = {}) =>
      ctx.anonymous.put(`/scim/v2${url}`, body, { headers: { ...headers, ...extra } }),
    patch: (url: string, body: unknown, extra: Record<string, string> = {}) =>
      ctx.anonymous.patch(`/scim/v2${url}`, body, { headers: { ...headers, ...extra } }),
    delete: (url: string) => ctx.anonymous.delete(`/scim/v2${url}`, { headers }),
  };
};

describe("SCIM tokens", () => {
  it("only admins create them; a revoked or unknown token is refused with 401", async () => {
    const reader = await createUser(ctx, { displayName: "Reader" });
    await addMemberToOrg(ctx, orgId, reader, "read");
    expect((await ctx.as(reader).post(`/v1/orgs/${orgId}/scim/tokens`, { label: "x" })).status).toBe(403);
    const listed = await ctx.as(owner).get(`/v1/orgs/${orgId}/scim/tokens`);
    expect(listed.body.items[0].token).toBeUndefined();
    const other = await ctx.as(owner).post(`/v1/orgs/${orgId}/scim/tokens`, { label: "temp" });
    expect((await ctx.anonymous.get("/scim/v2/Users", { headers: { authorization: `Bearer ${other.body.token}` } })).status).toBe(200);
    expect((await ctx.as(owner).delete(`/v1/orgs/${orgId}/scim/tokens/${other.body.id}`)).status).toBe(204);
    const revoked = await ctx.anonymous.get("/scim/v2/Users", { headers: { authorization: `Bearer ${other.body.token}` } });
    expect(revoked.status).toBe(401);
    expect(revoked.body.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
    expect((await ctx.anonymous.get("/scim/v2/Users", { headers: { authorization: "Bearer nope" } })).status).toBe(401);
  });
});

describe("discovery", () => {
  it("answers ServiceProviderConfig, ResourceTypes and Schemas", async () => {
    const config = await scim().get("/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect(config.body.patch.supported).toBe(true);
    expect(config.body.etag.supported).toBe(true);
    expect((await scim().get("/ResourceTypes")).body.totalResults).toBe(2);
    expect((await scim().get("/Schemas")).body.Resources.map((s: { name: string }) => s.name)).toEqual(["User", "Group"]);
  });
});

describe("Okta's sequence", () => {
  it("looks up, creates, reads, updates with PUT, deactivates, and pushes groups", async () => {
    const s = scim();
    const none = await s.get(`/Users?filter=${encodeURIComponent('userName eq "olga@okta.test"')}&startIndex=1&count=100`);
    expect(none.status).toBe(200);
    expect(none.body.totalResults).toBe(0);
    const created = await s.post("/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "olga@okta.test",
      name: { givenName: "Olga", familyName: "Okta" },
      emails: [{ primary: true, value: "olga@okta.test", type: "work" }],
      displayName: "Olga Okta",
      locale: "en-US",
      externalId: "00u1",
      groups: [],
      password: "ignored",
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toContain("application/scim+json");
    expect(created.headers.etag).toBe(created.body.meta.version);
    const id = created.body.id;
    const member = await ctx.db
      .selectFrom("members")
      .selectAll()
      .where("orgId", "=", orgId)
      .where("userId", "=", id)
      .executeTakeFirstOrThrow();
    expect(member.sso).toBe(1);
    const user = await ctx.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(user.emailVouchedBy).toBe(orgId);
    expect((await s.post("/Users", { userName: "olga@okta.test" })).status).toBe(409);
    const found = await s.get(`/Users?filter=${encodeURIComponent('userName eq "olga@okta.test"')}`);
    expect(found.body.Resources[0].id).toBe(id);
    expect((await s.get(`/Users?filter=${encodeURIComponent('externalId eq "00u1"')}`)).body.totalResults).toBe(1);

    const put = await s.put(`/Users/${id}`, {
      ...created.body,
      name: { givenName: "Olga", familyName: "Renamed" },
      displayName: undefined,
    });
    expect(put.status).toBe(200);
    expect(put.body.displayName).toBe("Olga Renamed");
    // A stale ETag is refused.
    expect(
      (
        await s.patch(
          `/Users/${id}`,
          { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] },
          { "if-match": created.body.meta.version },
        )
      ).status,
    ).toBe(412);
    const off = await s.patch(
      `/Users/${id}`,
      { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] },
      { "if-match": put.body.meta.version },
    );
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await ctx.db.selectFrom("members").select("disabled").where("userId", "=", id).executeTakeFirstOrThrow()).disabled).toBe(1);

    const group = await s.post("/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Engineering",
      members: [],
    });
    expect(group.status).toBe(201);
    const added = await s.patch(`/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "add", path: "members", value: [{ value: id, display: "olga@okta.test" }] }],
    });
    expect(added.body.members.map((m: { value: string }) => m.value)).toEqual([id]);
    const renamed = await s.patch(`/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "replace", value: { id: group.body.id, displayName: "Engineers" } }],
    });
    expect(renamed.body.displayName).toBe("Engineers");
    const removed = await s.patch(`/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "remove", path: `members[value eq "${id}"]` }],
    });
    expect(removed.body.members).toEqual([]);
    expect((await s.delete(`/Groups/${group.body.id}`)).status).toBe(204);
    expect((await s.get(`/Groups/${group.body.id}`)).status).toBe(404);
  });
});

describe("Microsoft Entra's sequence", () => {
  it("probes, creates, patches with capitalised ops and string booleans, manages group members, deletes", async () => {
    const s = scim();
    const probe = await s.get(`/Users?filter=${encodeURIComponent('userName eq "non-existent-user-7f3a"')}`);
    expect(probe.body).toMatchObject({ totalResults: 0, Resources: [] });
    const created = await s.post("/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "edith",
      userName: "edith@entra.test",
      active: true,
      displayName: "Edith Entra",
      emails: [{ primary: true, type: "work", value: "edith@entra.test" }],
      meta: { resourceType: "User" },
      name: { formatted: "Edith Entra", familyName: "Entra", givenName: "Edith" },
      roles: [],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patched = await s.patch(`/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: "Replace", path: "name.familyName", value: "Entrada" },
        { op: "Add", path: 'emails[type eq "work"].value', value: "edith@entra.test" },
        { op: "Replace", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Docs" },
        { op: "Replace", path: "active", value: "False" },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.active).toBe(false);
    expect(patched.body.name.familyName).toBe("Entrada");

    const group = await s.post("/Groups", {
      externalId: "g1",
      displayName: "Writers",
      meta: { resourceType: "Group" },
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
    });
    expect(group.status).toBe(201);
    const filtered = await s.get(`/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Writers"')}`);
    expect(filtered.body.Resources[0].members).toBeUndefined();
    await s.patch(`/Groups/${group.body.id}`, { schemas: [PATCH], Operations: [{ op: "Add", path: "members", value: [{ value: id }] }] });
    const has = await s.get(
      `/Groups?filter=${encodeURIComponent(`id eq "${group.body.id}" and members[value eq "${id}"]`)}&excludedAttributes=members`,
    );
    expect(has.body.totalResults).toBe(1);
    await s.patch(`/Groups/${group.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }],
    });
    expect((await s.get(`/Groups/${group.body.id}`)).body.members).toEqual([]);

    expect((await s.delete(`/Users/${id}`)).status).toBe(204);
    expect((await s.get(`/Users/${id}`)).status).toBe(404);
    // The account stays (it may hold content); only the membership ends.
    expect(await ctx.db.selectFrom("users").select("id").where("id", "=", id).executeTakeFirst()).toBeDefined();
  });
});

describe("refusals", () => {
  it("does not take over an account outside the organization, nor reach another organization's members", async () => {
    const s = scim();
    const outsider = await createUser(ctx, { displayName: "Outsider" });
    const taken = await s.post("/Users", { userName: outsider.email });
    expect(taken.status).toBe(409);
    expect(taken.body.scimType).toBe("uniqueness");
    const elsewhere = await createOrganization(ctx, outsider, "Elsewhere");
    expect(elsewhere.id).not.toBe(orgId);
    expect((await s.get(`/Users/${outsider.id}`)).status).toBe(404);
    expect(
      (await s.patch(`/Users/${outsider.id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] })).status,
    ).toBe(404);
    expect((await s.delete(`/Users/${outsider.id}`)).status).toBe(404);
    const bad = await s.get(`/Users?filter=${encodeURIComponent('title co "x"')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.scimType).toBe("invalidFilter");
    expect((await s.patch(`/Users/${owner.id}`, { Operations: [] })).status).toBe(400);
  });

  it("pages with startIndex and count", async () => {
    const s = scim();
    for (const n of [1, 2, 3]) expect((await s.post("/Users", { userName: `page${n}@okta.test` })).status).toBe(201);
    const all = await s.get("/Users?count=1000");
    const page = await s.get("/Users?startIndex=2&count=2");
    expect(page.body.startIndex).toBe(2);
    expect(page.body.itemsPerPage).toBe(2);
    expect(page.body.totalResults).toBe(all.body.totalResults);
    expect(page.body.Resources.map((r: { id: string }) => r.id)).toEqual(all.body.Resources.slice(1, 3).map((r: { id: string }) => r.id));
  });

  it("returns only the attributes asked for, or all but the excluded ones, in reads, lists and writes", async () => {
    const s = scim();
    const created = await s.post("/Users?attributes=userName", {
      userName: "attrs@okta.test",
      name: { givenName: "Ada", familyName: "Byron" },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(["id", "schemas", "userName"]);
    const id = created.body.id as string;

    const some = await s.get(
      `/Users/${id}?attributes=${encodeURIComponent("name.givenName,urn:ietf:params:scim:schemas:core:2.0:User:emails.value,ACTIVE")}`,
    );
    expect(some.status).toBe(200);
    expect(some.body).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      id,
      name: { givenName: "Ada" },
      emails: [{ value: "attrs@okta.test" }],
      active: true,
    });
    expect(some.headers.etag).toMatch(/^W\/"/);

    const without = await s.get(`/Users/${id}?excludedAttributes=${encodeURIComponent("groups,name.familyName,id,meta")}`);
    expect(without.body.id).toBe(id);
    expect(without.body.groups).toBeUndefined();
    expect(without.body.meta).toBeUndefined();
    expect(without.body.name).toEqual({ formatted: "Ada Byron", givenName: "Ada" });
    expect(without.body.userName).toBe("attrs@okta.test");

    const list = await s.get(`/Users?attributes=userName&filter=${encodeURIComponent('userName eq "attrs@okta.test"')}`);
    expect(list.body.totalResults).toBe(1);
    expect(list.body.Resources).toEqual([{ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], id, userName: "attrs@okta.test" }]);
  });
});
