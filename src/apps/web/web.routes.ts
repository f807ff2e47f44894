/**
 * The web app: every page and endpoint it answers, in one table (method, path, handler, options),
 * and the plugin that registers them with what they share: sessions, CSRF and forms
 * (web.session.ts), security headers and the error page (web.hooks.ts). Each handler lives in its
 * own file under pages/ and declares its kind (web.kinds.ts): what a request must have passed
 * before it runs. The /v1 API never sees sessions; none of these is part of the API document.
 */
import type { FastifyPluginAsync } from "fastify";
import type { Deps } from "../../deps.js";
import type { RouteAudit } from "../../http/audit.js";
import { registerCompression } from "../../http/compression.js";
import { auditExport, auditPage } from "./pages/audit/audit.page.js";
import { addPage } from "./pages/changes/add-page.action.js";
import {
  EDIT_SCRIPT,
  EDIT_SCRIPT_PATH,
  SETTINGS_SCRIPT,
  SETTINGS_SCRIPT_PATH,
  TREE_SCRIPT,
  TREE_SCRIPT_PATH,
} from "./pages/changes/changes.client.js";
import { postComment } from "./pages/changes/comment.action.js";
import { createChangeRequestForm } from "./pages/changes/create.action.js";
import { deletePage } from "./pages/changes/delete-page.action.js";
import { changeRequestPage } from "./pages/changes/detail.page.js";
import { saveDetails } from "./pages/changes/details.action.js";
import { duplicatePage } from "./pages/changes/duplicate-page.action.js";
import { editPagePage, markdownPagePage, saveEditedPage } from "./pages/changes/edit.page.js";
import { pageAnchorsJson, pastedMarkdownJson, saveEditorJson, uploadEditorFileJson } from "./pages/changes/editor.handler.js";
import {
  pageCommentsJson,
  postPageCommentJson,
  replyToPageCommentJson,
  resolvePageCommentJson,
} from "./pages/changes/inline-comments.handler.js";
import { changesListPage } from "./pages/changes/list.page.js";
import { mergeForm } from "./pages/changes/merge.action.js";
import { movePage } from "./pages/changes/move-page.action.js";
import { pagesPage } from "./pages/changes/pages.page.js";
import { placePagePage } from "./pages/changes/place.page.js";
import { previewFragment } from "./pages/changes/preview.handler.js";
import { reactToComment } from "./pages/changes/react.action.js";
import { reactToReply } from "./pages/changes/react-reply.action.js";
import { renamePage } from "./pages/changes/rename-page.action.js";
import { postReply } from "./pages/changes/reply.action.js";
import { requestReviewersForm } from "./pages/changes/request-reviewers.action.js";
import { resolveComment } from "./pages/changes/resolve.action.js";
import { submitReviewForm } from "./pages/changes/review.action.js";
import { pageSettingsPage, savePageSettings } from "./pages/changes/settings.page.js";
import { changeStatus } from "./pages/changes/status.action.js";
import { updateFromPrimaryForm } from "./pages/changes/update.action.js";
import { withdrawReviewRequestForm } from "./pages/changes/withdraw-review-request.action.js";
import { homePage } from "./pages/home/home.page.js";
import { loginPage } from "./pages/home/login.page.js";
import { loginLinkPage, useLoginLinkForm } from "./pages/home/login-link.page.js";
import { logout } from "./pages/home/logout.action.js";
import { revokeToken } from "./pages/home/revoke-token.action.js";
import { createTokenForm, tokensPage } from "./pages/home/tokens.page.js";
import { inviteForm } from "./pages/members/invite.action.js";
import { removeMemberForm } from "./pages/members/member-remove.action.js";
import { changeRoleForm } from "./pages/members/member-role.action.js";
import { membersPage } from "./pages/members/members.page.js";
import { oidcCallback } from "./pages/oidc/callback.handler.js";
import { oidcStart } from "./pages/oidc/start.handler.js";
import { specPage } from "./pages/openapi/spec.page.js";
import { collectionPage } from "./pages/org/collection.page.js";
import { createCollectionForm } from "./pages/org/create-collection.action.js";
import { createSpaceForm } from "./pages/org/create-space.action.js";
import { orgPage } from "./pages/org/org.page.js";
import { renameCollection } from "./pages/org/rename-collection.action.js";
import { samlAssertionConsumer } from "./pages/saml/acs.handler.js";
import { samlComplete } from "./pages/saml/complete.handler.js";
import { samlMetadata } from "./pages/saml/metadata.handler.js";
import { samlLogout, samlLogoutPosted } from "./pages/saml/slo.handler.js";
import { samlStart } from "./pages/saml/start.handler.js";
import { askPage } from "./pages/search/ask.page.js";
import { SEARCH_SCRIPT, SEARCH_SCRIPT_PATH } from "./pages/search/search.client.js";
import { searchJson } from "./pages/search/search.handler.js";
import { searchPage } from "./pages/search/search.page.js";
import { siteInsightsPage } from "./pages/sites/insights.page.js";
import { sitePage } from "./pages/sites/site.page.js";
import { saveSiteCustomization } from "./pages/sites/site-customization.action.js";
import { setSiteTeamPermission, setSiteUserPermission } from "./pages/sites/site-permissions.action.js";
import { addSiteRedirect, deleteSiteRedirect, editSiteRedirect, pasteSiteRedirects } from "./pages/sites/site-redirects.action.js";
import { editPageAction } from "./pages/spaces/edit-page.action.js";
import { gitConflictsPage } from "./pages/spaces/git-conflicts.page.js";
import { gitExport } from "./pages/spaces/git-export.action.js";
import { gitImport } from "./pages/spaces/git-import.action.js";
import { gitResolveConflict } from "./pages/spaces/git-resolve.action.js";
import { renameSpace } from "./pages/spaces/rename-space.action.js";
import { revisionPage } from "./pages/spaces/revision.page.js";
import { spacePage } from "./pages/spaces/space.page.js";
import { spacePagePage } from "./pages/spaces/space-page.page.js";
import { assetFile } from "./pages/static/assets.handler.js";
import { clientScript } from "./pages/static/script.handler.js";
import { topicPage } from "./pages/topics/topic.page.js";
import { registerWebHooks } from "./web.hooks.js";
import type { WebHandler } from "./web.kinds.js";
import { registerWebSessions } from "./web.session.js";

