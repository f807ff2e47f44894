/**
 * Conversations, issues and clusters through GitBook's client against a listening Quire: every
 * response body is validated against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { describe, expect, it } from "vitest";
import { generateConversations } from "../fixtures/conversations/generate.js";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";

const server = useListeningServer();

describe("conversations through @gitbook/api", () => {
  it("ingests conversations, then lists and reads conversations, issues and clusters", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const reader = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    await addMemberToOrg(ctx, org.id, reader, "read");
    const client = contractClient(endpoint, owner.token);

    const [head, ...rest] = generateConversations(60, 21);
    if (!head) throw new Error("no conversation generated");
    const one = await client.orgs.ingestConversation(org.id, head.input);
    expect(one.status).toBe(204);
    const many = await client.orgs.ingestConversation(
      org.id,
      rest.map((c) => c.input),
    );
    expect(many.status).toBe(204);
    await ctx.worker.drain();

    const asReader = contractClient(endpoint, reader.token);
    const conversations = await asReader.orgs.listConversations(org.id, { limit: 10, source: `integration:api:${owner.id}` });
    expect(conversations.data.count).toBe(60);
    expect(conversations.data.items).toHaveLength(10);
    const [first] = conversations.data.items;
    if (!first) throw new Error("no conversation listed");
    const detail = await asReader.orgs.getConversationById(org.id, first.id);
    expect(detail.data.conversation).toEqual(first);
    expect(detail.data.parts.length).toBeGreaterThan(0);

    const clusters = await asReader.orgs.listConversationsIssuesClusters(org.id, { orderBy: "issues", order: "desc", limit: 100 });
    expect(clusters.data.items.length).toBeGreaterThan(3);
    const [biggest] = clusters.data.items;
    if (!biggest) throw new Error("no cluster listed");
    expect(biggest.weeklyPulse).toHaveLength(13);
    const cluster = await asReader.orgs.getConversationsIssuesCluster(org.id, biggest.id);
    expect(cluster.data).toEqual(biggest);

    const issues = await asReader.orgs.listConversationsIssues(org.id, { cluster: biggest.id, limit: 100 });
    expect(issues.data.count).toBe(biggest.stats.issues);
    const [item] = issues.data.items;
    if (!item) throw new Error("no issue listed");
    const { issue, conversation } = item;
    expect(issue.cluster).toBe(biggest.id);
    const read = await asReader.orgs.getConversationIssueById(org.id, issue.id);
    expect(read.data).toEqual({ issue, conversation });
    const ofConversation = await asReader.orgs.listConversationsIssues(org.id, { conversation: conversation.id });
    expect(ofConversation.data.items.map((i) => i.issue.id)).toContain(issue.id);
  });
});
