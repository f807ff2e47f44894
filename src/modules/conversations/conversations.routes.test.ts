// biome-ignore-all lint/suspicious/noExplicitAny: response bodies are JSON read by shape; their schemas are checked by the contract tests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrganization, createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const message = (role: "user" | "assistant" | "team-member", body: string) => ({ type: "message", role, body });

/** Two topics, three conversations each, with personal data in them. */
const CONVERSATIONS = [
  {
    id: "t-1",
    subject: "Password reset email never arrives",
    parts: [
      message("user", "Hi, I asked for a password reset but the reset email never arrives. Write to me at jane.doe@example.com."),
      message("team-member", "We sent a new reset link to your address."),
    ],
    metadata: {
      url: "https://support.example.com/t/1",
      attributes: { plan: "pro", phone: "+1 415 555 0132" },
      createdAt: "2026-11-02T10:00:00Z",
    },
  },
  {
    id: "t-2",
    parts: [
      message("user", "How do I reset my password? The password reset link says it expired."),
      message("assistant", "Reset links expire after 30 minutes."),
    ],
    metadata: { createdAt: "2026-11-03T10:00:00Z" },
  },
  {
    id: "t-3",
    subject: "Reset password link expired",
    parts: [message("user", "My password reset link expired before I could use it, can you send a new reset email?")],
    metadata: { createdAt: "2026-11-04T10:00:00Z" },
  },
  {
    id: "t-4",
    subject: "Invoice charged twice",
    parts: [
      message("user", "Why was my credit card 4111 1111 1111 1111 charged twice for the same invoice this month?"),
      message("team-member", "We refunded the duplicate invoice charge."),
    ],
    metadata: { createdAt: "2026-11-05T10:00:00Z" },
  },
  {
    id: "t-5",
    parts: [message("user", "Our invoice was charged twice on the credit card, can we get a refund of the duplicate invoice?")],
    metadata: { createdAt: "2026-11-06T10:00:00Z" },
  },
  {
    id: "t-6",
    subject: "Duplicate invoice",
    parts: [message("user", "We see a duplicate invoice charge on our credit card statement, please refund the invoice.")],
    metadata: { createdAt: "2026-11-07T10:00:00Z" },
  },
];

/**
 * An organization with one member per role, a space whose page answers password resets, six
 * conversations ingested by the owner and analysed, and another organization with its own.
 */
async function scenario() {
  const base = await createOrgWithRoles(ctx);
  const { org, owner, outsider } = base;
  const space = await createSpace(ctx, owner, org.id, { title: "Help center" });
  await commitContent(ctx, space.id, {
    pages: [
      {
        title: "Reset your password",
        paragraphs: ["Ask for a password reset from the sign-in page; the reset link expires after 30 minutes."],
      },
      { title: "Getting started", paragraphs: ["Create your first space."] },
    ],
  });
  const ingest = await ctx.as(owner).post(`/v1/orgs/${org.id}/conversations?source=integration:zendesk:acme`, CONVERSATIONS);
  expect(ingest.status, ingest.text).toBe(204);
  await ctx.worker.drain();
  const otherOrg = await createOrganization(ctx, outsider);
  const other = await ctx.as(outsider).post(`/v1/orgs/${otherOrg.id}/conversations`, CONVERSATIONS.slice(0, 3));
  expect(other.status, other.text).toBe(204);
  await ctx.worker.drain();
  return { ...base, space, otherOrg };
}

