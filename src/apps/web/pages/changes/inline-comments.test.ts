/**
 * The block editor's comment endpoints: a comment on selected words is a comment of the comments
 * family on its block (the API answers it in GitBook's shape, with nothing added), its anchor is
 * kept beside it; bad anchors, blocks and pages are refused with a reason; readers without the
 * comment level, other organizations and forged posts are refused; resolving hides nothing from the list.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Y from "yjs";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { createChangeRequest } from "../../../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createOrgWithSpace } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** A real relative position, as the editor's Y.Doc gives one. */
function position(index: number): string {
  const doc = new Y.Doc();
  const text = doc.getText("t");
  text.insert(0, "The keeper lights the lamp");
  return Buffer.from(Y.encodeRelativePosition(Y.createRelativePositionFromTypeIndex(text, index))).toString("base64");
}

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Home", slug: "home", paragraphs: ["The keeper lights the lamp", "Second"] },
      { title: "Guide", slug: "guide", paragraphs: ["Intro"] },
    ],
  });
  const [home, guide] = content.pages;
  const cr = await createChangeRequest(ctx, roles.members.edit, space.id, { subject: "Comments" });
  const api = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  const doc = await ctx.as(roles.owner).get(`${api}/content/page/${home!.id}`);
  const key = doc.body.document.nodes[0].key as string;
  const url = `/app/o/${roles.org.id}/s/${space.id}/~/changes/${cr.number}`;
  const editor = await WebClient.signedIn(ctx, roles.members.edit);
  const view = await editor.get(`${url}/p/${home!.id}/edit`);
  expect(view.status, view.text).toBe(200);
  const csrf = /data-csrf="([^"]+)"/.exec(view.text)?.[1] as string;
  return { ...roles, space, home: home!, guide: guide!, cr, api, key, url, editor, csrf, view };
}

const anchor = { quote: "lights the lamp", start: position(11), end: position(25) };

