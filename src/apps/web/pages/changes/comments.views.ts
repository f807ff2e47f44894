/** Comments and replies of a change request, with their reactions and the forms that answer them. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { csrfField, day, nameOf, statusBadge } from "./changes.views.js";
import type { CommentView } from "./comments.model.js";
import type { DetailView } from "./detail.model.js";

export const QUICK_REACTIONS = ["👍", "🎉", "❤️", "👀"] as const;

function reactionBar(view: DetailView, base: string, comment: CommentView, reply?: CommentView["replies"][number]): SafeHtml {
  const reactions = (reply ?? comment).reactions;
  const target = reply ? `${base}/comments/${comment.id}/replies/${reply.id}/react` : `${base}/comments/${comment.id}/react`;
  const shown = new Set(reactions.map((r) => r.emoji));
  const button = (emoji: string, count: number, mine: boolean) =>
    comment.mayReply
      ? html`<form class="inline" method="post" action="${target}">${csrfField(view.csrf)}<input type="hidden" name="emoji" value="${emoji}"><input type="hidden" name="action" value="${mine ? "remove" : "add"}"><button type="submit" class="${mine ? "mine" : ""}" title="${mine ? "Remove your reaction" : "React"}">${emoji}${count > 0 ? ` ${count}` : ""}</button></form>`
      : html`<span class="badge">${emoji} ${count}</span>`;
  const existing = reactions.map((r) => button(r.emoji, r.userIds.length, r.userIds.includes(view.actorId)));
  const more = comment.mayReply ? QUICK_REACTIONS.filter((e) => !shown.has(e)).map((e) => button(e, 0, false)) : [];
  if (existing.length === 0 && more.length === 0) return html``;
  return html`<div class="reactions">${existing}${more}</div>`;
}

export function commentHtml(view: DetailView, base: string, comment: CommentView): SafeHtml {
  const review = comment.reviewId ? view.reviews.find((r) => r.id === comment.reviewId) : undefined;
  const replies = comment.replies.map(
    (
      reply,
    ) => html`<div class="reply" id="reply-${reply.id}"><p class="meta"><strong>${nameOf(view.users, reply.postedBy)}</strong> · ${day(reply.postedAt)}</p>
      ${view.content.body(reply.body)}${reactionBar(view, base, comment, reply)}</div>`,
  );
  const resolveForm = comment.mayReply
    ? html`<form class="inline" method="post" action="${base}/comments/${comment.id}/resolve">${csrfField(view.csrf)}<input type="hidden" name="resolved" value="${comment.status === "resolved" ? "false" : "true"}"><button type="submit">${comment.status === "resolved" ? "Reopen" : "Resolve"}</button></form>`
    : "";
  const replyForm = comment.mayReply
    ? html`<details><summary class="muted">Reply</summary><form method="post" action="${base}/comments/${comment.id}/replies">${csrfField(view.csrf)}
        <textarea name="body" rows="3" required maxlength="20000" aria-label="Reply"></textarea><button type="submit">Reply</button></form></details>`
    : "";
  return html`<div class="comment ${comment.status}" id="comment-${comment.id}" data-comment="${comment.id}">
    <div class="meta"><span><strong>${nameOf(view.users, comment.postedBy)}</strong> · ${day(comment.postedAt)}${
      review ? html` · ${statusBadge(review.status)}` : ""
    }${comment.status === "resolved" ? html` · resolved by ${nameOf(view.users, comment.resolvedBy)}` : ""}</span> ${resolveForm}</div>
    ${view.content.body(comment.body)}${reactionBar(view, base, comment)}${replies}${replyForm}</div>`;
}

export function commentForm(view: DetailView, base: string, target: { page?: string; node?: string }, label: string): SafeHtml {
  if (!view.may.comment) return html``;
  return html`<details class="comment-here"><summary>${label}</summary><form method="post" action="${base}/comments">${csrfField(view.csrf)}
    ${target.page ? html`<input type="hidden" name="page" value="${target.page}">` : ""}${target.node ? html`<input type="hidden" name="node" value="${target.node}">` : ""}
    <textarea name="body" rows="3" required maxlength="20000" aria-label="${label}"></textarea><button type="submit">Comment</button></form></details>`;
}
