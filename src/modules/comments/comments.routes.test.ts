import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { addMemberToOrg, createUser } from "../../../test/helpers/factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import type { JSONDocument } from "../../content/document/types.js";
import { parseMarkdownPage } from "../../content/markdown/index.js";
import { loadDocument, saveDocument } from "../../content/revision/storage.js";
import { openCommentCounts } from "../spaces/space-activity.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const table = {
  object: "block",
  type: "table",
  key: "tableBlock01",
  isVoid: true,
  data: {
    view: { type: "grid", columns: ["col1"] },
    records: { row1: { orderIndex: "a0", values: { col1: "x" } } },
    definition: { col1: { id: "col1", title: "A", type: "text" } },
  },
  fragments: [],
};

/** An organization with a space holding a "Guide" page (two paragraphs and a table) and a group page. */
async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const document = parseMarkdownPage("First paragraph\n\nSecond paragraph").document;
  document.nodes.push(table as never);
  const documentHash = await saveDocument(ctx.db, document);
  const { revisionId, content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Guide", extra: { documentHash } },
      { title: "Group", kind: "group", children: [{ title: "Child", paragraphs: ["Child text"] }] },
    ],
  });
  const guide = content.pages[0]!;
  const [first, second] = document.nodes.map((n) => n.key!);
  return { ...roles, space, revisionId, guide, document, keys: { first: first!, second: second!, table: table.key } };
}

const base = (spaceId: string) => `/v1/spaces/${spaceId}`;

