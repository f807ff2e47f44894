/**
 * How entries are recorded: in the transaction of the change (a rollback takes the entry with it),
 * from the web app's forms, sign-ins and failed sign-ins, and their deletion by retention only.
 */
import { sql } from "kysely";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoginLink } from "../src/apps/web/web.queries.js";
import { AuditScope, currentAuditScope, flushAudit, inAuditScope } from "../src/db/audit.js";
import type { JobContext } from "../src/jobs/registry.js";
import { purgeAuditEventsJob } from "../src/modules/audit/audit.jobs.js";
import { createTestContext, type TestContext, type TestUser } from "./helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "./helpers/factories.js";
import { WebClient } from "./helpers/web.js";

let ctx: TestContext;
let owner: TestUser;
let member: TestUser;
let orgId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await createUser(ctx, { displayName: "Owner" });
  member = await createUser(ctx, { displayName: "Member" });
  orgId = (await createOrganization(ctx, owner, "Recorded")).id;
  await addMemberToOrg(ctx, orgId, member, "read");
});
afterAll(() => ctx?.close());

const entries = (action: string) =>
  ctx.db.selectFrom("auditEvents").selectAll().where("orgId", "=", orgId).where("action", "=", action).orderBy("occurredAt").execute();

describe("in the transaction of the change", () => {
  const route = () => ({ action: "test.rename", url: "/v1/orgs/:organizationId", params: { organizationId: orgId }, body: { title: "x" } });

  it("a transaction that rolls back writes no entry, and the scope still owes it to the next one that commits", async () => {
    const scope = new AuditScope({ source: "api" }, route());
    scope.actor = { type: "user", id: owner.id };
    await inAuditScope(scope, async () => {
      await expect(
        ctx.db.transaction().execute(async (trx) => {
          await trx.updateTable("organizations").set({ title: "Never" }).where("id", "=", orgId).execute();
          throw new Error("refused after the change");
        }),
      ).rejects.toThrow("refused after the change");
      expect(await entries("test.rename")).toEqual([]);
      expect(scope.owes).toBe(true);
      await ctx.db
        .transaction()
        .execute((trx) => trx.updateTable("organizations").set({ title: "Renamed" }).where("id", "=", orgId).execute());
    });
    const written = await entries("test.rename");
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ actorId: owner.id, targetType: "organization", targetId: orgId, source: "api" });
    expect(scope.owes).toBe(false);
    // Written once: a later transaction of the same scope adds nothing.
    await inAuditScope(scope, () => ctx.db.transaction().execute(async () => undefined));
    await flushAudit(ctx.db, scope);
    expect(await entries("test.rename")).toHaveLength(1);
  });

  it("the entry is one of the transaction's statements: it is not visible outside before the commit", async () => {
    const scope = new AuditScope({ source: "api" }, { ...route(), action: "test.atomic" });
    let seenOutside = -1;
    await inAuditScope(scope, () =>
      ctx.db.transaction().execute(async (trx) => {
        await trx.updateTable("organizations").set({ title: "Atomic" }).where("id", "=", orgId).execute();
        // PostgreSQL: another connection; SQLite (one connection, serialized): the count is read after the commit.
        seenOutside = ctx.dialect === "postgres" ? (await entries("test.atomic")).length : 0;
      }),
    );
    expect(seenOutside).toBe(0);
    expect(await entries("test.atomic")).toHaveLength(1);
  });
});

