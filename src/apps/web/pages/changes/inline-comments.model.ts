/**
 * The block editor's comment threads of one page, as its side panel shows them: each comment with
 * its replies, its author's name, and the text it was made on (inline comments) or its block.
 * Bodies travel as Markdown (the panel shows them as text). Pure.
 */
import type { JSONDocument } from "../../../../content/document/types.js";
import type { CommentAnchorRow, UserRow } from "../../../../db/schema.js";
import type { CommentView } from "./comments.model.js";

export interface ThreadJson {
  id: string;
  /** The block commented on, or null for the page. */
  node: string | null;
  /** The text commented on: its words and where they are in the page's collaboration document. */
  anchor: { quote: string; start: string; end: string } | null;
  status: string;
  postedBy: string;
  postedAt: string;
  body: string;
  replies: { id: string; postedBy: string; postedAt: string; body: string }[];
  mayReply: boolean;
}

export function threadsOfPage(input: {
  pageId: string;
  views: readonly CommentView[];
  anchors: readonly CommentAnchorRow[];
  users: ReadonlyMap<string, UserRow>;
  markdownOf: (document: JSONDocument) => string;
}): ThreadJson[] {
  const anchors = new Map(input.anchors.map((a) => [a.commentId, a]));
  const name = (id: string) => input.users.get(id)?.displayName || "Someone";
  return input.views
    .filter((view) => view.pageId === input.pageId)
    .map((view) => {
      const anchor = anchors.get(view.id);
      return {
        id: view.id,
        node: view.nodeKey,
        anchor: anchor ? { quote: anchor.quote, start: anchor.start, end: anchor.end } : null,
        status: view.status,
        postedBy: name(view.postedBy),
        postedAt: view.postedAt,
        body: input.markdownOf(view.body),
        replies: view.replies.map((r) => ({ id: r.id, postedBy: name(r.postedBy), postedAt: r.postedAt, body: input.markdownOf(r.body) })),
        mayReply: view.mayReply,
      };
    });
}