async function post(user: TestUser, spaceId: string, body: Record<string, unknown>, query = "") {
  const res = await ctx.as(user).post(`${base(spaceId)}/comments${query}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe("POST /v1/spaces/{spaceId}/comments", () => {
  it("posts a Markdown comment on a block and answers 200 with the comment as the author sees it", async () => {
    const { owner, space, revisionId, guide, keys } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "Is this **right**?" }, page: guide.id, node: keys.first });
    expect(comment).toMatchObject({
      object: "comment",
      postedBy: { object: "user", id: owner.id },
      reactions: [],
      replies: 0,
      repliers: [],
      status: "open",
      target: { space: space.id, revision: revisionId, page: { id: guide.id }, node: { id: keys.first } },
      urls: { location: `${ctx.urls.base}/v1/spaces/${space.id}/comments/${comment.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(comment.editedAt).toBeUndefined();
    expect(comment.resolvedBy).toBeUndefined();
    expect(comment.target.changeRequest).toBeUndefined();
    expect(comment.body.document).toMatchObject({ object: "document", nodes: [{ object: "block", type: "paragraph" }] });
    expect(Date.parse(comment.postedAt)).toBeGreaterThan(0);
  });

  it("posts on the space itself, on a page, and on a table cell; returns Markdown with format=markdown", async () => {
    const { members, space, guide, keys } = await setup();
    const general = await post(members.comment, space.id, { body: { markdown: "General remark" } }, "?format=markdown");
    expect(general.body).toEqual({ markdown: "General remark" });
    expect(general.target.page).toBeUndefined();
    const onPage = await post(members.comment, space.id, { body: { markdown: "On the page" }, page: guide.id });
    expect(onPage.target).toMatchObject({ page: { id: guide.id } });
    expect(onPage.target.node).toBeUndefined();
    const cell = await post(members.comment, space.id, {
      body: { markdown: "Cell" },
      page: guide.id,
      node: keys.table,
      tableCell: { record: "row1", definition: "col1" },
    });
    expect(cell.target).toMatchObject({ node: { id: keys.table }, tableCell: { record: "row1", definition: "col1" } });
  });

  it("accepts a document body and serves it as Markdown, and Markdown as a document", async () => {
    const { owner, space } = await setup();
    const document = parseMarkdownPage("Hello *there*\n\n- one\n- two").document;
    const comment = await post(owner, space.id, { body: { document } });
    expect(comment.body.document.nodes).toEqual(document.nodes);
    const asMarkdown = await ctx.as(owner).get(`${base(space.id)}/comments/${comment.id}?format=markdown`);
    expect(asMarkdown.body.body).toEqual({ markdown: "Hello *there*\n\n* one\n* two" });

    const fromMarkdown = await post(owner, space.id, { body: { markdown: "# Title\n\n---\n\nText with `code`" } });
    expect(fromMarkdown.body.document.nodes.map((n: { type: string }) => n.type)).toEqual(["heading-1", "divider", "paragraph"]);
    const back = await ctx.as(owner).get(`${base(space.id)}/comments/${fromMarkdown.id}?format=markdown`);
    expect(back.body.body.markdown).toBe("## Title\n\n***\n\nText with `code`");
  });

  it("answers 400 with a precise message for bad bodies and targets, and stores nothing", async () => {
    const { owner, space, guide, keys } = await setup();
    const group = (await ctx.as(owner).get(`${base(space.id)}/content/pages`)).body.pages[1];
    const cases: [unknown, string][] = [
      [{}, "body.body is required."],
      [{ body: "text" }, "body.body must be of type object."],
      [
        { body: { text: "x" } },
        "body.body must have either markdown (a string of Markdown) or document (a JSON document); it has neither.",
      ],
      [{ body: {} }, "body.body must have either markdown (a string of Markdown) or document (a JSON document); it has neither."],
      [
        { body: { markdown: "a", document: { object: "document", nodes: [] } } },
        "body.body must have either markdown or document, not both.",
      ],
      [{ body: { markdown: ["a", "b"] } }, "body.body.markdown must be of type string."],
      [{ body: { markdown: "  \n " } }, "body.body.markdown must not be empty."],
      [{ body: { markdown: "[a]: https://example.com" } }, "body.body.markdown has no content once read as Markdown."],
      [{ body: { document: { object: "document", nodes: [] } } }, "body.body.document must have at least one block in nodes."],
      [{ body: { document: { object: "doc", nodes: [] } } }, 'body.body.document.object must be "document".'],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "column" }] } } },
        "body.body.document.nodes.0.type must be one of",
      ],
      [
        {
          body: {
            document: {
              object: "document",
              nodes: [{ object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ text: 5 }] }] }],
            },
          },
        },
        "body.body.document.nodes.0.nodes.0.leaves.0 must be a leaf with a text string.",
      ],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "paragraph", nodes: [null] }] } } },
        "body.body.document.nodes.0.nodes.0 must be a node (an object).",
      ],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "paragraph", nodes: "text" }] } } },
        "body.body.document.nodes.0.nodes must be an array.",
      ],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "hint", data: null, nodes: [] }] } } },
        "body.body.document.nodes.0.data must be an object.",
      ],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "paragraph", nodes: [{ object: "mark" }] }] } } },
        'body.body.document.nodes.0.nodes.0.object must be one of: "block", "inline", "text", "fragment".',
      ],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "table" }] } } },
        "body.body.document.nodes.0 is an incomplete table block: it lacks fields its type needs (see JSONDocument in the API reference).",
      ],
      [
        { body: { document: { object: "document", nodes: [{ object: "block", type: "paragraph" }] } } },
        "body.body.document.nodes.0 is an incomplete paragraph block",
      ],
      [
        { body: { markdown: "x" }, page: "nope" },
        `body.page: no page with id "nope" in the content commented on (revision "${(await ctx.as(owner).get(base(space.id))).body.revision}").`,
      ],
      [
        { body: { markdown: "x" }, page: guide.id, node: "nope" },
        `body.node: no block with key "nope" in the document of page "${guide.id}".`,
      ],
      [
        { body: { markdown: "x" }, page: group.id, node: keys.first },
        `body.node: no block with key "${keys.first}" in the document of page "${group.id}".`,
      ],
      [{ body: { markdown: "x" }, node: keys.first }, "body.node needs body.page: a node is looked up in that page's document."],
      [
        { body: { markdown: "x" }, page: guide.id, tableCell: { record: "r", definition: "d" } },
        "body.tableCell needs body.node (the table block).",
      ],
      [
        { body: { markdown: "x" }, page: guide.id, node: keys.first, tableCell: { record: "r", definition: "d" } },
        `body.tableCell targets a cell of a table, but node "${keys.first}" is a paragraph block.`,
      ],
      [{ body: { markdown: "x" }, page: guide.id, node: keys.table, tableCell: { record: "r" } }, "body.tableCell.definition is required."],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.as(owner).post(`${base(space.id)}/comments`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toContain(message);
    }
    expect((await ctx.as(owner).get(`${base(space.id)}/comments`)).body.count).toBe(0);
  });

  it("answers 401 without a token, 404 to outsiders, guests and on deleted spaces, 403 to readers", async () => {
    const { owner, members, outsider, space } = await setup();
    const body = { body: { markdown: "Hi" } };
    expect((await ctx.anonymous.post(`${base(space.id)}/comments`, body)).status).toBe(401);
    for (const user of [outsider, members.guest]) {
      const res = await ctx.as(user).post(`${base(space.id)}/comments`, body);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe(`No space with id "${space.id}".`);
    }
    const reader = await ctx.as(members.read).post(`${base(space.id)}/comments`, body);
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(`You may read space "${space.id}" but not comment on it: that needs the comment permission.`);
    expect((await ctx.as(members.comment).post(`${base(space.id)}/comments`, body)).status).toBe(200);
    expect((await ctx.as(owner).delete(base(space.id))).status).toBe(204);
    expect((await ctx.as(owner).post(`${base(space.id)}/comments`, body)).status).toBe(404);
    expect((await ctx.as(owner).get(`${base(space.id)}/comments`)).status).toBe(404);
  });
});