async function list(user: TestUser, url: string) {
  const res = await ctx.as(user).get(url);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe("POST /v1/orgs/{organizationId}/conversations", () => {
  it("requires a token", async () => {
    const { org } = await createOrgWithRoles(ctx);
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/conversations`, CONVERSATIONS[0])).status).toBe(401);
  });

  it("answers 404 to outsiders and for unknown organizations, and 403 to members who are not admins", async () => {
    const { org, members, outsider } = await createOrgWithRoles(ctx);
    const url = `/v1/orgs/${org.id}/conversations`;
    expect((await ctx.as(outsider).post(url, CONVERSATIONS[0])).status).toBe(404);
    expect((await ctx.as(outsider).post("/v1/orgs/nope/conversations", CONVERSATIONS[0])).status).toBe(404);
    for (const role of ["create", "edit", "read", "guest"] as const) {
      const res = await ctx.as(members[role]).post(url, CONVERSATIONS[0]);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe("Only organization admins can ingest conversations.");
    }
    expect((await ctx.as(members.admin).post(url, CONVERSATIONS[0])).status).toBe(204);
  });

  it("names what is wrong in a single conversation or in an array of them", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const url = `/v1/orgs/${org.id}/conversations`;
    const cases: [unknown, string][] = [
      [{ parts: [] }, "body.id is required."],
      [[CONVERSATIONS[0], { id: "x" }], "body.1.parts is required."],
      [
        { id: "x", parts: [{ type: "message", role: "bot", body: "hi" }] },
        'body.parts.0.role must be one of: "user", "assistant", "team-member".',
      ],
      [{ id: "", parts: [] }, "body.id must be at least 1 characters long."],
      [{ id: "x", subject: "s".repeat(513), parts: [] }, "body.subject must be at most 512 characters long."],
      [{ id: "x", parts: [], metadata: { createdAt: "yesterday" } }, "body.metadata.createdAt must be a valid date-time."],
      [42, "body.0 must be of type object."],
      [
        [
          { id: "a", parts: [] },
          { id: "a", parts: [] },
        ],
        'body[1].id "a" repeats body[0].id: each conversation may appear once per request.',
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await ctx.as(owner).post(url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toBe(expected);
    }
    const badSource = await ctx.as(owner).post(`${url}?source=zendesk`, CONVERSATIONS[0]);
    expect(badSource.status).toBe(400);
    expect(badSource.body.error.message).toBe('query parameter "source" must match the pattern ^(?:integration:[^:]+:[^:]+|email)$.');
    expect(await ctx.db.selectFrom("conversations").select("id").where("orgId", "=", org.id).execute()).toEqual([]);
  });

  it("stores conversations redacted: no email, phone or card number reaches the database or the job queue", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const res = await ctx
      .as(owner)
      .post(`/v1/orgs/${org.id}/conversations`, [
        CONVERSATIONS[0],
        CONVERSATIONS[3],
        { id: "secret", parts: [message("user", "my token is ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 and password: hunter2!")] },
      ]);
    expect(res.status).toBe(204);
    await ctx.worker.drain();
    const dump = JSON.stringify([
      await ctx.db.selectFrom("conversations").selectAll().where("orgId", "=", org.id).execute(),
      await ctx.db.selectFrom("conversationIssues").selectAll().where("orgId", "=", org.id).execute(),
      await ctx.db.selectFrom("conversationClusters").selectAll().where("orgId", "=", org.id).execute(),
      await ctx.db.selectFrom("jobs").selectAll().execute(),
    ]);
    for (const original of ["jane.doe@example.com", "555 0132", "4111 1111 1111 1111", "ghp_a1B2c3D4", "hunter2"]) {
      expect(dump).not.toContain(original);
    }
    expect(dump).toContain("[REDACTED:email]");
    expect(dump).toContain("[REDACTED:card]");
  });

  it("replaces a conversation re-ingested with the same id and source, and keeps one of another source apart", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const url = `/v1/orgs/${org.id}/conversations`;
    expect((await ctx.as(owner).post(`${url}?source=email`, CONVERSATIONS[1])).status).toBe(204);
    await ctx.worker.drain();
    const [first] = (await list(owner, url)).items;
    expect(first.processedAt).toBeDefined();

    // The same content again changes nothing (it stays analysed).
    expect((await ctx.as(owner).post(`${url}?source=email`, CONVERSATIONS[1])).status).toBe(204);
    expect((await list(owner, url)).items).toEqual([first]);

    // New content under the same id replaces it, and waits for the next analysis.
    const changed = { ...CONVERSATIONS[1], subject: "Still no reset email" };
    expect((await ctx.as(owner).post(`${url}?source=email`, changed)).status).toBe(204);
    const after = await list(owner, url);
    expect(after.count).toBe(1);
    expect(after.items[0]).toMatchObject({ id: first.id, subject: "Still no reset email" });
    expect(after.items[0].processedAt).toBeUndefined();

    // Another source with the same id is another conversation.
    expect((await ctx.as(owner).post(`${url}?source=integration:intercom:x`, CONVERSATIONS[1])).status).toBe(204);
    expect((await list(owner, url)).count).toBe(2);
    // Without a source, the caller's own API source.
    expect((await ctx.as(owner).post(url, CONVERSATIONS[1])).status).toBe(204);
    expect((await list(owner, `${url}?source=integration:api:${owner.id}`)).count).toBe(1);
  });
});

describe("GET /v1/orgs/{organizationId}/conversations and /conversations/{conversationId}", () => {
  it("lists newest first, filters by source, pages, and shows the redacted messages", async () => {
    const { org, otherOrg, members, outsider } = await scenario();
    const url = `/v1/orgs/${org.id}/conversations`;
    expect((await ctx.anonymous.get(url)).status).toBe(401);
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
    const guest = await ctx.as(members.guest).get(url);
    expect(guest.status).toBe(403);
    expect(guest.body.error.message).toBe("Guests cannot see the organization's conversations, issues and clusters.");

    const all = await list(members.read, url);
    expect(all.count).toBe(6);
    expect(all.items.map((c: { subject?: string }) => c.subject ?? null)).toEqual([
      "Duplicate invoice",
      null,
      "Invoice charged twice",
      "Reset password link expired",
      null,
      "Password reset email never arrives",
    ]);
    expect(all.items[5]).toMatchObject({
      object: "conversation",
      source: "integration:zendesk:acme",
      createdAt: "2026-11-02T10:00:00.000Z",
      urls: { location: `http://quire.test/v1/orgs/${org.id}/conversations/${all.items[5].id}`, source: "https://support.example.com/t/1" },
    });
    expect(all.items.every((c: { processedAt?: string }) => c.processedAt)).toBe(true);

    const first = await list(members.edit, `${url}?limit=4`);
    expect(first.items).toHaveLength(4);
    const second = await list(members.edit, `${url}?limit=4&page=${first.next.page}`);
    expect([...first.items, ...second.items].map((c: { id: string }) => c.id)).toEqual(all.items.map((c: { id: string }) => c.id));
    expect((await list(members.read, `${url}?source=email`)).count).toBe(0);
    expect((await list(members.read, `${url}?source=integration:zendesk:acme`)).count).toBe(6);
    const bad = await ctx.as(members.read).get(`${url}?source=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('query parameter "source" must match the pattern ^(?:integration:[^:]+:[^:]+|email)$.');

    const detail = await list(members.read, `${url}/${all.items[5].id}`);
    expect(detail.conversation).toEqual(all.items[5]);
    expect(detail.parts[0]).toEqual({
      type: "message",
      role: "user",
      body: "Hi, I asked for a password reset but the reset email never arrives. Write to me at [REDACTED:email].",
    });
    expect(detail.metadata).toEqual({
      url: "https://support.example.com/t/1",
      attributes: { phone: "[REDACTED:phone]", plan: "pro" },
      createdAt: "2026-11-02T10:00:00.000Z",
    });

    const theirs = await list(outsider, `/v1/orgs/${otherOrg.id}/conversations`);
    const missing = await ctx.as(members.read).get(`${url}/${theirs.items[0].id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`No conversation with id "${theirs.items[0].id}" in this organization.`);
    expect((await ctx.as(outsider).get(`${url}/${all.items[0].id}`)).status).toBe(404);
  });
});

