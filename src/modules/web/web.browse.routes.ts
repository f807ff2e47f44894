/**
 * The browsing half of the member web app: an organization, its collections and spaces, a space's
 * pages (as readers see them, with their history from revisions), revisions, sites, OpenAPI specs
 * and conversation topics; and a space's Git import and export. Every page loads through the same
 * loaders and policies as the API (the same 404 for what the member may not see, the same 403 for
 * what they may not do); every `urls.app` address the API returns has its page here (change
 * requests have theirs in the review half).
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import Type, { type Static } from "typebox";
import type { PageLocation, PageNode } from "../../content/revision/model.js";
import { indexPages } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent } from "../../content/revision/storage.js";
import type { SiteRow, SpaceRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import { invalid, missing, notAllowed } from "../../lib/errors.js";
import { parseJson } from "../../lib/json.js";
import { getChangeRequest } from "../change-requests/change-requests.queries.js";
import { requireCollection } from "../collections/collections.loader.js";
import { collectionPermissions } from "../collections/collections.policy.js";
import { getCollectionsByIds, listCollectionNodes } from "../collections/collections.queries.js";
import { loadRevisionView, pageDocumentJson, type RevisionView } from "../content/content.loader.js";
import { loadConversations, readableSpaceIds } from "../conversations/conversations.loader.js";
import { conversationsPermissions } from "../conversations/conversations.policy.js";
import { getCluster, listClusters, listIssues } from "../conversations/conversations.queries.js";
import { requireSyncableSpace } from "../git-sync/git-sync.loader.js";
import { assertExportRef, gitJobBase, requestGitRun } from "../git-sync/git-sync.service.js";
import { type GitSyncRunValue, readGitSyncState } from "../git-sync/git-sync.state.js";
import { loadSpec, loadSpecsOrg } from "../openapi/openapi.loader.js";
import { versionDocumentUrl } from "../openapi/openapi.presenter.js";
import { listSpecs, listVersions } from "../openapi/openapi.queries.js";
import type { LoadedOrganization } from "../organizations/organizations.loader.js";
import { listOrganizationsOfUser } from "../organizations/organizations.queries.js";
import { customizationFromBody, parseCustomization } from "../sites/customization.js";
import type { SiteCustomization } from "../sites/customization.schemas.js";
import { feedbackCounts } from "../sites/feedback.queries.js";
import { loadSpacesForSite, requireSiteWithModel } from "../sites/sites.loader.js";
import { sitePermissions } from "../sites/sites.policy.js";
import { listSites, setSiteCustomization } from "../sites/sites.queries.js";
import { fullSiteSpacePath, hasSections, type ModelSiteSpace, sectionsInOrder, visibleSiteSpacesOf } from "../sites/structure.model.js";
import { readableSpaceNodes, requireSpace, spaceNotFound } from "../spaces/spaces.loader.js";
import { getSpacesByIds, listSpaceNodes } from "../spaces/spaces.queries.js";
import { getUsersByIds } from "../users/users.queries.js";
import {
  appPath,
  badge,
  emojiText,
  emptyNote,
  historyList,
  pageChanges,
  pageOutline,
  pageTree,
  type RevisionLinks,
  revisionSummary,
  when,
} from "./web.browse.views.js";
import { requireWebOrganization, type SignedIn, signedInOf } from "./web.context.js";
import { diffPages, pageHistory, pagesOfTree } from "./web.history.js";
import { html, type PageOptions, page, type SafeHtml } from "./web.html.js";
import { type AppPageSource, appAssets, renderAppPage } from "./web.render.js";
import { safeNext } from "./web.session.js";

const Id = Type.String({ minLength: 1, maxLength: 100 });
const OrgParams = Type.Object({ org: Id });
const SiteQuery = Type.Object({ saved: Type.Optional(Type.String({ maxLength: 50 })) });
const SpaceParams = Type.Object({ org: Id, space: Id });
const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 200 })) };
const GitForm = Type.Object({
  ...Csrf,
  url: Type.String({ minLength: 1, maxLength: 4096 }),
  ref: Type.String({ minLength: 1, maxLength: 255 }),
  repoProjectDirectory: Type.Optional(Type.String({ maxLength: 1024 })),
});
const ExportForm = Type.Object({ ...GitForm.properties, commitMessage: Type.String({ minLength: 1, maxLength: 10_000 }) });
const field = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
/** The common fields of a site's customization; checked like the API's body (customizationFromBody). */
const CustomizationForm = Type.Object({
  ...Csrf,
  title: field(128),
  primaryLight: field(7),
  primaryDark: field(7),
  themeDefault: Type.Optional(Type.Enum(["light", "dark"])),
  themeToggle: field(10),
  logoLight: field(2048),
  logoDark: field(2048),
  announcementEnabled: field(10),
  announcementMessage: field(128),
  announcementStyle: Type.Optional(Type.Enum(["info", "warning", "danger", "success"])),
  copyright: field(300),
  styleTheme: Type.Optional(Type.Enum(["clean", "muted", "bold", "gradient"])),
  /** Set by the form that shows the checkboxes below: without it (an older form), they are left as they are. */
  features: field(10),
  pdfEnabled: field(10),
  feedbackEnabled: field(10),
  editLinks: field(10),
  trademark: field(10),
});

/** What every page of an organization has: who is signed in, the organization (checked), the switcher's list. */
interface OrgPage {
  signedIn: SignedIn;
  loaded: LoadedOrganization;
  orgs: { id: string; title: string }[];
  csrf: string;
}

