import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createUser } from "../../../test/helpers/factories.js";
import { enqueue } from "../../jobs/queue.js";
import { recordAssertionUse, saveSamlRequest } from "../../modules/saml/saml.queries.js";
import { createLoginLink, LOGIN_LINK_TTL_MS, writeSession } from "./web.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("purge-expired-sign-ins job", () => {
  it("forgets expired sessions, links, SAML requests and assertions, and keeps live ones", async () => {
    const user = await createUser(ctx);
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 60_000).toISOString();
    await writeSession(ctx.db, "old-session", { userId: user.id, data: "{}", expiresAt: past });
    await writeSession(ctx.db, "live-session", { userId: user.id, data: "{}", expiresAt: future });
    await createLoginLink(ctx.db, user.id, Date.now() - LOGIN_LINK_TTL_MS - 1000);
    await createLoginLink(ctx.db, user.id);
    await saveSamlRequest(ctx.db, { id: "_old", providerId: "p", ttlMs: -1000 });
    await saveSamlRequest(ctx.db, { id: "_live", providerId: "p", ttlMs: 60_000 });
    await recordAssertionUse(ctx.db, { providerId: "p", assertionId: "_a-old", expiresAt: past });
    await recordAssertionUse(ctx.db, { providerId: "p", assertionId: "_a-live", expiresAt: future });

    await enqueue(ctx.db, "purge-expired-sign-ins", {});
    expect(await ctx.worker.drain()).toBe(1);

    expect(await ctx.db.selectFrom("webSessions").select("expiresAt").execute()).toEqual([{ expiresAt: future }]);
    expect((await ctx.db.selectFrom("loginLinks").select("userId").execute()).length).toBe(1);
    expect(await ctx.db.selectFrom("samlRequests").select("id").execute()).toEqual([{ id: "_live" }]);
    expect(await ctx.db.selectFrom("samlAssertions").select("assertionId").execute()).toEqual([{ assertionId: "_a-live" }]);
  });
});
