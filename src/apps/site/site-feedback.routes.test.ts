/**
 * "Was this page helpful?" on published pages: the form, answers stored one per reader, page and
 * day, the limit per address, only where the customization enables it and for pages the reader may
 * read, and the counts on the web app's site page for its editors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { FEEDBACK_PER_HOUR } from "./pages/feedback.action.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario(feedback = true) {
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  const { content } = await commitContent(ctx, base.space.id, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Start here."] },
      { title: "Install", slug: "install", paragraphs: ["Run it."] },
      { title: "Beta", slug: "beta", paragraphs: ["Testers only."], extra: { condition: "visitor.claims.beta === true" } },
    ],
  });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", spaces: [base.space.id] });
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  if (feedback) expect((await ctx.as(base.owner).put(`${url}/customization`, { feedback: { enabled: true } })).status).toBe(200);
  expect((await ctx.as(base.owner).post(`${url}/publish`)).status).toBe(200);
  const [welcome, install, beta] = content.pages.map((p) => p.id) as [string, string, string];
  return { ...base, site, url, root: `/s/${site.basename}`, ids: { welcome, install, beta } };
}

/** The form's fields as the page renders them. */
function formOf(html: string) {
  const form =
    /<form class="q-feedback" method="post" action="([^"]+)"><input type="hidden" name="siteSpace" value="([^"]+)"><input type="hidden" name="page" value="([^"]+)">/.exec(
      html,
    );
  return form ? { action: form[1] as string, siteSpace: form[2] as string, page: form[3] as string } : undefined;
}

async function answer(
  action: string,
  fields: Record<string, string>,
  options: { cookie?: string; address?: string } = {},
): Promise<{ status: number; location?: string; cookie?: string; text: string }> {
  const res = await ctx.app.inject({
    method: "POST",
    url: action,
    payload: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...(options.cookie ? { cookie: options.cookie } : {}) },
    remoteAddress: options.address ?? "203.0.113.7",
  });
  const set = res.headers["set-cookie"];
  const cookie = (Array.isArray(set) ? set[0] : set)?.split(";")[0];
  return { status: res.statusCode, location: res.headers.location as string | undefined, text: res.body, ...(cookie ? { cookie } : {}) };
}

const rows = (siteId: string) => ctx.db.selectFrom("pageFeedback").selectAll().where("siteId", "=", siteId).execute();