describe("GET /v1/orgs/{organizationId}/conversations-issues and /conversations-issues/{issueId}", () => {
  it("lists the issues with their conversations, filters by cluster and conversation, and relates them to pages", async () => {
    const { org, otherOrg, owner, members, outsider, space } = await scenario();
    const url = `/v1/orgs/${org.id}/conversations-issues`;
    expect((await ctx.anonymous.get(url)).status).toBe(401);
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
    expect((await ctx.as(members.guest).get(url)).status).toBe(403);

    const all = await list(members.read, url);
    expect(all.count).toBe(6);
    const conversations = await list(members.read, `/v1/orgs/${org.id}/conversations`);
    // Issues of the newest conversations first, each with its conversation.
    expect(all.items.map((i: any) => i.conversation.id)).toEqual(conversations.items.map((c: any) => c.id));
    for (const item of all.items) expect(item.issue.conversation).toBe(item.conversation.id);

    const reset = all.items.find((i: any) => i.conversation.subject === "Password reset email never arrives").issue;
    expect(reset).toMatchObject({
      object: "conversation-issue",
      title: "Password reset email never arrives",
      question: "I asked for a password reset but the reset email never arrives.",
      urls: { location: `http://quire.test/v1/orgs/${org.id}/conversations-issues/${reset.id}` },
    });
    expect(reset.summary).toContain("Reply: We sent a new reset link to your address.");
    expect(reset.documentation.gap).toBe(false);
    expect(reset.documentation.pages.map((p: any) => [p.space, p.title])).toEqual([[space.id, "Reset your password"]]);
    const invoice = all.items.find((i: any) => i.conversation.subject === "Invoice charged twice").issue;
    expect(invoice.documentation).toEqual({ gap: true, pages: [] });

    // Two clusters: password resets and invoices.
    const resetIssues = all.items.filter((i: any) => /reset/i.test(i.issue.title)).map((i: any) => i.issue);
    expect(resetIssues).toHaveLength(3);
    expect(new Set(resetIssues.map((i: any) => i.cluster)).size).toBe(1);
    expect(invoice.cluster).toBeDefined();
    expect(invoice.cluster).not.toBe(reset.cluster);
    const inCluster = await list(members.read, `${url}?cluster=${reset.cluster}`);
    expect(inCluster.items.map((i: any) => i.issue.id).sort()).toEqual(resetIssues.map((i: any) => i.id).sort());
    const ofConversation = await list(members.read, `${url}?conversation=${reset.conversation}`);
    expect(ofConversation.items.map((i: any) => i.issue.id)).toEqual([reset.id]);
    const paged = await list(members.read, `${url}?limit=5`);
    const rest = await list(members.read, `${url}?limit=5&page=${paged.next.page}`);
    expect([...paged.items, ...rest.items].map((i: any) => i.issue.id)).toEqual(all.items.map((i: any) => i.issue.id));

    // Pages are shown only from the spaces the caller may read.
    await setDefaultLevel(ctx, owner, { space: space.id }, null);
    const hidden = await list(members.read, `${url}/${reset.id}`);
    expect(hidden.issue.documentation).toEqual({ gap: false, pages: [] });
    expect((await list(owner, `${url}/${reset.id}`)).issue.documentation.pages).toHaveLength(1);

    const theirs = await list(outsider, `/v1/orgs/${otherOrg.id}/conversations-issues`);
    const theirIssue = theirs.items[0].issue;
    const missing = await ctx.as(members.read).get(`${url}/${theirIssue.id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`No conversation issue with id "${theirIssue.id}" in this organization.`);
    const wrongCluster = await ctx.as(members.read).get(`${url}?cluster=${theirIssue.cluster}`);
    expect(wrongCluster.status).toBe(400);
    expect(wrongCluster.body.error.message).toBe(
      `query parameter "cluster" names "${theirIssue.cluster}", which is not a cluster of this organization.`,
    );
    const wrongConversation = await ctx.as(members.read).get(`${url}?conversation=${theirIssue.conversation}`);
    expect(wrongConversation.status).toBe(400);
    expect(wrongConversation.body.error.message).toBe(
      `query parameter "conversation" names "${theirIssue.conversation}", which is not a conversation of this organization.`,
    );
    expect((await ctx.as(outsider).get(`${url}/${reset.id}`)).status).toBe(404);
  });
});

describe("GET /v1/orgs/{organizationId}/conversations-clusters and /conversations-clusters/{clusterId}", () => {
  it("lists clusters in the asked order with their figures, filters by analysis status, and reads one", async () => {
    const { org, otherOrg, owner, members, outsider } = await scenario();
    const url = `/v1/orgs/${org.id}/conversations-clusters`;
    expect((await ctx.anonymous.get(url)).status).toBe(401);
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
    expect((await ctx.as(members.guest).get(url)).status).toBe(403);

    const all = await list(members.read, url);
    expect(all.count).toBe(2);
    const reset = all.items.find((c: any) => c.label.toLowerCase().includes("reset"));
    const invoice = all.items.find((c: any) => c.label.toLowerCase().includes("invoice"));
    expect(reset).toMatchObject({
      object: "issues-cluster",
      icon: "lock",
      sources: { "integration:zendesk:acme": 3 },
      stats: { issues: 3, conversations: 3, tasksTotal: 0, documentationGaps: 0 },
      urls: { location: `http://quire.test${url}/${reset.id}`, app: `http://quire.test/app/o/${org.id}/agent/topics/${reset.id}` },
    });
    expect(reset.summary).toMatch(
      /^3 issues from 3 conversations about .*password.* Every issue has a documentation page that answers it\.$/,
    );
    expect(invoice).toMatchObject({ icon: "credit-card", stats: { issues: 3, documentationGaps: 3 } });
    expect(invoice.summary).toContain("3 of 3 issues have no documentation page that answers them.");
    expect(reset.weeklyPulse).toHaveLength(13);
    expect(reset.weeklyPulse.reduce((a: number, b: number) => a + b, 0)).toBeLessThanOrEqual(3);

    // Order and sort: ties on the sort key fall back to the id, in the same direction.
    const byIdDesc = [...all.items].sort((a: any, b: any) => (a.id < b.id ? 1 : -1)).map((c: any) => c.id);
    expect((await list(members.read, `${url}?orderBy=issues`)).items.map((c: any) => c.id)).toEqual(byIdDesc);
    expect((await list(members.read, `${url}?orderBy=conversations&order=asc`)).items.map((c: any) => c.id)).toEqual(
      [...byIdDesc].reverse(),
    );
    const first = await list(members.read, `${url}?limit=1&orderBy=tasksTotal`);
    const second = await list(members.read, `${url}?limit=1&orderBy=tasksTotal&page=${first.next.page}`);
    expect([first.items[0].id, second.items[0].id]).toEqual(byIdDesc);
    const badOrder = await ctx.as(members.read).get(`${url}?orderBy=size`);
    expect(badOrder.status).toBe(400);
    expect(badOrder.body.error.message).toBe(
      'query parameter "orderBy" must be one of: "updatedAt", "issues", "conversations", "tasksTotal", "tasksBacklog", "tasksStarted".',
    );

    // Analysed: neither pending nor analysing. A new conversation makes them pending until the next run.
    expect((await list(members.read, `${url}?status=pending`)).count).toBe(0);
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/conversations`, { id: "late", parts: [message("user", "Hello?")] })).status).toBe(
      204,
    );
    expect((await list(members.read, `${url}?status=pending`)).count).toBe(2);
    expect((await list(members.read, `${url}?status=analysing`)).count).toBe(0);
    await ctx.worker.drain();
    expect((await list(members.read, `${url}?status=pending`)).count).toBe(0);
    // The same clusters after the new analysis: same ids, same creation dates.
    const again = await list(members.read, url);
    expect(again.items.map((c: any) => [c.id, c.createdAt]).sort()).toEqual(all.items.map((c: any) => [c.id, c.createdAt]).sort());

    expect(await list(members.edit, `${url}/${reset.id}`)).toEqual(again.items.find((c: any) => c.id === reset.id));
    const theirs = await list(outsider, `/v1/orgs/${otherOrg.id}/conversations-clusters`);
    expect(theirs.count).toBe(1);
    const missing = await ctx.as(members.read).get(`${url}/${theirs.items[0].id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`No conversations issues cluster with id "${theirs.items[0].id}" in this organization.`);
  });
});
