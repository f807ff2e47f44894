import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, testFile } from "../../../test/helpers/content.factories.js";
import { encodePng } from "../../../test/helpers/png.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

function photo(width: number, height: number, seed: number): Buffer {
  return encodePng(width, height, (x, y) => [(x * 5 + seed) % 256, (y * 11 + x * seed) % 256, ((x ^ y) * 7) % 256, 255], false);
}

const spaceJobs = (spaceId: string) =>
  ctx.db
    .selectFrom("jobs")
    .select(["id", "state", "runAt", "attempts"])
    .where("kind", "=", "space-image-variants")
    .where("dedupeKey", "=", `space-image-variants:${spaceId}`)
    .orderBy("createdAt")
    .execute();

/** Makes the space's queued job due now (it is enqueued a little ahead, behind the change's own jobs). */
const dueNow = (spaceId: string) =>
  ctx.db
    .updateTable("jobs")
    .set({ runAt: new Date(Date.now() - 1000).toISOString() })
    .where("dedupeKey", "=", `space-image-variants:${spaceId}`)
    .where("state", "=", "queued")
    .execute();

const doneSources = async (hashes: string[]) =>
  (await ctx.db.selectFrom("imageVariants").select("sourceHash").where("width", "=", 0).where("sourceHash", "in", hashes).execute()).map(
    (r) => r.sourceHash,
  );

describe("space-image-variants: a published space's images made before readers ask", () => {
  it("is queued by publishing and by a change of a published space's content, gives way to other jobs, then makes every image", async () => {
    const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Pictures" });
    const other = await createSpace(ctx, owner, org.id, { title: "Elsewhere" });
    const png = await testFile(ctx, "a.png", photo(700, 300, 3), "image/png", { dimensions: { width: 700, height: 300 } });
    const jpeg = await testFile(ctx, "b.jpg", Buffer.from(encodePng(2, 2, () => [1, 2, 3, 255])), "image/png");
    const svg = await testFile(ctx, "c.svg", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), "image/svg+xml");
    await commitContent(ctx, space.id, { pages: [{ title: "Page", slug: "page", paragraphs: ["Text."] }], files: [png, jpeg, svg] });
    // Not on a published site: nothing is made ahead.
    expect(await spaceJobs(space.id)).toEqual([]);

    const site = await createSite(ctx, owner, org.id, { title: "Pictures", spaces: [space.id] });
    expect(await spaceJobs(space.id)).toEqual([]);
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const [queued] = await spaceJobs(space.id);
    expect(queued?.state).toBe("queued");
    // Queued a little ahead: a drain now runs nothing of it.
    expect(new Date(queued!.runAt).getTime()).toBeGreaterThan(Date.now());
    await ctx.worker.drain();
    expect(await doneSources([png.blobHash, jpeg.blobHash])).toEqual([]);

    // Another job waiting: the space's images give way, and the job is queued again, later, with its attempts afresh.
    await dueNow(space.id);
    await requestSearchIndex(ctx.db, other.id);
    await ctx.worker.drain();
    expect(await doneSources([png.blobHash, jpeg.blobHash])).toEqual([]);
    const [waiting] = await spaceJobs(space.id);
    expect(waiting?.id).toBe(queued?.id);
    expect(waiting?.state).toBe("queued");
    expect(waiting?.attempts).toBe(0);
    expect(new Date(waiting!.runAt).getTime()).toBeGreaterThan(Date.now());

    await dueNow(space.id);
    await ctx.worker.drain();
    expect((await doneSources([png.blobHash, jpeg.blobHash, svg.blobHash])).sort()).toEqual([png.blobHash, jpeg.blobHash].sort());
    const widths = await ctx.db
      .selectFrom("imageVariants")
      .select("width")
      .where("sourceHash", "=", png.blobHash)
      .orderBy("width")
      .execute();
    expect(widths.map((w) => w.width)).toEqual([0, 320, 480, 640, 700]);
    expect((await spaceJobs(space.id)).map((j) => j.state)).toEqual(["succeeded"]);

    // New content of the published space: queued again; only the new image is made.
    const added = await testFile(ctx, "d.png", photo(400, 200, 8), "image/png");
    await commitContent(ctx, space.id, { pages: [{ title: "Page", slug: "page", paragraphs: ["Text."] }], files: [png, added] });
    expect((await spaceJobs(space.id)).map((j) => j.state)).toEqual(["succeeded", "queued"]);
    // The change's own jobs (its search index) first, then the images.
    await ctx.worker.drain();
    await dueNow(space.id);
    await ctx.worker.drain();
    expect(await doneSources([added.blobHash])).toEqual([added.blobHash]);

    // Unpublished: a change queues nothing.
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/unpublish`)).status).toBe(200);
    await commitContent(ctx, space.id, { pages: [{ title: "Page", slug: "page", paragraphs: ["Other."] }], files: [png] });
    expect((await spaceJobs(space.id)).map((j) => j.state)).toEqual(["succeeded", "succeeded"]);
  });
});