export const webBrowseRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls, dialect } = deps;

  /** The organization page's context, or undefined once the visitor was sent to sign in. */
  async function orgPage(request: FastifyRequest, reply: FastifyReply, orgId: string): Promise<OrgPage | undefined> {
    const signedIn = await signedInOf(db, request);
    if (!signedIn) {
      await reply.redirect(`/app/login?next=${encodeURIComponent(safeNext(request.url))}`, 303);
      return undefined;
    }
    const loaded = await requireWebOrganization(db, signedIn, orgId);
    const orgs = (await listOrganizationsOfUser(db, signedIn.user.id, { limit: 100 })).rows.map((o) => ({ id: o.id, title: o.title }));
    return { signedIn, loaded, orgs, csrf: reply.generateCsrf() };
  }

  function send(
    reply: FastifyReply,
    ctx: OrgPage,
    title: string,
    body: SafeHtml,
    options: Omit<PageOptions, "user" | "csrf" | "orgs" | "org"> = {},
  ) {
    const org = { id: ctx.loaded.org.id, title: ctx.loaded.org.title };
    const markup = page(title, body, { user: ctx.signedIn.user, csrf: ctx.csrf, orgs: ctx.orgs, org, ...options });
    return reply.status(200).type("text/html; charset=utf-8").send(markup);
  }

  const orgCrumb = (ctx: OrgPage) => ({ label: ctx.loaded.org.title, href: appPath.org(ctx.loaded.org.id) });

  /** A space of this organization the member may view; another organization's space is a 404 as for one that does not exist. */
  async function spaceOf(ctx: OrgPage, spaceId: string) {
    const loaded = await requireSpace(db, ctx.signedIn.actor, spaceId);
    if (loaded.space.orgId !== ctx.loaded.org.id) throw spaceNotFound(spaceId);
    return loaded;
  }

  /** The crumbs down to a space: organization, its collections from the top, the space. */
  async function spaceCrumbs(ctx: OrgPage, space: SpaceRow): Promise<{ label: string; href?: string }[]> {
    const nodes = await listCollectionNodes(db, ctx.loaded.org.id);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const chain: string[] = [];
    for (let id = space.parentId; id && !chain.includes(id); id = byId.get(id)?.parentId ?? null) {
      const node = byId.get(id);
      if (!node || !collectionPermissions(ctx.loaded.access, node).view) break;
      chain.unshift(id);
    }
    const titles = new Map((await getCollectionsByIds(db, chain)).map((c) => [c.id, c.title]));
    return [
      orgCrumb(ctx),
      ...chain.map((id) => ({ label: titles.get(id) ?? id, href: appPath.collection(ctx.loaded.org.id, id) })),
      { label: `${emojiText(space.emoji)}${space.title}`, href: appPath.space(ctx.loaded.org.id, space.id) },
    ];
  }

  /** Names of people and numbers of merged change requests that revisions point at. */
  async function revisionLinks(
    ctx: OrgPage,
    space: SpaceRow,
    revisions: { createdBy: string | null; mergedFrom: string | null }[],
  ): Promise<RevisionLinks> {
    const userIds = [...new Set(revisions.flatMap((r) => (r.createdBy ? [r.createdBy] : [])))];
    const people = new Map((userIds.length > 0 ? await getUsersByIds(db, userIds) : []).map((u) => [u.id, u.displayName]));
    const changeRequests = new Map<string, number>();
    for (const id of new Set(revisions.flatMap((r) => (r.mergedFrom ? [r.mergedFrom] : [])))) {
      const cr = await getChangeRequest(db, space.id, id);
      if (cr) changeRequests.set(id, cr.number);
    }
    return { org: ctx.loaded.org.id, space: space.id, people, changeRequests };
  }

  // --- the renderer's static files (content.css, content.js, KaTeX, mermaid), fingerprinted ---

  app.get(
    "/app/assets/:hash/*",
    { schema: { params: Type.Object({ hash: Id, "*": Type.String({ maxLength: 200 }) }) } },
    async (request, reply) => {
      const assets = appAssets();
      const file = assets.prefix.endsWith(`/${request.params.hash}`) ? assets.files.get(request.params["*"]) : undefined;
      if (!file) throw missing("No such file: the page that asked for it may be from an older version of Quire; reload it.");
      return reply.header("cache-control", "public, max-age=31536000, immutable").type(file.contentType).send(file.body);
    },
  );

  // --- organization ---

  app.get("/app/o/:org", { schema: { params: OrgParams } }, async (request, reply) => {
    const ctx = await orgPage(request, reply, request.params.org);
    if (!ctx) return reply;
    const { org, access } = ctx.loaded;

    const collectionNodes = (await listCollectionNodes(db, org.id)).filter((n) => collectionPermissions(access, n).view);
    const collections = await getCollectionsByIds(
      db,
      collectionNodes.map((n) => n.id),
    );
    collections.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : a.title.localeCompare(b.title)));
    const collectionTitles = new Map(collections.map((c) => [c.id, c.title]));
    const spaceNodes = readableSpaceNodes(access, await listSpaceNodes(db, { orgId: org.id }));
    const spaces = (
      await getSpacesByIds(
        db,
        spaceNodes.map((n) => n.id),
      )
    ).filter((s) => !s.deletedAt);
    spaces.sort((a, b) => a.title.localeCompare(b.title));

    const siteRows = sitePermissions(access, { createdBy: null }).view ? (await listSites(db, dialect, org.id, { limit: 100 })).rows : [];
    const specs = (await loadSpecsOrg(db, ctx.signedIn.actor, org.id)).permissions.view
      ? (await listSpecs(db, org.id, { limit: 100 })).rows
      : [];
    const topics = conversationsPermissions(access).view
      ? (await listClusters(db, org.id, { orderBy: "updatedAt", order: "desc", limit: 20 })).rows
      : [];

    const body = html`<div class="page-head"><h1>${org.title}</h1><span class="muted">Your role: ${access.membership?.role ?? "guest"}</span></div>
      <section id="spaces"><h2>Spaces</h2>
        ${
          spaces.length > 0
            ? html`<div class="cards">${spaces.map(
                (s) => html`<div class="card"><h3><a href="${appPath.space(org.id, s.id)}">${emojiText(s.emoji)}${s.title}</a></h3>
                  <p class="muted small">${s.parentId && collectionTitles.has(s.parentId) ? html`in ${collectionTitles.get(s.parentId)} · ` : ""}${s.visibility}</p></div>`,
              )}</div>`
            : emptyNote("No space you can read yet.")
        }</section>
      <section id="collections"><h2>Collections</h2>
        ${
          collections.length > 0
            ? html`<div class="cards">${collections.map(
                (c) => html`<div class="card"><h3><a href="${appPath.collection(org.id, c.id)}">${c.title}</a></h3>
                  ${c.parentId && collectionTitles.has(c.parentId) ? html`<p class="muted small">in ${collectionTitles.get(c.parentId)}</p>` : ""}
                  ${c.description ? html`<p class="small">${c.description}</p>` : ""}</div>`,
              )}</div>`
            : emptyNote("No collections.")
        }</section>
      <section id="sites"><h2>Sites</h2>
        ${
          siteRows.length > 0
            ? html`<ul class="plain">${siteRows.map(
                (
                  s,
                ) => html`<li><a href="${appPath.site(org.id, s.id)}">${s.title}</a> ${s.published === 1 ? badge("published", "ok") : badge("not published")}
                  <span class="muted small">${s.visibility}</span></li>`,
              )}</ul>`
            : emptyNote("No sites.")
        }</section>
      <section id="openapi"><h2>OpenAPI specs</h2>
        ${
          specs.length > 0
            ? html`<ul class="plain">${specs.map(
                (s) => html`<li><a href="${appPath.openapi(org.id, s.slug)}">${s.slug}</a> ${processingBadge(s.processingState)}</li>`,
              )}</ul>`
            : emptyNote("No OpenAPI specs.")
        }</section>
      ${
        topics.length > 0
          ? html`<section id="topics"><h2>Topics from conversations</h2><ul class="plain">${topics.map(
              (t) => html`<li><a href="${appPath.topic(org.id, t.id)}">${t.label}</a>
                <span class="muted small">${Number(t.issues)} issues · ${Number(t.documentationGaps)} documentation gaps</span></li>`,
            )}</ul></section>`
          : ""
      }`;
    return send(reply, ctx, org.title, body, { crumbs: [{ label: org.title }], wide: true });
  });

  // --- collection ---

  app.get("/app/o/:org/c/:collection", { schema: { params: Type.Object({ org: Id, collection: Id }) } }, async (request, reply) => {
    const ctx = await orgPage(request, reply, request.params.org);
    if (!ctx) return reply;
    const { collection, access } = await requireCollection(db, ctx.signedIn.actor, request.params.collection);
    if (collection.orgId !== ctx.loaded.org.id) throw missing(`No collection with id "${request.params.collection}".`);
    const org = ctx.loaded.org.id;
    const nodes = await listCollectionNodes(db, org);
    const children = await getCollectionsByIds(
      db,
      nodes.filter((n) => n.parentId === collection.id && collectionPermissions(access, n).view).map((n) => n.id),
    );
    const spaceNodes = readableSpaceNodes(access, await listSpaceNodes(db, { orgId: org, parentId: collection.id }));
    const spaces = (
      await getSpacesByIds(
        db,
        spaceNodes.map((n) => n.id),
      )
    ).filter((s) => !s.deletedAt);
    const parent = collection.parentId ? nodes.find((n) => n.id === collection.parentId) : undefined;
    const parentRow = parent && collectionPermissions(access, parent).view ? (await getCollectionsByIds(db, [parent.id]))[0] : undefined;
    const body = html`<h1>${collection.title}</h1>
      ${collection.description ? html`<p class="description">${collection.description}</p>` : ""}
      <h2>Spaces</h2>
      ${
        spaces.length > 0
          ? html`<div class="cards">${spaces.map(
              (s) =>
                html`<div class="card"><h3><a href="${appPath.space(org, s.id)}">${emojiText(s.emoji)}${s.title}</a></h3><p class="muted small">${s.visibility}</p></div>`,
            )}</div>`
          : emptyNote("No space you can read in this collection.")
      }
      <h2>Collections inside</h2>
      ${
        children.length > 0
          ? html`<ul class="plain">${children.map((c) => html`<li><a href="${appPath.collection(org, c.id)}">${c.title}</a></li>`)}</ul>`
          : emptyNote("None.")
      }`;
    const crumbs = [
      orgCrumb(ctx),
      ...(parentRow ? [{ label: parentRow.title, href: appPath.collection(org, parentRow.id) }] : []),
      { label: collection.title },
    ];
    return send(reply, ctx, collection.title, body, { crumbs, wide: true });
  });

  // --- space and pages ---

  function gitRun(label: string, run: GitSyncRunValue | undefined): SafeHtml {
    if (!run) return html`<p><strong>${label}:</strong> <span class="muted">never</span></p>`;
    const tone = run.status === "succeeded" ? "ok" : run.status === "failed" ? "bad" : run.status === "skipped" ? "" : "wait";
    return html`<p><strong>${label}:</strong> ${badge(run.status, tone)} requested ${when(run.requestedAt)}${run.finishedAt ? html`, finished ${when(run.finishedAt)}` : ""}
      ${run.commit ? html`<span class="muted small">commit <code>${run.commit.slice(0, 12)}</code></span>` : ""}
      ${run.message ? html`<br><span class="${run.status === "failed" ? "error" : "muted"} small">${run.message}</span>` : ""}</p>`;
  }

  async function gitPanel(ctx: OrgPage, space: SpaceRow, canSync: boolean, notice: string | undefined): Promise<SafeHtml> {
    const state = await readGitSyncState(db, space.id);
    const action = `${appPath.space(ctx.loaded.org.id, space.id)}/git`;
    const remote = state?.remote ?? "";
    const ref = state?.ref ?? "refs/heads/main";
    const directory = state?.projectDirectory ?? "";
    const fields = html`<label>Repository URL <input name="url" required maxlength="4096" value="${remote}" placeholder="https://github.com/acme/docs.git"></label>
      <label>Branch or tag <input name="ref" required maxlength="255" value="${ref}"></label>
      <label>Project directory <input name="repoProjectDirectory" maxlength="1024" value="${directory}" placeholder="(the repository's root)"></label>`;
    const forms = canSync
      ? html`<details><summary>Import from Git</summary><form class="stack" method="post" action="${action}/import"><input type="hidden" name="_csrf" value="${ctx.csrf}">
          ${fields}<div><button class="primary" type="submit">Import</button></div></form></details>
        <details><summary>Export to Git</summary><form class="stack" method="post" action="${action}/export"><input type="hidden" name="_csrf" value="${ctx.csrf}">
          ${fields}<label>Commit message <input name="commitMessage" required maxlength="10000" value="Update from Quire"></label>
          <div><button class="primary" type="submit">Export</button></div></form></details>`
      : html`<p class="muted small">Only members who can edit this space (while it is live) can import or export.</p>`;
    return html`<section class="card" id="git"><h2 style="margin-top:0">Git sync</h2>
      ${notice ? html`<p class="badge wait">${notice}</p>` : ""}
      ${state?.remote ? html`<p class="small">Repository <code>${state.remote}</code> · <code>${state.ref ?? ""}</code>${state.projectDirectory ? html` · <code>${state.projectDirectory}</code>` : ""}</p>` : html`<p class="muted small">No repository is set up yet.</p>`}
      ${gitRun("Last import", state?.lastImport)}${gitRun("Last export", state?.lastExport)}${forms}</section>`;
  }

  /** The space's layout: its page tree as a sidebar, then the main column. */
  function spaceLayout(
    ctx: OrgPage,
    space: SpaceRow,
    pages: Parameters<typeof pageTree>[2],
    currentPage: string | undefined,
    main: SafeHtml,
  ): SafeHtml {
    const org = ctx.loaded.org.id;
    return html`<div class="layout"><aside><details open><summary>Pages</summary>
        <p><a href="${appPath.space(org, space.id)}"><strong>${emojiText(space.emoji)}${space.title}</strong></a></p>
        ${pageTree(org, space.id, pages, currentPage)}
        <p class="small"><a href="${appPath.changes(org, space.id)}">Change requests</a></p></details></aside>
      <article>${main}</article></div>`;
  }

  const SpaceQuery = Type.Object({ git: Type.Optional(Type.String({ maxLength: 20 })) });

  app.get("/app/o/:org/s/:space", { schema: { params: SpaceParams, querystring: SpaceQuery } }, async (request, reply) => {
    const ctx = await orgPage(request, reply, request.params.org);
    if (!ctx) return reply;
    const { space, permissions } = await spaceOf(ctx, request.params.space);
    const view = await loadRevisionView(db, space, space.revisionId);
    const first = [...view.locations().values()].find((l) => l.page.kind === "document");
    const org = ctx.loaded.org.id;
    const notice =
      request.query.git === "import"
        ? "Import requested: it runs in the background."
        : request.query.git === "export"
          ? "Export requested: it runs in the background."
          : undefined;
    const rendered = first ? await renderAppPage(db, deps, sourceOf(org, view, first.page), await pageDocumentJson(db, first)) : undefined;
    const firstPage =
      first && rendered
        ? html`<section class="first-page"><h2><a href="${appPath.page(org, space.id, first.page.id)}">${first.page.title}</a></h2>${rendered.body}</section>`
        : emptyNote("This space has no pages yet.");
    const main = html`<div class="page-head"><h1>${emojiText(space.emoji)}${space.title}</h1>
        <div class="actions">${badge(space.visibility)} ${space.editMode === "locked" ? badge("locked", "wait") : ""}
          <a class="button" href="${appPath.changes(org, space.id)}">Change requests</a>
          <a class="button" href="${appPath.revision(org, space.id, space.revisionId)}">Latest revision</a></div></div>
      ${space.deletedAt ? html`<p class="error">This space is deleted; an admin can restore it.</p>` : ""}
      ${firstPage}
      ${space.deletedAt ? "" : await gitPanel(ctx, space, permissions.triggerGitSync, notice)}`;
    const crumbs = await spaceCrumbs(ctx, space);
    return send(reply, ctx, space.title, spaceLayout(ctx, space, view.content.pages, first?.page.id, main), {
      crumbs,
      wide: true,
      ...(rendered ? { head: rendered.head } : {}),
    });
  });

  app.get("/app/o/:org/s/:space/p/:page", { schema: { params: Type.Object({ org: Id, space: Id, page: Id }) } }, async (request, reply) => {
    const ctx = await orgPage(request, reply, request.params.org);
    if (!ctx) return reply;
    const { space } = await spaceOf(ctx, request.params.space);
    const view = await loadRevisionView(db, space, space.revisionId);
    const location = view.locations().get(request.params.page);
    if (!location) throw missing(`No page with id "${request.params.page}" in this space.`);
    const org = ctx.loaded.org.id;
    const { entries, more } = await pageHistory(db, space.id, space.revisionId, location.page.id);
    const links = await revisionLinks(
      ctx,
      space,
      entries.map((e) => e.revision),
    );
    const pageCrumbs = [
      ...(await spaceCrumbs(ctx, space)),
      ...location.ancestors.map((a) => ({ label: a.title, href: appPath.page(org, space.id, a.id) })),
      { label: location.page.title },
    ];
    const content = await pageContent(sourceOf(org, view, location.page), location);
    const main = html`<div class="page-head"><h1>${emojiText(location.page.emoji)}${location.page.title}</h1>
        <span class="muted small">/${location.path}</span></div>
      ${location.page.description ? html`<p class="description">${location.page.description}</p>` : ""}
      ${content.body}
      <section id="history"><h2>History</h2>${historyList(entries, more, links)}</section>`;
    return send(reply, ctx, location.page.title, spaceLayout(ctx, space, view.content.pages, location.page.id, main), {
      crumbs: pageCrumbs,
      wide: true,
      ...(content.head ? { head: content.head } : {}),
    });
  });

  function sourceOf(orgId: string, view: RevisionView, page: PageNode): AppPageSource {
    return { orgId, spaceId: view.space.id, content: view.content, pageIds: new Set(view.locations().keys()), page };
  }

  async function pageContent(source: AppPageSource, location: PageLocation): Promise<{ body: SafeHtml; head?: SafeHtml }> {
    if (location.page.kind === "group") {
      return { body: html`<p class="muted">A group of pages:</p><ul>${location.page.children.map((c) => html`<li>${c.title}</li>`)}</ul>` };
    }
    if (location.page.kind === "link") {
      const href = location.page.href && /^https?:\/\//i.test(location.page.href) ? location.page.href : undefined;
      return { body: href ? html`<p>A link to <a href="${href}">${href}</a>.</p>` : emptyNote("A link page.") };
    }
    return renderAppPage(db, deps, source, await pageDocumentJson(db, location));
  }

  app.get(
    "/app/o/:org/s/:space/revisions/:revision",
    { schema: { params: Type.Object({ org: Id, space: Id, revision: Id }) } },
    async (request, reply) => {
      const ctx = await orgPage(request, reply, request.params.org);
      if (!ctx) return reply;
      const { space } = await spaceOf(ctx, request.params.space);
      const view = await loadRevisionView(db, space, request.params.revision);
      const parentId = parseJson<string[]>(view.revision.parents, "revisions.parents")[0];
      const parent = parentId ? await getSpaceRevision(db, space.id, parentId) : undefined;
      const changes = diffPages(parent ? await pagesOfTree(db, parent.treeHash) : new Map(), view.locations());
      const live = await pagesOfTree(db, (await loadRevisionView(db, space, space.revisionId)).revision.treeHash);
      const links = await revisionLinks(ctx, space, [view.revision]);
      const org = ctx.loaded.org.id;
      const current = view.revision.id === space.revisionId;
      const body = html`<h1>Revision <code>${view.revision.id}</code></h1>
        ${revisionSummary(view.revision, links)}
        <p class="actions">${current ? badge("current primary content", "ok") : ""}
          ${parent ? html`<a class="button" href="${appPath.revision(org, space.id, parent.id)}">Previous revision</a>` : html`<span class="muted">The space's first revision.</span>`}</p>
        <h2>What changed</h2>${pageChanges(changes, org, space.id, live)}
        <h2>Pages in this revision</h2>${pageOutline(view.content.pages)}`;
      const crumbs = [...(await spaceCrumbs(ctx, space)), { label: `Revision ${view.revision.id.slice(0, 8)}` }];
      return send(reply, ctx, `Revision ${view.revision.id}`, body, { crumbs });
    },
  );

  // --- Git import and export: the API's permission and request check, as forms ---

  async function startGitRun(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: "import" | "export",
    form: Static<typeof GitForm> & { commitMessage?: string },
  ) {
    const { org: orgId, space: spaceId } = request.params as { org: string; space: string };
    const ctx = await orgPage(request, reply, orgId);
    if (!ctx) return reply;
    await spaceOf(ctx, spaceId);
    const space = await requireSyncableSpace(db, ctx.signedIn.actor, spaceId);
    const body = { url: form.url.trim(), ref: form.ref.trim(), repoProjectDirectory: form.repoProjectDirectory?.trim() };
    const base = gitJobBase(deps, body, space.id, ctx.signedIn.user.id);
    if (kind === "import") {
      await requestGitRun(db, { kind: "git-import", payload: { ...base, standalone: false } }, {});
    } else {
      assertExportRef(base.ref);
      await requestGitRun(db, { kind: "git-export", payload: { ...base, commitMessage: form.commitMessage ?? "" } }, {});
    }
    deps.notifyJobs();
    return reply.redirect(`${appPath.space(ctx.loaded.org.id, space.id)}?git=${kind}#git`, 303);
  }

  app.post(
    "/app/o/:org/s/:space/git/import",
    { schema: { params: SpaceParams, body: GitForm }, preHandler: app.csrfProtection },
    async (request, reply) => startGitRun(request, reply, "import", request.body),
  );

  app.post(
    "/app/o/:org/s/:space/git/export",
    { schema: { params: SpaceParams, body: ExportForm }, preHandler: app.csrfProtection },
    async (request, reply) => startGitRun(request, reply, "export", request.body),
  );

  // --- sites ---

  function customizationPanel(ctx: OrgPage, site: SiteRow, canEdit: boolean, saved: boolean): SafeHtml {
    const settings = parseCustomization(site.customization);
    if (!canEdit) {
      return html`<section class="card" id="customization"><h2 style="margin-top:0">Customization</h2>
        <p class="muted small">Only members with the create role or higher can change how the site looks.</p></section>`;
    }
    const action = `${appPath.site(ctx.loaded.org.id, site.id)}/customization`;
    const { primaryColor } = settings.styling;
    const logo = settings.header.logo;
    const announcement = settings.announcement;
    const option = (value: string, label: string, current: string) =>
      html`<option value="${value}"${value === current ? html` selected` : ""}>${label}</option>`;
    const checked = (on: boolean) => (on ? html` checked` : "");
    return html`<section class="card" id="customization"><h2 style="margin-top:0">Customization</h2>
      ${saved ? html`<p class="badge ok">Saved: readers see it on their next page.</p>` : ""}
      ${site.customization === null ? html`<p class="muted small">Never customized: the site follows each reader's light or dark system theme, in Quire's colors.</p>` : ""}
      <form class="stack" method="post" action="${action}"><input type="hidden" name="_csrf" value="${ctx.csrf}">
        <label>Title readers see <input name="title" maxlength="128" value="${settings.title ?? ""}" placeholder="${site.title}"></label>
        <label>Primary color (light theme) <input type="color" name="primaryLight" value="${primaryColor.light.toLowerCase()}"></label>
        <label>Primary color (dark theme) <input type="color" name="primaryDark" value="${primaryColor.dark.toLowerCase()}"></label>
        <label>Default theme <select name="themeDefault">${option("light", "Light", settings.themes.default)}${option("dark", "Dark", settings.themes.default)}</select></label>
        <label class="check"><input type="checkbox" name="themeToggle" value="on"${checked(settings.themes.toggeable)}> Readers can switch between light and dark</label>
        <label>Logo URL (light theme) <input type="url" name="logoLight" maxlength="2048" value="${logo?.light ?? ""}" placeholder="https://…/logo.svg"></label>
        <label>Logo URL (dark theme) <input type="url" name="logoDark" maxlength="2048" value="${logo?.dark ?? ""}" placeholder="(the light one)"></label>
        <label class="check"><input type="checkbox" name="announcementEnabled" value="on"${checked(announcement?.enabled === true)}> Show an announcement</label>
        <label>Announcement <input name="announcementMessage" maxlength="128" value="${announcement?.message ?? ""}"></label>
        <label>Announcement style <select name="announcementStyle">${(["info", "warning", "danger", "success"] as const).map((s) => option(s, s, announcement?.style ?? "info"))}</select></label>
        <label>Footer copyright <input name="copyright" maxlength="300" value="${settings.footer.copyright ?? ""}" placeholder="${site.title}"></label>
        <label>Theme <select name="styleTheme">${option("clean", "Clean: translucent header, minimal lines", settings.styling.theme)}${option("muted", "Muted: soft, lower contrast", settings.styling.theme)}${option("bold", "Bold: header in the primary color", settings.styling.theme)}${option("gradient", "Gradient: washes of the primary and tint colors", settings.styling.theme)}</select></label>
        <input type="hidden" name="features" value="1">
        <label class="check"><input type="checkbox" name="pdfEnabled" value="on"${checked(settings.pdf.enabled !== false)}> Offer each page as a PDF ("Download as PDF")</label>
        <label class="check"><input type="checkbox" name="feedbackEnabled" value="on"${checked(settings.feedback.enabled === true)}> Ask readers "Was this page helpful?"</label>
        <label class="check"><input type="checkbox" name="editLinks" value="on"${checked(settings.git.showEditLink === true)}> Link pages synced from Git to their file ("Edit on GitHub / GitLab")</label>
        <label class="check"><input type="checkbox" name="trademark" value="on"${checked(settings.trademark.enabled !== false)}> Show "Published with Quire" in the footer</label>
        <div><button class="primary" type="submit">Save customization</button></div>
      </form></section>`;
  }

  /** Counts of "Was this page helpful?" answers of the last 30 days, by page, for the site's editors. */
  async function feedbackPanel(site: SiteRow, model: { siteSpaces: readonly ModelSiteSpace[] }, canEdit: boolean): Promise<SafeHtml> {
    if (!canEdit) return html``;
    const enabled = parseCustomization(site.customization).feedback.enabled;
    const since = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    const counts = await feedbackCounts(db, site.id, since);
    const titles = new Map<string, Map<string, PageLocation>>();
    for (const spaceId of new Set(counts.map((c) => c.spaceId))) {
      const space = model.siteSpaces.find((s) => s.spaceId === spaceId)?.space;
      const revision = space && (await getSpaceRevision(db, space.id, space.revisionId));
      titles.set(spaceId, indexPages((await loadContent(db, revision?.treeHash ?? null)).pages));
    }
    const spaceTitle = (spaceId: string) =>
      model.siteSpaces.find((s) => s.spaceId === spaceId)?.space.title ?? "(a space no longer in the site)";
    const rows = counts.map((c) => {
      const title = titles.get(c.spaceId)?.get(c.pageId)?.page.title ?? "(a page no longer in the space)";
      const total = c.good + c.ok + c.bad;
      return html`<tr><td>${title} <span class="muted small">${spaceTitle(c.spaceId)}</span></td><td>${c.good}</td><td>${c.ok}</td><td>${c.bad}</td><td>${Math.round((100 * c.good) / total)}%</td></tr>`;
    });
    return html`<section class="card" id="feedback"><h2 style="margin-top:0">Page feedback</h2>
      ${
        enabled
          ? html`<p class="muted small">Readers answer "Was this page helpful?" at the end of each page: one answer per reader, page and day. The last 30 days:</p>`
          : html`<p class="muted small">Feedback is off: readers are not asked. Turn it on with "Ask readers 'Was this page helpful?'" above (or <code>feedback.enabled</code> in the site's customization).</p>`
      }
      ${
        rows.length
          ? html`<table class="feedback-counts"><thead><tr><th>Page</th><th title="Yes">😀</th><th title="Somewhat">😐</th><th title="No">😞</th><th>Helpful</th></tr></thead><tbody>${rows}</tbody></table>`
          : enabled
            ? emptyNote("No answers in the last 30 days.")
            : ""
      }</section>`;
  }

  app.post(
    "/app/o/:org/sites/:site/customization",
    { schema: { params: Type.Object({ org: Id, site: Id }), body: CustomizationForm }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const ctx = await orgPage(request, reply, request.params.org);
      if (!ctx) return reply;
      const { site, permissions } = await requireSiteWithModel(db, ctx.signedIn.actor, ctx.loaded.org.id, request.params.site);
      if (!permissions.edit) throw notAllowed("Only members with the create role or higher can read or change a site's customization.");
      const settings = customizationFromForm(parseCustomization(site.customization), request.body);
      await setSiteCustomization(db, site.id, JSON.stringify(settings));
      return reply.redirect(`${appPath.site(ctx.loaded.org.id, site.id)}?saved=customization#customization`, 303);
    },
  );

  app.get(
    "/app/o/:org/sites/:site",
    { schema: { params: Type.Object({ org: Id, site: Id }), querystring: SiteQuery } },
    async (request, reply) => {
      const ctx = await orgPage(request, reply, request.params.org);
      if (!ctx) return reply;
      const { site, model, access } = await requireSiteWithModel(db, ctx.signedIn.actor, ctx.loaded.org.id, request.params.site);
      const org = ctx.loaded.org.id;
      const spaces = await loadSpacesForSite(
        db,
        access,
        model.siteSpaces.map((s) => s.spaceId),
      );
      const published = site.published === 1;
      const siteSpaceRow = (s: ModelSiteSpace) => {
        const readable = spaces.get(s.spaceId)?.level;
        const title = readable
          ? html`<a href="${appPath.space(org, s.spaceId)}">${s.space.title}</a>`
          : html`<span>${s.space.title}</span>`;
        const address = urls.site(site.basename, ...fullSiteSpacePath(model, s).split("/"));
        return html`<li>${title} <span class="muted small">/${fullSiteSpacePath(model, s)}</span>
        ${published ? html`<br><a class="small" href="${address}">${address}</a>` : ""}${s.condition ? html` <span class="badge">if ${s.condition}</span>` : ""}</li>`;
      };
      const structure = hasSections(model)
        ? sectionsInOrder(model).map(
            (section) => html`<h3>${section.title} <span class="muted small">/${section.path}</span></h3>
            <ul class="plain">${visibleSiteSpacesOf(model, section.id).map(siteSpaceRow)}</ul>`,
          )
        : html`<ul class="plain">${visibleSiteSpacesOf(model, null).map(siteSpaceRow)}</ul>`;
      const empty = model.siteSpaces.filter((s) => !s.hidden).length === 0;
      const body = html`<h1>${site.title}</h1>
      <p class="actions">${published ? badge("published", "ok") : badge("not published")} ${badge(site.visibility)} ${badge(site.type)}</p>
      ${
        published
          ? html`<p>Published at <a href="${urls.site(site.basename)}">${urls.site(site.basename)}</a></p>`
          : html`<p class="muted">Not published yet: readers will find it at ${urls.site(site.basename)} once it is.</p>`
      }
      <h2>Structure</h2>${empty ? emptyNote("This site shows no space yet.") : structure}
      ${customizationPanel(ctx, site, sitePermissions(access, site).edit, request.query.saved === "customization")}
      ${await feedbackPanel(site, model, sitePermissions(access, site).edit)}`;
      return send(reply, ctx, site.title, body, {
        crumbs: [orgCrumb(ctx), { label: "Sites", href: `${appPath.org(org)}#sites` }, { label: site.title }],
      });
    },
  );

  // --- OpenAPI specs ---

  app.get(
    "/app/o/:org/openapi/:slug",
    { schema: { params: Type.Object({ org: Id, slug: Type.String({ minLength: 1, maxLength: 200 }) }) } },
    async (request, reply) => {
      const ctx = await orgPage(request, reply, request.params.org);
      if (!ctx) return reply;
      const { spec } = await loadSpec(db, ctx.signedIn.actor, ctx.loaded.org.id, request.params.slug);
      const versions = (await listVersions(db, spec.id, { limit: 100 })).rows;
      const errors = spec.lastProcessedErrors
        ? parseJson<{ message: string }[]>(spec.lastProcessedErrors, "openapiSpecs.lastProcessedErrors")
        : [];
      const body = html`<h1>${spec.slug}</h1>
        <p class="actions">${processingBadge(spec.processingState)} ${badge(spec.visibility)}</p>
        <table><tbody>
          <tr><th>Source</th><td>${spec.sourceUrl ? html`<code>${spec.sourceUrl}</code>` : "uploaded"}</td></tr>
          <tr><th>Last processed</th><td>${when(spec.lastProcessedAt)}</td></tr>
          ${spec.lastProcessErrorCode ? html`<tr><th>Last error</th><td class="error">${spec.lastProcessErrorCode}</td></tr>` : ""}
        </tbody></table>
        ${errors.length > 0 ? html`<ul class="error small">${errors.slice(0, 20).map((e) => html`<li>${e.message}</li>`)}</ul>` : ""}
        <h2>Versions</h2>
        ${
          versions.length > 0
            ? html`<div class="table-wrap"><table><thead><tr><th>Created</th><th>Version</th><th>Document</th></tr></thead><tbody>${versions.map(
                (
                  v,
                ) => html`<tr><td>${when(v.createdAt)}</td><td><code>${v.id}</code>${v.id === spec.lastVersionId ? html` ${badge("latest", "ok")}` : ""}</td>
                  <td><a href="${versionDocumentUrl(urls, spec, v.id)}">openapi.json</a></td></tr>`,
              )}</tbody></table></div>`
            : emptyNote("No version processed yet.")
        }`;
      return send(reply, ctx, spec.slug, body, {
        crumbs: [orgCrumb(ctx), { label: "OpenAPI specs", href: `${appPath.org(ctx.loaded.org.id)}#openapi` }, { label: spec.slug }],
      });
    },
  );

  // --- conversation topics ---

  app.get("/app/o/:org/agent/topics/:topic", { schema: { params: Type.Object({ org: Id, topic: Id }) } }, async (request, reply) => {
    const ctx = await orgPage(request, reply, request.params.org);
    if (!ctx) return reply;
    const { org, access } = await loadConversations(db, ctx.signedIn.actor, ctx.loaded.org.id, "view");
    const cluster = await getCluster(db, org.id, request.params.topic);
    if (!cluster) throw missing(`No topic with id "${request.params.topic}" in this organization.`);
    const [issues, readable] = await Promise.all([
      listIssues(db, org.id, { cluster: cluster.id, limit: 100 }),
      readableSpaceIds(db, access),
    ]);
    const keywords = parseJson<string[]>(cluster.keywords, "conversationClusters.keywords");
    const body = html`<h1>${cluster.label}</h1>
      <p class="description">${cluster.summary}</p>
      <p class="muted small">${Number(cluster.issues)} issues in ${Number(cluster.conversations)} conversations · ${Number(cluster.documentationGaps)} documentation gaps · updated ${when(cluster.updatedAt)}</p>
      ${keywords.length > 0 ? html`<p>${keywords.map((k) => html`${badge(k)} `)}</p>` : ""}
      <h2>Issues</h2>
      ${
        issues.rows.length > 0
          ? html`<ul class="plain">${issues.rows.map((issue) => {
              const pages = parseJson<{ spaceId: string; pageId: string; title: string }[]>(
                issue.documentation,
                "conversationIssues.documentation",
              );
              const shown = pages.filter((p) => readable.has(p.spaceId));
              return html`<li><strong>${issue.title}</strong> <span class="muted small">${when(issue.conversationCreatedAt)}</span>
                <p class="small">${issue.summary}</p>
                ${issue.question && !issue.summary.includes(issue.question) ? html`<p class="small muted">“${issue.question}”</p>` : ""}
                ${
                  pages.length === 0
                    ? badge("documentation gap", "bad")
                    : html`<p class="small">Answered by ${shown.map((p) => html`<a href="${appPath.page(org.id, p.spaceId, p.pageId)}">${p.title}</a> `)}${shown.length < pages.length ? html`<span class="muted">(and pages you cannot read)</span>` : ""}</p>`
                }</li>`;
            })}</ul>`
          : emptyNote("No issues in this topic.")
      }`;
    return send(reply, ctx, cluster.label, body, {
      crumbs: [orgCrumb(ctx), { label: "Topics", href: `${appPath.org(org.id)}#topics` }, { label: cluster.label }],
    });
  });
};

