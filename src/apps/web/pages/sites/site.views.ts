/** A site's page: whether and where it is published, its structure, and its editors' panels. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { SiteRow } from "../../../../db/schema.js";
import {
  fullSiteSpacePath,
  hasSections,
  type ModelSiteSpace,
  type SiteModel,
  sectionsInOrder,
  visibleSiteSpacesOf,
} from "../../../../modules/sites/structure.model.js";
import { badge, emptyNote } from "../../common.views.js";
import { appPath } from "../../web.paths.js";

export function siteBody(view: {
  org: string;
  site: Pick<SiteRow, "title" | "published" | "visibility" | "type">;
  model: SiteModel;
  /** The site's address, or one of its site spaces' (segments of its path). */
  address: (...segments: string[]) => string;
  /** Whether the member may read a space (its title links to its page). */
  canRead: (spaceId: string) => boolean;
  panels: SafeHtml;
}): SafeHtml {
  const { org, site, model, address } = view;
  const published = site.published === 1;
  const siteSpaceRow = (s: ModelSiteSpace) => {
    const title = view.canRead(s.spaceId)
      ? html`<a href="${appPath.space(org, s.spaceId)}">${s.space.title}</a>`
      : html`<span>${s.space.title}</span>`;
    const path = fullSiteSpacePath(model, s);
    const url = address(...path.split("/"));
    return html`<li>${title} <span class="muted small">/${path}</span>
        ${published ? html`<br><a class="small" href="${url}">${url}</a>` : ""}${s.condition ? html` <span class="badge">if ${s.condition}</span>` : ""}</li>`;
  };
  const structure = hasSections(model)
    ? sectionsInOrder(model).map(
        (section) => html`<h3>${section.title} <span class="muted small">/${section.path}</span></h3>
            <ul class="plain">${visibleSiteSpacesOf(model, section.id).map(siteSpaceRow)}</ul>`,
      )
    : html`<ul class="plain">${visibleSiteSpacesOf(model, null).map(siteSpaceRow)}</ul>`;
  const empty = model.siteSpaces.filter((s) => !s.hidden).length === 0;
  return html`<h1>${site.title}</h1>
      <p class="actions">${published ? badge("published", "ok") : badge("not published")} ${badge(site.visibility)} ${badge(site.type)}</p>
      ${
        published
          ? html`<p>Published at <a href="${address()}">${address()}</a></p>`
          : html`<p class="muted">Not published yet: readers will find it at ${address()} once it is.</p>`
      }
      <h2>Structure</h2>${empty ? emptyNote("This site shows no space yet.") : structure}
      ${view.panels}`;
}
