/**
 * Teams and their members through GitBook's client against a listening Quire: every response body
 * is validated against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { TeamMemberRole } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { grantSpace, insertSpace } from "../helpers/teams.factories.js";

const server = useListeningServer();

describe("teams through @gitbook/api", () => {
  it("creates, lists, reads, renames and deletes teams, and manages their members", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const alice = await createUser(ctx);
    const bob = await createUser(ctx, { email: "bob@teams-contract.test" });
    await addMemberToOrg(ctx, org.id, alice, "edit");
    await addMemberToOrg(ctx, org.id, bob, null);
    const client = contractClient(endpoint, owner.token);

    const created = await client.orgs.createOrganizationTeam(org.id, { title: "Platform", members: [alice.id] });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ object: "team", title: "Platform", members: 1, spaces: 0 });
    const teamId = created.data.id;
    await grantSpace(ctx, org.id, await insertSpace(ctx, org.id), { type: "team", id: teamId });

    const list = await client.orgs.listTeamsInOrganizationById(org.id, { title: "plat", owner: owner.id, limit: 10 });
    expect(list.data.items.map((t) => t.id)).toEqual([teamId]);
    const team = await client.orgs.getTeamInOrganizationById(org.id, teamId);
    expect(team.data).toMatchObject({ spaces: 1, permissions: { view: true, admin: true } });
    const renamed = await client.orgs.updateTeamInOrganizationById(org.id, teamId, { title: "Platform Team" });
    expect(renamed.data.title).toBe("Platform Team");

    const bulk = await client.orgs.updateMembersInOrganizationTeam(org.id, teamId, {
      add: [bob.email],
      memberships: { [alice.id]: { role: TeamMemberRole.Owner } },
    });
    expect(bulk.status).toBe(204);
    const added = await client.orgs.addMemberToOrganizationTeamById(org.id, teamId, owner.id, {});
    expect(added.status).toBe(204);
    const members = await client.orgs.listTeamMembersInOrganizationById(org.id, teamId, { limit: 10 });
    expect(members.data.count).toBe(3);
    expect(Object.fromEntries(members.data.items.map((m) => [m.organization.id, m.team.role]))).toEqual({
      [alice.id]: "owner",
      [bob.id]: "member",
      [owner.id]: "member",
    });
    // The new owner manages the team through the client too.
    const asAlice = contractClient(endpoint, alice.token);
    const aliceTeams = await asAlice.orgs.listTeamsInOrganizationById(org.id, { owner: alice.id });
    expect(aliceTeams.data.items.map((t) => t.permissions)).toEqual([{ view: true, admin: true }]);
    const removedMember = await asAlice.orgs.deleteMemberFromOrganizationTeamById(org.id, teamId, bob.id);
    expect(removedMember.status).toBe(204);

    const deleted = await client.orgs.removeTeamFromOrganizationById(org.id, teamId);
    expect(deleted.status).toBe(204);
    await expect(client.orgs.getTeamInOrganizationById(org.id, teamId)).rejects.toMatchObject({ code: 404 });
    expect((await client.orgs.removeTeamFromOrganizationById(org.id, teamId)).status).toBe(204);
  });
});