describe("GET /v1/spaces/{spaceId}/comments and /comments/{commentId}", () => {
  it("lets readers read with read-only permissions, and hides comments from outsiders", async () => {
    const { owner, members, outsider, space } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "Read me" } });
    const asReader = await ctx.as(members.read).get(`${base(space.id)}/comments/${comment.id}`);
    expect(asReader.status).toBe(200);
    expect(asReader.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    const asCommenter = await ctx.as(members.comment).get(`${base(space.id)}/comments`);
    expect(asCommenter.body.items[0].permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
    const asAdmin = await ctx.as(members.admin).get(`${base(space.id)}/comments/${comment.id}`);
    expect(asAdmin.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: true });
    expect((await ctx.anonymous.get(`${base(space.id)}/comments`)).status).toBe(401);
    expect((await ctx.anonymous.get(`${base(space.id)}/comments/${comment.id}`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`${base(space.id)}/comments`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`${base(space.id)}/comments/${comment.id}`)).status).toBe(404);
    const missing = await ctx.as(owner).get(`${base(space.id)}/comments/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`No comment with id "nope" in space "${space.id}".`);
  });

  it("does not serve a comment of one space under another", async () => {
    const { owner, org, space } = await setup();
    const other = await createSpace(ctx, owner, org.id, { title: "Other" });
    const comment = await post(owner, space.id, { body: { markdown: "Here" } });
    expect((await ctx.as(owner).get(`${base(other.id)}/comments/${comment.id}`)).status).toBe(404);
    expect((await ctx.as(owner).put(`${base(other.id)}/comments/${comment.id}`, { resolved: true })).status).toBe(404);
    expect((await ctx.as(owner).delete(`${base(other.id)}/comments/${comment.id}`)).status).toBe(204);
    expect((await ctx.as(owner).get(`${base(space.id)}/comments/${comment.id}`)).status).toBe(200);
    expect((await ctx.as(owner).get(`${base(other.id)}/comments`)).body.count).toBe(0);
  });

  it("pages newest first by default and oldest first with order=asc, without repeats", async () => {
    const { owner, space } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await post(owner, space.id, { body: { markdown: `Comment ${i}` } })).id);
    for (const order of ["desc", "asc"] as const) {
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await ctx
          .as(owner)
          .get(`${base(space.id)}/comments?limit=3${order === "asc" ? "&order=asc" : ""}${page ? `&page=${page}` : ""}`);
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(7);
        seen.push(...res.body.items.map((c: { id: string }) => c.id));
        page = res.body.next?.page;
      } while (page);
      expect(seen).toEqual(order === "asc" ? ids : [...ids].reverse());
    }
    const garbage = await ctx.as(owner).get(`${base(space.id)}/comments?page=garbage`);
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.message).toBe(
      "The `page` parameter is not a cursor returned by this list; pass `next.page` from a previous response.",
    );
    expect((await ctx.as(owner).get(`${base(space.id)}/comments?order=up`)).body.error.message).toBe(
      'query parameter "order" must be one of: "asc", "desc".',
    );
  });

  it("filters by status, target page and authors, and formats bodies", async () => {
    const { owner, members, space, guide } = await setup();
    const a = await post(owner, space.id, { body: { markdown: "A" }, page: guide.id });
    const b = await post(members.comment, space.id, { body: { markdown: "B" } });
    const c = await post(members.edit, space.id, { body: { markdown: "C" }, page: guide.id });
    await ctx.as(owner).put(`${base(space.id)}/comments/${b.id}`, { resolved: true });
    const ids = async (query: string) => {
      const res = await ctx.as(owner).get(`${base(space.id)}/comments?order=asc&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((x: { id: string }) => x.id);
    };
    expect(await ids("status=all")).toEqual([a.id, b.id, c.id]);
    expect(await ids("status=open")).toEqual([a.id, c.id]);
    expect(await ids("status=resolved")).toEqual([b.id]);
    expect(await ids(`targetPage=${guide.id}`)).toEqual([a.id, c.id]);
    expect(await ids(`authors=${members.comment.id}`)).toEqual([b.id]);
    expect(await ids(`authors=${members.comment.id}&authors=${members.edit.id}`)).toEqual([b.id, c.id]);
    expect(await ids(`authors=${members.edit.id}&targetPage=${guide.id}&status=open`)).toEqual([c.id]);
    const markdown = await ctx.as(owner).get(`${base(space.id)}/comments?order=asc&format=markdown`);
    expect(markdown.body.items.map((x: { body: unknown }) => x.body)).toEqual([{ markdown: "A" }, { markdown: "B" }, { markdown: "C" }]);
    const closed = await ctx.as(owner).get(`${base(space.id)}/comments?status=closed`);
    expect(closed.status).toBe(400);
    expect(closed.body.error.message).toBe('query parameter "status" must be one of: "all", "open", "resolved".');
  });
});

