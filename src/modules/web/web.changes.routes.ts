/**
 * The web app's change requests: the list with the API's filters, one change request (its
 * page-by-page and block-level diff against its base, comments in place, reviews, conflicts and
 * the merge verdict), the actions on it as forms, and editing a page's Markdown with a preview.
 *
 * Every page and form loads the change request with the same loader as the API
 * (`requireChangeRequest`: 404 for what the member may not see) and every action calls the same
 * service and policy as its API operation, so a form forged by someone without the right gets
 * the API's 403 with the API's message.
 */

import type { IncomingMessage } from "node:http";
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest, FastifySchema, RawServerDefault, RouteGenericInterface } from "fastify";
import Type, { type Static, type TObject } from "typebox";
import { documentText } from "../../content/document/plain-text.js";
import type { JSONDocument } from "../../content/document/types.js";
import { slugify } from "../../content/gitbook-repo/text.js";
import { editablePathFor } from "../../content/markdown/api-paths.js";
import { markdownFromDocument, serializeMarkdownPage } from "../../content/markdown/index.js";
import { convertMarkdown } from "../../content/markdown/off-thread.js";
import { indexPages, type PageNode, type RevisionContent } from "../../content/revision/model.js";
import { loadDocuments } from "../../content/revision/storage.js";
import type { CommentReplyRow, CommentRow, OrganizationRow, UserRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import type { Actor } from "../../http/authenticate.js";
import { DomainError, invalid, missing, notAllowed } from "../../lib/errors.js";
import { parseJson, parseJsonOrNull } from "../../lib/json.js";
import { AccessCache, contentLevel, loadMembersAccess } from "../../permissions/access.js";
import { authorize } from "../../permissions/authorize.js";
import { atLeast } from "../../permissions/roles.js";
import type { ContentChangeValue } from "../change-request-content/change-request-content.schemas.js";
import { editChangeRequestContent } from "../change-request-content/change-request-content.service.js";
import { conflictDocumentHashes, presentConflict } from "../change-request-merge/change-request-merge.presenter.js";
import {
  assertMergeAllowed,
  changesOf,
  currentConflicts,
  mergeChangeRequest,
  updateFromPrimary,
} from "../change-request-merge/change-request-merge.service.js";
import { currentReviews, listRequestedReviewers } from "../change-request-reviews/change-request-reviews.queries.js";
import {
  prepareReview,
  requestReviewers,
  submitReview,
  withdrawReviewRequest,
} from "../change-request-reviews/change-request-reviews.service.js";
import { type LoadedChangeRequest, loadChangeRequestsContext, requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { assertWritable, authorizeUpdate, refuseWrite } from "../change-requests/change-requests.policy.js";
import { isOutdated } from "../change-requests/change-requests.presenter.js";
import { commentContribution, listChangeRequests } from "../change-requests/change-requests.queries.js";
import {
  CHANGE_REQUEST_STATUSES,
  type ChangeRequestStatus,
  type UpdateChangeRequestValue,
  WRITABLE_STATUSES,
} from "../change-requests/change-requests.schemas.js";
import { createChangeRequest, updateChangeRequest } from "../change-requests/change-requests.service.js";
import { commentPermissions } from "../comments/comments.policy.js";
import { getComment, getReply, listComments, reactionsTo } from "../comments/comments.queries.js";
import type { CommentScope } from "../comments/comments.scope.js";
import {
  checkReactions,
  checkTarget,
  createComment,
  createReply,
  documentFromBody,
  editComment,
  editReply,
} from "../comments/comments.service.js";
import { loadRevisionView, pageDocument } from "../content/content.loader.js";
import { getOrganization, listOrganizationsOfUser } from "../organizations/organizations.queries.js";
import { webAccessAllowed } from "../saml/saml.policy.js";
import { publishedPlacesOfSpace } from "../sites/structure.queries.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { getUserById, getUsersByIds } from "../users/users.queries.js";
import { emojiText } from "./web.browse.views.js";
import { repliesOfComments } from "./web.changes.queries.js";
import { contentView } from "./web.changes.render.js";
import {
  type CommentView,
  type ConflictView,
  crumbTrail,
  detailPage,
  EDIT_SCRIPT,
  EDIT_SCRIPT_PATH,
  editPage,
  listPage,
  type PageAddress,
  type PageChangeView,
  type PageSettingsForm,
  placePage,
  previewHtml,
  SETTINGS_SCRIPT,
  SETTINGS_SCRIPT_PATH,
  settingsPage,
  structurePage,
} from "./web.changes.views.js";
import { html, type PageOptions, page, raw, type SafeHtml } from "./web.html.js";
import { renderAppDocument } from "./web.render.js";
import { safeNext } from "./web.session.js";

const Id = Type.String({ minLength: 1, maxLength: 100 });
const SpaceParams = Type.Object({ org: Id, space: Id });
const CrParams = Type.Object({ org: Id, space: Id, number: Type.String({ pattern: "^[0-9]{1,9}$" }) });
const CommentParams = Type.Object({ ...CrParams.properties, commentId: Id });
const ReplyParams = Type.Object({ ...CommentParams.properties, replyId: Id });
const PageParams = Type.Object({ ...CrParams.properties, pageId: Id });
const Body = Type.String({ maxLength: 20_000 });
const Markdown = Type.String({ maxLength: 2_000_000 });

/** A request as a route with schema S receives it: params, query and body typed from the schema. */
type SchemaRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>;

/** What a change request's page or form starts from (see `changeRequestRoute`). */
interface ChangeRequestContext {
  actor: Actor;
  loaded: LoadedChangeRequest;
  org: OrganizationRow;
}

/** How many comments, and replies to them in all, one change request page shows at most. */
const MAX_COMMENTS = 500;
const MAX_REPLIES = 5000;

/** Post-action notices, by the `done` query value the redirect carries (never text from the URL). */
const NOTICES: Record<string, string> = {
  created: "Change request created. Edit pages from the panel on the right.",
  commented: "Comment posted.",
  replied: "Reply posted.",
  resolved: "Comment resolved.",
  reopened: "Comment reopened.",
  reacted: "Reaction saved.",
  reviewers: "Review requested.",
  withdrawn: "Review request withdrawn.",
  declined: "You declined the review request.",
  reviewed: "Review submitted.",
  merged: "Merged into the primary content.",
  conflicts: "It was not merged: the primary content has conflicting changes (listed below).",
  updated: "Updated from the primary content.",
  "update-conflicts": "It was not updated: the primary content has conflicting changes (listed below).",
  saved: "Page saved in the change request.",
  status: "Status changed.",
  details: "Subject and description saved.",
};

/** Notices of the pages editor, by the `done` query value. */
const STRUCTURE_NOTICES: Record<string, string> = {
  "page-added": "Page added to the change request.",
  "page-moved": "Page moved in the change request.",
  "page-deleted": "Page deleted from the change request.",
  "page-saved": "Page settings saved in the change request.",
  "page-unchanged": "Nothing to save: the settings were already so.",
};

export const webChangesRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;

  // Runs after the app's own onSend (a parent's hooks run first): the edit page's live preview
  // fetches from this origin, which the app's policy (no connect-src) would refuse.
  app.addHook("onSend", (_request, reply, payload, done) => {
    const policy = reply.getHeader("content-security-policy");
    if (typeof policy === "string" && !policy.includes("connect-src"))
      reply.header("content-security-policy", `${policy}; connect-src 'self'`);
    done(null, payload);
  });

  function send(reply: FastifyReply, status: number, body: string) {
    return reply.status(status).type("text/html; charset=utf-8").send(body);
  }

  /** A page in the app's layout: wide, with the organization switcher and breadcrumbs. */
  async function sendPage(
    reply: FastifyReply,
    status: number,
    actor: Actor,
    org: { id: string; title: string },
    title: string,
    body: SafeHtml,
    csrf: string,
    crumbs: PageOptions["crumbs"],
  ) {
    const orgs = (await listOrganizationsOfUser(db, actor.user.id, { limit: 100 })).rows.map((o) => ({ id: o.id, title: o.title }));
    const options: PageOptions = { user: actor.user, csrf, orgs, org: { id: org.id, title: org.title }, crumbs, wide: true };
    return send(reply, status, page(title, body, options));
  }

  /** The signed-in member as an API actor (same access resolution as a token), or a redirect to sign in. */
  async function signedInActor(request: FastifyRequest, reply: FastifyReply): Promise<Actor | undefined> {
    const userId = request.session.get("userId");
    const via = request.session.get("signedInWith");
    const user = userId && via ? await getUserById(db, userId) : undefined;
    if (!user) {
      // A form posted without a session goes back to where the form was.
      const next = request.method === "GET" ? request.url : request.url.replace(/\/~\/changes\/([0-9]+)\/.*$/, "/~/changes/$1");
      await reply.redirect(`/app/login?next=${encodeURIComponent(safeNext(next))}`, 303);
      return undefined;
    }
    return { user, tokenId: "web-session", access: new AccessCache(db, user.id) };
  }

  /**
   * The organization in the address must be the space's (another organization's id is a 404, as
   * for a space one cannot see), and the session must be one the organization admits (`sso: true`).
   */
  async function checkOrganization(request: FastifyRequest, actor: Actor, orgId: string, spaceOrgId: string, what: string) {
    if (orgId !== spaceOrgId) throw missing(`No ${what} in this organization.`);
    const org = await getOrganization(db, orgId);
    if (!org) throw missing(`No ${what} in this organization.`);
    const access = await actor.access.forOrg(orgId);
    const via = request.session.get("signedInWith")!;
    if (!webAccessAllowed(org, access.membership ? { role: access.membership.role } : undefined, via)) {
      throw notAllowed(`${org.title} requires single sign-on: sign out, then sign in with your organization's single sign-on.`);
    }
    return org;
  }

  /**
   * Registers a page or a form of one change request with what every one of them starts from: the
   * signed-in member (or the redirect to sign in), the change request as the API loads it (404 for
   * what the member may not see) and its organization, checked against the address. A form (POST)
   * always goes through the CSRF check first. The handler's request is typed from the route's
   * schema, as `app.get`/`app.post` would type it.
   */
  function changeRequestRoute<const S extends FastifySchema & { params: TObject<typeof CrParams.properties> }>(
    method: "GET" | "POST",
    url: string,
    options: { schema: S; bodyLimit?: number },
    handler: (request: SchemaRequest<S>, reply: FastifyReply, cr: ChangeRequestContext) => Promise<unknown>,
  ) {
    // Registered as an untyped route: the handler below reads only the params every schema S has.
    const schema: FastifySchema = options.schema;
    app.route({
      method,
      url,
      schema,
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      ...(method === "POST" ? { preHandler: app.csrfProtection } : {}),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const actor = await signedInActor(request, reply);
        if (!actor) return reply;
        const params = request.params as Static<typeof CrParams>;
        const loaded = await requireChangeRequest(db, actor, params.space, params.number);
        const org = await checkOrganization(request, actor, params.org, loaded.space.orgId, `change request #${params.number}`);
        // Fastify validated the request against `options.schema` before calling this.
        return handler(request as SchemaRequest<S>, reply, { actor, loaded, org });
      },
    });
  }

  const crPath = (loaded: LoadedChangeRequest) =>
    `/app/o/${loaded.space.orgId}/s/${loaded.space.id}/~/changes/${loaded.changeRequest.number}`;
  const back = (reply: FastifyReply, loaded: LoadedChangeRequest, done: keyof typeof NOTICES, anchor = "") =>
    reply.redirect(`${crPath(loaded)}?done=${done}${anchor}`, 303);

  /** Comments of the change request, as the API's comment routes scope them. */
  const commentScope = (loaded: LoadedChangeRequest): CommentScope => ({
    space: loaded.space,
    changeRequestId: loaded.changeRequest.id,
    revision: loaded.changeRequest.revisionId,
    permissions: loaded.permissions,
  });

  const mayComment = (loaded: LoadedChangeRequest) => ({
    notFound: `No change request "${loaded.changeRequest.id}".`,
    forbidden: `You may read change request #${loaded.changeRequest.number} but not comment on it: that needs the comment permission.`,
  });

  // ---- list and create ------------------------------------------------------------------------------

  app.get(
    "/app/o/:org/s/:space/~/changes",
    {
      schema: {
        params: SpaceParams,
        querystring: Type.Object({
          status: Type.Optional(Type.Enum([...CHANGE_REQUEST_STATUSES])),
          creator: Type.Optional(Id),
          contributor: Type.Optional(Id),
          requestedReviewer: Type.Optional(Id),
          page: Type.Optional(Type.String({ maxLength: 500 })),
        }),
      },
    },
    async (request, reply) => {
      const actor = await signedInActor(request, reply);
      if (!actor) return reply;
      const loaded = await requireLiveSpace(db, actor, request.params.space);
      const org = await checkOrganization(request, actor, request.params.org, loaded.space.orgId, `space "${request.params.space}"`);
      const query = request.query;
      const status = (query.status ?? "open") as ChangeRequestStatus;
      const listed = await listChangeRequests(
        db,
        {
          scope: "space",
          spaceIds: [loaded.space.id],
          status,
          creator: query.creator,
          contributor: query.contributor,
          requestedReviewer: query.requestedReviewer,
        },
        { page: query.page, limit: 50 },
      );
      const context = await loadChangeRequestsContext(db, listed.rows);
      const csrf = reply.generateCsrf();
      const body = listPage({
        org: { id: org.id, title: org.title },
        space: { id: loaded.space.id, title: loaded.space.title },
        status,
        mine: { id: actor.user.id },
        rows: listed.rows.map((row) => ({
          row,
          author: context.users.get(row.createdBy)?.displayName ?? "a former member",
          comments: context.comments.get(row.id) ?? 0,
        })),
        next: listed.next?.page,
        query: { status: query.status, creator: query.creator, contributor: query.contributor, requestedReviewer: query.requestedReviewer },
        mayCreate: loaded.permissions.edit,
        csrf,
      });
      const space = { id: loaded.space.id, title: loaded.space.title };
      return sendPage(reply, 200, actor, org, "Change requests", body, csrf, crumbTrail(org, space));
    },
  );

  app.post(
    "/app/o/:org/s/:space/~/changes",
    {
      schema: { params: SpaceParams, body: Type.Object({ subject: Type.Optional(Type.String({ maxLength: 100 })) }) },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const actor = await signedInActor(request, reply);
      if (!actor) return reply;
      const loaded = await requireLiveSpace(db, actor, request.params.space);
      await checkOrganization(request, actor, request.params.org, loaded.space.orgId, `space "${request.params.space}"`);
      refuseWrite(loaded, loaded.permissions.edit, "edit", "create change requests in it");
      const subject = request.body.subject?.trim() || undefined;
      const row = await db
        .transaction()
        .execute((trx) => createChangeRequest(trx, { space: loaded.space, actorId: actor.user.id, subject }));
      return reply.redirect(`/app/o/${loaded.space.orgId}/s/${loaded.space.id}/~/changes/${row.number}?done=created`, 303);
    },
  );

  // ---- one change request --------------------------------------------------------------------------

  async function commentViews(loaded: LoadedChangeRequest, actorId: string): Promise<{ views: CommentView[]; userIds: string[] }> {
    const rows = (
      await listComments(
        db,
        { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id },
        { order: "asc", status: "all", limit: MAX_COMMENTS },
      )
    ).rows;
    const replies = new Map<string, CommentReplyRow[]>();
    for (const reply of await repliesOfComments(
      db,
      rows.map((c) => c.id),
      MAX_REPLIES,
    ))
      replies.set(reply.commentId, [...(replies.get(reply.commentId) ?? []), reply]);
    const replyIds = [...replies.values()].flat().map((r) => r.id);
    const [commentReactions, replyReactions] = await Promise.all([
      reactionsTo(
        db,
        "comment",
        rows.map((c) => c.id),
      ),
      reactionsTo(db, "reply", replyIds),
    ]);
    const group = (list: typeof commentReactions, id: string) => {
      const byEmoji = new Map<string, string[]>();
      for (const r of list) if (r.subjectId === id) byEmoji.set(r.emoji, [...(byEmoji.get(r.emoji) ?? []), r.userId]);
      return [...byEmoji].map(([emoji, userIds]) => ({ emoji, userIds }));
    };
    const userIds = new Set<string>();
    const views = rows.map((c): CommentView => {
      userIds.add(c.postedBy);
      if (c.resolvedBy) userIds.add(c.resolvedBy);
      const own = replies.get(c.id) ?? [];
      for (const r of own) userIds.add(r.postedBy);
      return {
        id: c.id,
        pageId: c.pageId,
        nodeKey: c.nodeKey,
        reviewId: c.reviewId,
        postedBy: c.postedBy,
        postedAt: c.postedAt,
        status: c.status,
        resolvedBy: c.resolvedBy,
        body: parseJson<JSONDocument>(c.body, "comments.body"),
        reactions: group(commentReactions, c.id),
        replies: own.map((r) => ({
          id: r.id,
          postedBy: r.postedBy,
          postedAt: r.postedAt,
          body: parseJson<JSONDocument>(r.body, "comment_replies.body"),
          reactions: group(replyReactions, r.id),
        })),
        mayReply: commentPermissions(actorId, c, loaded.permissions).reply,
      };
    });
    return { views, userIds: [...userIds] };
  }

  /** The pages the change request changes, with their documents before and after (for the block diff). */
  async function pageChanges(loaded: LoadedChangeRequest): Promise<{ pages: PageChangeView[]; other: string[] }> {
    const { before, after, changes } = await changesOf(db, loaded);
    const was = indexPages(before.pages);
    const now = indexPages(after.pages);
    const byPage = new Map<string, PageChangeView>();
    const other: string[] = [];
    const entry = (id: string, title: string, path: string): PageChangeView => {
      let view = byPage.get(id);
      if (!view) {
        const location = now.get(id) ?? was.get(id);
        view = {
          pageId: id,
          title,
          path,
          kinds: [],
          fields: [],
          inHead: now.has(id),
          isDocument: (location?.page.kind ?? "document") === "document",
        };
        byPage.set(id, view);
      }
      return view;
    };
    for (const change of changes) {
      switch (change.type) {
        case "page_created":
          entry(change.page.id, change.page.title, change.page.path).kinds.push("added");
          break;
        case "page_deleted":
          entry(change.page.id, change.page.title, change.page.path).kinds.push("removed");
          break;
        case "page_moved": {
          const view = entry(change.page.id, change.page.title, change.page.path);
          view.kinds.push("moved");
          view.fields.push({
            name: "place",
            before: change.parent.before ? `under “${change.parent.before.title}”` : "at the top level",
            after: change.parent.after ? `under “${change.parent.after.title}”` : "at the top level",
          });
          break;
        }
        case "page_edited": {
          const view = entry(change.page.id, change.page.title, change.page.path);
          for (const [name, value] of Object.entries(change.attributes)) {
            if (name === "document") {
              if (!view.kinds.includes("edited")) view.kinds.push("edited");
              continue;
            }
            if ((name === "title" || name === "slug") && !view.kinds.includes("renamed")) view.kinds.push("renamed");
            else if (name !== "title" && name !== "slug" && !view.kinds.includes("edited")) view.kinds.push("edited");
            view.fields.push({ name, before: value.before, after: value.after });
          }
          break;
        }
        case "file_created":
          other.push(`File “${change.file.name}” added`);
          break;
        case "file_deleted":
          other.push(`File “${change.file.name}” removed`);
          break;
        case "file_edited":
          other.push(`File “${change.file.name}” changed`);
          break;
        case "variables_edited":
          other.push(`Variables changed: ${Object.keys(change.variables).join(", ")}`);
          break;
        case "reusable_content_created":
          other.push(`Reusable content “${change.reusableContent.title}” added`);
          break;
        case "reusable_content_edited":
          other.push(`Reusable content “${change.reusableContent.title}” changed`);
          break;
        case "reusable_content_deleted":
          other.push(`Reusable content “${change.reusableContent.title}” removed`);
          break;
      }
    }
    const pages = [...byPage.values()];
    const hashes = new Set<string>();
    for (const view of pages) {
      const b = was.get(view.pageId)?.page.documentHash;
      const a = now.get(view.pageId)?.page.documentHash;
      if (b) hashes.add(b);
      if (a) hashes.add(a);
    }
    const documents = await loadDocuments(db, [...hashes]);
    for (const view of pages) {
      const b = was.get(view.pageId)?.page.documentHash;
      const a = now.get(view.pageId)?.page.documentHash;
      view.before = b ? (documents.get(b) as JSONDocument | undefined) : undefined;
      view.after = a ? (documents.get(a) as JSONDocument | undefined) : undefined;
    }
    return { pages, other };
  }

  /** Members the change request may ask for a review: the review level on the space, not the creator, not already asked. */
  async function reviewCandidates(loaded: LoadedChangeRequest, alreadyAsked: ReadonlySet<string>): Promise<UserRow[]> {
    const accesses = await loadMembersAccess(db, loaded.space.orgId);
    const ids = [...accesses]
      .filter(
        ([id, access]) =>
          id !== loaded.changeRequest.createdBy && !alreadyAsked.has(id) && atLeast(contentLevel(access, loaded.space), "review"),
      )
      .map(([id]) => id);
    return (await getUsersByIds(db, ids)).sort((a, b) => a.displayName.localeCompare(b.displayName));
  }

  /** Why a merge by this actor would be refused now, by the service's own check; undefined when allowed. */
  async function mergeVerdict(loaded: LoadedChangeRequest, actor: Actor): Promise<string | undefined> {
    try {
      await assertMergeAllowed(db, { loaded, actor });
      return undefined;
    } catch (error) {
      if (error instanceof DomainError) return error.message;
      throw error;
    }
  }

  changeRequestRoute(
    "GET",
    "/app/o/:org/s/:space/~/changes/:number",
    { schema: { params: CrParams, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) }) } },
    async (request, reply, { actor, loaded, org }) => {
      const cr = loaded.changeRequest;
      const writable = (WRITABLE_STATUSES as readonly string[]).includes(cr.status);
      const [comments, changes, requested, reviews, conflictsFound, head] = await Promise.all([
        commentViews(loaded, actor.user.id),
        pageChanges(loaded),
        listRequestedReviewers(db, cr.id, { limit: 100 }),
        currentReviews(db, cr.id),
        writable ? currentConflicts(db, loaded) : undefined,
        loadRevisionView(db, loaded.space, cr.revisionId),
      ]);
      const conflicts: ConflictView[] = [];
      if (conflictsFound && conflictsFound.conflicts.length > 0) {
        const { sides } = conflictsFound;
        const documents = await loadDocuments(db, conflictDocumentHashes(conflictsFound.conflicts));
        const contents = { base: sides.baseContent, primary: sides.primaryContent, changeRequest: sides.headContent };
        for (const conflict of conflictsFound.conflicts) {
          const presented = presentConflict(conflict, contents, documents);
          conflicts.push({
            message: presented.message,
            kind: presented.kind,
            pageTitle: presented.page?.title,
            field: presented.field,
            base: presented.base,
            primary: presented.primary,
            changeRequest: presented.changeRequest,
          });
        }
      }
      const asked = new Set(requested.rows.map((r) => r.userId));
      const candidates = writable && loaded.changeRequestPermissions.update ? await reviewCandidates(loaded, asked) : [];
      const mergeBlocked = writable && loaded.changeRequestPermissions.merge ? await mergeVerdict(loaded, actor) : undefined;
      const userIds = new Set([
        cr.createdBy,
        ...comments.userIds,
        ...requested.rows.map((r) => r.userId),
        ...reviews.map((r) => r.reviewerId),
      ]);
      const users = new Map((await getUsersByIds(db, [...userIds])).map((u) => [u.id, u]));
      const description = cr.description ? parseJsonOrNull<JSONDocument>(cr.description, "change_requests.description") : undefined;
      const headPages = [...head.locations().values()]
        .filter((l) => l.page.kind === "document")
        .map((l) => ({ id: l.page.id, title: l.page.title, path: l.path }));
      const content = await contentView(db, deps, {
        orgId: org.id,
        spaceId: loaded.space.id,
        contents: [head.content, ...(conflictsFound ? [conflictsFound.sides.primaryContent, conflictsFound.sides.baseContent] : [])],
        documents: [
          ...changes.pages.flatMap((p) => [p.before, p.after]),
          ...comments.views.flatMap((c) => [c.body, ...c.replies.map((r) => r.body)]),
          ...conflicts.flatMap((c) => [c.base, c.primary, c.changeRequest].map(asDocument)),
          description ?? undefined,
        ],
      });
      const csrf = reply.generateCsrf();
      const body = detailPage({
        org: { id: org.id, title: org.title },
        space: { id: loaded.space.id, title: loaded.space.title },
        changeRequest: cr,
        description: description ?? undefined,
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
          review: loaded.permissions.review && cr.createdBy !== actor.user.id,
          comment: loaded.permissions.comment,
        },
        requested: requested.rows,
        reviews,
        candidates,
        mergeBlocked,
        conflicts,
        pages: changes.pages,
        otherChanges: changes.other,
        comments: comments.views,
        headPages,
        notice: request.query.done ? NOTICES[request.query.done] : undefined,
        content,
        csrf,
      });
      const space = { id: loaded.space.id, title: loaded.space.title };
      return sendPage(reply, 200, actor, org, `#${cr.number} ${cr.subject}`, body, csrf, crumbTrail(org, space, cr));
    },
  );

  // ---- comments --------------------------------------------------------------------------------------

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/comments",
    {
      schema: { params: CrParams, body: Type.Object({ body: Body, page: Type.Optional(Id), node: Type.Optional(Id) }) },
    },
    async (request, reply, { actor, loaded }) => {
      const scope = commentScope(loaded);
      authorize(scope.permissions, "comment", mayComment(loaded));
      const document = await documentFromBody({ markdown: request.body.body }, "body");
      const target = await checkTarget(db, scope, { page: request.body.page || undefined, node: request.body.node || undefined });
      const comment = await db.transaction().execute((trx) =>
        createComment(trx, {
          scope,
          target,
          postedBy: actor.user.id,
          document,
          onPosted: commentContribution(loaded.changeRequest.id, actor.user.id),
        }),
      );
      return back(reply, loaded, "commented", `#comment-${comment.id}`);
    },
  );

  async function requireComment(loaded: LoadedChangeRequest, id: string): Promise<CommentRow> {
    const comment = await getComment(db, { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id }, id);
    if (!comment) throw missing(`No comment with id "${id}" in change request #${loaded.changeRequest.number}.`);
    return comment;
  }

  const reactMessages = (kind: string, id: string, loaded: LoadedChangeRequest) => ({
    notFound: `No change request "${loaded.changeRequest.id}".`,
    forbidden: `Reacting to, resolving or reopening ${kind} "${id}" needs the comment permission on change request "${loaded.changeRequest.id}".`,
  });

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/comments/:commentId/replies",
    { schema: { params: CommentParams, body: Type.Object({ body: Body }) } },
    async (request, reply, { actor, loaded }) => {
      const comment = await requireComment(loaded, request.params.commentId);
      authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", mayComment(loaded));
      const document = await documentFromBody({ markdown: request.body.body }, "body");
      await db.transaction().execute((trx) =>
        createReply(trx, {
          comment,
          postedBy: actor.user.id,
          document,
          onPosted: commentContribution(loaded.changeRequest.id, actor.user.id),
        }),
      );
      return back(reply, loaded, "replied", `#comment-${comment.id}`);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/comments/:commentId/resolve",
    { schema: { params: CommentParams, body: Type.Object({ resolved: Type.Enum(["true", "false"]) }) } },
    async (request, reply, { actor, loaded }) => {
      const comment = await requireComment(loaded, request.params.commentId);
      authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", reactMessages("comment", comment.id, loaded));
      const resolved = request.body.resolved === "true";
      await db.transaction().execute((trx) => editComment(trx, { comment, actorId: actor.user.id, resolved }));
      return back(reply, loaded, resolved ? "resolved" : "reopened", `#comment-${comment.id}`);
    },
  );

  const ReactBody = Type.Object({ emoji: Type.String({ minLength: 1, maxLength: 50 }), action: Type.Enum(["add", "remove"]) });

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/comments/:commentId/react",
    { schema: { params: CommentParams, body: ReactBody } },
    async (request, reply, { actor, loaded }) => {
      const comment = await requireComment(loaded, request.params.commentId);
      authorize(commentPermissions(actor.user.id, comment, loaded.permissions), "reply", reactMessages("comment", comment.id, loaded));
      checkReactions("emoji", [request.body.emoji]);
      const change = request.body.action === "add" ? { addedReactions: [request.body.emoji] } : { removedReactions: [request.body.emoji] };
      await db.transaction().execute((trx) => editComment(trx, { comment, actorId: actor.user.id, ...change }));
      return back(reply, loaded, "reacted", `#comment-${comment.id}`);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/comments/:commentId/replies/:replyId/react",
    { schema: { params: ReplyParams, body: ReactBody } },
    async (request, reply, { actor, loaded }) => {
      const comment = await requireComment(loaded, request.params.commentId);
      const existing = await getReply(db, comment.id, request.params.replyId);
      if (!existing) throw missing(`No reply with id "${request.params.replyId}" to comment "${comment.id}".`);
      authorize(commentPermissions(actor.user.id, existing, loaded.permissions), "reply", reactMessages("reply", existing.id, loaded));
      checkReactions("emoji", [request.body.emoji]);
      const change = request.body.action === "add" ? { addedReactions: [request.body.emoji] } : { removedReactions: [request.body.emoji] };
      await db.transaction().execute((trx) => editReply(trx, { comment, reply: existing, actorId: actor.user.id, ...change }));
      return back(reply, loaded, "reacted", `#reply-${existing.id}`);
    },
  );

  // ---- reviews, status, merge, update ------------------------------------------------------------------

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/reviewers",
    {
      schema: { params: CrParams, body: Type.Object({ users: Type.Union([Id, Type.Array(Id, { minItems: 1, maxItems: 50 })]) }) },
    },
    async (request, reply, { actor, loaded }) => {
      const users = Array.isArray(request.body.users) ? request.body.users : [request.body.users];
      await db.transaction().execute((trx) => requestReviewers(trx, { loaded, actor, body: { users } }));
      return back(reply, loaded, "reviewers", "#reviews");
    },
  );

  // The API's DELETE .../requested-reviewers/{userId}: the creator or a reviewer-level member
  // withdraws a request, or the requested reviewer declines it.
  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/reviewers/:userId/withdraw",
    { schema: { params: Type.Object({ ...CrParams.properties, userId: Id }) } },
    async (request, reply, { actor, loaded }) => {
      await withdrawReviewRequest(db, { loaded, actor, userId: request.params.userId });
      return back(reply, loaded, request.params.userId === actor.user.id ? "declined" : "withdrawn", "#reviews");
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/reviews",
    {
      schema: {
        params: CrParams,
        body: Type.Object({ status: Type.Enum(["approved", "changes-requested"]), comment: Type.Optional(Body) }),
      },
    },
    async (request, reply, { actor, loaded }) => {
      const comment = request.body.comment?.trim();
      const prepared = await prepareReview({
        loaded,
        actor,
        body: { status: request.body.status, ...(comment ? { comment: { markdown: comment } } : {}) },
      });
      await db.transaction().execute((trx) => submitReview(trx, prepared));
      return back(reply, loaded, "reviewed", "#reviews");
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/status",
    {
      schema: { params: CrParams, body: Type.Object({ status: Type.Enum(["draft", "open", "archived"]) }) },
    },
    async (request, reply, { loaded }) => {
      authorizeUpdate(loaded, `No change request "${request.params.number}".`);
      await updateChangeRequest(db, loaded.changeRequest, { status: request.body.status });
      return back(reply, loaded, "status");
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/details",
    {
      schema: {
        params: CrParams,
        body: Type.Object({ subject: Type.String({ maxLength: 100 }), description: Type.Optional(Body) }),
      },
    },
    async (request, reply, { loaded }) => {
      authorizeUpdate(loaded, `No change request "${request.params.number}".`);
      const text = request.body.description?.trim() ?? "";
      const description = text
        ? await documentFromBody({ markdown: text }, "description")
        : { object: "document" as const, data: {}, nodes: [] };
      await updateChangeRequest(db, loaded.changeRequest, {
        subject: request.body.subject.trim(),
        description: description as unknown as UpdateChangeRequestValue["description"],
      });
      return back(reply, loaded, "details");
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/merge",
    { schema: { params: CrParams } },
    async (_request, reply, { actor, loaded }) => {
      const outcome = await mergeChangeRequest(db, { loaded, actor, notifyJobs: deps.notifyJobs });
      return back(reply, loaded, outcome.result === "merge" ? "merged" : "conflicts", outcome.result === "merge" ? "" : "#conflicts");
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/update",
    { schema: { params: CrParams } },
    async (_request, reply, { actor, loaded }) => {
      refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "update its change requests");
      const outcome = await updateFromPrimary(db, { loaded, actor });
      return back(
        reply,
        loaded,
        outcome.result === "update" ? "updated" : "update-conflicts",
        outcome.result === "update" ? "" : "#conflicts",
      );
    },
  );

  // ---- editing a page --------------------------------------------------------------------------------

  /** The page in the change request's head, for editing: the same checks as the content operation. */
  async function editablePage({ loaded, org }: ChangeRequestContext, pageId: string) {
    refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "edit its change requests");
    assertWritable(loaded.changeRequest);
    const view = await loadRevisionView(db, loaded.space, loaded.changeRequest.revisionId);
    const location = view.locations().get(pageId);
    if (!location) throw missing(`No page "${pageId}" in change request #${loaded.changeRequest.number}.`);
    if (location.page.kind !== "document")
      throw invalid(`Page "${location.page.title}" is a ${location.page.kind}: it has no text to edit.`);
    return { loaded, org, location, content: view.content };
  }

  /**
   * The Markdown read as the content operation will read it, rendered in the change request. A
   * large page is read and rendered in worker threads; its document is never parsed here.
   */
  async function preview(context: Awaited<ReturnType<typeof editablePage>>, markdown: string) {
    const converted = await convertMarkdown({ markdown });
    const { space } = context.loaded;
    const rendered = await renderAppDocument(
      db,
      deps,
      {
        orgId: space.orgId,
        spaceId: space.id,
        content: context.content,
        pageIds: new Set(indexPages(context.content.pages).keys()),
        pageVars: {},
      },
      converted.json,
      "preview-",
    );
    const body = rendered.blocks > 0 ? html`<div class="q-content">${raw(rendered.html)}</div>` : html`<p class="muted">(empty)</p>`;
    return { preview: { title: converted.title, body, warnings: converted.warnings } };
  }

  async function editResponse(
    reply: FastifyReply,
    actor: Actor,
    context: Awaited<ReturnType<typeof editablePage>>,
    markdown: string,
    status = 200,
    error?: string,
  ) {
    const { loaded, org, location } = context;
    const csrf = reply.generateCsrf();
    let body: SafeHtml = editPage({
      org: { id: org.id, title: org.title },
      space: { id: loaded.space.id, title: loaded.space.title },
      changeRequest: loaded.changeRequest,
      page: { id: location.page.id, title: location.page.title, path: location.path },
      markdown,
      ...(await preview(context, markdown)),
      csrf,
    });
    if (error) body = html`<p class="error" role="alert">${error}</p>${body}`;
    const space = { id: loaded.space.id, title: loaded.space.title };
    const trail = crumbTrail(org, space, loaded.changeRequest, `Edit “${location.page.title}”`);
    return sendPage(reply, status, actor, org, `Edit ${location.page.title}`, body, csrf, trail);
  }

  changeRequestRoute(
    "GET",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/edit",
    { schema: { params: PageParams } },
    async (request, reply, cr) => {
      const context = await editablePage(cr, request.params.pageId);
      const document = (await pageDocument(db, context.location)) as JSONDocument;
      const markdown = serializeMarkdownPage({ title: context.location.page.title, document }, { pathFor: editablePathFor });
      return editResponse(reply, cr.actor, context, markdown);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/edit",
    {
      schema: { params: PageParams, body: Type.Object({ markdown: Markdown, action: Type.Optional(Type.Enum(["save", "preview"])) }) },
      bodyLimit: 4 * 1024 * 1024,
    },
    async (request, reply, cr) => {
      const { actor } = cr;
      const context = await editablePage(cr, request.params.pageId);
      const markdown = request.body.markdown.replace(/\r\n?/g, "\n");
      if (request.body.action === "preview") return editResponse(reply, actor, context, markdown);
      const { loaded, location } = context;
      try {
        await editChangeRequestContent(db, {
          loaded,
          actor,
          changes: [{ operation: "update_page", page: location.page.id, document: { markdown } }],
          pageLocation: (pageId) => `/app/o/${loaded.space.orgId}/s/${loaded.space.id}/p/${pageId}`,
        });
      } catch (error) {
        // A Markdown problem is shown over the editor, with the text kept.
        if (error instanceof DomainError && error.kind === "invalid")
          return editResponse(reply, actor, context, markdown, 400, error.message);
        throw error;
      }
      return back(reply, loaded, "saved", `#page-${location.page.id}`);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/preview",
    {
      schema: { params: PageParams, body: Type.Object({ markdown: Markdown }) },
      bodyLimit: 4 * 1024 * 1024,
    },
    async (request, reply, cr) => {
      const context = await editablePage(cr, request.params.pageId);
      const shown = await preview(context, request.body.markdown.replace(/\r\n?/g, "\n"));
      return send(reply, 200, previewHtml(shown.preview).value);
    },
  );

  // ---- adding, moving and deleting pages ----------------------------------------------------------

  /** The change request's head for its page structure: the same checks as the content operation. */
  async function structureContext({ loaded }: ChangeRequestContext) {
    refuseWrite(loaded, loaded.changeRequestPermissions.editContent, "edit", "edit its change requests");
    assertWritable(loaded.changeRequest);
    return loadRevisionView(db, loaded.space, loaded.changeRequest.revisionId);
  }

  /** One change through the content operation, as the API's POST .../content stores it (a new revision of the change request). */
  function applyChange(cr: ChangeRequestContext, change: ContentChangeValue) {
    const { loaded, actor } = cr;
    return editChangeRequestContent(db, {
      loaded,
      actor,
      changes: [change],
      pageLocation: (pageId) => `/app/o/${loaded.space.orgId}/s/${loaded.space.id}/p/${pageId}`,
    });
  }

  const pagesPath = (loaded: LoadedChangeRequest, done: keyof typeof STRUCTURE_NOTICES, pageId?: string) =>
    `${crPath(loaded)}/pages?done=${done}${pageId ? `#tree-${pageId}` : ""}`;

  changeRequestRoute(
    "GET",
    "/app/o/:org/s/:space/~/changes/:number/pages",
    {
      schema: {
        params: CrParams,
        querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })), page: Type.Optional(Id) }),
      },
    },
    async (request, reply, cr) => {
      const view = await structureContext(cr);
      const { loaded, org } = cr;
      const csrf = reply.generateCsrf();
      // After a save, the page's address as it now is (read from the tree, never from the URL's text).
      const saved = request.query.done === "page-saved" && request.query.page ? view.locations().get(request.query.page) : undefined;
      const body = structurePage({
        org: { id: org.id, title: org.title },
        space: { id: loaded.space.id, title: loaded.space.title },
        changeRequest: loaded.changeRequest,
        pages: view.content.pages,
        notice: request.query.done ? STRUCTURE_NOTICES[request.query.done] : undefined,
        ...(saved ? { saved: { title: saved.page.title, address: await addressOf(loaded, saved.path) } } : {}),
        csrf,
      });
      const space = { id: loaded.space.id, title: loaded.space.title };
      const trail = crumbTrail(org, space, loaded.changeRequest, "Pages");
      return sendPage(reply, 200, cr.actor, org, `Pages of #${loaded.changeRequest.number}`, body, csrf, trail);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/pages",
    {
      schema: {
        params: CrParams,
        body: Type.Object({ title: Type.String({ maxLength: 256 }), parent: Type.Optional(Type.String({ maxLength: 100 })) }),
      },
    },
    async (request, reply, cr) => {
      await structureContext(cr);
      const title = request.body.title.trim();
      if (!title) throw invalid("A new page needs a title.");
      const outcome = await applyChange(cr, {
        operation: "insert_page",
        title,
        document: { markdown: "" },
        into: request.body.parent || null,
      });
      const created = outcome.results.find((r) => r.object === "created_page");
      const id = created && typeof created.page === "object" ? created.page.id : undefined;
      return reply.redirect(pagesPath(cr.loaded, "page-added", id), 303);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/move",
    {
      schema: {
        params: PageParams,
        body: Type.Object({
          to: Type.Enum(["up", "down", "parent"]),
          parent: Type.Optional(Type.String({ maxLength: 100 })),
          before: Type.Optional(Type.String({ maxLength: 100 })),
          after: Type.Optional(Type.String({ maxLength: 100 })),
        }),
      },
    },
    async (request, reply, cr) => {
      const view = await structureContext(cr);
      const { pageId } = request.params;
      const location = view.locations().get(pageId);
      if (!location) throw missing(`No page "${pageId}" in change request #${cr.loaded.changeRequest.number}.`);
      const title = location.page.title || "Untitled page";
      let place: Pick<ContentChangeValue, "into" | "at">;
      if (request.body.to === "parent") {
        const into = request.body.parent || null;
        const { before, after } = request.body;
        if (before && after) throw invalid("Place a page either before or after another page, not both.");
        const neighbour = before || after;
        if (!neighbour) place = { into };
        else {
          // The API's `at` counts the new siblings without the moved page; a sibling named by id
          // stays right if the tree changed since the form was shown.
          const siblings = childrenOf(view.content, into);
          const others = (siblings ?? []).filter((p) => p.id !== pageId);
          const index = others.findIndex((p) => p.id === neighbour);
          if (index < 0) {
            const name = view.locations().get(neighbour)?.page.title;
            throw invalid(
              `${name ? `“${name}”` : `Page "${neighbour}"`} is not in the chosen place (any more): reload the page and choose again.`,
            );
          }
          place = { into, at: before ? index : index + 1 };
        }
      } else {
        const siblings = location.parentId === null ? view.content.pages : view.locations().get(location.parentId)!.page.children;
        const at = location.index + (request.body.to === "up" ? -1 : 1);
        if (at < 0) throw invalid(`“${title}” is already the first page at its level.`);
        if (at >= siblings.length) throw invalid(`“${title}” is already the last page at its level.`);
        place = { at };
      }
      await applyChange(cr, { operation: "update_page", page: pageId, ...place });
      return reply.redirect(pagesPath(cr.loaded, "page-moved", pageId), 303);
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/delete",
    { schema: { params: PageParams } },
    async (request, reply, cr) => {
      const view = await structureContext(cr);
      const { pageId } = request.params;
      if (!view.locations().has(pageId)) throw missing(`No page "${pageId}" in change request #${cr.loaded.changeRequest.number}.`);
      await applyChange(cr, { operation: "delete_page", page: pageId });
      return reply.redirect(pagesPath(cr.loaded, "page-deleted"), 303);
    },
  );

  // ---- a page's settings (title, slug, emoji, description, hidden, indexing) and its place among siblings ----

  /** A page's path in the space, and its addresses on the published sites that show the space. */
  async function addressOf(loaded: LoadedChangeRequest, path: string): Promise<PageAddress> {
    const places = await publishedPlacesOfSpace(db, loaded.space);
    return {
      path: `/${path}`,
      published: places.map((p) => {
        const base = deps.urls.site(p.basename, ...p.segments);
        return { site: p.title, base, url: deps.urls.site(p.basename, ...p.segments, ...path.split("/")) };
      }),
    };
  }

  function requireLocation(view: Awaited<ReturnType<typeof structureContext>>, cr: ChangeRequestContext, pageId: string) {
    const location = view.locations().get(pageId);
    if (!location) throw missing(`No page "${pageId}" in change request #${cr.loaded.changeRequest.number}.`);
    return location;
  }

  async function settingsResponse(
    reply: FastifyReply,
    cr: ChangeRequestContext,
    view: Awaited<ReturnType<typeof structureContext>>,
    pageId: string,
    form: PageSettingsForm,
    problem?: SettingsProblem,
  ) {
    const { loaded, org } = cr;
    const location = requireLocation(view, cr, pageId);
    const parentPath = location.parentId === null ? "" : view.locations().get(location.parentId)!.path;
    const slug = form.slug.trim() || slugify(form.title);
    const csrf = reply.generateCsrf();
    const body = settingsPage({
      org: { id: org.id, title: org.title },
      space: { id: loaded.space.id, title: loaded.space.title },
      changeRequest: loaded.changeRequest,
      page: { id: pageId, title: location.page.title, kind: location.page.kind },
      form,
      parentPath,
      address: await addressOf(loaded, parentPath ? `${parentPath}/${slug}` : slug),
      ...(problem ? { problem } : {}),
      csrf,
    });
    const space = { id: loaded.space.id, title: loaded.space.title };
    const name = location.page.title || "Untitled page";
    const trail = crumbTrail(org, space, loaded.changeRequest, `Settings of “${name}”`);
    return sendPage(reply, problem ? 400 : 200, cr.actor, org, `Settings of ${name}`, body, csrf, trail);
  }

  changeRequestRoute(
    "GET",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/settings",
    { schema: { params: PageParams } },
    async (request, reply, cr) => {
      const view = await structureContext(cr);
      const location = requireLocation(view, cr, request.params.pageId);
      return settingsResponse(reply, cr, view, location.page.id, settingsFormOf(location.page));
    },
  );

  changeRequestRoute(
    "POST",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/settings",
    {
      schema: {
        params: PageParams,
        // Room above the API's limits: the form says what is too long, with the text kept.
        body: Type.Object({
          title: Type.String({ maxLength: 2048 }),
          slug: Type.String({ maxLength: 1024 }),
          emoji: Type.Optional(Type.String({ maxLength: 400 })),
          description: Type.Optional(Type.String({ maxLength: 8000 })),
          hidden: Type.Optional(Type.Enum(["true"])),
          noIndex: Type.Optional(Type.Enum(["true"])),
          noRobotsIndex: Type.Optional(Type.Enum(["true"])),
        }),
      },
    },
    async (request, reply, cr) => {
      const view = await structureContext(cr);
      const location = requireLocation(view, cr, request.params.pageId);
      const { page } = location;
      const body = request.body;
      const form: PageSettingsForm = {
        title: body.title,
        slug: body.slug,
        emoji: body.emoji ?? "",
        description: (body.description ?? "").replace(/\r\n?/g, "\n"),
        hidden: body.hidden === "true",
        noIndex: body.noIndex === "true",
        noRobotsIndex: body.noRobotsIndex === "true",
      };
      const siblings = childrenOf(view.content, location.parentId) ?? [];
      const checked = checkSettings(form, settingsFormOf(page), page, siblings);
      if ("problem" in checked) return settingsResponse(reply, cr, view, page.id, form, checked.problem);
      if (Object.keys(checked.change).length === 0) return reply.redirect(pagesPath(cr.loaded, "page-unchanged", page.id), 303);
      try {
        await applyChange(cr, { operation: "update_page", page: page.id, ...checked.change });
      } catch (error) {
        // What the content operation refuses (a slug taken meanwhile ...) is shown in the form, with the text kept.
        if (error instanceof DomainError && error.kind === "invalid") {
          const field = /^body\.changes\.0\.(\w+)/.exec(error.message)?.[1];
          const message = error.message.replace(/^body\.changes\.0\.\w+:\s*/, "");
          const fresh = await structureContext(cr);
          return settingsResponse(reply, cr, fresh, page.id, form, { ...(field ? { field } : {}), message });
        }
        throw error;
      }
      return reply.redirect(`${crPath(cr.loaded)}/pages?done=page-saved&page=${encodeURIComponent(page.id)}#tree-${page.id}`, 303);
    },
  );

  changeRequestRoute(
    "GET",
    "/app/o/:org/s/:space/~/changes/:number/p/:pageId/place",
    { schema: { params: PageParams, querystring: Type.Object({ parent: Type.Optional(Type.String({ maxLength: 100 })) }) } },
    async (request, reply, cr) => {
      const view = await structureContext(cr);
      const location = requireLocation(view, cr, request.params.pageId);
      const { loaded, org } = cr;
      const parentId = request.query.parent === undefined ? location.parentId : request.query.parent || null;
      const parent = parentId === null ? undefined : view.locations().get(parentId);
      if (parentId !== null) {
        if (!parent) throw missing(`No page "${parentId}" in change request #${loaded.changeRequest.number} to place a page under.`);
        if (parent.page.kind === "link") throw invalid(`“${parent.page.title}” is a link: a link cannot have pages under it.`);
        if (parentId === location.page.id || parent.ancestors.some((a) => a.id === location.page.id))
          throw invalid(`“${location.page.title}” cannot go under itself or one of its subpages.`);
      }
      const csrf = reply.generateCsrf();
      const body = placePage({
        org: { id: org.id, title: org.title },
        space: { id: loaded.space.id, title: loaded.space.title },
        changeRequest: loaded.changeRequest,
        pages: view.content.pages,
        page: location.page,
        currentParentId: location.parentId,
        parentId,
        parentTitle: parent?.page.title,
        siblings: childrenOf(view.content, parentId) ?? [],
        csrf,
      });
      const space = { id: loaded.space.id, title: loaded.space.title };
      const name = location.page.title || "Untitled page";
      const trail = crumbTrail(org, space, loaded.changeRequest, `Place “${name}”`);
      return sendPage(reply, 200, cr.actor, org, `Place ${name}`, body, csrf, trail);
    },
  );

  app.get(SETTINGS_SCRIPT_PATH, async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(SETTINGS_SCRIPT),
  );

  app.get(EDIT_SCRIPT_PATH, async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(EDIT_SCRIPT),
  );
};

/** The children of a page of the content (null: its top level); undefined when there is no such page. */
function childrenOf(content: RevisionContent, parentId: string | null): PageNode[] | undefined {
  if (parentId === null) return content.pages;
  return indexPages(content.pages).get(parentId)?.page.children;
}

/** A page's settings as its form shows them (an emoji stored as code points shown as the character). */
function settingsFormOf(page: PageNode): PageSettingsForm {
  return {
    title: page.title,
    slug: page.slug,
    emoji: emojiText(page.emoji).trim(),
    description: page.description ?? "",
    hidden: page.hidden === true,
    noIndex: page.noIndex === true,
    noRobotsIndex: page.noRobotsIndex === true,
  };
}

interface SettingsProblem {
  /** The form field it concerns. */
  field?: string;
  message: string;
}

const MAX_TITLE = 256;
const MAX_SLUG = 100;
const MAX_DESCRIPTION = 1000;

/** One emoji (with its modifiers and joiners), as a person types or pastes it. */
function isEmoji(text: string): boolean {
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)];
  return graphemes.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(text);
}

