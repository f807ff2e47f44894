/**
 * GitBook's client against a listening Quire: every call's response is validated against
 * @gitbook/api@0.146.0's spec by the contract harness.
 */
import { MemberRole } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createUser } from "../helpers/factories.js";

// createOrganization through the API needs the operator's consent (QUIRE_ORG_CREATION=users).
const server = useListeningServer({ config: { orgCreation: "users" } });

describe("users and organizations through @gitbook/api", () => {
  it("covers users, organizations, join, email domains, agent instructions and ping", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx, { email: "owner@contract.test" });
    const client = contractClient(endpoint, owner.token);

    const me = await client.user.getAuthenticatedUser();
    expect(me.data.id).toBe(owner.id);
    expect((await client.users.getUserById(owner.id)).data.displayName).toBe(owner.displayName);
    expect((await client.users.updateUserById(owner.id, { displayName: "Renamed Owner" })).data.displayName).toBe("Renamed Owner");

    // createOrganization is not in the 0.146 client; create through the raw API.
    const created = await fetch(`${endpoint}/v1/orgs`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Contract Org", emailDomains: ["contract.test"] }),
    });
    expect(created.status).toBe(201);
    const orgId = ((await created.json()) as { id: string }).id;

    const list = await client.orgs.listOrganizationsForAuthenticatedUser({ limit: 10 });
    expect(list.data.items.map((o) => o.id)).toContain(orgId);
    const org = await client.orgs.getOrganizationById(orgId);
    expect(org.data.title).toBe("Contract Org");
    const updated = await client.orgs.updateOrganizationById(orgId, {
      title: "Contract Org 2",
      defaultRole: MemberRole.Read,
      mergeRules: { type: "rules", rules: [{ rule: "require_specific_reviewers", users: [owner.id] }] },
    });
    expect(updated.data.defaultRole).toBe("read");

    const joiner = await createUser(ctx, { email: "joiner@contract.test" });
    const joinerClient = contractClient(endpoint, joiner.token);
    const domainOrgs = await joinerClient.emailDomains.getOrganizationsForEmailDomain("contract.test");
    expect(domainOrgs.data.organizations.map((o) => o.id)).toEqual([orgId]);
    const joined = await joinerClient.orgs.joinOrganization(orgId);
    expect(joined.status).toBe(204);
    await joinerClient.orgs.updateOrganizationMemberLastSeenAt(orgId);

    const instructions = { object: "document" as const, data: {}, nodes: [] };
    await client.orgs.updateOrganizationAgentInstructions(orgId, { instructions });
    const read = await joinerClient.orgs.getOrganizationAgentInstructions(orgId);
    expect(read.data.updatedBy).toBe(owner.id);
  });

  it("reports errors in the spec's error shape", async () => {
    const { ctx, endpoint } = server;
    const outsider = await createUser(ctx);
    const member = await createUser(ctx);
    const client = contractClient(endpoint, outsider.token);
    await expect(client.orgs.getOrganizationById("missing")).rejects.toMatchObject({ code: 404 });
    const res = await fetch(`${endpoint}/v1/orgs/missing`, { headers: { authorization: `Bearer ${member.token}` } });
    expect(await res.json()).toEqual({ error: { code: 404, message: expect.any(String) } });
    void addMemberToOrg;
  });
});