describe("inline comments of the block editor", () => {
  it("stores a comment on selected words as a comment on its block, with its anchor beside it", async () => {
    const s = await setup();
    expect(s.view.text).toContain(`data-comments-url="${s.url}/p/${s.home.id}/comments.json"`);
    const posted = await s.editor.sendJson(
      "POST",
      `${s.url}/p/${s.home.id}/comments.json`,
      { body: "Check the *wick*", node: s.key, anchor },
      s.csrf,
    );
    expect(posted.status, posted.text).toBe(201);
    const comment = JSON.parse(posted.text).comment;
    expect(comment).toMatchObject({ node: s.key, anchor, status: "open", body: "Check the *wick*\n", mayReply: true, replies: [] });
    expect(comment.postedBy).toBeTruthy();

    // The API answers it in GitBook's shape: a comment on the block, no field of ours added.
    const fromApi = await ctx.as(s.owner).get(`${s.api}/comments/${comment.id}`);
    expect(fromApi.status, JSON.stringify(fromApi.body)).toBe(200);
    expect(fromApi.body.target).toMatchObject({ node: { id: s.key }, page: { id: s.home.id }, changeRequest: s.cr.id });
    expect(Object.keys(fromApi.body)).not.toContain("anchor");

    // Listed for the page it is on, not for another page.
    const listed = JSON.parse((await s.editor.get(`${s.url}/p/${s.home.id}/comments.json`)).text).comments;
    expect(listed.map((c: { id: string }) => c.id)).toEqual([comment.id]);
    expect(JSON.parse((await s.editor.get(`${s.url}/p/${s.guide.id}/comments.json`)).text).comments).toEqual([]);

    // A comment made with the API on the block is listed too, without an anchor.
    const block = await ctx.as(s.owner).post(`${s.api}/comments`, { body: { markdown: "On the block" }, page: s.home.id, node: s.key });
    expect(block.status, JSON.stringify(block.body)).toBe(200);
    const both = JSON.parse((await s.editor.get(`${s.url}/p/${s.home.id}/comments.json`)).text).comments;
    expect(both.map((c: { body: string; anchor: unknown }) => [c.body, c.anchor])).toEqual([
      ["Check the *wick*\n", anchor],
      ["On the block\n", null],
    ]);

    // Resolving keeps it in the list, resolved (the editor hides its highlight); reopening opens it.
    const resolved = await s.editor.sendJson("POST", `${s.url}/comments/${comment.id}/resolve.json`, { resolved: true }, s.csrf);
    expect(resolved.status, resolved.text).toBe(200);
    const after = JSON.parse((await s.editor.get(`${s.url}/p/${s.home.id}/comments.json`)).text).comments;
    expect(after.find((c: { id: string }) => c.id === comment.id).status).toBe("resolved");
    expect((await ctx.as(s.owner).get(`${s.api}/comments/${comment.id}`)).body.status).toBe("resolved");
    await s.editor.sendJson("POST", `${s.url}/comments/${comment.id}/resolve.json`, { resolved: false }, s.csrf);
    expect((await ctx.as(s.owner).get(`${s.api}/comments/${comment.id}`)).body.status).toBe("open");
  });

  it("posts replies to inline and block comments, answers the thread with them, and the API lists them", async () => {
    const s = await setup();
    const inline = JSON.parse(
      (await s.editor.sendJson("POST", `${s.url}/p/${s.home.id}/comments.json`, { body: "Inline", node: s.key, anchor }, s.csrf)).text,
    ).comment;
    const block = await ctx.as(s.owner).post(`${s.api}/comments`, { body: { markdown: "On the block" }, page: s.home.id, node: s.key });
    expect(block.status, JSON.stringify(block.body)).toBe(200);
    for (const [id, text] of [
      [inline.id as string, "A *reply* to the words"],
      [block.body.id as string, "A reply to the block"],
    ] as const) {
      const res = await s.editor.sendJson("POST", `${s.url}/comments/${id}/replies.json`, { body: text }, s.csrf);
      expect(res.status, res.text).toBe(201);
      const thread = JSON.parse(res.text).comment;
      expect(thread.id).toBe(id);
      expect(thread.replies.map((r: { body: string }) => r.body)).toEqual([`${text}\n`]);
      expect(thread.replies[0].postedBy).toBeTruthy();
      const fromApi = await ctx.as(s.owner).get(`${s.api}/comments/${id}/replies`);
      expect(fromApi.status, JSON.stringify(fromApi.body)).toBe(200);
      expect(fromApi.body.items).toHaveLength(1);
    }
    // A reply to a resolved comment is a reply too (the thread stays resolved).
    await s.editor.sendJson("POST", `${s.url}/comments/${inline.id}/resolve.json`, { resolved: true }, s.csrf);
    const late = await s.editor.sendJson("POST", `${s.url}/comments/${inline.id}/replies.json`, { body: "Later" }, s.csrf);
    expect(late.status, late.text).toBe(201);
    expect(JSON.parse(late.text).comment).toMatchObject({ status: "resolved" });
    expect(JSON.parse(late.text).comment.replies).toHaveLength(2);

    // Bad bodies are refused with the reason and store nothing.
    const cases: Array<[unknown, string]> = [
      [{ body: "   " }, "must not be empty"],
      [{ body: "x".repeat(20_001) }, "body"],
      [{}, "body"],
      [{ body: 42 }, "body"],
    ];
    for (const [body, message] of cases) {
      const res = await s.editor.sendJson("POST", `${s.url}/comments/${block.body.id}/replies.json`, body, s.csrf);
      expect(res.status, res.text).toBe(400);
      expect(JSON.parse(res.text).error.message).toContain(message);
    }
    const noSuch = await s.editor.sendJson("POST", `${s.url}/comments/nope/replies.json`, { body: "x" }, s.csrf);
    expect(noSuch.status, noSuch.text).toBe(404);
    const forged = await s.editor.sendJson("POST", `${s.url}/comments/${block.body.id}/replies.json`, { body: "x" }, "forged");
    expect(forged.status).toBe(403);
    const listed = JSON.parse((await s.editor.get(`${s.url}/p/${s.home.id}/comments.json`)).text).comments;
    expect(listed.map((c: { replies: unknown[] }) => c.replies.length)).toEqual([2, 1]);
  });

  it("refuses bad anchors, blocks, pages and bodies with the reason, and stores none of them", async () => {
    const s = await setup();
    const post = (body: unknown) => s.editor.sendJson("POST", `${s.url}/p/${s.home.id}/comments.json`, body, s.csrf);
    const cases: Array<[unknown, number, string]> = [
      [{ body: "x", anchor: { ...anchor, start: "not base64!" } }, 400, "anchor/start"],
      [{ body: "x", anchor: { ...anchor, end: "AAAA" } }, 400, "anchor.end is not a Yjs relative position"],
      [{ body: "x", anchor: { ...anchor, quote: "   " } }, 400, "anchor.quote must not be empty"],
      [{ body: "x", anchor: { ...anchor, start: "A".repeat(600) } }, 400, "anchor/start"],
      [{ body: "x", node: "no-such-block" }, 400, 'no block with key "no-such-block"'],
      [{ body: "   ", anchor }, 400, "must not be empty"],
      [{ body: "x".repeat(20_001), anchor }, 400, "body"],
      [{ anchor }, 400, "body"],
    ];
    for (const [body, status, message] of cases) {
      const res = await post(body);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(status);
      expect(JSON.parse(res.text).error.message).toContain(message);
    }
    const notAPage = await s.editor.sendJson("POST", `${s.url}/p/nope/comments.json`, { body: "x", anchor }, s.csrf);
    expect(notAPage.status).toBe(400);
    expect(JSON.parse(notAPage.text).error.message).toContain('no page with id "nope"');
    // A block the change request does not have yet (made in the editor a moment ago): the words
    // are located by the anchor, the comment is on the page.
    const unsaved = await post({ body: "On new words", node: "made-just-now", anchor });
    expect(unsaved.status, unsaved.text).toBe(201);
    expect(JSON.parse(unsaved.text).comment).toMatchObject({ node: null, anchor });
    // Without the page's CSRF token: refused before anything runs.
    const forged = await s.editor.sendJson("POST", `${s.url}/p/${s.home.id}/comments.json`, { body: "x", anchor }, "forged");
    expect(forged.status).toBe(403);
    const stored = JSON.parse((await s.editor.get(`${s.url}/p/${s.home.id}/comments.json`)).text).comments;
    expect(stored.map((c: { body: string }) => c.body)).toEqual(["On new words\n"]);
  });

  it("lets readers read the threads but not comment; other organizations and strangers get nothing", async () => {
    const s = await setup();
    const posted = await s.editor.sendJson("POST", `${s.url}/p/${s.home.id}/comments.json`, { body: "Mine", node: s.key, anchor }, s.csrf);
    expect(posted.status, posted.text).toBe(201);
    const id = JSON.parse(posted.text).comment.id as string;

    const reader = await WebClient.signedIn(ctx, s.members.read);
    const read = await reader.get(`${s.url}/p/${s.home.id}/comments.json`);
    expect(read.status, read.text).toBe(200);
    expect(JSON.parse(read.text).comments[0]).toMatchObject({ id, mayReply: false });
    const readerCsrf = /name="_csrf" value="([^"]+)"/.exec((await reader.get("/app")).text)?.[1] as string;
    const refused = await reader.sendJson("POST", `${s.url}/p/${s.home.id}/comments.json`, { body: "Reader", anchor }, readerCsrf);
    expect(refused.status, refused.text).toBe(403);
    expect(JSON.parse(refused.text).error.message).toContain("comment");
    const resolve = await reader.sendJson("POST", `${s.url}/comments/${id}/resolve.json`, { resolved: true }, readerCsrf);
    expect(resolve.status, resolve.text).toBe(403);
    const readerReply = await reader.sendJson("POST", `${s.url}/comments/${id}/replies.json`, { body: "Reader" }, readerCsrf);
    expect(readerReply.status, readerReply.text).toBe(403);

    const other = await createOrgWithSpace(ctx, { title: "Elsewhere" });
    const stranger = await WebClient.signedIn(ctx, other.owner);
    expect((await stranger.get(`${s.url}/p/${s.home.id}/comments.json`)).status).toBe(404);
    const strangerCsrf = /name="_csrf" value="([^"]+)"/.exec((await stranger.get("/app")).text)?.[1] as string;
    const theirs = await stranger.sendJson("POST", `${s.url}/comments/${id}/resolve.json`, { resolved: true }, strangerCsrf);
    expect(theirs.status).toBe(404);
    const theirReply = await stranger.sendJson("POST", `${s.url}/comments/${id}/replies.json`, { body: "x" }, strangerCsrf);
    expect(theirReply.status).toBe(404);
    // A comment id of another change request is not found in this one.
    const otherCr = await createChangeRequest(ctx, s.members.edit, s.space.id, { subject: "Other" });
    const otherUrl = s.url.replace(/\/\d+$/, `/${otherCr.number}`);
    const elsewhere = await s.editor.sendJson("POST", `${otherUrl}/comments/${id}/resolve.json`, { resolved: true }, s.csrf);
    expect(elsewhere.status).toBe(404);
    const replyElsewhere = await s.editor.sendJson("POST", `${otherUrl}/comments/${id}/replies.json`, { body: "x" }, s.csrf);
    expect(replyElsewhere.status).toBe(404);
    expect(JSON.parse((await s.editor.get(`${s.url}/p/${s.home.id}/comments.json`)).text).comments[0].replies).toEqual([]);
    expect((await new WebClient(ctx).get(`${s.url}/p/${s.home.id}/comments.json`)).status).toBe(401);
  });
});
