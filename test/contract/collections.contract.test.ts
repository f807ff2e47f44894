/**
 * Collections through GitBook's own client: every response is validated against
 * @gitbook/api@0.146.0's spec by the contract harness.
 */
import { MemberRole } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { configureGitSync } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("collections through @gitbook/api", () => {
  it("covers create, list, get, update, list spaces, move, transfer and delete", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Contract Collections");
    const target = await createOrganization(ctx, owner, "Contract Target");
    const client = contractClient(endpoint, owner.token);

    const created = await client.orgs.createCollection(org.id, { title: "Guides" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${ctx.urls.base}/v1/collections/${created.data.id}`);
    const child = await client.orgs.createCollection(org.id, { title: "Nested", parent: created.data.id });
    expect(child.data.parent).toBe(created.data.id);

    const all = await client.orgs.listCollectionsInOrganizationById(org.id, { limit: 10 });
    expect(all.data.items.map((c) => c.id)).toEqual([created.data.id, child.data.id]);
    const top = await client.orgs.listCollectionsInOrganizationById(org.id, { nested: false });
    expect(top.data.items.map((c) => c.id)).toEqual([created.data.id]);

    const got = await client.collections.getCollectionById(created.data.id);
    expect(got.data.permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
    const updated = await client.collections.updateCollectionById(created.data.id, {
      title: "Handbooks",
      description: "Everything we know",
      defaultLevel: "inherit",
    });
    expect(updated.data).toMatchObject({ title: "Handbooks", description: "Everything we know" });
    await client.collections.updateCollectionById(child.data.id, { defaultLevel: null });
    await client.collections.updateCollectionById(child.data.id, { defaultLevel: MemberRole.Review });

    const space = await client.orgs.createSpace(org.id, { title: "Inside", parent: created.data.id });
    const spaces = await client.collections.listSpacesInCollectionById(created.data.id, { limit: 5 });
    expect(spaces.data.items.map((s) => s.id)).toEqual([space.data.id]);

    // The nested collection was created before the space, so it moves from before it to after it.
    const moved = await client.collections.moveCollection(child.data.id, {
      parent: created.data.id,
      position: { after: { type: "space", space: space.data.id } },
    });
    expect(moved.data.parent).toBe(created.data.id);
    const toTop = await client.collections.moveCollection(child.data.id, { parent: null });
    expect(toTop.data.parent).toBeUndefined();
    await expect(client.collections.moveCollection(child.data.id, { parent: null })).rejects.toMatchObject({ code: 409 });
    await expect(
      client.collections.moveCollection(child.data.id, { position: { after: { type: "space", space: space.data.id } } }),
    ).rejects.toMatchObject({ code: 400 });
    await expect(client.collections.moveCollection(child.data.id, { parent: "missing" })).rejects.toMatchObject({ code: 404 });

    const transferred = await client.collections.transferCollection(child.data.id, { organization: target.id });
    expect(transferred.data.organization).toBe(target.id);
    await expect(client.collections.transferCollection(child.data.id, { organization: target.id })).rejects.toMatchObject({ code: 409 });
    await configureGitSync(ctx, space.data.id);
    await expect(client.collections.transferCollection(created.data.id, { organization: target.id })).rejects.toMatchObject({ code: 412 });

    const deleted = await client.collections.deleteCollectionById(created.data.id);
    expect(deleted.status).toBe(204);
    expect((await client.collections.deleteCollectionById(created.data.id)).status).toBe(204);
    await expect(client.collections.getCollectionById(created.data.id)).rejects.toMatchObject({ code: 404 });
    const restored = await client.spaces.restoreSpace(space.data.id);
    expect(restored.data.parent).toBeUndefined();
  });
});
