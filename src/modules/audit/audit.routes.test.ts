/** The audit log's read operations (GitBook 0.202's shapes), its export, and who may read it. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "../../../test/helpers/factories.js";
import { checkResponse0202 } from "../../../test/helpers/spec-0202.js";

let ctx: TestContext;
let owner: TestUser;
let reader: TestUser;
let outsider: TestUser;
let orgId: string;
let otherOrgId: string;
let otherOwner: TestUser;

const LIST = "GET /orgs/{organizationId}/audit-events";
const GET = "GET /orgs/{organizationId}/audit-events/{auditEventId}";
const ACTIONS = "GET /orgs/{organizationId}/audit-event-actions";

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await createUser(ctx, { displayName: "Owner" });
  reader = await createUser(ctx, { displayName: "Reader" });
  outsider = await createUser(ctx, { displayName: "Outsider" });
  orgId = (await createOrganization(ctx, owner, "Audited")).id;
  await addMemberToOrg(ctx, orgId, reader, "read");
  otherOwner = await createUser(ctx, { displayName: "Other owner" });
  otherOrgId = (await createOrganization(ctx, otherOwner, "Other")).id;
});
afterAll(() => ctx?.close());

const events = (user: TestUser, query = "") => ctx.as(user).get(`/v1/orgs/${orgId}/audit-events${query}`);

describe("recording through the API", () => {
  it("a role change is one entry: who (user and token), what (action, target, fields), when, from where", async () => {
    const changed = await ctx
      .as(owner)
      .patch(`/v1/orgs/${orgId}/members/${reader.id}`, { role: "edit" }, { headers: { "user-agent": "audit-test/1" } });
    expect(changed.status).toBe(200);
    const list = await events(owner, `?action=updateMemberInOrganizationById`);
    expect(list.status).toBe(200);
    expect(checkResponse0202(LIST, list.body)).toEqual([]);
    expect(list.body.items).toHaveLength(1);
    const [event] = list.body.items;
    expect(event).toMatchObject({
      object: "audit-event",
      action: "updateMemberInOrganizationById",
      actor: { type: "user", id: owner.id, label: owner.email },
      source: "api",
      target: { type: "user", id: reader.id },
    });
    const details = await ctx.as(owner).get(`/v1/orgs/${orgId}/audit-events/${event.id}`);
    expect(details.status).toBe(200);
    expect(checkResponse0202(GET, details.body)).toEqual([]);
    expect(details.body.payload.fields).toEqual({ role: "edit" });
    expect(details.body.payload.origin.userAgent).toBe("audit-test/1");
    expect(details.body.payload.origin.address).toBe("127.0.0.1");
    const [token] = await ctx.db.selectFrom("apiTokens").select("id").where("userId", "=", owner.id).execute();
    expect(details.body.payload.origin.tokenId).toBe(token!.id);
    expect(details.body.urls.location).toBe(`${ctx.urls.api(`/orgs/${orgId}/audit-events/${event.id}`)}`);
  });

  it("a refused or failed write leaves no entry", async () => {
    const before = (await events(owner)).body.count;
    expect((await ctx.as(reader).patch(`/v1/orgs/${orgId}/members/${owner.id}`, { role: "read" })).status).toBe(403);
    expect((await ctx.as(owner).patch(`/v1/orgs/${orgId}/members/${reader.id}`, { role: "nope" })).status).toBe(400);
    expect((await events(owner)).body.count).toBe(before);
  });

  it("a creation's target is the created object, in the organization it was created in", async () => {
    const created = await ctx.as(owner).post(`/v1/orgs/${orgId}/spaces`, { title: "Audited space" });
    expect(created.status).toBe(201);
    const list = await events(owner, `?target=${created.body.id}`);
    expect(list.body.items.map((e: { action: string; target: unknown }) => [e.action, e.target])).toEqual([
      ["createSpace", { type: "space", id: created.body.id }],
    ]);
    // A change to the space (addressed by its own id) belongs to its organization.
    expect((await ctx.as(owner).patch(`/v1/spaces/${created.body.id}`, { title: "Renamed" })).status).toBe(200);
    const renamed = await events(owner, `?action=updateSpaceById&target=${created.body.id}`);
    expect(renamed.body.count).toBe(1);
  });
});

describe("listOrganizationAuditEvents", () => {
  it("pages newest first with next.page, and filters by actor, target, action and time", async () => {
    const all = await events(owner);
    expect(all.body.count).toBeGreaterThanOrEqual(3);
    const first = await events(owner, "?limit=1");
    expect(checkResponse0202(LIST, first.body)).toEqual([]);
    expect(first.body.items).toHaveLength(1);
    const second = await events(owner, `?limit=1&page=${first.body.next.page}`);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect(second.body.items[0].occurredAt <= first.body.items[0].occurredAt).toBe(true);
    expect([first.body.items[0].id, second.body.items[0].id]).toEqual(all.body.items.slice(0, 2).map((e: { id: string }) => e.id));

    const byActor = await events(owner, `?actor=${owner.id}`);
    expect(byActor.body.items.every((e: { actor: { id: string } }) => e.actor.id === owner.id)).toBe(true);
    expect((await events(owner, `?actor=${outsider.id}`)).body.count).toBe(0);

    const newest = all.body.items[0].occurredAt;
    const future = new Date(Date.parse(newest) + 60_000).toISOString();
    expect((await events(owner, `?from=${encodeURIComponent(future)}`)).body.count).toBe(0);
    expect((await events(owner, `?to=${encodeURIComponent(future)}`)).body.count).toBe(all.body.count);
    expect((await events(owner, `?from=${encodeURIComponent(newest)}&to=${encodeURIComponent(newest)}`)).body.count).toBeGreaterThanOrEqual(
      1,
    );
  });

  it("treats filters as values, never as SQL", async () => {
    const hostile = encodeURIComponent("x' OR '1'='1");
    for (const field of ["action", "actor", "target"]) {
      const answer = await events(owner, `?${field}=${hostile}`);
      expect(answer.status, field).toBe(200);
      expect(answer.body.count, field).toBe(0);
    }
  });

  it("refuses bad input with 400 and a message", async () => {
    for (const query of ["?limit=101", "?limit=0", "?from=yesterday", "?page=not-a-cursor", `?action=${"a".repeat(201)}`]) {
      const answer = await events(owner, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.message, query).toEqual(expect.any(String));
    }
  });

  it("admins only: members get 403, outsiders and other organizations' admins 404", async () => {
    expect((await events(reader)).status).toBe(403);
    expect((await events(outsider)).status).toBe(404);
    expect((await events(otherOwner)).status).toBe(404);
    expect((await ctx.as(reader).get(`/v1/orgs/${orgId}/audit-event-actions`)).status).toBe(403);
    expect((await ctx.as(reader).get(`/v1/orgs/${orgId}/audit-events.jsonl`)).status).toBe(403);
    expect((await ctx.anonymous.get(`/v1/orgs/${orgId}/audit-events`)).status).toBe(401);
  });
});

describe("getOrganizationAuditEvent", () => {
  it("answers 404 for another organization's event and for an unknown id", async () => {
    expect((await ctx.as(otherOwner).post(`/v1/orgs/${otherOrgId}/spaces`, { title: "Elsewhere" })).status).toBe(201);
    const theirs = (await ctx.as(otherOwner).get(`/v1/orgs/${otherOrgId}/audit-events`)).body.items[0];
    expect(theirs.action).toBe("createSpace");
    expect((await ctx.as(owner).get(`/v1/orgs/${orgId}/audit-events/${theirs.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${otherOrgId}/audit-events/${theirs.id}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${orgId}/audit-events/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    // Nothing of the other organization is listed in this one.
    expect((await events(owner, `?target=${theirs.target.id}`)).body.count).toBe(0);
  });

  it("has no route that edits or deletes an event", async () => {
    const id = (await events(owner)).body.items[0].id;
    for (const method of ["PUT", "PATCH", "DELETE"] as const) {
      const answer = await ctx.app.inject({
        method,
        url: `/v1/orgs/${orgId}/audit-events/${id}`,
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect(answer.statusCode, method).toBe(404);
    }
    expect((await ctx.as(owner).get(`/v1/orgs/${orgId}/audit-events/${id}`)).status).toBe(200);
  });
});

describe("listOrganizationAuditEventActions", () => {
  it("lists every action with a label: each audited route's and the sign-in and token ones", async () => {
    const answer = await ctx.as(owner).get(`/v1/orgs/${orgId}/audit-event-actions`);
    expect(answer.status).toBe(200);
    expect(checkResponse0202(ACTIONS, answer.body)).toEqual([]);
    const ids = answer.body.items.map((a: { id: string }) => a.id);
    for (const id of [
      "sign_in",
      "sign_in.failed",
      "api_token.created",
      "api_token.revoked",
      "updateMemberInOrganizationById",
      "createSpace",
    ]) {
      expect(ids).toContain(id);
    }
    expect(ids).not.toContain("updateOrganizationMemberLastSeenAt");
  });
});

describe("export as JSON lines", () => {
  it("streams every matching event with its details, oldest first", async () => {
    // Not through ctx.as: its JSON parsing would read the whole answer as one document.
    const exported = (query = "") =>
      ctx.app.inject({ url: `/v1/orgs/${orgId}/audit-events.jsonl${query}`, headers: { authorization: `Bearer ${owner.token}` } });
    const answer = await exported();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/jsonl; charset=utf-8");
    const lines = answer.body
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const listed = (await events(owner, "?limit=100")).body;
    expect(lines).toHaveLength(listed.count);
    expect(lines.map((e) => e.id)).toEqual(listed.items.map((e: { id: string }) => e.id).reverse());
    for (const line of lines) expect(checkResponse0202(GET, line)).toEqual([]);
    const filtered = await exported("?action=createSpace");
    expect(
      filtered.body
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).action),
    ).toEqual(["createSpace"]);
  });
});