describe("the scope of concurrent requests", () => {
  it("each sees its own scope while the other starts and ends, and nothing is in scope once both ended", async () => {
    const first = new AuditScope({ source: "api" });
    const second = new AuditScope({ source: "api" });
    let endFirst!: () => void;
    const firstBlocked = new Promise<void>((resolve) => (endFirst = resolve));
    const seen: (AuditScope | undefined)[] = [];
    const one = inAuditScope(first, async () => {
      await firstBlocked;
      seen.push(currentAuditScope());
    });
    // The second request starts and ends while the first is still open.
    await inAuditScope(second, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(currentAuditScope());
    });
    expect(currentAuditScope()).toBeUndefined();
    endFirst();
    await one;
    expect(seen).toEqual([second, first]);
    // Outside any scope (the storage is off while none is open), and again inside a new one.
    expect(await Promise.resolve().then(() => currentAuditScope())).toBeUndefined();
    const third = new AuditScope({ source: "api" });
    expect(await inAuditScope(third, async () => currentAuditScope())).toBe(third);
    // A scope whose function throws, synchronously or not, ends too.
    expect(() =>
      inAuditScope(third, () => {
        throw new Error("sync");
      }),
    ).toThrow("sync");
    await expect(inAuditScope(third, async () => Promise.reject(new Error("async")))).rejects.toThrow("async");
    expect(await inAuditScope(first, async () => currentAuditScope())).toBe(first);
  });
});

describe("a write made by a single statement, outside a transaction", () => {
  const route = (action: string) => ({ action, url: "/v1/orgs/:organizationId", params: { organizationId: orgId }, body: {} });
  const titleOf = async () =>
    (await ctx.db.selectFrom("organizations").select("title").where("id", "=", orgId).executeTakeFirstOrThrow()).title;
  /** Counts the transactions `fn` opens through `ctx.db.transaction()` (the audited builder calls it for a lone write too). */
  async function countingTransactions<T>(fn: () => Promise<T>): Promise<number> {
    const original = ctx.db.transaction;
    let opened = 0;
    ctx.db.transaction = (() => {
      opened++;
      return original.call(ctx.db);
    }) as typeof original;
    try {
      await fn();
    } finally {
      ctx.db.transaction = original;
    }
    return opened;
  }

  it("commits with its entry: the entry is written by the statement's own transaction, not at the request's end", async () => {
    const scope = new AuditScope({ source: "api" }, route("test.lone-write"));
    scope.actor = { type: "user", id: owner.id };
    await inAuditScope(scope, () => ctx.db.updateTable("organizations").set({ title: "Lone write" }).where("id", "=", orgId).execute());
    expect(scope.owes).toBe(false);
    expect(await entries("test.lone-write")).toHaveLength(1);
    expect(await titleOf()).toBe("Lone write");
  });

  it("a failure after the write, while its entry is written, rolls back the write too", async () => {
    const before = await titleOf();
    const scope = new AuditScope({ source: "api" }, route("test.lone-failure"));
    scope.actorOf = () => {
      throw new Error("injected: the entry cannot be written");
    };
    await expect(
      inAuditScope(scope, () => ctx.db.updateTable("organizations").set({ title: "Never written" }).where("id", "=", orgId).execute()),
    ).rejects.toThrow("injected");
    expect(await titleOf()).toBe(before);
    expect(await entries("test.lone-failure")).toEqual([]);
    // Still owed: the request's end decides (an error answer drops the route's entry).
    expect(scope.owes).toBe(true);
  });

  it("a write that fails leaves no entry", async () => {
    const scope = new AuditScope({ source: "api" }, route("test.lone-refused"));
    scope.actor = { type: "user", id: owner.id };
    const existing = await ctx.db.selectFrom("organizations").selectAll().where("id", "=", orgId).executeTakeFirstOrThrow();
    // The same primary key again: refused by the database.
    await expect(inAuditScope(scope, () => ctx.db.insertInto("organizations").values(existing).execute())).rejects.toThrow();
    expect(await entries("test.lone-refused")).toEqual([]);
    scope.dropRouteEntry();
    await flushAudit(ctx.db, scope);
    expect(await entries("test.lone-refused")).toEqual([]);
  });

  it("reads open no transaction, nor do writes outside a scope or once the scope owes nothing", async () => {
    const scope = new AuditScope({ source: "api" }, route("test.lone-reads"));
    scope.actor = { type: "user", id: owner.id };
    const reads = await countingTransactions(() =>
      inAuditScope(scope, async () => {
        await titleOf();
        await ctx.db.selectFrom("members").select("userId").where("orgId", "=", orgId).execute();
      }),
    );
    expect(reads).toBe(0);
    const outside = await countingTransactions(() =>
      ctx.db.updateTable("organizations").set({ title: "Outside a scope" }).where("id", "=", orgId).execute(),
    );
    expect(outside).toBe(0);
    const writes = await countingTransactions(() =>
      inAuditScope(scope, async () => {
        await ctx.db.updateTable("organizations").set({ title: "First write" }).where("id", "=", orgId).execute();
        await ctx.db.updateTable("organizations").set({ title: "Second write" }).where("id", "=", orgId).execute();
      }),
    );
    // The first write carries the entry; the second, owing nothing, runs alone.
    expect(writes).toBe(1);
    expect(await entries("test.lone-reads")).toHaveLength(1);
  });

  it("through the API: an entry that cannot be written keeps a route's single-statement change from happening", async () => {
    const before = await titleOf();
    const refuse =
      ctx.dialect === "postgres"
        ? [
            sql`CREATE FUNCTION refuse_org_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit entry refused'; END $$`,
            sql`CREATE TRIGGER refuse_org_audit BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.action = 'updateOrganizationById') EXECUTE FUNCTION refuse_org_audit()`,
          ]
        : [
            sql`CREATE TRIGGER refuse_org_audit BEFORE INSERT ON audit_events WHEN NEW.action = 'updateOrganizationById' BEGIN SELECT RAISE(ABORT, 'audit entry refused'); END`,
          ];
    for (const statement of refuse) await statement.execute(ctx.db);
    try {
      const refused = await ctx.as(owner).patch(`/v1/orgs/${orgId}`, { title: "Unaudited title" });
      expect(refused.status).toBe(500);
      expect(await titleOf()).toBe(before);
    } finally {
      await sql`DROP TRIGGER refuse_org_audit${sql.raw(ctx.dialect === "postgres" ? " ON audit_events" : "")}`.execute(ctx.db);
      if (ctx.dialect === "postgres") await sql`DROP FUNCTION refuse_org_audit()`.execute(ctx.db);
    }
    const renamed = await ctx.as(owner).patch(`/v1/orgs/${orgId}`, { title: "Audited title" });
    expect(renamed.status).toBe(200);
    expect(await titleOf()).toBe("Audited title");
    const [entry] = await entries("updateOrganizationById");
    expect(entry).toMatchObject({ actorId: owner.id, targetType: "organization", targetId: orgId });
  });
});