/**
 * The update_page fields a settings form changes (only those that differ from the page), or the
 * first problem with it, worded for the form. The content operation checks again when it applies.
 */
function checkSettings(
  form: PageSettingsForm,
  current: PageSettingsForm,
  page: PageNode,
  siblings: readonly PageNode[],
): { change: Partial<ContentChangeValue> } | { problem: SettingsProblem } {
  const change: Partial<ContentChangeValue> = {};
  const title = form.title.trim();
  if (!title) return { problem: { field: "title", message: "A page needs a title." } };
  if (title.length > MAX_TITLE)
    return { problem: { field: "title", message: `A title has at most ${MAX_TITLE} characters (this one has ${title.length}).` } };
  if (title !== current.title) change.title = title;

  const typed = form.slug.trim();
  if (typed !== current.slug) {
    // Left empty: made from the title, as for a new page.
    const slug = typed || slugify(title);
    if (slug.length > MAX_SLUG) return { problem: { field: "slug", message: `A slug has at most ${MAX_SLUG} characters.` } };
    if (slug !== slugify(slug))
      return {
        problem: {
          field: "slug",
          message: `A slug is lowercase letters, digits and hyphens, without spaces or slashes: “${slugify(slug)}” would do.`,
        },
      };
    const other = siblings.find((p) => p.slug === slug && p.id !== page.id);
    if (other)
      return {
        problem: {
          field: "slug",
          message: `The slug “${slug}” is already used by “${other.title || "Untitled page"}” at the same level: pick another.`,
        },
      };
    if (slug !== page.slug) change.slug = slug;
  }

  const emoji = form.emoji.trim();
  if (emoji !== current.emoji) {
    if (emoji && !isEmoji(emoji))
      return {
        problem: { field: "emoji", message: `“${emoji}” is not one emoji: type or paste a single emoji, or leave it empty for none.` },
      };
    change.emoji = emoji || null;
  }

  const description = form.description.trim();
  if (description.length > MAX_DESCRIPTION)
    return {
      problem: {
        field: "description",
        message: `A description has at most ${MAX_DESCRIPTION} characters (this one has ${description.length}).`,
      },
    };
  if (description !== current.description.trim()) change.description = description || null;

  for (const flag of ["hidden", "noIndex", "noRobotsIndex"] as const) if (form[flag] !== current[flag]) change[flag] = form[flag];
  return { change };
}

/** A conflict's version when it is a document or a block (what the content renderer is given). */
function asDocument(value: unknown): JSONDocument | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const node = value as { object?: string };
  if (node.object === "document") return value as JSONDocument;
  if (node.object === "block") return { object: "document", data: {}, nodes: [value] } as JSONDocument;
  return undefined;
}

/**
 * A change request's description as Markdown for its edit form. Descriptions set through the API
 * are only loosely checked documents; one the Markdown writer cannot read is offered as its text.
 */
function descriptionMarkdown(document: JSONDocument): string {
  try {
    return markdownFromDocument(document).trim();
  } catch {
    return documentText(document).trim();
  }
}
