/**
 * Space comments, replies and commenters through GitBook's own client: every response is validated
 * against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { describe, expect, it } from "vitest";
import { parseMarkdownPage } from "../../src/content/markdown/index.js";
import { saveDocument } from "../../src/content/revision/storage.js";
import { useListeningServer } from "../helpers/app.js";
import { commitContent } from "../helpers/content.factories.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("space comments through @gitbook/api", () => {
  it("covers post, list (every filter), get, update (body, resolve, reopen, reactions), replies, commenters and deletes", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const commenter = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Contract Comments");
    await addMemberToOrg(ctx, org.id, commenter, "comment");
    const space = await createSpace(ctx, owner, org.id, { title: "Commented" });
    const document = parseMarkdownPage("First block\n\nSecond block").document;
    const table = {
      object: "block",
      type: "table",
      key: "contractTable",
      isVoid: true,
      data: {
        view: { type: "grid", columns: ["c"] },
        records: { r: { orderIndex: "a0", values: { c: "v" } } },
        definition: { c: { id: "c", title: "C", type: "text" } },
      },
      fragments: [],
    };
    const { content } = await commitContent(ctx, space.id, {
      pages: [{ title: "Page", extra: { documentHash: await saveDocument(ctx.db, { ...document, nodes: [...document.nodes, table] }) } }],
    });
    const page = content.pages[0]!;
    const node = document.nodes[0]!.key!;
    const client = contractClient(endpoint, owner.token);
    const other = contractClient(endpoint, commenter.token);

    const posted = await client.spaces.postCommentInSpace(space.id, { body: { markdown: "On the **first** block" }, page: page.id, node });
    expect(posted.status).toBe(200);
    expect(posted.data).toMatchObject({ status: "open", target: { page: { id: page.id }, node: { id: node } } });
    const onCell = await other.spaces.postCommentInSpace(space.id, {
      body: { document: parseMarkdownPage("A cell").document as never },
      page: page.id,
      node: "contractTable",
      tableCell: { record: "r", definition: "c" },
    });
    expect(onCell.data.target.tableCell).toEqual({ record: "r", definition: "c" });
    const general = await other.spaces.postCommentInSpace(space.id, { body: { markdown: "General" } });

    const all = await client.spaces.listCommentsInSpace(space.id, { limit: 2 });
    expect(all.data.count).toBe(3);
    const rest = await client.spaces.listCommentsInSpace(space.id, { limit: 2, page: all.data.next?.page });
    expect([...all.data.items, ...rest.data.items].map((c) => c.id)).toEqual([general.data.id, onCell.data.id, posted.data.id]);
    const filtered = await client.spaces.listCommentsInSpace(space.id, {
      order: "asc",
      status: "open",
      format: "markdown",
      targetPage: page.id,
      authors: [commenter.id, owner.id],
    });
    expect(filtered.data.items.map((c) => c.body)).toEqual([{ markdown: "On the **first** block" }, { markdown: "A cell" }]);

    expect((await client.spaces.getCommentInSpace(space.id, posted.data.id, { format: "markdown" })).data.body).toEqual({
      markdown: "On the **first** block",
    });
    expect((await client.spaces.getCommentInSpace(space.id, posted.data.id)).data.body).toHaveProperty("document");

    const edited = await client.spaces.updateCommentInSpace(space.id, posted.data.id, {
      body: { markdown: "Edited" },
      addedReactions: ["👍"],
    });
    expect(edited.data.editedAt).toBeDefined();
    expect(edited.data.reactions).toMatchObject([{ emoji: "👍", count: 1 }]);
    const resolved = await other.spaces.updateCommentInSpace(space.id, posted.data.id, { resolved: true, addedReactions: ["👍"] });
    expect(resolved.data).toMatchObject({ status: "resolved", resolvedBy: { id: commenter.id }, reactions: [{ emoji: "👍", count: 2 }] });
    const reopened = await client.spaces.updateCommentInSpace(space.id, posted.data.id, { resolved: false, removedReactions: ["👍"] });
    expect(reopened.data).toMatchObject({ status: "open", reactions: [{ emoji: "👍", count: 1 }] });
    expect((await client.spaces.listCommentsInSpace(space.id, { status: "resolved" })).data.count).toBe(0);

    const reply = await other.spaces.postCommentReplyInSpace(space.id, posted.data.id, { body: { markdown: "A reply" } });
    expect(reply.status).toBe(200);
    expect(reply.data.object).toBe("comment-reply");
    await client.spaces.postCommentReplyInSpace(space.id, posted.data.id, {
      body: { document: parseMarkdownPage("Another").document as never },
    });
    const replies = await client.spaces.listCommentRepliesInSpace(space.id, posted.data.id, { limit: 1, format: "markdown" });
    expect(replies.data.count).toBe(2);
    expect(replies.data.items[0]!.body).toEqual({ markdown: "A reply" });
    expect(
      (await client.spaces.listCommentRepliesInSpace(space.id, posted.data.id, { page: replies.data.next?.page })).data.items,
    ).toHaveLength(1);
    expect((await client.spaces.getCommentReplyInSpace(space.id, posted.data.id, reply.data.id, { format: "markdown" })).data.body).toEqual(
      { markdown: "A reply" },
    );
    const updatedReply = await other.spaces.updateCommentReplyInSpace(space.id, posted.data.id, reply.data.id, {
      body: { markdown: "Reply, edited" },
      addedReactions: ["🎉"],
    });
    expect(updatedReply.data.reactions).toMatchObject([{ emoji: "🎉", count: 1 }]);
    expect(
      (await client.spaces.updateCommentReplyInSpace(space.id, posted.data.id, reply.data.id, { removedReactions: ["🎉"] })).data.reactions,
    ).toMatchObject([{ count: 1 }]);
    const withReplies = await client.spaces.getCommentInSpace(space.id, posted.data.id);
    expect(withReplies.data.replies).toBe(2);
    expect(withReplies.data.repliers).toHaveLength(2);

    const commenters = await client.spaces.listCommentersInSpace(space.id, { limit: 10 });
    expect(commenters.data.items.map((m) => m.id).sort()).toEqual([owner.id, commenter.id].sort());

    expect((await other.spaces.deleteCommentReplyInSpace(space.id, posted.data.id, reply.data.id)).status).toBe(204);
    expect((await client.spaces.deleteCommentReplyInSpace(space.id, posted.data.id, reply.data.id)).status).toBe(204);
    expect((await client.spaces.deleteCommentInSpace(space.id, posted.data.id)).status).toBe(204);
    expect((await client.spaces.deleteCommentInSpace(space.id, posted.data.id)).status).toBe(204);
    expect((await client.spaces.listCommentsInSpace(space.id)).data.count).toBe(2);
  });
});
