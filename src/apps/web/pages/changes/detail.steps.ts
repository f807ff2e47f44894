/**
 * Everything a change request's page shows, loaded through the families: its conversation, its
 * changes against its base with their documents, its reviews and requests, its conflicts with the
 * primary content, who may be asked for a review, and why a merge would be refused.
 */
import type { JSONDocument } from "../../../../content/document/types.js";
import { loadDocuments } from "../../../../content/revision/storage.js";
import { parseJsonOrNull } from "../../../../lib/json.js";
import { conflictDocumentHashes } from "../../../../modules/change-request-merge/change-request-merge.presenter.js";
import { changesOf, currentConflicts, mergeRefusal } from "../../../../modules/change-request-merge/change-request-merge.service.js";
import { loadReviewCandidates } from "../../../../modules/change-request-reviews/change-request-reviews.loader.js";
import { mayReview, mayWithdrawReviewRequest } from "../../../../modules/change-request-reviews/change-request-reviews.policy.js";
import { currentReviews, listRequestedReviewers } from "../../../../modules/change-request-reviews/change-request-reviews.queries.js";
import { isWritable } from "../../../../modules/change-requests/change-requests.policy.js";
import { isOutdated } from "../../../../modules/change-requests/change-requests.presenter.js";
import { loadConversation } from "../../../../modules/comments/comments.loader.js";
import { loadRevisionView } from "../../../../modules/content/content.loader.js";
import { getUsersByIds } from "../../../../modules/users/users.queries.js";
import type { ChangeRequestContext } from "../../web.steps.js";
import { commentViews } from "./comments.model.js";
import { contentView } from "./content.render.js";
import { asDocument, type ConflictView, conflictViews, type DetailView, descriptionMarkdown } from "./detail.model.js";
import { pageChangeViews, withDocuments } from "./page-changes.model.js";

/** How many comments, and replies to them in all, one change request page shows at most. */
const MAX_COMMENTS = 500;
const MAX_REPLIES = 5000;

async function loadComments(ctx: ChangeRequestContext) {
  const { loaded } = ctx;
  const location = { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id };
  const rows = await loadConversation(ctx.deps.db, location, { maxComments: MAX_COMMENTS, maxReplies: MAX_REPLIES });
  return commentViews(rows, ctx.actor.user.id, loaded.permissions);
}

/** The pages the change request changes, with their documents before and after (for the block diff). */
async function loadPageChanges(ctx: ChangeRequestContext) {
  const { before, after, changes } = await changesOf(ctx.deps.db, ctx.loaded);
  const { pages, other } = pageChangeViews(changes, before, after);
  const hashes = pages.flatMap((p) => [p.beforeHash, p.afterHash]).filter((h): h is string => !!h);
  return { pages: withDocuments(pages, await loadDocuments(ctx.deps.db, new Set(hashes))), other };
}

export async function loadDetailView(ctx: ChangeRequestContext, notice: string | undefined): Promise<DetailView> {
  const { db } = ctx.deps;
  const { loaded, actor } = ctx;
  const cr = loaded.changeRequest;
  const writable = isWritable(cr);
  const [comments, changes, requested, reviews, conflictsFound, head] = await Promise.all([
    loadComments(ctx),
    loadPageChanges(ctx),
    listRequestedReviewers(db, cr.id, { limit: 100 }),
    currentReviews(db, cr.id),
    writable ? currentConflicts(db, loaded) : undefined,
    loadRevisionView(db, loaded.space, cr.revisionId),
  ]);
  let conflicts: ConflictView[] = [];
  if (conflictsFound && conflictsFound.conflicts.length > 0) {
    const { sides } = conflictsFound;
    const documents = await loadDocuments(db, conflictDocumentHashes(conflictsFound.conflicts));
    const contents = { base: sides.baseContent, primary: sides.primaryContent, changeRequest: sides.headContent };
    conflicts = conflictViews(conflictsFound.conflicts, contents, documents);
  }
  const asked = new Set(requested.rows.map((r) => r.userId));
  const candidates = writable && loaded.changeRequestPermissions.update ? await loadReviewCandidates(db, loaded, asked) : [];
  const mergeBlocked = writable && loaded.changeRequestPermissions.merge ? await mergeRefusal(db, { loaded, actor }) : undefined;
  const userIds = new Set([cr.createdBy, ...comments.userIds, ...requested.rows.map((r) => r.userId), ...reviews.map((r) => r.reviewerId)]);
  const users = new Map((await getUsersByIds(db, [...userIds])).map((u) => [u.id, u]));
  const description = cr.description
    ? (parseJsonOrNull<JSONDocument>(cr.description, "change_requests.description") ?? undefined)
    : undefined;
  const headPages = [...head.locations().values()]
    .filter((l) => l.page.kind === "document")
    .map((l) => ({ id: l.page.id, title: l.page.title, path: l.path }));
  const content = await contentView(db, ctx.deps, {
    orgId: ctx.org.id,
    spaceId: loaded.space.id,
    contents: [head.content, ...(conflictsFound ? [conflictsFound.sides.primaryContent, conflictsFound.sides.baseContent] : [])],
    documents: [
      ...changes.pages.flatMap((p) => [p.before, p.after]),
      ...comments.views.flatMap((c) => [c.body, ...c.replies.map((r) => r.body)]),
      ...conflicts.flatMap((c) => [c.base, c.primary, c.changeRequest].map(asDocument)),
      description,
    ],
  });
  return {
    org: { id: ctx.org.id, title: ctx.org.title },
    space: { id: loaded.space.id, title: loaded.space.title },
    changeRequest: cr,
    description,
    descriptionMarkdown: description ? descriptionMarkdown(description) : "",
    users,
    actorId: actor.user.id,
    outdated: isOutdated(cr, loaded.space.revisionId),
    writable,
    locked: loaded.space.editMode === "locked",
    may: {
      editContent: loaded.changeRequestPermissions.editContent,
      update: loaded.changeRequestPermissions.update,
      merge: loaded.changeRequestPermissions.merge,
      review: mayReview(loaded, actor.user.id),
      comment: loaded.permissions.comment,
    },
    requested: requested.rows,
    withdrawable: new Set(requested.rows.map((r) => r.userId).filter((id) => mayWithdrawReviewRequest(loaded, actor.user.id, id))),
    reviews,
    candidates,
    mergeBlocked,
    conflicts,
    pages: changes.pages,
    otherChanges: changes.other,
    comments: comments.views,
    headPages,
    notice,
    content,
    csrf: ctx.csrf(),
  };
}
