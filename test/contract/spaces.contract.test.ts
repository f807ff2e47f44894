/**
 * Spaces and member spaces through GitBook's own client: every response is validated against
 * @gitbook/api@0.146.0's spec by the contract harness.
 */
import { MemberRole, SpaceEditMode, TranslationLanguage } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { configureGitSync } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("spaces through @gitbook/api", () => {
  it("covers create, list, get, update (every body alternative), duplicate, move, transfer, delete and restore", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const reviewer = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Contract Spaces");
    const target = await createOrganization(ctx, owner, "Contract Target");
    await addMemberToOrg(ctx, org.id, reviewer, "review");
    const client = contractClient(endpoint, owner.token);

    const created = await client.orgs.createSpace(org.id, {
      title: "Handbook",
      emoji: "📘",
      language: TranslationLanguage.En,
      editMode: SpaceEditMode.Live,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${ctx.urls.base}/v1/spaces/${created.data.id}`);
    const bare = await client.orgs.createSpace(org.id, {});
    expect(bare.data.title).toBe("Untitled");
    const collection = await client.orgs.createCollection(org.id, { title: "Docs" });

    const list = await client.orgs.listSpacesInOrganizationById(org.id, { limit: 1 });
    expect(list.data.count).toBe(2);
    const next = await client.orgs.listSpacesInOrganizationById(org.id, { limit: 1, page: list.data.next?.page });
    expect(next.data.items.map((s) => s.id)).toEqual([bare.data.id]);

    const got = await client.spaces.getSpaceById(created.data.id, { shareKey: "ignored" });
    expect(got.data.revision).toBe(created.data.revision);

    const space = created.data.id;
    expect(
      (
        await client.spaces.updateSpaceById(space, {
          title: "Guide",
          editMode: SpaceEditMode.Locked,
          defaultLevel: MemberRole.Read,
          language: TranslationLanguage.Ja,
        })
      ).data,
    ).toMatchObject({
      title: "Guide",
      editMode: "locked",
      defaultLevel: "read",
      language: "ja",
    });
    expect((await client.spaces.updateSpaceById(space, { defaultLevel: "inherit", editMode: SpaceEditMode.Live })).data.defaultLevel).toBe(
      "inherit",
    );
    expect((await client.spaces.updateSpaceById(space, { defaultLevel: null })).data.defaultLevel).toBeNull();
    for (const mergeRules of [
      {
        type: "rules" as const,
        rules: [{ rule: "require_specific_reviewers" as const, users: [reviewer.id] }, { rule: "require_at_least_one_review" as const }],
      },
      { type: "none" as const },
      { type: "inherit" as const },
    ]) {
      expect((await client.spaces.updateSpaceById(space, { mergeRules })).data.mergeRules).toEqual(mergeRules);
    }
    expect((await client.spaces.updateSpaceById(space, { icon: "https://cdn.example.com/i.png" })).data.urls.icon).toBe(
      "https://cdn.example.com/i.png",
    );
    expect((await client.spaces.updateSpaceById(space, { emoji: "🎉" })).data.emoji).toBe("🎉");
    expect((await client.spaces.updateSpaceById(space, { emoji: null, icon: null })).data.emoji).toBe("");

    const copy = await client.spaces.duplicateSpace(space);
    expect(copy.status).toBe(201);
    expect(copy.headers.get("location")).toBe(`${ctx.urls.base}/v1/spaces/${copy.data.id}`);
    expect(copy.data.title).toBe("Guide (copy)");

    const moved = await client.spaces.moveSpace(copy.data.id, { parent: collection.data.id });
    expect(moved.data.parent).toBe(collection.data.id);
    const beside = await client.spaces.moveSpace(space, {
      parent: collection.data.id,
      position: { after: { type: "space", space: copy.data.id } },
    });
    expect(beside.data.parent).toBe(collection.data.id);
    await expect(client.spaces.moveSpace(space, { parent: collection.data.id })).rejects.toMatchObject({ code: 409 });
    await expect(client.spaces.moveSpace(space, { position: { before: { type: "space", space: bare.data.id } } })).rejects.toMatchObject({
      code: 400,
    });
    await expect(client.spaces.moveSpace(space, { parent: "missing" })).rejects.toMatchObject({ code: 404 });

    const transferred = await client.spaces.transferSpace(bare.data.id, { organization: target.id });
    expect(transferred.data.organization).toBe(target.id);
    await expect(client.spaces.transferSpace(bare.data.id, { organization: target.id })).rejects.toMatchObject({ code: 409 });
    await configureGitSync(ctx, copy.data.id);
    await expect(client.spaces.transferSpace(copy.data.id, { organization: target.id })).rejects.toMatchObject({ code: 412 });
    expect((await client.spaces.getSpaceById(copy.data.id)).data.gitSync?.installationProvider).toBe("github");

    expect((await client.spaces.deleteSpaceById(space)).status).toBe(204);
    const deleted = await client.spaces.getSpaceById(space);
    expect(deleted.data.deletedAt).toBeDefined();
    await expect(client.spaces.updateSpaceById(space, { title: "x" })).rejects.toMatchObject({ code: 404 });
    const restored = await client.spaces.restoreSpace(space);
    expect(restored.data.deletedAt).toBeUndefined();
    await expect(client.spaces.restoreSpace(space)).rejects.toMatchObject({ code: 409 });
    expect((await client.spaces.deleteSpaceById("missing")).status).toBe(204);
  });

  it("lists a member's spaces with their level", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const member = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Member Spaces");
    await addMemberToOrg(ctx, org.id, member, "comment");
    const client = contractClient(endpoint, owner.token);
    const a = await client.orgs.createSpace(org.id, { title: "A" });
    const b = await client.orgs.createSpace(org.id, { title: "B" });
    const res = await client.orgs.listSpacesForOrganizationMember(org.id, member.id, { order: "asc", limit: 10 });
    expect(res.data.items.map((i) => [i.space.id, i.permission])).toEqual([
      [a.data.id, "comment"],
      [b.data.id, "comment"],
    ]);
    const own = await contractClient(endpoint, member.token).orgs.listSpacesForOrganizationMember(org.id, member.id);
    expect(own.data.items.map((i) => i.space.id)).toEqual([b.data.id, a.data.id]);
    await expect(contractClient(endpoint, member.token).orgs.listSpacesForOrganizationMember(org.id, owner.id)).rejects.toMatchObject({
      code: 403,
    });
  });
});