describe("PUT /v1/spaces/{spaceId}/comments/{commentId}", () => {
  it("lets the author edit the body (editedAt set, unchanged blocks keep their keys) and nobody else", async () => {
    const { members, space } = await setup();
    const comment = await post(members.comment, space.id, { body: { markdown: "Keep this\n\nChange this" } });
    const [keep] = comment.body.document.nodes;
    const edited = await ctx
      .as(members.comment)
      .put(`${base(space.id)}/comments/${comment.id}?format=markdown`, { body: { markdown: "Keep this\n\nChanged" } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toEqual({ markdown: "Keep this\n\nChanged" });
    expect(Date.parse(edited.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(comment.postedAt));
    const stored = (await ctx.as(members.comment).get(`${base(space.id)}/comments/${comment.id}`)).body;
    expect(stored.body.document.nodes[0].key).toBe(keep.key);

    for (const other of [members.edit, members.admin]) {
      const res = await ctx.as(other).put(`${base(space.id)}/comments/${comment.id}`, { body: { markdown: "Hijack" } });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe(`Only the author of comment "${comment.id}" can edit its body.`);
    }
    const reader = await ctx.as(members.read).put(`${base(space.id)}/comments/${comment.id}`, { resolved: true });
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(
      `Reacting to, resolving or reopening comment "${comment.id}" needs the comment permission on space "${space.id}".`,
    );
    const empty = await ctx.as(members.comment).put(`${base(space.id)}/comments/${comment.id}`, { body: { markdown: "" } });
    expect(empty.body.error.message).toBe("body.body.markdown must not be empty.");
    expect((await ctx.as(members.comment).get(`${base(space.id)}/comments/${comment.id}?format=markdown`)).body.body.markdown).toBe(
      "Keep this\n\nChanged",
    );
  });

  it("resolves and reopens (by anyone who may comment), keeping the first resolution", async () => {
    const { owner, members, space } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "Fix it" } });
    const resolved = await ctx.as(members.comment).put(`${base(space.id)}/comments/${comment.id}`, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: "resolved", resolvedBy: { id: members.comment.id } });
    expect(resolved.body.editedAt).toBeUndefined();
    const again = await ctx.as(owner).put(`${base(space.id)}/comments/${comment.id}`, { resolved: true });
    expect(again.body).toMatchObject({ status: "resolved", resolvedBy: { id: members.comment.id }, resolvedAt: resolved.body.resolvedAt });
    expect((await openCommentCounts(ctx.db, { spaceIds: [space.id] })).get(space.id)).toBe(0);
    const reopened = await ctx.as(members.edit).put(`${base(space.id)}/comments/${comment.id}`, { resolved: false });
    expect(reopened.body.status).toBe("open");
    expect(reopened.body.resolvedAt).toBeUndefined();
    expect(reopened.body.resolvedBy).toBeUndefined();
    expect(await openCommentCounts(ctx.db, { spaceIds: [space.id, "none"] })).toEqual(
      new Map([
        [space.id, 1],
        ["none", 0],
      ]),
    );
    expect((await ctx.as(owner).put(`${base(space.id)}/comments/${comment.id}`, { resolved: "yes" })).body.error.message).toBe(
      "body.resolved must be of type boolean.",
    );
  });

  it("adds and removes each user's own reactions", async () => {
    const { owner, members, space } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "React" } });
    const url = `${base(space.id)}/comments/${comment.id}`;
    expect((await ctx.as(owner).put(url, { addedReactions: ["👍", "🎉"] })).status).toBe(200);
    await ctx.as(members.comment).put(url, { addedReactions: ["👍"] });
    const twice = await ctx.as(members.comment).put(url, { addedReactions: ["👍", "👍"] });
    const byEmoji = (reactions: { emoji: string }[]) => new Map(reactions.map((r) => [r.emoji, r]));
    expect(twice.body.reactions).toHaveLength(2);
    const thumbs = byEmoji(twice.body.reactions).get("👍") as any;
    expect(thumbs).toMatchObject({ emoji: "👍", count: 2 });
    expect(thumbs.users.map((u: { user: { id: string } }) => u.user.id)).toEqual([owner.id, members.comment.id]);
    expect(Date.parse(thumbs.users[0].reactedAt)).toBeGreaterThan(0);
    expect(byEmoji(twice.body.reactions).get("🎉")).toMatchObject({ emoji: "🎉", count: 1, users: [{ user: { id: owner.id } }] });

    // Removing removes only the caller's own reaction; removing one never added changes nothing.
    const removed = await ctx.as(members.comment).put(url, { removedReactions: ["👍", "🎉"] });
    expect(byEmoji(removed.body.reactions).get("👍")).toMatchObject({ count: 1, users: [{ user: { id: owner.id } }] });
    expect(byEmoji(removed.body.reactions).get("🎉")).toMatchObject({ count: 1 });
    const both = await ctx.as(owner).put(url, { addedReactions: ["🚀"], removedReactions: ["🚀", "👍"] });
    const emoji = await ctx
      .as(owner)
      .put(url, { addedReactions: ["👍🏽", "🇫🇷", "1️⃣", "👨‍👩‍👧", "❤️"], removedReactions: ["👍🏽", "🇫🇷", "1️⃣", "👨‍👩‍👧", "❤️"] });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(200);
    expect(both.body.reactions.map((r: { emoji: string }) => r.emoji)).toEqual(["🎉"]);

    const reader = await ctx.as(members.read).put(url, { addedReactions: ["👍"] });
    expect(reader.status).toBe(403);
    for (const [body, message] of [
      [{ addedReactions: [{ emoji: "👍" }] }, "body.addedReactions.0 must be of type string."],
      // A number is not coerced to the text "1": the body is validated as sent.
      [{ addedReactions: [1] }, "body.addedReactions.0 must be of type string."],
      [{ addedReactions: ["👍", "nice"] }, 'body.addedReactions.1 must be an emoji such as 👍, not "nice".'],
      [{ removedReactions: { a: 1 } }, "body.removedReactions must be of type array."],
      [{ addedReactions: [""] }, "body.addedReactions.0 must be at least 1 characters long."],
    ] as const) {
      const res = await ctx.as(owner).put(url, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
  });
});

