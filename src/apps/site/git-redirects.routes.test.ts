/**
 * `.gitbook.yaml` redirects on a published site: a Git import keeps them (old path -> the page
 * imported from the target file), the site answers an old path with 301 to that page's address
 * (HTML and .md), and the next import replaces them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { type BareRepo, createBareRepo, loadFixture } from "../../../test/helpers/git.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
const repos: BareRepo[] = [];
beforeAll(async () => {
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
}, 120_000);
afterAll(async () => {
  for (const repo of repos) repo.cleanup();
  await ctx.close();
});

async function importFiles(spaceId: string, token: string, files: Parameters<typeof createBareRepo>[0]) {
  const repo = createBareRepo(files);
  repos.push(repo);
  const res = await ctx.as(token).post(`/v1/spaces/${spaceId}/git/import`, { url: repo.url, ref: "refs/heads/main" });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  await ctx.worker.drain();
}

describe(".gitbook.yaml redirects on a published site", () => {
  it("answer an old path with 301 to the page, and follow the next import", async () => {
    const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Docs" });
    const fixture = loadFixture("gitbook-docs");
    await importFiles(space.id, owner.token, fixture);
    const state = await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`);
    expect(state.body.lastImport.status, JSON.stringify(state.body)).toBe("succeeded");
    const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [space.id] });
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
    const root = `/s/${site.basename}`;

    const target = await ctx.anonymous.get(`${root}/start/quickstart`);
    expect(target.status).toBe(200);
    for (const old of ["old/quickstart", "old/quickstart/"]) {
      const res = await ctx.anonymous.get(`${root}/${old}`);
      expect(res.status, old).toBe(301);
      expect(res.headers.location, old).toBe(`${root}/start/quickstart`);
    }
    const md = await ctx.anonymous.get(`${root}/help.md`);
    expect(md.status).toBe(301);
    expect(md.headers.location).toMatch(/\/start\/support\.md$/);
    expect((await ctx.anonymous.get(`${root}/never/was`)).status).toBe(404);

    // The next import without the redirects: the old paths are unknown again.
    const yaml = String(fixture[".gitbook.yaml"]).replace(/redirects:[\s\S]*$/, "");
    await importFiles(space.id, owner.token, { ...fixture, ".gitbook.yaml": `${yaml}redirects:\n  gone: ./missing.md\n` });
    const again = await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`);
    expect(again.body.lastImport.status).toBe("succeeded");
    expect((again.body.lastImport.warnings as string[]).some((w) => w.includes('the redirect "gone"'))).toBe(true);
    expect((await ctx.anonymous.get(`${root}/old/quickstart`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${root}/gone`)).status).toBe(404);
  });
});
