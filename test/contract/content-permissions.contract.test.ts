/**
 * Space and collection permissions through GitBook's own client: every response is validated
 * against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { MemberRole } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { nextMillisecond } from "../helpers/clock.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createTeam } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("content permissions through @gitbook/api", () => {
  it("covers invite, list users and teams, update, remove and aggregate on spaces", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx, { displayName: "Owner" });
    const guest = await createUser(ctx, { displayName: "Guest" });
    const reader = await createUser(ctx, { displayName: "Reader" });
    const org = await createOrganization(ctx, owner, "Permissions");
    await addMemberToOrg(ctx, org.id, guest, null);
    await addMemberToOrg(ctx, org.id, reader, "read");
    const team = await createTeam(ctx, org.id, [guest], { title: "Contractors" });
    const client = contractClient(endpoint, owner.token);
    const space = (await client.orgs.createSpace(org.id, { title: "Shared" })).data.id;

    expect((await client.spaces.inviteToSpace(space, { role: MemberRole.Edit, users: [guest.id] })).status).toBe(204);
    expect((await client.spaces.inviteToSpace(space, { role: MemberRole.Comment, teams: [team.id] })).status).toBe(204);
    await expect(client.spaces.inviteToSpace(space, { role: MemberRole.Edit, users: ["nobody"] })).rejects.toMatchObject({ code: 404 });

    const users = await client.spaces.listUserPermissionsInSpace(space, { limit: 10 });
    expect(users.data.items.map((i) => [i.user.id, i.permission])).toEqual([[guest.id, "edit"]]);
    const teams = await client.spaces.listTeamPermissionsInSpace(space);
    expect(teams.data.items.map((i) => [i.team.id, i.permission, i.team.members])).toEqual([[team.id, "comment", 1]]);

    expect((await client.spaces.updateUserPermissionInSpace(space, guest.id, { role: MemberRole.Review })).status).toBe(204);
    expect((await client.spaces.updateTeamPermissionInSpace(space, team.id, { role: MemberRole.Read })).status).toBe(204);
    const aggregate = await client.spaces.listPermissionsAggregateInSpace(space, { limit: 10 });
    expect(Object.fromEntries(aggregate.data.items.map((i) => [i.user.displayName, i.permission]))).toEqual({
      Owner: "admin",
      Guest: "review",
      Reader: "read",
    });
    const reviewers = await client.spaces.listPermissionsAggregateInSpace(space, { role: MemberRole.Review });
    expect(reviewers.data.items.map((i) => i.user.id)).toEqual([guest.id]);

    expect((await client.spaces.removeUserFromSpace(space, guest.id)).status).toBe(204);
    expect((await client.spaces.removeTeamFromSpace(space, team.id)).status).toBe(204);
    expect((await client.spaces.listUserPermissionsInSpace(space)).data.count).toBe(0);
    await expect(client.spaces.updateUserPermissionInSpace(space, guest.id, { role: MemberRole.Read })).rejects.toMatchObject({
      code: 404,
    });
    await expect(
      contractClient(endpoint, reader.token).spaces.inviteToSpace(space, { role: MemberRole.Admin, users: [reader.id] }),
    ).rejects.toMatchObject({ code: 403 });
  });

  it("covers the same operations on collections", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx, { displayName: "Owner" });
    const member = await createUser(ctx, { displayName: "Member" });
    const org = await createOrganization(ctx, owner, "Collection Permissions");
    // The aggregate lists members by join time: the owner joined first.
    await nextMillisecond();
    await addMemberToOrg(ctx, org.id, member, null);
    const team = await createTeam(ctx, org.id, [member]);
    const client = contractClient(endpoint, owner.token);
    const collection = (await client.orgs.createCollection(org.id, { title: "Private" })).data.id;
    const inside = (await client.orgs.createSpace(org.id, { parent: collection })).data.id;

    expect((await client.collections.inviteToCollection(collection, { role: MemberRole.Create, users: [member.id] })).status).toBe(204);
    expect((await client.collections.inviteToCollection(collection, { role: MemberRole.Read, teams: [team.id] })).status).toBe(204);
    expect((await client.collections.listUserPermissionsInCollection(collection)).data.items[0]?.permission).toBe("create");
    expect((await client.collections.listTeamPermissionsInCollection(collection)).data.items[0]?.team.id).toBe(team.id);
    expect((await client.collections.updateUserPermissionInCollection(collection, member.id, { role: MemberRole.Edit })).status).toBe(204);
    expect((await client.collections.updateTeamPermissionInCollection(collection, team.id, { role: MemberRole.Comment })).status).toBe(204);
    const aggregate = await client.collections.listPermissionsAggregateInCollection(collection);
    expect(aggregate.data.items.map((i) => [i.user.displayName, i.permission])).toEqual([
      ["Owner", "admin"],
      ["Member", "edit"],
    ]);
    // The collection's grant reaches the space inside it.
    const spaceAggregate = await client.spaces.listPermissionsAggregateInSpace(inside, { role: MemberRole.Edit });
    expect(spaceAggregate.data.items.map((i) => i.user.id)).toEqual([member.id]);
    expect((await client.collections.removeUserFromCollection(collection, member.id)).status).toBe(204);
    expect((await client.collections.removeTeamFromCollection(collection, team.id)).status).toBe(204);
    expect((await client.collections.listPermissionsAggregateInCollection(collection)).data.count).toBe(1);
  });
});
