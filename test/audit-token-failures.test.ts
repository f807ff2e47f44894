/**
 * A request with a bad API token is a failed sign-in in the audit log, without the token, and a
 * client refused many times a minute makes a bounded number of entries (http/token-failures.ts).
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFailureAuditOf } from "../src/http/authenticate.js";
import { addressKey, MAX_ADDRESSES, TokenFailureAudit, tokenFingerprint, WINDOW_MS } from "../src/http/token-failures.js";
import { hashToken } from "../src/lib/ids.js";
import { revokeApiToken } from "../src/modules/users/tokens.queries.js";
import { createTestContext, type TestContext, type TestUser } from "./helpers/app.js";
import { addMemberToOrg, createOrganization, createUser } from "./helpers/factories.js";

let ctx: TestContext;
let owner: TestUser;
let orgId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await createUser(ctx, { displayName: "Owner" });
  orgId = (await createOrganization(ctx, owner, "Guarded")).id;
});
afterAll(() => ctx?.close());

const failed = (address: string) =>
  ctx.db
    .selectFrom("auditEvents")
    .selectAll()
    .where("action", "=", "sign_in.failed")
    .where("address", "=", address)
    .orderBy("occurredAt")
    .execute();

const call = (address: string, authorization?: string) =>
  ctx.app.inject({ method: "GET", url: "/v1/user", remoteAddress: address, headers: authorization ? { authorization } : {} });

describe("a bad API token", () => {
  it("an unknown token is a failed sign-in of no organization, with its fingerprint and never the token", async () => {
    const token = `qr_${"x".repeat(40)}`;
    expect((await call("192.0.2.10", `Bearer ${token}`)).statusCode).toBe(401);
    const [entry, ...more] = await failed("192.0.2.10");
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ orgId: null, actorType: "system", actorId: "anonymous", targetType: "sign-in", source: "api" });
    expect(JSON.parse(entry!.payload)).toEqual({ method: "api_token", reason: "unknown", fingerprint: tokenFingerprint(token) });
    const stored = JSON.stringify(entry);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain("x".repeat(20));
    expect(stored).not.toContain(hashToken(token));
  });

  it("a revoked token is a failed sign-in in its holder's organizations, naming the token by id", async () => {
    const holder = await createUser(ctx);
    await addMemberToOrg(ctx, orgId, holder, "read");
    const tokenRow = await ctx.db.selectFrom("apiTokens").select("id").where("userId", "=", holder.id).executeTakeFirstOrThrow();
    expect(await revokeApiToken(ctx.db, holder.token)).toBe(true);
    expect((await call("192.0.2.11", `Bearer ${holder.token}`)).statusCode).toBe(401);
    const [entry] = await failed("192.0.2.11");
    expect(entry).toMatchObject({ orgId, targetType: "api-token", targetId: tokenRow.id });
    expect(JSON.parse(entry!.payload)).toMatchObject({ reason: "revoked", userId: holder.id });
    expect(JSON.stringify(entry)).not.toContain(holder.token);
  });

  it("a malformed Authorization header is a failed sign-in without any of it; a missing one is none", async () => {
    expect((await call("192.0.2.12", "Basic dXNlcjpzZWNyZXQ=")).statusCode).toBe(401);
    const [entry] = await failed("192.0.2.12");
    expect(JSON.parse(entry!.payload)).toEqual({ method: "api_token", reason: "malformed", fingerprint: null });
    expect(JSON.stringify(entry)).not.toContain("dXNlcjpzZWNyZXQ=");
    expect((await call("192.0.2.13")).statusCode).toBe(401);
    expect(await failed("192.0.2.13")).toEqual([]);
  });

  it("a flood from one address is one entry at once and one summary when the minute is over", async () => {
    for (let i = 0; i < 25; i++) expect((await call("192.0.2.14", `Bearer qr_flood${i}`)).statusCode).toBe(401);
    // The first of the minute at once; the other 24 counted (unless the minute turned meanwhile).
    const now = await failed("192.0.2.14");
    expect(now.length).toBeLessThanOrEqual(2);
    await tokenFailureAuditOf(ctx.db)!.close();
    const all = await failed("192.0.2.14");
    expect(all.length).toBeLessThanOrEqual(3);
    const counted = all.map((e) => JSON.parse(e.payload)).reduce((sum, p) => sum + (p.repeated ?? 1), 0);
    expect(counted).toBe(25);
    const summary = JSON.parse(all.at(-1)!.payload);
    expect(summary).toMatchObject({ method: "api_token", reasons: { unknown: summary.repeated } });
    expect(Date.parse(summary.to) - Date.parse(summary.from)).toBe(WINDOW_MS);
  });
});

describe("the bound", () => {
  it(`follows at most ${MAX_ADDRESSES} addresses a minute: at most 2 × ${MAX_ADDRESSES} + 1 entries, every failure counted`, async () => {
    let clock = Date.parse("2026-01-05T10:00:05Z");
    const recorder = new TokenFailureAudit(ctx.db, pino({ level: "silent" }), () => clock);
    const addresses = Array.from({ length: MAX_ADDRESSES + 50 }, (_, i) => `198.51.${Math.floor(i / 200)}.${i % 200}`);
    for (let round = 0; round < 3; round++) {
      for (const address of addresses) await recorder.note({ reason: "unknown", token: `qr_${round}`, address });
    }
    const mine = () =>
      ctx.db.selectFrom("auditEvents").selectAll().where("action", "=", "sign_in.failed").where("address", "like", "198.51.%").execute();
    expect(await mine()).toHaveLength(MAX_ADDRESSES);
    // The minute is not over: nothing more.
    await recorder.flush();
    expect(await mine()).toHaveLength(MAX_ADDRESSES);
    clock += WINDOW_MS;
    await recorder.flush();
    const written = await mine();
    expect(written).toHaveLength(2 * MAX_ADDRESSES);
    expect(written.filter((e) => JSON.parse(e.payload).repeated === 2)).toHaveLength(MAX_ADDRESSES);
    const overflow = await ctx.db
      .selectFrom("auditEvents")
      .selectAll()
      .where("action", "=", "sign_in.failed")
      .where("address", "is", null)
      .where("occurredAt", ">=", new Date(Date.now() - 60_000).toISOString())
      .execute();
    const summaries = overflow.map((e) => JSON.parse(e.payload)).filter((p) => p.from === "2026-01-05T10:00:00.000Z");
    expect(summaries).toEqual([expect.objectContaining({ repeated: 150, addresses: `more than ${MAX_ADDRESSES}` })]);
    // A new minute: an address's first failure is written at once again.
    await recorder.note({ reason: "unknown", token: "qr_again", address: addresses[0]! });
    expect(await mine()).toHaveLength(2 * MAX_ADDRESSES + 1);
  });

  it("counts an IPv6 client by its /64 and an IPv4-mapped address as IPv4", () => {
    expect(addressKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002::9")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(addressKey("10.0.0.1")).toBe("10.0.0.1");
  });
});
