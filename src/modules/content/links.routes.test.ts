/** Links and backlinks of content imported from a real repository, counted as a reader would. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { contractClient } from "../../../test/helpers/contract.js";
import { createBareRepo } from "../../../test/helpers/git.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
});
afterAll(() => ctx.close());

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000020000000308060000009a9c1e4e", "hex");

// Links a reader counts: README has 6 (guide, guide#setup, example.com, missing.md, the logo image,
// an in-app URL); guide.md has 2 (back to README, and the README content-ref card).
const REPO = {
  "SUMMARY.md": "* [Home](README.md)\n* [Guide](guide.md)\n* [Orphan](orphan.md)\n",
  "README.md": [
    "# Home",
    "",
    "See [the guide](guide.md), its [setup section](guide.md#setup), [an external site](https://example.com),",
    "and [a page that does not exist](missing.md).",
    "",
    "![Logo](.gitbook/assets/logo.png)",
    "",
    "Open [the app](http://quire.test/app/o/x).",
    "",
  ].join("\n"),
  "guide.md": [
    "# Guide",
    "",
    "## Setup",
    "",
    "Back to [home](README.md).",
    "",
    '{% content-ref url="README.md" %}',
    "[README.md](README.md)",
    "{% endcontent-ref %}",
    "",
  ].join("\n"),
  "orphan.md": "# Orphan\n\nNo links here.\n",
  ".gitbook/assets/logo.png": PNG,
};

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Linked" });
  const repo = createBareRepo(REPO);
  await ctx.as(roles.owner).post(`/v1/spaces/${space.id}/git/import`, { url: repo.url, ref: "refs/heads/main" });
  await ctx.worker.drain();
  repo.cleanup();
  const content = (await ctx.as(roles.owner).get(`/v1/spaces/${space.id}/content`)).body;
  const byTitle = (title: string) => content.pages.find((p: { title: string }) => p.title === title);
  return { ...roles, space, home: byTitle("Home"), guide: byTitle("Guide"), orphan: byTitle("Orphan"), logo: content.files[0] };
}

describe("GET /v1/spaces/{spaceId}/links", () => {
  it("lists every link target with its status and the pages that link to it", async () => {
    const { owner, space, home, guide } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/links`);
    expect(res.status).toBe(200);
    expect(res.body.stats).toEqual({ total: 8, broken: { total: 1 } });
    const status = (predicate: (item: any) => boolean) => res.body.items.find(predicate)?.status;
    expect(status((i) => i.targetReference?.kind === "url" && i.targetReference.url === "https://example.com")).toBe("ok");
    expect(status((i) => i.targetReference?.url === "missing.md")).toBe("broken");
    expect(status((i) => i.targetReference?.url === "http://quire.test/app/o/x")).toBe("in-app");
    const toHome = res.body.items.find((i: any) => i.targetReference?.kind === "page" && i.targetReference.page.id === home.id);
    expect(toHome.locationReferences.map((l: any) => l.page.id)).toEqual([guide.id]);
    expect(toHome.locationReferences[0]).toMatchObject({ kind: "page", organization: { object: "organization" }, space: { id: space.id } });
    const broken = await ctx.as(owner).get(`/v1/spaces/${space.id}/links?status=broken`);
    expect(broken.body.items).toHaveLength(1);
    expect(broken.body.stats.total).toBe(8);
  });

  it("lists one page's links and a page's and a file's backlinks", async () => {
    const { owner, space, home, guide, orphan, logo } = await setup();
    const links = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${home.id}/links`);
    expect(links.body.stats.total).toBe(6);
    const backlinks = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${guide.id}/backlinks`);
    expect(backlinks.body.items.map((l: any) => l.page.id)).toEqual([home.id]);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${orphan.id}/backlinks`)).body.items).toEqual([]);
    const fileBacklinks = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/files/${logo.id}/backlinks`);
    expect(fileBacklinks.body.items.map((l: any) => l.page.id)).toEqual([home.id]);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/nope/links`)).status).toBe(404);
  });

  it("answers 401, 404 to outsiders, 400 on a bad status, and validates through @gitbook/api", async () => {
    const { owner, outsider, space, home, guide, logo } = await setup();
    expect((await ctx.anonymous.get(`/v1/spaces/${space.id}/links`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`/v1/spaces/${space.id}/links`)).status).toBe(404);
    const badStatus = await ctx.as(owner).get(`/v1/spaces/${space.id}/links?status=dead`);
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.message).toBe('query parameter "status" must be one of: "ok", "broken", "in-app".');
    const client = contractClient(await ctx.listen(), owner.token);
    expect((await client.spaces.listSpaceLinks(space.id)).data.stats.total).toBe(8);
    expect((await client.spaces.listPageLinksInSpace(space.id, home.id)).data.items.length).toBeGreaterThan(0);
    expect((await client.spaces.listSpacePageBacklinks(space.id, guide.id)).data.items).toHaveLength(1);
    expect((await client.spaces.listSpaceFileBacklinks(space.id, logo.id)).data.items).toHaveLength(1);
  });
});