export interface WebRoute {
  method: "GET" | "POST" | "PUT";
  url: string;
  handler: WebHandler;
  /** A POST from somewhere else than the app's own forms (an identity provider's): no CSRF token to check. */
  csrf?: false;
  /** For bodies above the app's default (1 MiB of form). */
  bodyLimit?: number;
  /** An endpoint of a page's script: errors answer JSON ({"error": {"code", "message"}}), not the error page. */
  json?: true;
  /**
   * Sent compressed when the browser asks (JSON endpoints are too). Pages are not: they hold the
   * CSRF token beside what the request asked for (a search, a title), and their compressed size
   * would let someone who watches the traffic and makes the browser ask guess it (BREACH).
   */
  compress?: true;
  /** How the audit log records it (http/audit.ts): by default the route's entry, named from its path. */
  audit?: RouteAudit;
}

/** Sign-ins record who signed in themselves (web.session.ts), and a failure when they fail. */
const SIGN_IN: RouteAudit = { explicit: true, failure: "sign_in.failed" };

const O = "/app/o/:org";
const S = `${O}/s/:space`;
const CR = `${S}/~/changes/:number`;
const LARGE_FORM = 4 * 1024 * 1024;
/** The editor JSON of a large page (a 1 MB document is ~3 MB of editor JSON). */
const EDITOR_DOCUMENT = 16 * 1024 * 1024;
/** A file of at most 1 MB, base64 in JSON. */
const UPLOAD = 2 * 1024 * 1024;