describe("DELETE /v1/spaces/{spaceId}/comments/{commentId}", () => {
  it("lets the author or an admin delete, answers 204 also when missing, 403 to others", async () => {
    const { owner, members, outsider, space } = await setup();
    const mine = await post(members.comment, space.id, { body: { markdown: "Mine" } });
    const other = await post(members.edit, space.id, { body: { markdown: "Other" } });
    const url = (id: string) => `${base(space.id)}/comments/${id}`;
    expect((await ctx.anonymous.delete(url(mine.id))).status).toBe(401);
    expect((await ctx.as(outsider).delete(url(mine.id))).status).toBe(404);
    const forbidden = await ctx.as(members.comment).delete(url(other.id));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toBe(`Only the author of comment "${other.id}" or an admin of space "${space.id}" can delete it.`);
    expect((await ctx.as(members.read).delete(url(mine.id))).status).toBe(403);
    expect((await ctx.as(members.comment).delete(url(mine.id))).status).toBe(204);
    expect((await ctx.as(members.comment).delete(url(mine.id))).status).toBe(204);
    expect((await ctx.as(owner).delete(url(other.id))).status).toBe(204);
    expect((await ctx.as(owner).delete(url("never-existed"))).status).toBe(204);
    expect((await ctx.as(owner).get(`${base(space.id)}/comments`)).body.count).toBe(0);
  });
});

