/**
 * Finding pages from the app: the JSON endpoint the header's box asks and the results page it opens
 * without script. Only spaces the member may read; pages sharing a title show where they are; the
 * errors of the JSON endpoint are JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createOrganization, createUser } from "../../../../../test/helpers/factories.js";
import { createOrgWithSpace, createSpace, setDefaultLevel } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Platform" });
  await commitContent(ctx, space.id, {
    pages: [
      {
        title: "Cloud",
        slug: "cloud",
        paragraphs: ["Where we run."],
        children: [{ title: "Kubernetes", paragraphs: ["Clusters in the cloud."] }],
      },
      {
        title: "On premises",
        slug: "on-prem",
        paragraphs: ["Racks."],
        children: [{ title: "Kubernetes", paragraphs: ["Clusters at home."] }],
      },
    ],
  });
  const secret = await createSpace(ctx, roles.owner, roles.org.id, { title: "Secret plans" });
  await commitContent(ctx, secret.id, { pages: [{ title: "Kubernetes budget", paragraphs: ["Clusters cost money."] }] });
  await setDefaultLevel(ctx, roles.owner, { space: secret.id }, null);
  await ctx.worker.drain();
  return { ...roles, space, secret, json: `/app/o/${roles.org.id}/search.json`, page: `/app/o/${roles.org.id}/search` };
}

describe("searching pages in the web app", () => {
  it("finds pages of the spaces the member may read, telling same-titled pages apart by space and ancestors", async () => {
    const s = await setup();
    const reader = await WebClient.signedIn(ctx, s.members.read);
    const res = await reader.get(`${s.json}?q=${encodeURIComponent("kubernetes clusters")}`);
    expect(res.status, res.text).toBe(200);
    expect(String(res.headers["content-type"])).toContain("application/json");
    const { items } = JSON.parse(res.text) as { items: { label: string; trail: string; url: string; space: { id: string } }[] };
    expect(items.map((i) => i.label).sort()).toEqual([
      "Kubernetes — Platform / Cloud / Kubernetes",
      "Kubernetes — Platform / On premises / Kubernetes",
    ]);
    expect(items.every((i) => i.space.id === s.space.id && i.url.startsWith(`/app/o/${s.org.id}/s/${s.space.id}/p/`))).toBe(true);
    // Each result opens.
    for (const item of items) expect((await reader.get(item.url)).status, item.url).toBe(200);

    // The owner reads the restricted space too.
    const owner = await WebClient.signedIn(ctx, s.owner);
    const all = JSON.parse((await owner.get(`${s.json}?q=clusters`)).text).items as { label: string; trail: string }[];
    expect(all.map((i) => i.trail).sort()).toEqual([
      "Platform / Cloud / Kubernetes",
      "Platform / On premises / Kubernetes",
      "Secret plans / Kubernetes budget",
    ]);
    expect(JSON.parse((await reader.get(`${s.json}?q=budget`)).text).items).toEqual([]);
    expect(JSON.parse((await reader.get(`${s.json}?q=`)).text).items).toEqual([]);

    // Without script: the results page, the words kept in the box.
    const page = await reader.get(`${s.page}?q=clusters`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Kubernetes — Platform / Cloud / Kubernetes");
    expect(page.text).toContain('id="search-input" name="q" value="clusters"');
    expect(page.text).not.toContain("Secret plans");
    const none = await reader.get(`${s.page}?q=${encodeURIComponent("<b>nothing</b>")}`);
    expect(none.text).toContain("No page of the spaces you can read matches “&lt;b&gt;nothing&lt;/b&gt;”.");
  });

  it("answers outsiders 404, a visitor without a session the sign-in, and bad words a JSON 400", async () => {
    const s = await setup();
    const stranger = await createUser(ctx);
    await createOrganization(ctx, stranger, "Elsewhere");
    const outsider = await WebClient.signedIn(ctx, stranger);
    const refused = await outsider.get(`${s.json}?q=kubernetes`);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.text).error.code).toBe(404);
    expect((await outsider.get(`${s.page}?q=kubernetes`)).status).toBe(404);
    const visitor = await new WebClient(ctx).get(`${s.json}?q=kubernetes`);
    expect(visitor.status).toBe(303);
    const reader = await WebClient.signedIn(ctx, s.members.read);
    const long = await reader.get(`${s.json}?q=${"k".repeat(600)}`);
    expect(long.status).toBe(400);
    expect(JSON.parse(long.text).error.message).toContain("q");
    const odd = await reader.get(`${s.json}?q=${encodeURIComponent('"""((')}`);
    expect(odd.status, odd.text).toBeLessThan(500);
  });
});

describe("asking the docs in the web app", () => {
  it("answers from the spaces the member may read, citing their pages, and says so when the docs do not answer", async () => {
    const s = await setup();
    const ask = `/app/o/${s.org.id}/ask`;
    const reader = await WebClient.signedIn(ctx, s.members.read);
    expect((await reader.get(ask)).status).toBe(200);
    const res = await reader.get(`${ask}?q=${encodeURIComponent("Where do the clusters run at home?")}`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('<ol class="ask-sources">');
    // The answer's Markdown is shown as text with its strong words and citations linked to the sources.
    expect(res.text).toMatch(/<p><strong>Kubernetes<\/strong>: Clusters at home\. <a href="#source-1">\[1\]<\/a><\/p>/);
    const sources = [...res.text.matchAll(/<li value="\d+" id="source-\d+"><a href="([^"]+)">/g)].map((m) => m[1] as string);
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.every((url) => url.startsWith(`/app/o/${s.org.id}/s/${s.space.id}/p/`))).toBe(true);
    for (const url of sources) expect((await reader.get(url.replace(/&amp;/g, "&"))).status, url).toBe(200);
    // The restricted space's text is no source of a member who may not read it; its owner's answer cites it.
    const budget = `${ask}?q=${encodeURIComponent("How much do the clusters cost?")}`;
    expect((await reader.get(budget)).text).not.toContain(`/s/${s.secret.id}/`);
    const owner = await WebClient.signedIn(ctx, s.owner);
    expect((await owner.get(budget)).text).toContain(`/s/${s.secret.id}/`);
    // Nothing in the docs answers this.
    const none = await reader.get(`${ask}?q=${encodeURIComponent("What is the airspeed velocity of an unladen swallow?")}`);
    expect(none.status).toBe(200);
    expect(none.text).not.toContain('<ol class="ask-sources">');
    // An outsider finds no organization; a question beyond Ask's bound is refused with a page.
    const outsider = await WebClient.signedIn(ctx, await createUser(ctx));
    expect((await outsider.get(`${ask}?q=clusters`)).status).toBe(404);
    expect((await reader.get(`${ask}?q=${"w".repeat(600)}`)).status).toBe(400);
  });
});
