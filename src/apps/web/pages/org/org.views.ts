/** An organization's and a collection's pages as HTML: pure functions of what their handlers loaded. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { CollectionRow, SiteRow, SpaceRow } from "../../../../db/schema.js";
import { badge, emojiText, emptyNote, processingBadge } from "../../common.views.js";
import { appPath } from "../../web.paths.js";

type Space = Pick<SpaceRow, "id" | "title" | "emoji" | "parentId" | "visibility">;
type Collection = Pick<CollectionRow, "id" | "title" | "parentId" | "description">;

export interface OrgView {
  org: { id: string; title: string };
  role: string | null;
  spaces: Space[];
  collections: Collection[];
  sites: Pick<SiteRow, "id" | "title" | "published" | "visibility">[];
  specs: { slug: string; processingState: string }[];
  topics: { id: string; label: string; issues: number | string; documentationGaps: number | string }[];
  /** Where the member may create spaces and collections (null: the top level); none hides the forms. */
  create: {
    places: { id: string | null; title: string }[];
    csrf: string;
    /** Built-in templates a new space may start from (sample pages). */
    templates: readonly { id: string; title: string; description: string }[];
  };
}

/** The forms that create a space (blank, from a built-in template, or from a space as template) and a collection. */
function createForms(org: string, view: OrgView["create"], templates: Space[]): SafeHtml {
  if (view.places.length === 0) return html``;
  const base = appPath.org(org);
  const places = view.places.map(
    (p) => html`<option value="${p.id ?? ""}">${p.id === null ? "At the top level" : html`In ${p.title}`}</option>`,
  );
  const csrf = html`<input type="hidden" name="_csrf" value="${view.csrf}">`;
  return html`<div class="actions create-forms">
    <details class="menu"><summary class="button primary">New space</summary>
      <form method="post" action="${base}/spaces" class="stack card" id="new-space">${csrf}
        <label>Title <input name="title" required maxlength="50"></label>
        <label>Place <select name="parent">${places}</select></label>
        <label>Start from <select name="template"><option value="">A blank space</option>${view.templates.map(
          (t) => html`<option value="${t.id}" title="${t.description}">${t.title} (sample pages)</option>`,
        )}${templates.map((t) => html`<option value="${t.id}">A copy of ${t.title}’s pages</option>`)}</select></label>
        <button type="submit" class="primary">Create space</button></form></details>
    <details class="menu"><summary class="button">New collection</summary>
      <form method="post" action="${base}/collections" class="stack card" id="new-collection">${csrf}
        <label>Title <input name="title" required maxlength="50"></label>
        <label>Place <select name="parent">${places}</select></label>
        <button type="submit" class="primary">Create collection</button></form></details>
    </div>`;
}

export function orgBody(view: OrgView): SafeHtml {
  const org = view.org.id;
  const collectionTitles = new Map(view.collections.map((c) => [c.id, c.title]));
  const inCollection = (parentId: string | null) =>
    parentId && collectionTitles.has(parentId) ? collectionTitles.get(parentId) : undefined;
  const spaces = view.spaces.map((s) => {
    const parent = inCollection(s.parentId);
    return html`<div class="card"><h3><a href="${appPath.space(org, s.id)}">${emojiText(s.emoji)}${s.title}</a></h3>
                  <p class="muted small">${parent ? html`in ${parent} · ` : ""}${s.visibility}</p></div>`;
  });
  const collections = view.collections.map((c) => {
    const parent = inCollection(c.parentId);
    return html`<div class="card"><h3><a href="${appPath.collection(org, c.id)}">${c.title}</a></h3>
                  ${parent ? html`<p class="muted small">in ${parent}</p>` : ""}
                  ${c.description ? html`<p class="small">${c.description}</p>` : ""}</div>`;
  });
  const sites = view.sites.map(
    (
      s,
    ) => html`<li><a href="${appPath.site(org, s.id)}">${s.title}</a> ${s.published === 1 ? badge("published", "ok") : badge("not published")}
                  <span class="muted small">${s.visibility}</span></li>`,
  );
  const specs = view.specs.map(
    (s) => html`<li><a href="${appPath.openapi(org, s.slug)}">${s.slug}</a> ${processingBadge(s.processingState)}</li>`,
  );
  const topics = view.topics.map(
    (t) => html`<li><a href="${appPath.topic(org, t.id)}">${t.label}</a>
                <span class="muted small">${Number(t.issues)} issues · ${Number(t.documentationGaps)} documentation gaps</span></li>`,
  );
  return html`<div class="page-head"><h1>${view.org.title}</h1><div class="actions"><span class="muted">Your role: ${view.role ?? "guest"}</span> <a class="button" href="${appPath.org(org)}/members">Members</a>${view.role === "admin" ? html` <a class="button" href="${appPath.org(org)}/settings/audit">Audit log</a>` : ""}</div></div>
      ${createForms(org, view.create, view.spaces)}
      <section id="spaces"><h2>Spaces</h2>
        ${spaces.length > 0 ? html`<div class="cards">${spaces}</div>` : emptyNote("No space you can read yet.")}</section>
      <section id="collections"><h2>Collections</h2>
        ${collections.length > 0 ? html`<div class="cards">${collections}</div>` : emptyNote("No collections.")}</section>
      <section id="sites"><h2>Sites</h2>
        ${sites.length > 0 ? html`<ul class="plain">${sites}</ul>` : emptyNote("No sites.")}</section>
      <section id="openapi"><h2>OpenAPI specs</h2>
        ${specs.length > 0 ? html`<ul class="plain">${specs}</ul>` : emptyNote("No OpenAPI specs.")}</section>
      ${topics.length > 0 ? html`<section id="topics"><h2>Topics from conversations</h2><ul class="plain">${topics}</ul></section>` : ""}`;
}

export function collectionBody(view: {
  org: string;
  collection: Pick<CollectionRow, "title" | "description">;
  /** The rename form, for admins of the collection. */
  rename?: SafeHtml | undefined;
  spaces: Pick<SpaceRow, "id" | "title" | "emoji" | "visibility">[];
  children: Pick<CollectionRow, "id" | "title">[];
}): SafeHtml {
  const { org, collection } = view;
  return html`<div class="page-head"><h1>${collection.title}</h1>${view.rename ?? ""}</div>
      ${collection.description ? html`<p class="description">${collection.description}</p>` : ""}
      <h2>Spaces</h2>
      ${
        view.spaces.length > 0
          ? html`<div class="cards">${view.spaces.map(
              (s) =>
                html`<div class="card"><h3><a href="${appPath.space(org, s.id)}">${emojiText(s.emoji)}${s.title}</a></h3><p class="muted small">${s.visibility}</p></div>`,
            )}</div>`
          : emptyNote("No space you can read in this collection.")
      }
      <h2>Collections inside</h2>
      ${
        view.children.length > 0
          ? html`<ul class="plain">${view.children.map((c) => html`<li><a href="${appPath.collection(org, c.id)}">${c.title}</a></li>`)}</ul>`
          : emptyNote("None.")
      }`;
}
