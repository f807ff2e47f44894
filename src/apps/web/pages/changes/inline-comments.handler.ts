/**
 * The block editor's comment endpoints (JSON, errors included): the threads of a page, a comment
 * on a text selection, a reply to a comment of the page, resolving or reopening one. The page's CSRF token comes in `x-csrf-token`.
 */
import Type from "typebox";
import { changeRequestHandler } from "../../web.kinds.js";
import { Body, CommentParams, PageParams } from "./changes.schemas.js";
import { pageThreads, postInlineComment, replyToPageComment, resolveInlineComment } from "./inline-comments.steps.js";

export const pageCommentsJson = changeRequestHandler({ params: PageParams }, async (request, reply, ctx) => {
  return reply.send({ comments: await pageThreads(ctx, request.params.pageId) });
});

// Y.encodeRelativePosition gives a few dozen bytes; 512 characters of base64 is far above any.
const Position = Type.String({ minLength: 4, maxLength: 512, pattern: "^[A-Za-z0-9+/]+={0,2}$" });

const PostBody = Type.Object({
  body: Body,
  node: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  anchor: Type.Optional(Type.Object({ quote: Type.String({ minLength: 1, maxLength: 2000 }), start: Position, end: Position })),
});

export const postPageCommentJson = changeRequestHandler({ params: PageParams, body: PostBody }, async (request, reply, ctx) => {
  const { body, node, anchor } = request.body;
  const comment = await postInlineComment(ctx, request.params.pageId, { markdown: body, node, anchor });
  return reply.code(201).send({ comment });
});

export const resolvePageCommentJson = changeRequestHandler(
  { params: CommentParams, body: Type.Object({ resolved: Type.Boolean() }) },
  async (request, reply, ctx) => {
    await resolveInlineComment(ctx, request.params.commentId, request.body.resolved);
    return reply.send({ resolved: request.body.resolved });
  },
);

export const replyToPageCommentJson = changeRequestHandler(
  { params: CommentParams, body: Type.Object({ body: Body }) },
  async (request, reply, ctx) => {
    const comment = await replyToPageComment(ctx, request.params.commentId, request.body.body);
    return reply.code(201).send({ comment });
  },
);