describe("replies", () => {
  it("post, list (oldest first, paged), get, counters and repliers on the comment", async () => {
    const { owner, members, outsider, space } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "Thread" } });
    const url = `${base(space.id)}/comments/${comment.id}/replies`;
    const first = await ctx.as(members.comment).post(url, { body: { markdown: "One" } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: "comment-reply",
      postedBy: { id: members.comment.id },
      reactions: [],
      body: { document: { object: "document" } },
      urls: { location: `${ctx.urls.base}${url}/${first.body.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    const second = await ctx.as(members.edit).post(`${url}?format=markdown`, { body: { markdown: "Two" } });
    expect(second.body.body).toEqual({ markdown: "Two" });
    const third = await ctx.as(members.comment).post(url, { body: { document: parseMarkdownPage("Three").document } });

    const page1 = await ctx.as(owner).get(`${url}?limit=2&format=markdown`);
    expect(page1.body.count).toBe(3);
    expect(page1.body.items.map((r: { body: { markdown: string } }) => r.body.markdown)).toEqual(["One", "Two"]);
    const page2 = await ctx.as(owner).get(`${url}?limit=2&page=${page1.body.next.page}`);
    expect(page2.body.items.map((r: { id: string }) => r.id)).toEqual([third.body.id]);
    expect(page2.body.next).toBeUndefined();
    expect((await ctx.as(members.read).get(`${url}/${first.body.id}`)).body.permissions).toEqual({
      view: true,
      edit: false,
      reply: false,
      delete: false,
    });
    expect((await ctx.as(owner).get(`${url}/${first.body.id}`)).body.permissions).toEqual({
      view: true,
      edit: false,
      reply: true,
      delete: true,
    });

    const withCounts = (await ctx.as(owner).get(`${base(space.id)}/comments/${comment.id}`)).body;
    expect(withCounts.replies).toBe(3);
    expect(withCounts.repliers).toMatchObject([
      { count: 2, user: { id: members.comment.id }, updatedAt: third.body.postedAt },
      { count: 1, user: { id: members.edit.id }, updatedAt: second.body.postedAt },
    ]);

    expect((await ctx.anonymous.post(url, { body: { markdown: "x" } })).status).toBe(401);
    expect((await ctx.as(outsider).get(url)).status).toBe(404);
    expect((await ctx.as(members.read).post(url, { body: { markdown: "x" } })).status).toBe(403);
    expect((await ctx.as(owner).post(url, { body: {} })).body.error.message).toBe(
      "body.body must have either markdown (a string of Markdown) or document (a JSON document); it has neither.",
    );
    expect((await ctx.as(owner).post(`${base(space.id)}/comments/nope/replies`, { body: { markdown: "x" } })).status).toBe(404);
    expect((await ctx.as(owner).get(`${url}/nope`)).body.error.message).toBe(
      `No reply with id "nope" to comment "${comment.id}" in space "${space.id}".`,
    );
  });

  it("edit by the author only, reactions per user, delete by author or admin, 204 when missing", async () => {
    const { owner, members, space } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "Thread" } });
    const replies = `${base(space.id)}/comments/${comment.id}/replies`;
    const reply = (await ctx.as(members.comment).post(replies, { body: { markdown: "Reply" } })).body;
    const url = `${replies}/${reply.id}`;
    const edited = await ctx.as(members.comment).put(`${url}?format=markdown`, { body: { markdown: "Edited" } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toEqual({ markdown: "Edited" });
    expect(Date.parse(edited.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(edited.body.postedAt));
    expect((await ctx.as(owner).put(url, { body: { markdown: "No" } })).body.error.message).toBe(
      `Only the author of reply "${reply.id}" can edit its body.`,
    );
    await ctx.as(owner).put(url, { addedReactions: ["👀"] });
    const reacted = await ctx.as(members.edit).put(url, { addedReactions: ["👀"] });
    expect(reacted.body.reactions).toMatchObject([{ emoji: "👀", count: 2 }]);
    expect((await ctx.as(members.read).put(url, { addedReactions: ["👀"] })).status).toBe(403);
    // Resolving from a reply exists on change requests only; on a space the field is ignored.
    await ctx.as(owner).put(url, { resolved: true });
    expect((await ctx.as(owner).get(`${base(space.id)}/comments/${comment.id}`)).body.status).toBe("open");

    expect((await ctx.as(members.edit).delete(url)).status).toBe(403);
    expect((await ctx.as(members.comment).delete(url)).status).toBe(204);
    expect((await ctx.as(members.comment).delete(url)).status).toBe(204);
    const another = (await ctx.as(members.edit).post(replies, { body: { markdown: "Another" } })).body;
    expect((await ctx.as(members.admin).delete(`${replies}/${another.id}`)).status).toBe(204);
    expect((await ctx.as(owner).get(`${base(space.id)}/comments/${comment.id}`)).body).toMatchObject({ replies: 0, repliers: [] });

    // Deleting a comment deletes its replies.
    const last = (await ctx.as(members.edit).post(replies, { body: { markdown: "Last" } })).body;
    expect((await ctx.as(owner).delete(`${base(space.id)}/comments/${comment.id}`)).status).toBe(204);
    expect(await ctx.db.selectFrom("commentReplies").select("id").where("id", "=", last.id).executeTakeFirst()).toBeUndefined();
    expect((await ctx.as(owner).delete(`${replies}/${last.id}`)).status).toBe(204);
  });
});

describe("GET /v1/spaces/{spaceId}/commenters", () => {
  it("lists the members who commented or replied, as members with their counts", async () => {
    const { owner, org, members, outsider, space } = await setup();
    const comment = await post(members.comment, space.id, { body: { markdown: "A" } });
    await post(members.comment, space.id, { body: { markdown: "B" } });
    await ctx.as(members.edit).post(`${base(space.id)}/comments/${comment.id}/replies`, { body: { markdown: "R" } });
    const elsewhere = await createSpace(ctx, owner, org.id, { title: "Elsewhere" });
    await post(owner, elsewhere.id, { body: { markdown: "Not here" } });

    const res = await ctx.as(members.read).get(`${base(space.id)}/commenters`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    const byId = new Map(res.body.items.map((m: { id: string }) => [m.id, m]));
    expect(byId.get(members.comment.id)).toMatchObject({
      object: "member",
      role: "comment",
      user: { id: members.comment.id },
      disabled: false,
      sso: false,
      spaces: 0,
      teams: 0,
    });
    expect(byId.get(members.edit.id)).toMatchObject({ object: "member", role: "edit" });
    // In the order they joined the organization.
    const paged = await ctx.as(owner).get(`${base(space.id)}/commenters?limit=1`);
    const next = await ctx.as(owner).get(`${base(space.id)}/commenters?limit=1&page=${paged.body.next.page}`);
    expect(next.body.next).toBeUndefined();
    expect([...paged.body.items, ...next.body.items].map((m: { id: string }) => m.id)).toEqual(
      res.body.items.map((m: { id: string }) => m.id),
    );
    expect((await ctx.anonymous.get(`${base(space.id)}/commenters`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`${base(space.id)}/commenters`)).status).toBe(404);
  });

  it("leaves out authors who are no longer members", async () => {
    const { owner, org, space } = await setup();
    const visitor = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, visitor, "comment");
    await post(visitor, space.id, { body: { markdown: "Passing by" } });
    expect((await ctx.as(owner).get(`${base(space.id)}/commenters`)).body.count).toBe(1);
    await ctx.db.deleteFrom("members").where("orgId", "=", org.id).where("userId", "=", visitor.id).execute();
    expect((await ctx.as(owner).get(`${base(space.id)}/commenters`)).body).toMatchObject({ count: 0, items: [] });
  });
});

describe("targets across revisions", () => {
  it("a comment on a block keeps its target after another block is edited", async () => {
    const { owner, space, guide, document, keys, revisionId } = await setup();
    const comment = await post(owner, space.id, { body: { markdown: "About the first paragraph" }, page: guide.id, node: keys.first });

    // The second paragraph is edited, as an editor or a Git import would: keys are reconciled.
    const next = parseMarkdownPage("First paragraph\n\nSecond paragraph, edited", { previous: document as JSONDocument }).document;
    next.nodes.push(table as never);
    expect(next.nodes[0]!.key).toBe(keys.first);
    const edited = await commitContent(ctx, space.id, {
      pages: [{ id: guide.id, title: "Guide", extra: { documentHash: await saveDocument(ctx.db, next) } }],
    });
    expect(edited.revisionId).not.toBe(revisionId);

    const read = await ctx.as(owner).get(`${base(space.id)}/comments/${comment.id}`);
    expect(read.body.target).toEqual({ space: space.id, revision: revisionId, page: { id: guide.id }, node: { id: keys.first } });
    const current = await loadDocument<JSONDocument>(ctx.db, edited.content.pages[0]!.documentHash!);
    expect(current!.nodes.find((n) => n.key === keys.first)).toMatchObject({ type: "paragraph" });
    expect(
      (await ctx.as(owner).get(`${base(space.id)}/comments?targetPage=${guide.id}`)).body.items.map((c: { id: string }) => c.id),
    ).toEqual([comment.id]);

    // New comments are checked against the new revision (the block is still there).
    const later = await post(owner, space.id, { body: { markdown: "Still there" }, page: guide.id, node: keys.first });
    expect(later.target.revision).toBe(edited.revisionId);
  });
});
