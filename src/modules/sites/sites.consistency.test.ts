/**
 * A site stays consistent when a space it shows is deleted (hidden while restorable, back when
 * restored, gone when purged) or transferred to another organization (taken off the old
 * organization's sites).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrganization } from "../../../test/helpers/factories.js";
import { addSection, createSite, structureOf } from "../../../test/helpers/sites.factories.js";
import { backdateDeletion, createCollection, createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { enqueue } from "../../jobs/queue.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** A published site with a home section (Guide) and a section "API" showing only the API space. */
async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const { org, owner } = base;
  const api = await createSpace(ctx, owner, org.id, { title: "API" });
  const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [base.space.id] });
  const section = await addSection(ctx, owner, org.id, site.id, { spaceId: api.id });
  const url = `/v1/orgs/${org.id}/sites/${site.id}`;
  await ctx.as(owner).post(`${url}/publish`);
  return { ...base, api, site, section, url };
}

const ids = (items: { id: string }[]) => items.map((i) => i.id);

describe("a deleted space", () => {
  it("is hidden from its sites while restorable, and back when restored", async () => {
    const { org, owner, api, site, section, url } = await scenario();
    const [home] = (await structureOf(ctx, owner, org.id, site.id)).structure;
    if (!home) throw new Error("no home section");
    expect((await ctx.as(owner).delete(`/v1/spaces/${api.id}`)).status).toBe(204);

    expect(ids((await structureOf(ctx, owner, org.id, site.id)).structure)).toEqual([home.id]);
    expect((await ctx.as(owner).get(url)).body.siteSpaces).toBe(1);
    expect((await ctx.as(owner).get(`${url}/site-spaces`)).body.items.map((s: { space: { id: string } }) => s.space.id)).not.toContain(
      api.id,
    );
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/sites?space=${api.id}`)).body.count).toBe(0);
    // The section stays listed, empty, and the hidden site space answers like one that does not exist.
    const sections = (await ctx.as(owner).get(`${url}/sections`)).body.items;
    expect(sections.find((s: { id: string }) => s.id === section.id).siteSpaces).toEqual([]);
    const hidden = await ctx.as(owner).patch(`${url}/site-spaces/${section.siteSpaces[0]?.id}`, { path: "x" });
    expect(hidden.status).toBe(404);
    const published = await ctx.as(owner).get(`${url}/published`);
    expect(ids(published.body.structure.structure)).toEqual([home.id]);

    expect((await ctx.as(owner).post(`/v1/spaces/${api.id}/restore`)).status).toBe(200);
    expect(ids((await structureOf(ctx, owner, org.id, site.id)).structure)).toEqual([home.id, section.id]);
    expect((await ctx.as(owner).get(url)).body.siteSpaces).toBe(2);
  });

  it("keeps its path reserved while hidden, and a hidden default gives way to the next site space", async () => {
    const { org, owner, space, url, site } = await scenario();
    const other = await createSpace(ctx, owner, org.id, { title: "Guide" });
    const [home] = (await structureOf(ctx, owner, org.id, site.id)).structure;
    if (!home) throw new Error("no home section");
    const added = (await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: other.id, sectionId: home.id })).body;
    expect(added.path).toBe("guide-2");
    await ctx.as(owner).delete(`/v1/spaces/${space.id}`);
    const [after] = (await structureOf(ctx, owner, org.id, site.id)).structure;
    if (!after) throw new Error("no home section");
    expect(after.siteSpaces.map((s: { id: string; default: boolean }) => [s.id, s.default])).toEqual([[added.id, true]]);
    const taken = await ctx.as(owner).patch(`${url}/site-spaces/${added.id}`, { path: "guide" });
    expect(taken.status).toBe(400);
  });

  it("leaves its sites when purged", async () => {
    const { org, owner, api, site, section, url } = await scenario();
    await ctx.as(owner).delete(`/v1/spaces/${api.id}`);
    await backdateDeletion(ctx, api.id, 8);
    await enqueue(ctx.db, "purge-deleted-spaces", {});
    await ctx.worker.drain();
    expect(await ctx.db.selectFrom("siteSpaces").select("id").where("spaceId", "=", api.id).execute()).toEqual([]);
    expect((await ctx.as(owner).get(url)).body.siteSpaces).toBe(1);
    expect((await ctx.as(owner).get(`${url}/sections`)).body.items.map((s: { id: string }) => s.id)).toContain(section.id);
    expect((await structureOf(ctx, owner, org.id, site.id)).structure).toHaveLength(1);
  });
});

describe("a transferred space", () => {
  it("is taken off the old organization's sites; the new one can publish it", async () => {
    const { org, owner, api, site, section, url } = await scenario();
    const target = await createOrganization(ctx, owner, "Target");
    const res = await ctx.as(owner).post(`/v1/spaces/${api.id}/transfer`, { organization: target.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await ctx.db.selectFrom("siteSpaces").select("id").where("spaceId", "=", api.id).execute()).toEqual([]);
    expect((await ctx.as(owner).get(url)).body.siteSpaces).toBe(1);
    expect((await ctx.as(owner).get(`${url}/sections`)).body.items.find((s: { id: string }) => s.id === section.id).siteSpaces).toEqual([]);
    // The old organization cannot add it back: it is another organization's now.
    const again = await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: api.id });
    expect(again.status).toBe(400);
    const theirs = await createSite(ctx, owner, target.id, { spaces: [api.id] });
    expect(theirs.siteSpaces).toBe(1);
    expect((await structureOf(ctx, owner, org.id, site.id)).structure).toHaveLength(1);
  });

  it("leaves with its collection", async () => {
    const { org, owner, url } = await scenario();
    const collection = await createCollection(ctx, owner, org.id, { title: "Moving" });
    const inside = await createSpace(ctx, owner, org.id, { title: "Inside", parent: collection.id });
    await ctx.as(owner).post(`${url}/site-spaces`, { spaceId: inside.id });
    expect((await ctx.as(owner).get(url)).body.siteSpaces).toBe(3);
    const target = await createOrganization(ctx, owner, "Target");
    const res = await ctx.as(owner).post(`/v1/collections/${collection.id}/transfer`, { organization: target.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await ctx.as(owner).get(url)).body.siteSpaces).toBe(2);
    expect(await ctx.db.selectFrom("siteSpaces").select("id").where("spaceId", "=", inside.id).execute()).toEqual([]);
  });
});
