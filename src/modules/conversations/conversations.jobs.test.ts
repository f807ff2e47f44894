import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateConversations, type LabelledConversation } from "../../../test/fixtures/conversations/generate.js";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createOrganization, createUser } from "../../../test/helpers/factories.js";
import { claimNextJob, markJobSucceeded } from "../../jobs/queue.js";
import { runConversationAnalysis, weeklyPulse } from "./conversations.jobs.js";
import { INSERT_BATCH } from "./conversations.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function orgWithOwner(): Promise<{ orgId: string; owner: TestUser }> {
  const owner = await createUser(ctx);
  const org = await createOrganization(ctx, owner);
  return { orgId: org.id, owner };
}

async function ingest(owner: TestUser, orgId: string, conversations: LabelledConversation[]) {
  for (let i = 0; i < conversations.length; i += 100) {
    const res = await ctx.as(owner).post(
      `/v1/orgs/${orgId}/conversations?source=integration:test:one`,
      conversations.slice(i, i + 100).map((c) => c.input),
    );
    expect(res.status, res.text).toBe(204);
  }
}

/** Everything an analysis wrote for the organization, in a fixed order. */
async function written(orgId: string) {
  const [issues, clusters, conversations, state] = await Promise.all([
    ctx.db.selectFrom("conversationIssues").selectAll().where("orgId", "=", orgId).orderBy("id").execute(),
    ctx.db.selectFrom("conversationClusters").selectAll().where("orgId", "=", orgId).orderBy("id").execute(),
    ctx.db.selectFrom("conversations").select(["id", "processedAt"]).where("orgId", "=", orgId).orderBy("id").execute(),
    ctx.db.selectFrom("conversationAnalysis").selectAll().where("orgId", "=", orgId).executeTakeFirstOrThrow(),
  ]);
  return { issues, clusters, conversations, state };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const deps = () => ({ db: ctx.db, dialect: ctx.dialect });

describe("conversations-analyse job", () => {
  it("leaves the previous analysis whole when it crashes while writing, and the retried job completes", async () => {
    const { orgId, owner } = await orgWithOwner();
    const set = generateConversations(300, 11);
    await ingest(owner, orgId, set.slice(0, 150));
    expect(await ctx.worker.drain()).toBeGreaterThan(0);
    const before = await written(orgId);
    expect(before.issues.length).toBeGreaterThan(150);
    expect(before.clusters.length).toBeGreaterThan(5);

    await ingest(owner, orgId, set.slice(150));
    // Crash after the first batch of issues was written, inside the write transaction.
    let batches = 0;
    await expect(
      runConversationAnalysis(deps(), orgId, {
        afterIssueBatch: () => {
          batches++;
          if (batches === 2) throw new Error("simulated crash");
        },
      }),
    ).rejects.toThrow("simulated crash");
    expect(batches).toBe(2);
    const afterCrash = await written(orgId);
    expect(afterCrash.issues).toEqual(before.issues);
    expect(afterCrash.clusters).toEqual(before.clusters);
    expect(afterCrash.conversations.filter((c) => c.processedAt === null)).toHaveLength(150);
    expect(afterCrash.state).toMatchObject({ startedAt: null, analysedUpTo: before.state.analysedUpTo });

    // The job the second ingestion queued runs the analysis whole.
    expect(await ctx.worker.drain()).toBe(1);
    const after = await written(orgId);
    expect(after.issues.length).toBeGreaterThan(INSERT_BATCH);
    expect(after.conversations.every((c) => c.processedAt !== null)).toBe(true);
    expect(after.state.analysedUpTo).toBe(after.state.requestedAt);
    // Issues of the first conversations keep their ids and creation dates.
    const kept = new Map(after.issues.map((i) => [i.id, i.createdAt]));
    const stillThere = before.issues.filter((i) => kept.has(i.id));
    expect(stillThere.length).toBeGreaterThan(before.issues.length * 0.9);
    for (const issue of stillThere) expect(kept.get(issue.id)).toBe(issue.createdAt);
  });

  it("is taken over by another worker when the worker running it died (its lease expired)", async () => {
    const { orgId, owner } = await orgWithOwner();
    await ingest(owner, orgId, generateConversations(40, 12));
    const claimed = await claimNextJob(ctx.db, ctx.dialect, "worker-that-dies", ["conversations-analyse"], 60_000);
    if (!claimed) throw new Error("the ingestion queued no job");
    expect(claimed.kind).toBe("conversations-analyse");
    // While the lease runs, nobody else takes the job.
    expect(await ctx.worker.drain()).toBe(0);
    expect((await written(orgId)).issues).toEqual([]);
    await ctx.db
      .updateTable("jobs")
      .set({ lockedUntil: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", claimed.id)
      .execute();
    expect(await ctx.worker.drain()).toBe(1);
    const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", claimed.id).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ state: "succeeded", attempts: 2 });
    const after = await written(orgId);
    expect(after.issues.length).toBeGreaterThanOrEqual(40);
    expect(after.conversations.every((c) => c.processedAt !== null)).toBe(true);
  });

  it("gives the same issues and clusters for the same conversations", async () => {
    const set = generateConversations(120, 13);
    const first = await orgWithOwner();
    const second = await orgWithOwner();
    await ingest(first.owner, first.orgId, set);
    await ingest(second.owner, second.orgId, [...set].reverse());
    await ctx.worker.drain();
    const shape = async (orgId: string) => {
      const { issues, clusters } = await written(orgId);
      const external = new Map(
        (await ctx.db.selectFrom("conversations").select(["id", "externalId"]).where("orgId", "=", orgId).execute()).map((c) => [
          c.id,
          c.externalId,
        ]),
      );
      const issueKey = (i: (typeof issues)[number]) => `${external.get(i.conversationId)}#${i.position}`;
      return {
        issues: issues
          .map((i) => ({ key: issueKey(i), title: i.title, question: i.question, summary: i.summary }))
          .sort((a, b) => compare(a.key, b.key)),
        clusters: clusters
          .map((c) => ({
            label: c.label,
            summary: c.summary,
            pulse: c.weeklyPulse,
            members: issues
              .filter((i) => i.clusterId === c.id)
              .map(issueKey)
              .sort(),
          }))
          .sort((a, b) => compare(a.members[0] ?? "", b.members[0] ?? "")),
      };
    };
    const a = await shape(first.orgId);
    expect(a.clusters.length).toBeGreaterThan(5);
    expect(await shape(second.orgId)).toEqual(a);

    // Analysing again without any change rewrites the same rows, ids and dates included.
    const before = await written(first.orgId);
    await ctx.db.updateTable("conversationAnalysis").set({ analysedUpTo: null }).where("orgId", "=", first.orgId).execute();
    expect((await runConversationAnalysis(deps(), first.orgId)).skipped).toBe(false);
    const again = await written(first.orgId);
    expect(again.issues).toEqual(before.issues);
    expect(again.clusters).toEqual(before.clusters);
  });

  it("asks for another round when conversations arrive while it runs, and that round analyses them", async () => {
    const { orgId, owner } = await orgWithOwner();
    const set = generateConversations(30, 15);
    await ingest(owner, orgId, set.slice(0, 20));
    // This test runs round 0's job by hand: it claims it, so it holds the round's key as a running job does.
    const job = await claimNextJob(ctx.db, ctx.dialect, "this-test", ["conversations-analyse"], 60_000);
    if (!job) throw new Error("the ingestion queued no job");
    expect(job.dedupeKey).toBe(`conversations-analyse:${orgId}:0`);
    // Ten conversations arrive between the analysis's reading and its writing.
    const outcome = await runConversationAnalysis(deps(), orgId, { round: 0, beforeWrite: () => ingest(owner, orgId, set.slice(20)) });
    expect(outcome.again).toBe(true);
    await markJobSucceeded(ctx.db, job);
    const late = await written(orgId);
    expect(late.conversations.filter((c) => c.processedAt === null)).toHaveLength(10);
    // Their ingestion could not queue round 0 again; the analysis asked for round 1.
    const queued = await ctx.db
      .selectFrom("jobs")
      .select("dedupeKey")
      .where("kind", "=", "conversations-analyse")
      .where("state", "=", "queued")
      .where("dedupeKey", "like", `conversations-analyse:${orgId}:%`)
      .execute();
    expect(queued.map((j) => j.dedupeKey)).toEqual([`conversations-analyse:${orgId}:1`]);
    expect(await ctx.worker.drain()).toBe(1);
    const after = await written(orgId);
    expect(after.conversations.every((c) => c.processedAt !== null)).toBe(true);
    expect(after.state.analysedUpTo).toBe(after.state.requestedAt);
  });

  it("does nothing when no conversation changed since the last analysis", async () => {
    const { orgId, owner } = await orgWithOwner();
    await ingest(owner, orgId, generateConversations(10, 14));
    await ctx.worker.drain();
    expect(await runConversationAnalysis(deps(), orgId)).toEqual({ skipped: true, issues: 0, clusters: 0, again: false });
  });

  it("counts issues per week over the current week and the twelve before it", () => {
    const now = new Date("2026-11-25T12:00:00Z"); // a Wednesday
    const pulse = weeklyPulse(
      [
        "2026-11-23T00:00:00Z", // Monday of this week
        "2026-11-25T11:00:00Z",
        "2026-11-22T23:59:59Z", // Sunday of the week before
        "2026-09-01T10:00:00Z", // Tuesday 12 weeks before this week
        "2026-08-30T10:00:00Z", // older: not counted
      ],
      now,
    );
    expect(pulse).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
  });
});
