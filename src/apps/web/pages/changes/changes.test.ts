/**
 * The web app's change-request pages and forms, signed in with sign-in links: what each role sees,
 * that every form goes through the API's policies (a forged post gets the API's 403, another
 * organization's address a 404), and that the actions really change the change request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../../../test/helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest } from "../../../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createOrganization, createUser } from "../../../../../test/helpers/factories.js";
import { createTestIdp } from "../../../../../test/helpers/saml-idp.js";
import { createSite } from "../../../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const signedIn = (user: { id: string }) => WebClient.signedIn(ctx, user);

/** A space with three pages and a change request by the editor that edits, adds and removes blocks. */
async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Home", slug: "home", paragraphs: ["The first paragraph", "The second paragraph", "The third paragraph"] },
      { title: "Guide", slug: "guide", paragraphs: ["Intro"] },
    ],
  });
  const [home, guide] = content.pages;
  const cr = await createChangeRequest(ctx, roles.members.edit, space.id, { subject: "Better home" });
  await editContent(ctx, roles.members.edit, space.id, cr.id, [
    {
      operation: "update_page",
      page: home!.id,
      document: { markdown: "The second paragraph, edited\n\nThe third paragraph\n\nA fourth one\n" },
    },
  ]);
  const base = `/app/o/${roles.org.id}/s/${space.id}/~/changes`;
  const api = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  return { ...roles, space, home: home!, guide: guide!, cr, base, url: `${base}/${cr.number}`, api };
}

async function csrfOf(browser: WebClient, url: string) {
  const page = await browser.get(url);
  expect(page.status, page.text).toBe(200);
  return { page, csrf: WebClient.csrfOf(page.text) };
}

