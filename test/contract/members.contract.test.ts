/**
 * Members, invitations and invite links through GitBook's client against a listening Quire:
 * every response body is validated against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { MemberRole } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createTeam, grantSpace, insertSpace } from "../helpers/teams.factories.js";

const server = useListeningServer();

describe("members through @gitbook/api", () => {
  it("lists, reads, updates, marks as SSO and removes members, and lists a member's teams", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx, { displayName: "Contract Owner" });
    const org = await createOrganization(ctx, owner);
    const reader = await createUser(ctx, { displayName: "Contract Reader" });
    const guest = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, reader, "read");
    await addMemberToOrg(ctx, org.id, guest, null);
    await grantSpace(ctx, org.id, await insertSpace(ctx, org.id), { type: "user", id: reader.id });
    const team = await createTeam(ctx, owner, org.id, { title: "Contract Team", members: [reader.id] });
    await contractClient(endpoint, reader.token).orgs.updateOrganizationMemberLastSeenAt(org.id);
    const client = contractClient(endpoint, owner.token);

    const list = await client.orgs.listMembersInOrganizationById(org.id, { limit: 2, order: "asc" });
    expect(list.data.count).toBe(3);
    const rest = await client.orgs.listMembersInOrganizationById(org.id, { limit: 2, order: "asc", page: list.data.next!.page });
    expect([...list.data.items, ...rest.data.items].map((m) => m.id).sort()).toEqual([owner.id, reader.id, guest.id].sort());
    const guests = await client.orgs.listMembersInOrganizationById(org.id, { role: "guest" });
    expect(guests.data.items.map((m) => m.id)).toEqual([guest.id]);
    const seen = await client.orgs.listMembersInOrganizationById(org.id, { sort: "lastSeenAt", search: "contract reader" });
    expect(seen.data.items.map((m) => m.id)).toEqual([reader.id]);

    const member = await client.orgs.getMemberInOrganizationById(org.id, reader.id);
    expect(member.data).toMatchObject({ role: "read", spaces: 1, teams: 1, sso: false });

    const updated = await client.orgs.updateMemberInOrganizationById(org.id, reader.id, { role: MemberRole.Edit });
    expect(updated.data.role).toBe("edit");
    const demoted = await client.orgs.updateMemberInOrganizationById(org.id, reader.id, { role: null });
    expect(demoted.data.role).toBeNull();

    const sso = await client.orgs.setUserAsSsoMemberForOrganization(org.id, reader.id);
    expect(sso.data.sso).toBe(true);

    const teams = await client.orgs.listTeamsForOrganizationMember(org.id, reader.id, { title: "contract" });
    expect(teams.data.items).toMatchObject([{ team: { id: team.id, members: 1 }, member: { role: "member" } }]);

    const removed = await client.orgs.removeMemberFromOrganizationById(org.id, reader.id);
    expect(removed.status).toBe(204);
    await expect(client.orgs.getMemberInOrganizationById(org.id, reader.id)).rejects.toMatchObject({ code: 404 });
    const lastAdmin = client.orgs.updateMemberInOrganizationById(org.id, owner.id, { role: MemberRole.Read });
    await expect(lastAdmin).rejects.toMatchObject({ code: 409 });
  });
});

describe("invitations and invite links through @gitbook/api", () => {
  it("invites by email, manages invite links, and joins with one", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const known = await createUser(ctx);
    const client = contractClient(endpoint, owner.token);

    const invited = await client.orgs.inviteUsersToOrganization(org.id, {
      emails: [known.email, { email: "pending@contract.test", role: MemberRole.Comment }],
      role: MemberRole.Read,
      sso: true,
    });
    expect(invited.data.invited).toBe(2);
    expect(invited.data.users[0]).toBe(known.id);
    expect(invited.data.failedSSOEmails).toEqual([]);

    const created = await client.orgs.createOrganizationInvite(org.id, { role: MemberRole.Edit });
    expect(created.status).toBe(201);
    const inviteId = created.data.id;
    const links = await client.orgs.listOrganizationInviteLinks(org.id, { limit: 10 });
    expect(links.data.items.map((i) => i.id)).toEqual([inviteId]);
    const link = await client.orgs.getOrganizationInviteLink(org.id, inviteId);
    expect(link.data).toMatchObject({ object: "invite", id: inviteId, role: "edit", redundant: true });
    const patched = await client.orgs.updateOrganizationInviteById(org.id, inviteId, { role: MemberRole.Review });
    expect(patched.data).toMatchObject({ role: "review" });

    const joiner = await createUser(ctx);
    const joined = await contractClient(endpoint, joiner.token).orgs.joinOrganizationWithInvite(org.id, inviteId);
    expect(joined.data).toEqual({});
    const asMember = await client.orgs.getMemberInOrganizationById(org.id, joiner.id);
    expect(asMember.data.role).toBe("review");

    const deleted = await client.orgs.deleteOrganizationInviteById(org.id, inviteId);
    expect(deleted.status).toBe(204);
    await expect(client.orgs.getOrganizationInviteLink(org.id, inviteId)).rejects.toMatchObject({ code: 404 });
  });
});