export const WEB_ROUTES: readonly WebRoute[] = [
  // Signing in and out, the home page, API tokens
  { method: "GET", url: "/app", handler: homePage },
  { method: "GET", url: "/app/login", handler: loginPage },
  { method: "GET", url: "/app/login/link/:token", handler: loginLinkPage },
  { method: "POST", url: "/app/login/link/:token", handler: useLoginLinkForm, audit: SIGN_IN },
  { method: "POST", url: "/app/logout", handler: logout, audit: { action: "sign_out" } },
  { method: "GET", url: "/app/tokens", handler: tokensPage },
  { method: "POST", url: "/app/tokens", handler: createTokenForm, audit: { explicit: true } },
  { method: "POST", url: "/app/tokens/:tokenId/revoke", handler: revokeToken, audit: { explicit: true } },

  // SAML sign-in and single logout (outside /app but the completion, which the session cookie reaches)
  { method: "GET", url: "/saml/:providerId/metadata", handler: samlMetadata },
  { method: "GET", url: "/saml/:providerId/start", handler: samlStart },
  // The assertion is checked here and the sign-in completed by /complete, which records it.
  { method: "POST", url: "/saml/:providerId/acs", handler: samlAssertionConsumer, csrf: false, audit: SIGN_IN },
  { method: "GET", url: "/app/saml/:providerId/complete", handler: samlComplete, audit: SIGN_IN },
  { method: "GET", url: "/saml/:providerId/slo", handler: samlLogout, audit: { action: "sign_out" } },
  { method: "POST", url: "/saml/:providerId/slo", handler: samlLogoutPosted, csrf: false, audit: { action: "sign_out" } },
  { method: "GET", url: "/app/oidc/:providerId/start", handler: oidcStart },
  { method: "GET", url: "/app/oidc/:providerId/callback", handler: oidcCallback, audit: SIGN_IN },

  // Static files and scripts
  { method: "GET", url: "/app/assets/:hash/*", handler: assetFile, compress: true },
  { method: "GET", url: SETTINGS_SCRIPT_PATH, handler: clientScript(SETTINGS_SCRIPT) },
  { method: "GET", url: EDIT_SCRIPT_PATH, handler: clientScript(EDIT_SCRIPT) },
  { method: "GET", url: TREE_SCRIPT_PATH, handler: clientScript(TREE_SCRIPT) },
  { method: "GET", url: SEARCH_SCRIPT_PATH, handler: clientScript(SEARCH_SCRIPT) },

  // An organization and what it holds
  { method: "GET", url: O, handler: orgPage },
  { method: "POST", url: `${O}/spaces`, handler: createSpaceForm },
  { method: "POST", url: `${O}/collections`, handler: createCollectionForm },
  { method: "GET", url: `${O}/c/:collection`, handler: collectionPage },
  { method: "POST", url: `${O}/c/:collection/rename`, handler: renameCollection },
  { method: "GET", url: `${O}/members`, handler: membersPage },
  { method: "GET", url: `${O}/settings/audit`, handler: auditPage },
  { method: "GET", url: `${O}/settings/audit.jsonl`, handler: auditExport },
  { method: "POST", url: `${O}/members/invite`, handler: inviteForm },
  { method: "POST", url: `${O}/members/:userId/role`, handler: changeRoleForm },
  { method: "POST", url: `${O}/members/:userId/remove`, handler: removeMemberForm },
  { method: "GET", url: `${O}/search`, handler: searchPage },
  { method: "GET", url: `${O}/ask`, handler: askPage },
  { method: "GET", url: `${O}/search.json`, handler: searchJson },
  { method: "GET", url: `${O}/sites/:site`, handler: sitePage },
  { method: "GET", url: `${O}/sites/:site/insights`, handler: siteInsightsPage },
  { method: "POST", url: `${O}/sites/:site/customization`, handler: saveSiteCustomization },
  { method: "POST", url: `${O}/sites/:site/redirects`, handler: addSiteRedirect },
  { method: "POST", url: `${O}/sites/:site/redirects/bulk`, handler: pasteSiteRedirects, bodyLimit: 1024 * 1024 },
  { method: "POST", url: `${O}/sites/:site/redirects/:redirect`, handler: editSiteRedirect, audit: { action: "app.sites.redirects.edit" } },
  { method: "POST", url: `${O}/sites/:site/redirects/:redirect/delete`, handler: deleteSiteRedirect },
  { method: "POST", url: `${O}/sites/:site/permissions/users`, handler: setSiteUserPermission },
  { method: "POST", url: `${O}/sites/:site/permissions/teams`, handler: setSiteTeamPermission },
  { method: "GET", url: `${O}/openapi/:slug`, handler: specPage },
  { method: "GET", url: `${O}/agent/topics/:topic`, handler: topicPage },

  // A space: its pages, revisions, Git import and export
  { method: "GET", url: S, handler: spacePage },
  { method: "POST", url: `${S}/rename`, handler: renameSpace },
  { method: "GET", url: `${S}/p/:page`, handler: spacePagePage },
  { method: "POST", url: `${S}/p/:page/edit`, handler: editPageAction },
  { method: "GET", url: `${S}/revisions/:revision`, handler: revisionPage },
  { method: "POST", url: `${S}/git/import`, handler: gitImport },
  { method: "POST", url: `${S}/git/export`, handler: gitExport },
  { method: "GET", url: `${S}/git/conflicts`, handler: gitConflictsPage },
  { method: "POST", url: `${S}/git/conflicts/:page`, handler: gitResolveConflict },

  // Change requests: the list, one change request and the actions on it
  { method: "GET", url: `${S}/~/changes`, handler: changesListPage },
  { method: "POST", url: `${S}/~/changes`, handler: createChangeRequestForm },
  { method: "GET", url: CR, handler: changeRequestPage },
  { method: "POST", url: `${CR}/comments`, handler: postComment },
  { method: "POST", url: `${CR}/comments/:commentId/replies`, handler: postReply },
  { method: "POST", url: `${CR}/comments/:commentId/resolve`, handler: resolveComment },
  { method: "POST", url: `${CR}/comments/:commentId/react`, handler: reactToComment },
  { method: "POST", url: `${CR}/comments/:commentId/replies/:replyId/react`, handler: reactToReply },
  { method: "POST", url: `${CR}/reviewers`, handler: requestReviewersForm },
  { method: "POST", url: `${CR}/reviewers/:userId/withdraw`, handler: withdrawReviewRequestForm },
  { method: "POST", url: `${CR}/reviews`, handler: submitReviewForm },
  { method: "POST", url: `${CR}/status`, handler: changeStatus },
  { method: "POST", url: `${CR}/details`, handler: saveDetails },
  { method: "POST", url: `${CR}/merge`, handler: mergeForm },
  { method: "POST", url: `${CR}/update`, handler: updateFromPrimaryForm },

  // Editing a change request's pages: the block editor, their Markdown, their tree, their settings and places
  { method: "GET", url: `${CR}/p/:pageId/edit`, handler: editPagePage },
  { method: "PUT", url: `${CR}/p/:pageId/edit.json`, handler: saveEditorJson, bodyLimit: EDITOR_DOCUMENT, json: true },
  { method: "POST", url: `${CR}/p/:pageId/files.json`, handler: uploadEditorFileJson, bodyLimit: UPLOAD, json: true },
  {
    method: "POST",
    url: `${CR}/p/:pageId/markdown.json`,
    handler: pastedMarkdownJson,
    bodyLimit: LARGE_FORM,
    json: true,
    audit: { skip: "converts pasted Markdown for the editor; the save that follows is recorded" },
  },
  { method: "GET", url: `${CR}/p/:pageId/anchors.json`, handler: pageAnchorsJson, json: true },
  { method: "GET", url: `${CR}/p/:pageId/comments.json`, handler: pageCommentsJson, json: true },
  { method: "POST", url: `${CR}/p/:pageId/comments.json`, handler: postPageCommentJson, json: true },
  { method: "POST", url: `${CR}/comments/:commentId/resolve.json`, handler: resolvePageCommentJson, json: true },
  { method: "POST", url: `${CR}/comments/:commentId/replies.json`, handler: replyToPageCommentJson, json: true },
  { method: "GET", url: `${CR}/p/:pageId/markdown`, handler: markdownPagePage },
  { method: "POST", url: `${CR}/p/:pageId/markdown`, handler: saveEditedPage, bodyLimit: LARGE_FORM },
  {
    method: "POST",
    url: `${CR}/p/:pageId/preview`,
    handler: previewFragment,
    bodyLimit: LARGE_FORM,
    audit: { skip: "renders the editor's preview, stores nothing" },
  },
  { method: "GET", url: `${CR}/pages`, handler: pagesPage },
  { method: "POST", url: `${CR}/pages`, handler: addPage },
  { method: "POST", url: `${CR}/p/:pageId/move`, handler: movePage },
  { method: "POST", url: `${CR}/p/:pageId/delete`, handler: deletePage },
  { method: "POST", url: `${CR}/p/:pageId/rename`, handler: renamePage },
  { method: "POST", url: `${CR}/p/:pageId/duplicate`, handler: duplicatePage },
  { method: "GET", url: `${CR}/p/:pageId/settings`, handler: pageSettingsPage },
  { method: "POST", url: `${CR}/p/:pageId/settings`, handler: savePageSettings },
  { method: "GET", url: `${CR}/p/:pageId/place`, handler: placePagePage },
];

export const webRoutes: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  await registerWebSessions(app, deps);
  registerWebHooks(app);
  // Scripts, styles and JSON in brotli or gzip as the browser asks (never under 1 KB, never images);
  // not the pages (WebRoute.compress says why).
  await registerCompression(app);
  for (const route of WEB_ROUTES) {
    app.route({
      method: route.method,
      url: route.url,
      // Pages and browser endpoints are not part of the API document.
      schema: { ...route.handler.schema, hide: true },
      // A form's CSRF token is checked before anything else runs (a forged post changes nothing).
      ...(route.method !== "GET" && route.csrf !== false ? { preHandler: app.csrfProtection } : {}),
      ...(route.bodyLimit ? { bodyLimit: route.bodyLimit } : {}),
      config: { json: route.json === true, ...(route.audit ? { audit: route.audit } : {}) },
      ...(route.json || route.compress ? {} : { compress: false as const }),
      handler: (request, reply) => route.handler.run(request, reply, deps),
    });
  }
};