describe("from the web app", () => {
  it("a form's change is recorded with the member who posted it, its fields, never the CSRF token", async () => {
    const browser = await WebClient.signedIn(ctx, owner);
    const page = await browser.get(`/app/o/${orgId}/members`);
    expect(page.status).toBe(200);
    const posted = await browser.post(`/app/o/${orgId}/members/${member.id}/role`, { _csrf: WebClient.csrfOf(page.text), role: "edit" });
    expect(posted.status).toBe(303);
    const [entry] = await entries("app.members.role");
    expect(entry).toMatchObject({ actorType: "user", actorId: owner.id, source: "ui", targetType: "user", targetId: member.id });
    expect(JSON.parse(entry!.payload)).toEqual({ params: { org: orgId, userId: member.id }, fields: { role: "edit" } });
  });

  it("sign-ins are recorded in the member's organizations; a used sign-in link is a failed sign-in", async () => {
    const before = (await entries("sign_in")).length;
    await WebClient.signedIn(ctx, member);
    const signIns = await entries("sign_in");
    expect(signIns).toHaveLength(before + 1);
    expect(signIns.at(-1)).toMatchObject({ actorId: member.id, actorLabel: member.email, targetId: member.id, source: "ui" });
    expect(JSON.parse(signIns.at(-1)!.payload)).toEqual({ method: "link", providerId: null });

    // A link used a second time (here from a browser that has a page's CSRF token) fails: 410.
    const { token } = await createLoginLink(ctx.db, member.id);
    const browser = new WebClient(ctx);
    const form = await browser.get(`/app/login/link/${token}`);
    const csrf = WebClient.csrfOf(form.text);
    expect((await browser.post(`/app/login/link/${token}`, { _csrf: csrf })).status).toBe(303);
    const again = await browser.post(`/app/login/link/${token}`, { _csrf: WebClient.csrfOf((await browser.get("/app/tokens")).text) });
    expect(again.status).toBe(410);
    const failed = await ctx.db.selectFrom("auditEvents").selectAll().where("action", "=", "sign_in.failed").execute();
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ actorType: "system", actorId: "anonymous", targetType: "sign-in", address: "127.0.0.1" });
    // The link is a credential: not stored, not even as the route's parameter.
    expect(JSON.stringify(failed)).not.toContain(token);
  });

  it("a SAML response that does not verify is a failed sign-in in the provider's organization, without the response", async () => {
    const provider = await ctx.as(owner).post(`/v1/orgs/${orgId}/saml`, { label: "Broken IdP" });
    expect(provider.status).toBe(201);
    const response = Buffer.from("<samlp:Response>forged</samlp:Response>").toString("base64");
    const answer = await new WebClient(ctx).post(`/saml/${provider.body.id}/acs`, { SAMLResponse: response });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    const [failed] = await entries("sign_in.failed");
    expect(failed).toMatchObject({
      actorType: "system",
      actorId: "anonymous",
      targetType: "identity-provider",
      targetId: provider.body.id,
    });
    expect(JSON.parse(failed!.payload)).toMatchObject({ params: { providerId: provider.body.id }, status: answer.status });
    expect(failed!.payload).not.toContain(response);
  });
});

