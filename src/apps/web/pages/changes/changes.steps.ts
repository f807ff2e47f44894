/**
 * What the change-request handlers share: their addresses and redirects, the comment scope and
 * its messages, and the change request's head for editing (the same checks as the content
 * operation), with one change applied through it.
 */
import type { FastifyReply } from "fastify";
import type { PageLocation } from "../../../../content/revision/model.js";
import type { CommentRow } from "../../../../db/schema.js";
import { missing } from "../../../../lib/errors.js";
import type { ContentChangeValue } from "../../../../modules/change-request-content/change-request-content.schemas.js";
import { editChangeRequestContent } from "../../../../modules/change-request-content/change-request-content.service.js";
import type { LoadedChangeRequest } from "../../../../modules/change-requests/change-requests.loader.js";
import { assertWritable, refuseWrite } from "../../../../modules/change-requests/change-requests.policy.js";
import { getComment } from "../../../../modules/comments/comments.queries.js";
import type { CommentScope } from "../../../../modules/comments/comments-scope.model.js";
import { loadRevisionView, type RevisionView } from "../../../../modules/content/content.loader.js";
import { publishedPlacesOfSpace } from "../../../../modules/sites/structure.queries.js";
import type { ChangeRequestContext } from "../../web.steps.js";
import type { NOTICES, STRUCTURE_NOTICES } from "./changes.views.js";
import type { PageAddress } from "./structure.views.js";

export const crPath = (loaded: LoadedChangeRequest) =>
  `/app/o/${loaded.space.orgId}/s/${loaded.space.id}/~/changes/${loaded.changeRequest.number}`;

/** Back to the change request after an action, with its notice (and where on the page). */
export const back = (reply: FastifyReply, loaded: LoadedChangeRequest, done: keyof typeof NOTICES, anchor = "") =>
  reply.redirect(`${crPath(loaded)}?done=${done}${anchor}`, 303);

/** The pages editor's address after an action on a page, with its notice. */
export const pagesPath = (loaded: LoadedChangeRequest, done: keyof typeof STRUCTURE_NOTICES, pageId?: string) =>
  `${crPath(loaded)}/pages?done=${done}${pageId ? `#tree-${pageId}` : ""}`;

/** Comments of the change request, as the API's comment routes scope them. */
export const commentScope = (loaded: LoadedChangeRequest): CommentScope => ({
  space: loaded.space,
  changeRequestId: loaded.changeRequest.id,
  revision: loaded.changeRequest.revisionId,
  permissions: loaded.permissions,
});

export const mayComment = (loaded: LoadedChangeRequest) => ({
  notFound: `No change request "${loaded.changeRequest.id}".`,
  forbidden: `You may read change request #${loaded.changeRequest.number} but not comment on it: that needs the comment permission.`,
});

export const reactMessages = (kind: string, id: string, loaded: LoadedChangeRequest) => ({
  notFound: `No change request "${loaded.changeRequest.id}".`,
  forbidden: `Reacting to, resolving or reopening ${kind} "${id}" needs the comment permission on change request "${loaded.changeRequest.id}".`,
});

export async function requireComment(ctx: ChangeRequestContext, id: string): Promise<CommentRow> {
  const { loaded } = ctx;
  const comment = await getComment(ctx.deps.db, { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id }, id);
  if (!comment) throw missing(`No comment with id "${id}" in change request #${loaded.changeRequest.number}.`);
  return comment;
}

/** The change request's head for editing its content or its pages: the same checks as the content operation. */
export async function editableHead({ deps, loaded }: ChangeRequestContext): Promise<RevisionView> {
  refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "edit its change requests");
  assertWritable(loaded.changeRequest);
  return loadRevisionView(deps.db, loaded.space, loaded.changeRequest.revisionId);
}

export function requireLocation(view: RevisionView, ctx: ChangeRequestContext, pageId: string): PageLocation {
  const location = view.locations().get(pageId);
  if (!location) throw missing(`No page "${pageId}" in change request #${ctx.loaded.changeRequest.number}.`);
  return location;
}

/** Changes through the content operation, as the API's POST .../content stores them (a new revision of the change request). */
export function applyChanges(ctx: ChangeRequestContext, changes: ContentChangeValue[]) {
  const { loaded, actor } = ctx;
  return editChangeRequestContent(ctx.deps.db, {
    loaded,
    actor,
    changes,
    pageLocation: (pageId) => `/app/o/${loaded.space.orgId}/s/${loaded.space.id}/p/${pageId}`,
  });
}

/** A page's path in the space, and its addresses on the published sites that show the space. */
export async function addressOf(ctx: ChangeRequestContext, path: string): Promise<PageAddress> {
  const { urls, db } = ctx.deps;
  const places = await publishedPlacesOfSpace(db, ctx.loaded.space);
  return {
    path: `/${path}`,
    published: places.map((p) => ({
      site: p.title,
      base: urls.site(p.basename, ...p.segments),
      url: urls.site(p.basename, ...p.segments, ...path.split("/")),
    })),
  };
}