describe("change requests in the web app", () => {
  it("lists a page's headings and their anchors for the editor's link dialog, to those who may edit", async () => {
    const s = await setup();
    await editContent(ctx, s.members.edit, s.space.id, s.cr.id, [
      {
        operation: "update_page",
        page: s.guide.id,
        document: { markdown: "Intro\n\n## Install\n\nText\n\n### Trim & oil\n\n### Install\n" },
      },
    ]);
    const editor = await signedIn(s.members.edit);
    const res = await editor.get(`${s.url}/p/${s.guide.id}/anchors.json`);
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      anchors: [
        { anchor: "install", title: "Install", level: 1 },
        { anchor: "trim-and-oil", title: "Trim & oil", level: 2 },
        { anchor: "install-1", title: "Install", level: 2 },
      ],
    });
    const missing = await editor.get(`${s.url}/p/nope/anchors.json`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error.message).toContain('No page "nope"');
    const reader = await signedIn(s.members.read);
    expect((await reader.get(`${s.url}/p/${s.guide.id}/anchors.json`)).status).toBe(403);
    // No session: an error the page's script can read, not the sign-in page; someone of another organization: unknown.
    const anonymous = await new WebClient(ctx).get(`${s.url}/p/${s.guide.id}/anchors.json`);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text).error.message).toMatch(/sign in/i);
    const outsider = await signedIn(s.outsider);
    const unknown = await outsider.get(`${s.url}/p/${s.guide.id}/anchors.json`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toContain("Install");
  });

  it("answers the editor's JSON endpoints (save, upload, pasted Markdown): 403 without the page's token, precise 400s, 403 to readers, 404 to outsiders", async () => {
    const s = await setup();
    const page = `${s.url}/p/${s.guide.id}`;
    const editor = await signedIn(s.members.edit);
    const view = await editor.get(`${page}/edit`);
    expect(view.status, view.text).toBe(200);
    const csrf = /data-csrf="([^"]+)"/.exec(view.text)?.[1] as string;
    const doc = { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: "Saved from the editor." }] }] };
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const calls: Array<[string, unknown]> = [
      [`${page}/edit.json`, { doc }],
      [`${page}/files.json`, { name: "dot.png", contentType: "image/png", base64: png }],
      [`${page}/markdown.json`, { markdown: "## Pasted\n\nText" }],
    ];
    const methodOf = (url: string) => (url.endsWith("edit.json") ? "PUT" : "POST");
    for (const [url, body] of calls) {
      // The CSRF check comes first (a forged request changes nothing), with or without a session.
      for (const client of [new WebClient(ctx), editor]) {
        const forged = await client.sendJson(methodOf(url), url, body);
        expect(forged.status, url).toBe(403);
        expect(JSON.parse(forged.text).error.message, url).toMatch(/did not come from this site/);
      }
      const wrong = await editor.sendJson(methodOf(url), url, { unexpected: true }, csrf);
      expect(wrong.status, url).toBe(400);
      expect(JSON.parse(wrong.text).error.message, url).toMatch(/body/);
    }
    // Happy paths: the page holds the saved text; the file is the change request's; Markdown comes back as blocks.
    const saved = await editor.sendJson("PUT", `${page}/edit.json`, { doc }, csrf);
    expect(saved.status, saved.text).toBe(200);
    const read = await ctx.as(s.owner).get(`/v1/spaces/${s.space.id}/change-requests/${s.cr.id}/content/page/${s.guide.id}`);
    expect(JSON.stringify(read.body.document)).toContain("Saved from the editor.");
    const uploaded = await editor.sendJson("POST", `${page}/files.json`, { name: "dot.png", contentType: "image/png", base64: png }, csrf);
    expect(uploaded.status, uploaded.text).toBe(200);
    const files = await ctx.as(s.owner).get(`/v1/spaces/${s.space.id}/change-requests/${s.cr.id}/content/files`);
    expect(JSON.stringify(files.body)).toContain("dot.png");
    const pasted = await editor.sendJson("POST", `${page}/markdown.json`, { markdown: "## Pasted\n\nText" }, csrf);
    expect(pasted.status, pasted.text).toBe(200);
    expect(pasted.text).toContain("Pasted");
    // A reader may not write; someone of another organization does not learn the page exists.
    const reader = await signedIn(s.members.read);
    const readerCsrf = /name="_csrf" value="([^"]+)"/.exec((await reader.get("/app")).text)?.[1];
    const outsider = await signedIn(s.outsider);
    const outsiderCsrf = /name="_csrf" value="([^"]+)"/.exec((await outsider.get("/app")).text)?.[1];
    for (const [url, body] of calls) {
      expect((await reader.sendJson(methodOf(url), url, body, readerCsrf)).status, url).toBe(403);
      expect((await outsider.sendJson(methodOf(url), url, body, outsiderCsrf)).status, url).toBe(404);
    }
  });

  it("sends a visitor without a session to sign in, keeping where they were going", async () => {
    const s = await setup();
    for (const url of [s.url, `${s.url}/pages`, `${s.url}/p/${s.guide.id}/settings`, `${s.url}/p/${s.guide.id}/place`]) {
      const res = await new WebClient(ctx).get(url);
      expect(res.status, url).toBe(303);
      expect(res.location).toBe(`/app/login?next=${encodeURIComponent(url)}`);
    }
  });

  it("lists change requests with the API's filters, and offers creating one to editors only", async () => {
    const s = await setup();
    const other = await createChangeRequest(ctx, s.members.review, s.space.id, { subject: "Reviewer's draft" });
    const reader = await signedIn(s.members.read);
    // Drafts only by default? The API's default status is open: both are drafts, so "draft" lists them.
    const drafts = await reader.get(`${s.base}?status=draft`);
    expect(drafts.status).toBe(200);
    expect(drafts.text).toContain("Better home");
    expect(drafts.text).toContain("Reviewer&#39;s draft");
    expect(drafts.text).not.toContain(`action="${s.base}"`);
    const mine = await reader.get(`${s.base}?status=draft&creator=${s.members.review.id}`);
    expect(mine.text).toContain("Reviewer&#39;s draft");
    expect(mine.text).not.toContain("Better home");
    expect((await reader.get(`${s.base}?status=merged`)).text).toContain("No change requests here.");
    expect((await reader.get(`${s.base}?status=bogus`)).status).toBe(400);
    expect(other.number).toBe(s.cr.number + 1);

    const editor = await signedIn(s.members.edit);
    const { page, csrf } = await csrfOf(editor, `${s.base}?status=draft`);
    expect(page.text).toContain(`action="${s.base}"`);
    const created = await editor.post(s.base, { _csrf: csrf, subject: "From the app" });
    expect(created.status, created.text).toBe(303);
    expect(created.location).toBe(`${s.base}/${s.cr.number + 2}?done=created`);
    const api = await ctx.as(s.members.edit).get(`/v1/spaces/${s.space.id}/change-requests/${s.cr.number + 2}`);
    expect(api.body).toMatchObject({ subject: "From the app", status: "draft" });
    // A reader's forged creation is the API's 403.
    const { csrf: readerCsrf } = await csrfOf(reader, s.base);
    const forged = await reader.post(s.base, { _csrf: readerCsrf, subject: "Nope" });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("Only members with the edit level or higher");
  });

  it("shows the page-by-page and block-level diff against the change request's base", async () => {
    const s = await setup();
    const reader = await signedIn(s.members.read);
    const res = await reader.get(s.url);
    expect(res.status, res.text).toBe(200);
    const section = /<section class="card" id="page-[^"]+" data-page="([^"]+)">[\s\S]*?<\/section>/.exec(res.text);
    expect(section?.[1]).toBe(s.home.id);
    const kinds = [...section![0].matchAll(/data-kind="([a-z]+)"/g)].map((m) => m[1]);
    expect(kinds).toEqual(["removed", "changed", "unchanged", "added"]);
    expect(section![0]).toContain("<ins>, edited</ins>");
    expect(section![0]).toContain("A fourth one");
    // The guide did not change: it is not listed.
    expect(res.text).not.toContain(`data-page="${s.guide.id}"`);
    // A reader sees no merge, review, edit or comment forms.
    expect(res.text).toContain("Merging needs the review level on this space.");
    expect(res.text).not.toContain(`${s.url}/merge`);
    expect(res.text).not.toContain(`${s.url}/comments"`);
    expect(res.text).not.toContain("/edit");
  });

  it("changes the subject and description as the creator; a reader's forged change is a 403", async () => {
    const s = await setup();
    const editor = await signedIn(s.members.edit);
    const { csrf } = await csrfOf(editor, s.url);
    const saved = await editor.post(`${s.url}/details`, { _csrf: csrf, subject: "Clearer home", description: "Why: **shorter**." });
    expect(saved.status, saved.text).toBe(303);
    const api = (await ctx.as(s.owner).get(s.api)).body;
    expect(api.subject).toBe("Clearer home");
    expect(JSON.stringify(api.description)).toContain("shorter");
    const view = await editor.get(s.url);
    expect(view.text).toContain('<div class="card" id="description">');
    expect(view.text).toContain("Why: **shorter**.</textarea>");
    const reader = await signedIn(s.members.read);
    const { page, csrf: readerCsrf } = await csrfOf(reader, s.url);
    expect(page.text).not.toContain("Edit subject and description");
    expect((await reader.post(`${s.url}/details`, { _csrf: readerCsrf, subject: "Hijacked" })).status).toBe(403);
    expect((await ctx.as(s.owner).get(s.api)).body.subject).toBe("Clearer home");
  });

  it("lists added, removed, renamed and moved pages", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.members.edit, s.space.id, { subject: "Reorganize" });
    await editContent(ctx, s.members.edit, s.space.id, cr.id, [
      { operation: "insert_page", title: "Safety", document: { markdown: "Wear a harness." } },
      { operation: "update_page", page: s.guide.id, title: "Keeper's guide", into: s.home.id },
    ]);
    const cr2 = await createChangeRequest(ctx, s.members.edit, s.space.id, { subject: "Remove" });
    await editContent(ctx, s.members.edit, s.space.id, cr2.id, [{ operation: "delete_page", page: s.guide.id }]);
    const reader = await signedIn(s.members.read);
    const text = (await reader.get(`${s.base}/${cr.number}`)).text;
    const badges = (pageId: string) => {
      const section = new RegExp(`data-page="${pageId}">\\s*<h3>[\\s\\S]*?</h3>`).exec(text)?.[0] ?? "";
      return [...section.matchAll(/class="badge [a-z]+">([a-z]+)</g)].map((m) => m[1]);
    };
    const safety = /data-page="([^"]+)">\s*<h3>Safety/.exec(text)?.[1];
    expect(safety).toBeDefined();
    expect(badges(safety!)).toEqual(["added"]);
    expect(text).toContain("Wear a harness.");
    expect(badges(s.guide.id)).toEqual(["renamed", "moved"]);
    expect(text).toContain("<del>Guide</del> <ins>Keeper&#39;s guide</ins>");
    expect(text).toContain("<ins>under “Home”</ins>");
    const removed = (await reader.get(`${s.base}/${cr2.number}`)).text;
    expect(/data-page="[^"]+">\s*<h3>Guide <span class="badge removed">removed<\/span>/.test(removed)).toBe(true);
    expect(removed).toContain('data-kind="removed"');
  });

  it("shows hostile page content as text in the diff, never as markup", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.members.edit, s.space.id, { subject: "<img src=x onerror=alert(1)>" });
    await editContent(ctx, s.members.edit, s.space.id, cr.id, [
      {
        operation: "update_page",
        page: s.guide.id,
        document: {
          markdown: "Intro <script>alert(1)</script>\n\n[click](javascript:alert(2))\n\n```html\n</pre><script>alert(3)</script>\n```\n",
        },
      },
    ]);
    const text = (await (await signedIn(s.members.read)).get(`${s.base}/${cr.number}`)).text;
    expect(text).not.toMatch(/<script>alert/);
    expect(text).not.toContain("javascript:alert");
    expect(text).not.toContain("<img src=x");
    expect(text).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("comments on a block, replies, reacts and resolves through the comment policies; a reader's forged post is a 403", async () => {
    const s = await setup();
    const commenter = await signedIn(s.members.comment);
    const { page, csrf } = await csrfOf(commenter, s.url);
    const changedKey = /data-key="([^"]+)" data-kind="changed"/.exec(page.text)![1]!;
    const posted = await commenter.post(`${s.url}/comments`, {
      _csrf: csrf,
      body: "Is **this** right? <script>x</script>",
      page: s.home.id,
      node: changedKey,
    });
    expect(posted.status, posted.text).toBe(303);
    const comments = (await ctx.as(s.owner).get(`${s.api}/comments`)).body.items;
    expect(comments).toHaveLength(1);
    expect(comments[0].target).toMatchObject({ page: { id: s.home.id }, node: { id: changedKey } });
    const commentId = comments[0].id as string;
    expect(posted.location).toBe(`${s.url}?done=commented#comment-${commentId}`);

    const view = await commenter.get(s.url);
    // In place: inside the changed block, escaped.
    const block = new RegExp(`data-key="${changedKey}" data-kind="changed">[\\s\\S]*?data-comment="${commentId}"`).exec(view.text);
    expect(block).not.toBeNull();
    expect(view.text).toContain("&lt;script&gt;x&lt;/script&gt;");
    expect(view.text).not.toContain("<script>x</script>");

    const editorBrowser = await signedIn(s.members.edit);
    const { csrf: editorCsrf } = await csrfOf(editorBrowser, s.url);
    expect((await editorBrowser.post(`${s.url}/comments/${commentId}/replies`, { _csrf: editorCsrf, body: "Yes, it is." })).status).toBe(
      303,
    );
    expect(
      (await editorBrowser.post(`${s.url}/comments/${commentId}/react`, { _csrf: editorCsrf, emoji: "👍", action: "add" })).status,
    ).toBe(303);
    expect(
      (await editorBrowser.post(`${s.url}/comments/${commentId}/react`, { _csrf: editorCsrf, emoji: "nice", action: "add" })).status,
    ).toBe(400);
    expect((await editorBrowser.post(`${s.url}/comments/${commentId}/resolve`, { _csrf: editorCsrf, resolved: "true" })).status).toBe(303);
    const after = (await ctx.as(s.owner).get(`${s.api}/comments/${commentId}`)).body;
    expect(after.status).toBe("resolved");
    expect(after.replies).toBe(1);
    expect(after.reactions).toEqual([expect.objectContaining({ emoji: "👍", count: 1 })]);
    const shown = await commenter.get(s.url);
    expect(shown.text).toContain("Yes, it is.");
    expect(shown.text).toMatch(/resolved by Member edit/);

    // A reader may not comment, react or resolve: the API's 403, nothing changes.
    const reader = await signedIn(s.members.read);
    const { csrf: readerCsrf } = await csrfOf(reader, s.url);
    const forged = await reader.post(`${s.url}/comments`, { _csrf: readerCsrf, body: "forged" });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("not comment on it");
    expect((await reader.post(`${s.url}/comments/${commentId}/resolve`, { _csrf: readerCsrf, resolved: "false" })).status).toBe(403);
    expect((await ctx.as(s.owner).get(`${s.api}/comments`)).body.items).toHaveLength(1);
    // Without the session's CSRF token: refused before anything is read.
    expect((await commenter.post(`${s.url}/comments`, { body: "no token" })).status).toBe(403);
    expect((await commenter.post(`${s.url}/comments`, { _csrf: readerCsrf, body: "someone else's token" })).status).toBe(403);
  });

  it("requests a review, shows the merge rules' verdict, approves as a reviewer and merges; a reader's forged merge is a 403", async () => {
    const s = await setup();
    const patched = await ctx.as(s.owner).patch(`/v1/spaces/${s.space.id}`, {
      mergeRules: { type: "rules", rules: [{ rule: "require_at_least_one_review" }] },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const editor = await signedIn(s.members.edit);
    const { page, csrf } = await csrfOf(editor, s.url);
    expect(page.text).toContain(`value="${s.members.review.id}"`);
    expect(page.text).not.toContain(`value="${s.members.read.id}"`); // not a possible reviewer
    const requested = await editor.post(`${s.url}/reviewers`, { _csrf: csrf, users: s.members.review.id });
    expect(requested.status, requested.text).toBe(303);
    expect((await ctx.as(s.owner).get(`${s.api}/requested-reviewers`)).body.items).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ id: s.members.review.id }) }),
    ]);
    // The creator cannot review their own change request: no form, and a forged post is the API's 403.
    expect(page.text).not.toContain('id="review-form"');
    expect((await editor.post(`${s.url}/reviews`, { _csrf: csrf, status: "approved" })).status).toBe(403);

    const reviewer = await signedIn(s.members.review);
    const before = await reviewer.get(s.url);
    expect(before.text).toContain('id="merge-blocked"');
    expect(before.text).toMatch(/require_at_least_one_review\): it has no review yet/);
    expect(before.text).toMatch(/<button type="submit" class="primary" disabled>Merge<\/button>/);
    const reviewerCsrf = WebClient.csrfOf(before.text);

    const reader = await signedIn(s.members.read);
    const { page: readerPage, csrf: readerCsrf } = await csrfOf(reader, s.url);
    expect(readerPage.text).not.toContain(`${s.url}/merge`);
    const forged = await reader.post(`${s.url}/merge`, { _csrf: readerCsrf });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("Only members with the review level or higher");

    const reviewed = await reviewer.post(`${s.url}/reviews`, { _csrf: reviewerCsrf, status: "approved", comment: "Looks good" });
    expect(reviewed.status, reviewed.text).toBe(303);
    const ready = await reviewer.get(s.url);
    expect(ready.text).toContain("Ready to merge.");
    expect(ready.text).toContain("Looks good");
    const merged = await reviewer.post(`${s.url}/merge`, { _csrf: WebClient.csrfOf(ready.text) });
    expect(merged.status, merged.text).toBe(303);
    expect(merged.location).toBe(`${s.url}?done=merged`);
    expect((await ctx.as(s.owner).get(s.api)).body.status).toBe("merged");
    const done = await reviewer.get(merged.location!);
    expect(done.text).toContain("Merged into the primary content.");
    expect(done.text).not.toContain(`${s.url}/merge"`);
  });

  it("withdraws a review request as the creator, and lets the reviewer decline theirs; a reader's forged withdrawal is a 403", async () => {
    const s = await setup();
    const reviewers = `${s.api}/requested-reviewers`;
    const asked = await ctx.as(s.members.edit).post(reviewers, { users: [s.members.review.id, s.owner.id] });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const requestedIds = async () =>
      ((await ctx.as(s.owner).get(reviewers)).body.items as { user: { id: string } }[]).map((r) => r.user.id).sort();
    const withdrawUrl = (userId: string) => `${s.url}/reviewers/${userId}/withdraw`;

    // A reader sees no button, and a forged post is the API's 403 with the API's message.
    const reader = await signedIn(s.members.read);
    const { page: readerPage, csrf: readerCsrf } = await csrfOf(reader, s.url);
    expect(readerPage.text).not.toContain("/withdraw");
    const forged = await reader.post(withdrawUrl(s.members.review.id), { _csrf: readerCsrf });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("can withdraw a review request");
    // Without the session's CSRF token: refused, nothing withdrawn.
    const editor = await signedIn(s.members.edit);
    const { page, csrf } = await csrfOf(editor, s.url);
    expect((await editor.post(withdrawUrl(s.members.review.id), {})).status).toBe(403);
    expect((await editor.post(withdrawUrl(s.members.review.id), { _csrf: readerCsrf })).status).toBe(403);
    expect(await requestedIds()).toEqual([s.members.review.id, s.owner.id].sort());

    // The creator sees a Remove button per waiting reviewer and withdraws one request.
    const item = new RegExp(`<li data-requested="${s.members.review.id}">[\\s\\S]*?</li>`).exec(page.text)?.[0] ?? "";
    expect(item).toContain(`action="${withdrawUrl(s.members.review.id)}"`);
    expect(item).toContain(">Remove</button>");
    const withdrawn = await editor.post(withdrawUrl(s.members.review.id), { _csrf: csrf });
    expect(withdrawn.status, withdrawn.text).toBe(303);
    expect(withdrawn.location).toBe(`${s.url}?done=withdrawn#reviews`);
    expect(await requestedIds()).toEqual([s.owner.id]);
    const after = await editor.get(withdrawn.location!);
    expect(after.text).toContain("Review request withdrawn.");
    expect(after.text).not.toContain(`data-requested="${s.members.review.id}"`);
    // They can be asked again.
    expect(after.text).toContain(`name="users" value="${s.members.review.id}"`);

    // The owner, asked for a review, declines it.
    const owner = await signedIn(s.owner);
    const { page: ownerPage, csrf: ownerCsrf } = await csrfOf(owner, s.url);
    expect(new RegExp(`<li data-requested="${s.owner.id}">[\\s\\S]*?>Decline</button>`).test(ownerPage.text)).toBe(true);
    const declined = await owner.post(withdrawUrl(s.owner.id), { _csrf: ownerCsrf });
    expect(declined.location).toBe(`${s.url}?done=declined#reviews`);
    expect(await requestedIds()).toEqual([]);

    // Another organization's address is a 404 before anything is read.
    const stranger = await createUser(ctx);
    const otherOrg = await createOrganization(ctx, stranger, "Other");
    await ctx.as(s.members.edit).post(reviewers, { users: [s.members.review.id] });
    const elsewhere = await editor.post(
      `/app/o/${otherOrg.id}/s/${s.space.id}/~/changes/${s.cr.number}/reviewers/${s.members.review.id}/withdraw`,
      {
        _csrf: csrf,
      },
    );
    expect(elsewhere.status).toBe(404);
    expect(await requestedIds()).toEqual([s.members.review.id]);
  });

  it("brings the primary content in with Update from primary; a reader's forged update is a 403", async () => {
    const s = await setup();
    const other = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, other.id, [
      { operation: "update_page", page: s.guide.id, document: { markdown: "Intro, from the primary\n" } },
    ]);
    await mergeChangeRequest(ctx, s.owner, s.space.id, other.id);
    expect((await ctx.as(s.owner).get(s.api)).body.outdated).toBe(true);
    const reader = await signedIn(s.members.read);
    const { page: readerPage, csrf: readerCsrf } = await csrfOf(reader, s.url);
    expect(readerPage.text).not.toContain(`${s.url}/update`);
    expect((await reader.post(`${s.url}/update`, { _csrf: readerCsrf })).status).toBe(403);
    expect((await ctx.as(s.owner).get(s.api)).body.outdated).toBe(true);
    const editor = await signedIn(s.members.edit);
    const { page, csrf } = await csrfOf(editor, s.url);
    expect(page.text).toContain("Update from primary");
    const updated = await editor.post(`${s.url}/update`, { _csrf: csrf });
    expect(updated.location).toBe(`${s.url}?done=updated`);
    expect((await ctx.as(s.owner).get(s.api)).body.outdated).toBe(false);
    expect((await editor.get(updated.location!)).text).not.toContain("Update from primary");
  });

  it("says a locked space merges nothing, and refuses a merge there with the API's message", async () => {
    const s = await setup();
    expect((await ctx.as(s.owner).patch(`/v1/spaces/${s.space.id}`, { editMode: "locked" })).status).toBe(200);
    const reviewer = await signedIn(s.members.review);
    const { page, csrf } = await csrfOf(reviewer, s.url);
    expect(page.text).toContain("The space is locked");
    expect(page.text).not.toContain(`${s.url}/p/`);
    const refused = await reviewer.post(`${s.url}/merge`, { _csrf: csrf });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("is locked");
  });

  it("shows conflicts side by side and does not merge while they last", async () => {
    const s = await setup();
    // The primary content edits the same block meanwhile.
    const primaryCr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, primaryCr.id, [
      {
        operation: "update_page",
        page: s.home.id,
        document: { markdown: "The first paragraph\n\nThe second paragraph, primary\n\nThe third paragraph\n" },
      },
    ]);
    await mergeChangeRequest(ctx, s.owner, s.space.id, primaryCr.id);
    const owner = await signedIn(s.owner);
    const page = await owner.get(s.url);
    expect(page.text).toContain('id="conflicts"');
    const conflict = /<div class="card conflict-item">[\s\S]*?<\/div><\/div><\/div>/.exec(page.text)![0];
    expect(conflict).toContain("Before both (base)");
    expect(conflict).toContain("The second paragraph, primary");
    expect(conflict).toContain("The second paragraph, edited");
    expect(page.text).toContain("Update from primary");
    const merged = await owner.post(`${s.url}/merge`, { _csrf: WebClient.csrfOf(page.text) });
    expect(merged.location).toBe(`${s.url}?done=conflicts#conflicts`);
    expect((await ctx.as(s.owner).get(s.api)).body.status).toBe("draft");
  });

  it("edits a page's Markdown with a preview (without JavaScript too) and saves it through the content operation", async () => {
    const s = await setup();
    const editor = await signedIn(s.members.edit);
    const editUrl = `${s.url}/p/${s.guide.id}/markdown`;
    const form = await editor.get(editUrl);
    expect(form.status, form.text).toBe(200);
    expect(form.text).toContain("# Guide");
    expect(form.text).toContain("Intro");
    expect(String(form.headers["content-security-policy"])).toContain("script-src 'self'");
    const csrf = WebClient.csrfOf(form.text);
    const markdown = "# Guide\n\nIntro, longer.\n\n<script>alert(1)</script>\n";
    const preview = await editor.post(`${s.url}/p/${s.guide.id}/preview`, { _csrf: csrf, markdown });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.text).toContain("Intro, longer.");
    expect(preview.text).not.toContain("<script>alert(1)</script>");
    const noJs = await editor.post(editUrl, { _csrf: csrf, markdown, action: "preview" });
    expect(noJs.status).toBe(200);
    expect(noJs.text).toContain("Intro, longer.");
    const saved = await editor.post(editUrl, { _csrf: csrf, markdown: "# Guide\n\nIntro, longer.\n", action: "save" });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.location).toBe(`${s.url}?done=saved#page-${s.guide.id}`);
    const page = await ctx.as(s.owner).get(`${s.api}/content/page/${s.guide.id}?format=markdown`);
    expect(page.body.markdown).toContain("Intro, longer.");
    const view = await editor.get(s.url);
    expect(view.text).toContain(`data-page="${s.guide.id}"`);

    // A commenter may not edit: the content operation's 403, for the form and the save.
    const commenter = await signedIn(s.members.comment);
    expect((await commenter.get(editUrl)).status).toBe(403);
    const { csrf: commenterCsrf } = await csrfOf(commenter, s.url);
    expect((await commenter.post(editUrl, { _csrf: commenterCsrf, markdown: "# Guide\n\nHacked\n", action: "save" })).status).toBe(403);
    expect((await editor.get(`${s.url}/p/nope/edit`)).status).toBe(404);
    expect((await editor.get(`${s.url}/p/nope/markdown`)).status).toBe(404);
  });

  it("lets the app's scripts fetch from this origin only (the header's search, the edit page's preview), never from elsewhere", async () => {
    const s = await setup();
    const editor = await signedIn(s.members.edit);
    const policyOf = async (url: string) => {
      const res = await editor.get(url);
      expect(res.status, url).toBe(200);
      return String(res.headers["content-security-policy"]);
    };
    // The Markdown editor's preview posts back to its page: that answer carries the same policy.
    const editUrl = `${s.url}/p/${s.guide.id}/markdown`;
    const { csrf } = await csrfOf(editor, editUrl);
    const previewed = await editor.post(editUrl, { _csrf: csrf, markdown: "# Guide\n\nIntro\n", action: "preview" });
    expect(String(previewed.headers["content-security-policy"]).match(/connect-src[^;]*/g)).toEqual(["connect-src 'self'"]);
    for (const url of [
      `${s.url}/p/${s.guide.id}/edit`,
      editUrl,
      s.base,
      s.url,
      `${s.url}/pages`,
      `${s.url}/p/${s.guide.id}/settings`,
      `/app/o/${s.org.id}/s/${s.space.id}`,
      "/app",
    ]) {
      const policy = await policyOf(url);
      expect(policy, url).toContain("default-src 'none'");
      expect(policy.match(/connect-src[^;]*/g), url).toEqual(["connect-src 'self'"]);
    }
  });

  it("adds, moves and deletes pages through the content operation; the merge brings the new structure into the primary content", async () => {
    const s = await setup();
    type Tree = { id: string; title: string; pages?: Tree }[];
    const outline = (pages: Tree): string[] =>
      pages.map((p) => (p.pages?.length ? `${p.title} [${outline(p.pages).join(", ")}]` : p.title));
    const crPages = async () => (await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages as Tree;
    const editor = await signedIn(s.members.edit);
    const pagesUrl = `${s.url}/pages`;
    expect((await editor.get(s.url)).text).toContain(`href="${pagesUrl}"`);
    const { page, csrf } = await csrfOf(editor, pagesUrl);
    expect(page.text).toContain('id="add-page"');
    expect(page.text).toContain(`data-page="${s.home.id}"`);

    const added = await editor.post(pagesUrl, { _csrf: csrf, title: "Safety", parent: "" });
    expect(added.status, added.text).toBe(303);
    const safety = (await crPages()).find((p) => p.title === "Safety")!;
    expect(added.location).toBe(`${pagesUrl}?done=page-added#tree-${safety.id}`);
    expect((await editor.post(pagesUrl, { _csrf: csrf, title: "Ropes", parent: s.home.id })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Home [Ropes]", "Guide", "Safety"]);
    const ropes = (await crPages())[0]!.pages![0]!;
    expect((await editor.post(pagesUrl, { _csrf: csrf, title: "  " })).status).toBe(400);

    const move = (pageId: string, form: Record<string, string>) => editor.post(`${s.url}/p/${pageId}/move`, { _csrf: csrf, ...form });
    const up = await move(safety.id, { to: "up" });
    expect(up.location).toBe(`${pagesUrl}?done=page-moved#tree-${safety.id}`);
    expect(outline(await crPages())).toEqual(["Home [Ropes]", "Safety", "Guide"]);
    expect((await move(s.home.id, { to: "down" })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Safety", "Home [Ropes]", "Guide"]);
    expect((await move(s.guide.id, { to: "parent", parent: s.home.id })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Safety", "Home [Ropes, Guide]"]);
    const last = await move(s.guide.id, { to: "down" });
    expect(last.status).toBe(400);
    expect(last.text).toContain("already the last page at its level");
    expect((await move(s.home.id, { to: "parent", parent: ropes.id })).status).toBe(400); // under its own subpage
    expect((await move(ropes.id, { to: "parent", parent: "" })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Safety", "Home [Guide]", "Ropes"]);
    const deleted = await editor.post(`${s.url}/p/${ropes.id}/delete`, { _csrf: csrf });
    expect(deleted.location).toBe(`${pagesUrl}?done=page-deleted`);
    expect(outline(await crPages())).toEqual(["Safety", "Home [Guide]"]);
    const shown = await editor.get(deleted.location!);
    expect(shown.text).toContain("Page deleted from the change request.");
    expect(shown.text).not.toContain("Ropes");

    // Each change is a revision of the change request, listed as a change and merged like the API's.
    const detail = (await editor.get(s.url)).text;
    expect(/data-page="[^"]+">\s*<h3>Safety <span class="badge added">added<\/span>/.test(detail)).toBe(true);
    expect(detail).toContain("<ins>under “Home”</ins>");
    const merged = await ctx.as(s.owner).post(`${s.api}/merge`, {});
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const primary = (await ctx.as(s.owner).get(`/v1/spaces/${s.space.id}/content/pages`)).body.pages as Tree;
    expect(outline(primary)).toEqual(["Safety", "Home [Guide]"]);
  });

  it("refuses adding, moving and deleting pages to a reader (403), without the CSRF token (403) and in another organization (404)", async () => {
    const s = await setup();
    const before = JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages);
    const pagesUrl = `${s.url}/pages`;
    const reader = await signedIn(s.members.read);
    const { page: readerPage, csrf: readerCsrf } = await csrfOf(reader, s.url);
    expect(readerPage.text).not.toContain(`href="${pagesUrl}"`);
    const refusedPage = await reader.get(pagesUrl);
    expect(refusedPage.status).toBe(403);
    expect(refusedPage.text).toContain("edit its change requests");
    for (const [url, form] of [
      [pagesUrl, { title: "Forged" }],
      [`${s.url}/p/${s.guide.id}/move`, { to: "up" }],
      [`${s.url}/p/${s.guide.id}/delete`, {}],
    ] as const) {
      expect((await reader.post(url, { _csrf: readerCsrf, ...form })).status, url).toBe(403);
    }

    const editor = await signedIn(s.members.edit);
    const { csrf } = await csrfOf(editor, pagesUrl);
    expect((await editor.post(pagesUrl, { title: "No token" })).status).toBe(403);
    expect((await editor.post(`${s.url}/p/${s.guide.id}/move`, { _csrf: readerCsrf, to: "up" })).status).toBe(403);
    expect((await editor.post(`${s.url}/p/${s.guide.id}/delete`, {})).status).toBe(403);

    const stranger = await createUser(ctx);
    const otherOrg = await createOrganization(ctx, stranger, "Other");
    const elsewhere = `/app/o/${otherOrg.id}/s/${s.space.id}/~/changes/${s.cr.number}`;
    expect((await editor.get(`${elsewhere}/pages`)).status).toBe(404);
    expect((await editor.post(`${elsewhere}/pages`, { _csrf: csrf, title: "Elsewhere" })).status).toBe(404);
    expect((await editor.post(`${elsewhere}/p/${s.guide.id}/move`, { _csrf: csrf, to: "up" })).status).toBe(404);
    expect((await editor.post(`${elsewhere}/p/${s.guide.id}/delete`, { _csrf: csrf })).status).toBe(404);
    // An unknown page of this change request is a 404 too.
    expect((await editor.post(`${s.url}/p/nope/delete`, { _csrf: csrf })).status).toBe(404);
    expect(JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages)).toBe(before);
  });

  it("renames a page, changes its slug and shows the new address; sets its emoji, description, hidden and indexing flags through update_page", async () => {
    const s = await setup();
    const site = await createSite(ctx, s.owner, s.org.id, { title: "Public docs" });
    const siteUrl = `/v1/orgs/${s.org.id}/sites/${site.id}`;
    expect((await ctx.as(s.owner).post(`${siteUrl}/site-spaces`, { spaceId: s.space.id })).status).toBe(201);
    expect((await ctx.as(s.owner).post(`${siteUrl}/publish`)).status).toBe(200);
    const editor = await signedIn(s.members.edit);
    const settingsUrl = `${s.url}/p/${s.guide.id}/settings`;
    const pagesPage = (await editor.get(`${s.url}/pages`)).text;
    expect(pagesPage).toContain(`href="${settingsUrl}"`);
    expect(pagesPage).toContain("/guide</span>");
    const { page: form, csrf } = await csrfOf(editor, settingsUrl);
    expect(form.text).toContain('value="Guide"');
    expect(form.text).toContain('value="guide"');
    // The address on the published site that shows the space.
    expect(form.text).toMatch(new RegExp(`href="http://[^"]+/s/${site.basename}/guide"`));

    const saved = await editor.post(settingsUrl, {
      _csrf: csrf,
      title: "  Setup guide ",
      slug: "setup",
      emoji: "📘",
      description: "How to set it up,\r\nstep by step.",
      hidden: "true",
      noRobotsIndex: "true",
    });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.location).toBe(`${s.url}/pages?done=page-saved&page=${s.guide.id}#tree-${s.guide.id}`);
    const page = (await ctx.as(s.owner).get(`${s.api}/content/page/${s.guide.id}`)).body;
    expect(page).toMatchObject({
      title: "Setup guide",
      slug: "setup",
      path: "setup",
      emoji: "📘",
      description: "How to set it up,\nstep by step.",
      hidden: true,
      noRobotsIndex: true,
    });
    expect(page.noIndex ?? false).toBe(false);
    const after = await editor.get(saved.location!);
    expect(after.text).toContain("Page settings saved in the change request.");
    expect(after.text).toContain('<code class="new-path">/setup</code>');
    expect(after.text).toMatch(new RegExp(`/s/${site.basename}/setup</a>`));
    expect(after.text).toMatch(/Setup guide<\/span> <span class="badge"[^>]*>hidden<\/span>/);
    // The change request lists it as renamed; the home page's edit is untouched.
    expect((await editor.get(s.url)).text).toMatch(/Setup guide <span class="badge renamed">renamed<\/span>/);

    // Clearing: an empty emoji and description remove them, an unchecked box shows the page again.
    const { csrf: csrf2 } = await csrfOf(editor, settingsUrl);
    const cleared = await editor.post(settingsUrl, { _csrf: csrf2, title: "Setup guide", slug: "setup", emoji: "", description: "" });
    expect(cleared.status, cleared.text).toBe(303);
    const clearedPage = (await ctx.as(s.owner).get(`${s.api}/content/page/${s.guide.id}`)).body;
    expect(clearedPage.emoji).toBeUndefined();
    expect(clearedPage.description).toBeUndefined();
    expect(clearedPage.hidden ?? false).toBe(false);
    expect(clearedPage.noRobotsIndex ?? false).toBe(false);
    const { csrf: csrf3 } = await csrfOf(editor, settingsUrl);
    expect((await editor.post(settingsUrl, { _csrf: csrf3, title: "Setup guide", slug: "setup", noIndex: "true" })).status).toBe(303);
    expect((await ctx.as(s.owner).get(`${s.api}/content/page/${s.guide.id}`)).body.noIndex).toBe(true);
    expect((await editor.get(settingsUrl)).text).toMatch(/name="noIndex" value="true" checked/);
    // The same values again change nothing and say so.
    const same = await editor.post(settingsUrl, {
      _csrf: csrf2,
      title: "Setup guide",
      slug: "setup",
      emoji: "",
      description: "",
      noIndex: "true",
    });
    expect(same.location).toBe(`${s.url}/pages?done=page-unchanged#tree-${s.guide.id}`);
    // An empty slug is made from the title.
    expect((await editor.post(settingsUrl, { _csrf: csrf2, title: "Getting started", slug: "", noIndex: "true" })).status).toBe(303);
    expect((await ctx.as(s.owner).get(`${s.api}/content/page/${s.guide.id}`)).body.slug).toBe("getting-started");
  });

  it("shows what is wrong in the settings form, with the text kept, and stores nothing", async () => {
    const s = await setup();
    const editor = await signedIn(s.members.edit);
    const settingsUrl = `${s.url}/p/${s.guide.id}/settings`;
    const { csrf } = await csrfOf(editor, settingsUrl);
    const before = JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages);
    const refused = async (form: Record<string, string>, field: string, message: string) => {
      const res = await editor.post(settingsUrl, { _csrf: csrf, title: "Guide", slug: "guide", ...form });
      expect(res.status, res.text.slice(0, 500)).toBe(400);
      expect(res.text).toContain(message);
      expect(res.text).toMatch(new RegExp(`name="${field}"[^>]*aria-invalid="true"`));
      return res.text;
    };
    await refused({ title: "   " }, "title", "A page needs a title.");
    const taken = await refused(
      { slug: "home", description: "Kept text" },
      "slug",
      "The slug “home” is already used by “Home” at the same level: pick another.",
    );
    expect(taken).toContain(">Kept text</textarea>");
    await refused(
      { slug: "Getting Started" },
      "slug",
      "A slug is lowercase letters, digits and hyphens, without spaces or slashes: “getting-started” would do.",
    );
    await refused({ slug: "a/b" }, "slug", "without spaces or slashes");
    await refused({ emoji: "book" }, "emoji", "“book” is not one emoji");
    await refused({ emoji: "📘📗" }, "emoji", "is not one emoji");
    await refused({ description: "x".repeat(1001) }, "description", "A description has at most 1000 characters (this one has 1001).");
    await refused({ title: "t".repeat(257) }, "title", "A title has at most 256 characters");
    // Over the form's own limits: the form's 400, not a 500.
    expect((await editor.post(settingsUrl, { _csrf: csrf, title: "x".repeat(3000), slug: "" })).status).toBe(400);
    expect(JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages)).toBe(before);
  });

  it("places a page before or after another under a new parent; moves up and down keep the order the API reads", async () => {
    const s = await setup();
    type Tree = { id: string; title: string; pages?: Tree }[];
    const outline = (pages: Tree): string[] =>
      pages.map((p) => (p.pages?.length ? `${p.title} [${outline(p.pages).join(", ")}]` : p.title));
    const crPages = async () => (await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages as Tree;
    await editContent(ctx, s.members.edit, s.space.id, s.cr.id, [
      { operation: "insert_page", title: "Ropes", into: s.home.id, document: { markdown: "" } },
      { operation: "insert_page", title: "Lamps", into: s.home.id, document: { markdown: "" } },
      { operation: "insert_page", title: "Safety", document: { markdown: "" } },
    ]);
    const [ropes, lamps] = (await crPages())[0]!.pages!;
    const safety = (await crPages())[2]!;
    const editor = await signedIn(s.members.edit);
    const placeUrl = `${s.url}/p/${safety.id}/place`;
    const { page, csrf } = await csrfOf(editor, `${placeUrl}?parent=${s.home.id}`);
    expect(page.text).toContain("Pages under “Home”");
    expect(page.text).toContain(`aria-label="Place “Safety” before “Ropes”"`);
    expect(page.text).toContain(`aria-label="Place “Safety” before “Lamps”"`);
    expect(page.text).toContain(`aria-label="Place “Safety” after “Lamps”"`);
    const move = (pageId: string, form: Record<string, string>) => editor.post(`${s.url}/p/${pageId}/move`, { _csrf: csrf, ...form });
    const placed = await move(safety.id, { to: "parent", parent: s.home.id, before: lamps!.id });
    expect(placed.status, placed.text).toBe(303);
    expect(outline(await crPages())).toEqual(["Home [Ropes, Safety, Lamps]", "Guide"]);
    expect((await move(s.guide.id, { to: "parent", parent: s.home.id, after: ropes!.id })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Home [Ropes, Guide, Safety, Lamps]"]);
    // Back to the top level, after Home; then within the same parent, after its next sibling.
    expect((await move(safety.id, { to: "parent", parent: "", after: s.home.id })).status).toBe(303);
    expect((await move(ropes!.id, { to: "parent", parent: s.home.id, after: s.guide.id })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Home [Guide, Ropes, Lamps]", "Safety"]);
    expect((await move(lamps!.id, { to: "up" })).status).toBe(303);
    expect(outline(await crPages())).toEqual(["Home [Guide, Lamps, Ropes]", "Safety"]);
    // On its own parent's page, where it is now has no button.
    expect((await editor.get(`${s.url}/p/${lamps!.id}/place`)).text).toContain("“Lamps” is here now");

    // A neighbour that is not under the chosen parent, both sides at once, an unknown parent, a subpage.
    const wrong = await move(lamps!.id, { to: "parent", parent: "", before: ropes!.id });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("“Ropes” is not in the chosen place (any more)");
    expect((await move(lamps!.id, { to: "parent", parent: "", before: safety.id, after: s.home.id })).status).toBe(400);
    expect((await editor.get(`${s.url}/p/${s.home.id}/place?parent=${ropes!.id}`)).status).toBe(400);
    expect((await editor.get(`${s.url}/p/${s.home.id}/place?parent=nope`)).status).toBe(404);
    expect(outline(await crPages())).toEqual(["Home [Guide, Lamps, Ropes]", "Safety"]);
  });

  it("refuses page settings and places to a reader (403), without the CSRF token (403), on a merged or archived change request (409), and in another organization (404)", async () => {
    const s = await setup();
    const before = JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages);
    const settingsUrl = `${s.url}/p/${s.guide.id}/settings`;
    const placeUrl = `${s.url}/p/${s.guide.id}/place`;
    const reader = await signedIn(s.members.read);
    const { csrf: readerCsrf } = await csrfOf(reader, s.url);
    for (const url of [settingsUrl, placeUrl]) {
      const res = await reader.get(url);
      expect(res.status, url).toBe(403);
      expect(res.text).toContain("edit its change requests");
    }
    expect((await reader.post(settingsUrl, { _csrf: readerCsrf, title: "Forged", slug: "forged" })).status).toBe(403);
    expect(
      (await reader.post(`${s.url}/p/${s.guide.id}/move`, { _csrf: readerCsrf, to: "parent", parent: "", before: s.home.id })).status,
    ).toBe(403);

    const editor = await signedIn(s.members.edit);
    const { csrf } = await csrfOf(editor, settingsUrl);
    expect((await editor.post(settingsUrl, { title: "No token", slug: "guide" })).status).toBe(403);
    expect((await editor.post(settingsUrl, { _csrf: readerCsrf, title: "Their token", slug: "guide" })).status).toBe(403);

    const stranger = await createUser(ctx);
    const otherOrg = await createOrganization(ctx, stranger, "Other");
    const elsewhere = `/app/o/${otherOrg.id}/s/${s.space.id}/~/changes/${s.cr.number}/p/${s.guide.id}`;
    expect((await editor.get(`${elsewhere}/settings`)).status).toBe(404);
    expect((await editor.get(`${elsewhere}/place`)).status).toBe(404);
    expect((await editor.post(`${elsewhere}/settings`, { _csrf: csrf, title: "Elsewhere", slug: "guide" })).status).toBe(404);
    expect((await editor.get(`${s.url}/p/nope/settings`)).status).toBe(404);
    expect(JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages)).toBe(before);

    // Archived, then merged: read-only, with the API's message.
    expect((await ctx.as(s.members.edit).patch(s.api, { status: "archived" })).status).toBe(200);
    const archived = await editor.post(settingsUrl, { _csrf: csrf, title: "Archived", slug: "guide" });
    expect(archived.status).toBe(409);
    expect(archived.text).toContain("is archived: reopen it first");
    expect((await editor.get(settingsUrl)).status).toBe(409);
    expect((await ctx.as(s.members.edit).patch(s.api, { status: "open" })).status).toBe(200);
    expect((await ctx.as(s.owner).post(`${s.api}/merge`, {})).status).toBe(200);
    const merged = await editor.post(settingsUrl, { _csrf: csrf, title: "Merged", slug: "guide" });
    expect(merged.status).toBe(409);
    expect(merged.text).toContain("is merged: it can no longer change");
    expect((await editor.get(placeUrl)).status).toBe(409);
    expect((await ctx.as(s.owner).get(`/v1/spaces/${s.space.id}/content/page/${s.guide.id}`)).body.title).toBe("Guide");
  });

  it("answers 404 for another organization's address, an outsider, and an unknown number", async () => {
    const s = await setup();
    const stranger = await createUser(ctx);
    const otherOrg = await createOrganization(ctx, stranger, "Other");
    await createSpace(ctx, stranger, otherOrg.id);
    const owner = await signedIn(s.owner);
    expect((await owner.get(`/app/o/${otherOrg.id}/s/${s.space.id}/~/changes/${s.cr.number}`)).status).toBe(404);
    expect((await owner.get(`/app/o/${otherOrg.id}/s/${s.space.id}/~/changes`)).status).toBe(404);
    expect((await owner.get(`${s.base}/999`)).status).toBe(404);
    const outsider = await signedIn(s.outsider as TestUser);
    expect((await outsider.get(s.url)).status).toBe(404);
    expect((await outsider.get(s.base)).status).toBe(404);
    // A forged post into another organization's address is a 404 too, before any change.
    const { csrf } = await csrfOf(owner, s.url);
    expect((await owner.post(`/app/o/${otherOrg.id}/s/${s.space.id}/~/changes/${s.cr.number}/merge`, { _csrf: csrf })).status).toBe(404);
    expect((await ctx.as(s.owner).get(s.api)).body.status).toBe("draft");
  });

  it("every change request's urls.app from the API answers 200", async () => {
    const s = await setup();
    const listed = await ctx.as(s.members.read).get(`/v1/spaces/${s.space.id}/change-requests?status=draft`);
    const reader = await signedIn(s.members.read);
    expect(listed.body.items.length).toBeGreaterThan(0);
    for (const item of listed.body.items) {
      const url = new URL(item.urls.app);
      expect((await reader.get(url.pathname)).status, url.pathname).toBe(200);
    }
  });

  it("keeps a member signed in without single sign-on out of an SSO-only organization's change requests; admins may come in", async () => {
    const s = await setup();
    await ctx.as(s.owner).post(`/v1/orgs/${s.org.id}/saml`, {
      label: "Corp IdP",
      entityID: "https://idp.corp.test",
      ssoURL: "https://idp.corp.test/sso",
      certificate: createTestIdp("corp").certificate,
    });
    expect((await ctx.as(s.owner).patch(`/v1/orgs/${s.org.id}`, { sso: true })).status).toBe(200);
    const member = await signedIn(s.members.review);
    const refused = await member.get(s.url);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("requires single sign-on");
    expect((await member.get(s.base)).status).toBe(403);
    expect((await (await signedIn(s.owner)).get(s.url)).status).toBe(200);
  });
});