function processingBadge(state: string): SafeHtml {
  return badge(state, state === "complete" || state === "succeeded" ? "ok" : state === "failed" || state === "error" ? "bad" : "wait");
}

/**
 * The settings after the web form: its fields over the current settings, checked by the same rules
 * as the API's PUT (a 400 page names what is wrong). Empty text fields remove what they set.
 */
function customizationFromForm(current: SiteCustomization, form: Static<typeof CustomizationForm>): SiteCustomization {
  const text = (value: string | undefined) => value?.trim() ?? "";
  const next: SiteCustomization = structuredClone(current);
  const title = text(form.title);
  if (title === "") delete next.title;
  else if (Array.from(title).length < 2)
    throw invalid("The title readers see must be at least 2 characters long (or empty for the site's title).");
  else next.title = title;
  const color = (value: string | undefined, label: string, fallback: string) => {
    const given = text(value);
    if (given === "") return fallback;
    if (!/^#(?:[0-9a-fA-F]{3}){1,2}$/.test(given)) throw invalid(`The ${label} must be a hex color such as #346DDB.`);
    return given;
  };
  next.styling.primaryColor = {
    light: color(form.primaryLight, "primary color (light theme)", current.styling.primaryColor.light),
    dark: color(form.primaryDark, "primary color (dark theme)", current.styling.primaryColor.dark),
  };
  next.themes = { default: form.themeDefault ?? current.themes.default, toggeable: form.themeToggle === "on" };
  const logoLight = text(form.logoLight);
  const logoDark = text(form.logoDark);
  if (logoLight === "" && logoDark === "") delete next.header.logo;
  else if (logoLight === "") throw invalid("Give the light theme's logo URL too (the dark one alone is not enough).");
  else next.header.logo = { light: logoLight, dark: logoDark || logoLight };
  const message = text(form.announcementMessage);
  const enabled = form.announcementEnabled === "on";
  if (message === "" && !enabled) delete next.announcement;
  else if (Array.from(message).length < 2) throw invalid("The announcement needs a message of at least 2 characters.");
  else next.announcement = { ...next.announcement, enabled, message, style: form.announcementStyle ?? next.announcement?.style ?? "info" };
  const copyright = text(form.copyright);
  if (copyright === "") delete next.footer.copyright;
  else next.footer.copyright = copyright;
  if (form.styleTheme) next.styling.theme = form.styleTheme;
  if (form.features === "1") {
    next.pdf = { enabled: form.pdfEnabled === "on" };
    next.feedback = { enabled: form.feedbackEnabled === "on" };
    next.git = { showEditLink: form.editLinks === "on" };
    next.trademark = { enabled: form.trademark === "on" };
  }
  return customizationFromBody(next);
}