describe("retention", () => {
  it("the purge job deletes events older than the retention setting, and only those", async () => {
    const old = new Date(Date.now() - 400 * 24 * 60 * 60_000).toISOString();
    const recent = new Date(Date.now() - 300 * 24 * 60 * 60_000).toISOString();
    const row = (id: string, occurredAt: string) => ({
      id,
      orgId,
      occurredAt,
      action: "test.retention",
      source: "api",
      actorType: "user",
      actorId: owner.id,
      actorLabel: null,
      tokenId: null,
      targetType: "organization",
      targetId: orgId,
      targetLabel: null,
      address: null,
      userAgent: null,
      requestId: null,
      payload: "{}",
    });
    await ctx.db
      .insertInto("auditEvents")
      .values([row("00000000-0000-4000-8000-000000000001", old), row("00000000-0000-4000-8000-000000000002", recent)])
      .execute();
    const run = (days: number) =>
      purgeAuditEventsJob.run({}, {
        db: ctx.db,
        config: { ...ctx.config, auditRetentionDays: days },
        log: pino({ level: "silent" }),
      } as JobContext);
    await run(365);
    expect((await entries("test.retention")).map((e) => e.occurredAt)).toEqual([recent]);
    await run(30);
    expect(await entries("test.retention")).toEqual([]);
  });
});

describe("the web app's audit page", () => {
  it("shows admins the events, with the export of the same filters; others get 403 or 404; a wrong date is a 400", async () => {
    const admin = await WebClient.signedIn(ctx, owner);
    const page = await admin.get(`/app/o/${orgId}/settings/audit?action=app.members.role`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("app.members.role");
    expect(page.text).toContain(`href="/app/o/${orgId}/settings/audit.jsonl?action=app.members.role"`);
    const exported = await admin.get(`/app/o/${orgId}/settings/audit.jsonl?action=app.members.role`);
    expect(exported.status).toBe(200);
    const lines = exported.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => e.action)).toEqual(lines.map(() => "app.members.role"));
    expect(lines.length).toBeGreaterThan(0);

    expect((await admin.get(`/app/o/${orgId}/settings/audit?from=31/01/2026`)).status).toBe(400);
    const reader = await WebClient.signedIn(ctx, member);
    expect((await reader.get(`/app/o/${orgId}/settings/audit`)).status).toBe(403);
    expect((await reader.get(`/app/o/${orgId}/settings/audit.jsonl`)).status).toBe(403);
    const outsider = await WebClient.signedIn(ctx, await createUser(ctx));
    expect((await outsider.get(`/app/o/${orgId}/settings/audit`)).status).toBe(404);
  });
});