describe("Was this page helpful?", () => {
  it("asks on every page, stores one answer per reader, page and day (the last one), and thanks the reader", async () => {
    const s = await scenario();
    const html = (await ctx.anonymous.get(`${s.root}/install`)).text;
    expect(html).toContain('<span class="q-feedback-question">Was this page helpful?</span>');
    expect(html).toContain('<p class="q-feedback-thanks" id="q-feedback-thanks" role="status">Thanks for your feedback.</p>');
    const form = formOf(html);
    expect(form).toMatchObject({ action: `${s.root}/~quire/feedback`, page: s.ids.install });
    if (!form) throw new Error("no form");

    const first = await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "bad" });
    expect(first.status, first.text).toBe(303);
    expect(first.location).toBe(`${s.root}/install#q-feedback-thanks`);
    expect(first.cookie).toMatch(/^quire-feedback~[0-9a-f]{12}=[A-Za-z0-9]{22}$/);
    // The same reader changes their mind the same day: one answer, the last.
    expect(
      (await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "good" }, { cookie: first.cookie })).status,
    ).toBe(303);
    let stored = await rows(s.site.id);
    expect(stored.map((r) => [r.pageId, r.rating])).toEqual([[s.ids.install, "good"]]);
    // The stored reader is a hash, never the cookie's value; nor is the address stored as given.
    expect(JSON.stringify(stored)).not.toContain((first.cookie as string).split("=")[1]);
    expect(JSON.stringify(stored)).not.toContain("203.0.113.7");
    // Another reader counts apart.
    expect(
      (await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "ok" }, { address: "198.51.100.1" })).status,
    ).toBe(303);
    stored = await rows(s.site.id);
    expect(stored.map((r) => r.rating).sort()).toEqual(["good", "ok"]);
  });

  it("refuses a bad rating (400), a page the reader may not read or of another site (404), and answers when feedback is off (404)", async () => {
    const s = await scenario();
    const other = await scenario();
    const form = formOf((await ctx.anonymous.get(`${s.root}/welcome`)).text);
    if (!form) throw new Error("no form");
    const bad = await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "meh" });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe("rating must be one of good, ok, bad.");
    expect((await answer(form.action, { siteSpace: form.siteSpace, page: s.ids.beta, rating: "good" })).status).toBe(404);
    expect((await answer(form.action, { siteSpace: form.siteSpace, page: other.ids.welcome, rating: "good" })).status).toBe(404);
    const otherForm = formOf((await ctx.anonymous.get(`${other.root}/welcome`)).text);
    expect((await answer(form.action, { siteSpace: otherForm?.siteSpace as string, page: other.ids.welcome, rating: "good" })).status).toBe(
      404,
    );
    expect(await rows(s.site.id)).toEqual([]);

    const off = await scenario(false);
    const offHtml = (await ctx.anonymous.get(`${off.root}/welcome`)).text;
    expect(offHtml).not.toContain("Was this page helpful?");
    expect((await answer(`${off.root}/~quire/feedback`, { siteSpace: form.siteSpace, page: off.ids.welcome, rating: "good" })).status).toBe(
      404,
    );
  });

  it("limits answers from one address to a site per hour", async () => {
    const s = await scenario();
    const form = formOf((await ctx.anonymous.get(`${s.root}/welcome`)).text);
    if (!form) throw new Error("no form");
    // A script without the cookie is a new reader every time: the address is what bounds it.
    for (let i = 0; i < FEEDBACK_PER_HOUR; i++) {
      expect(
        (await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "bad" }, { address: "192.0.2.9" })).status,
      ).toBe(303);
    }
    const refused = await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "bad" }, { address: "192.0.2.9" });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("Too many answers from this address");
    expect(await rows(s.site.id)).toHaveLength(FEEDBACK_PER_HOUR);
    expect(
      (await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "good" }, { address: "192.0.2.10" })).status,
    ).toBe(303);
  });

  it("shows the counts by page on the web app's site page to its editors only", async () => {
    const s = await scenario();
    const form = formOf((await ctx.anonymous.get(`${s.root}/install`)).text);
    if (!form) throw new Error("no form");
    for (const [rating, address] of [
      ["good", "192.0.2.1"],
      ["good", "192.0.2.2"],
      ["bad", "192.0.2.3"],
    ] as const) {
      expect((await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating }, { address })).status).toBe(303);
    }
    const sitePage = `/app/o/${s.org.id}/sites/${s.site.id}`;
    const editor = await WebClient.signedIn(ctx, s.members.create);
    const seen = await editor.get(sitePage);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('<section class="card" id="feedback"><h2 style="margin-top:0">Page feedback</h2>');
    expect(seen.text).toMatch(
      /<tr><td>Install <span class="muted small">Handbook<\/span><\/td><td>2<\/td><td>0<\/td><td>1<\/td><td>67%<\/td><\/tr>/,
    );
    const reader = await WebClient.signedIn(ctx, s.members.read);
    const notEditor = await reader.get(sitePage);
    expect(notEditor.status).toBe(200);
    expect(notEditor.text).not.toContain("Page feedback");
    // The answers go with their site.
    expect((await ctx.as(s.owner).delete(s.url)).status).toBe(204);
    expect(await rows(s.site.id)).toEqual([]);
  });
  it("does not show an editor of the site the titles of pages of a space they cannot read", async () => {
    const s = await scenario();
    const form = formOf((await ctx.anonymous.get(`${s.root}/install`)).text);
    if (!form) throw new Error("no form");
    expect((await answer(form.action, { siteSpace: form.siteSpace, page: form.page, rating: "good" })).status).toBe(303);
    const sitePage = `/app/o/${s.org.id}/sites/${s.site.id}`;
    const before = await (await WebClient.signedIn(ctx, s.members.create)).get(sitePage);
    expect(before.text).toContain("<tr><td>Install <span");
    // The space is restricted afterwards: members with the create role still edit the site, but no longer read it.
    expect((await ctx.as(s.owner).patch(`/v1/spaces/${s.space.id}`, { defaultLevel: null })).status).toBe(200);
    const after = await (await WebClient.signedIn(ctx, s.members.create)).get(sitePage);
    expect(after.status).toBe(200);
    expect(after.text).toContain('<section class="card" id="feedback">');
    expect(after.text).toContain("<tr><td>(a page of a space you cannot read) <span");
    expect(after.text).not.toContain("<tr><td>Install");
    expect((await (await WebClient.signedIn(ctx, s.owner)).get(sitePage)).text).toContain("<tr><td>Install <span");
  });
});
