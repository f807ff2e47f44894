/** The search results page. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { emptyNote } from "../../common.views.js";

/** One page found, as the header's box and the results page show it. */
export interface FoundPage {
  id: string;
  title: string;
  /** The title, or "Title — Space / Parent / Title" when another result has the same title. */
  label: string;
  /** Where it is: "Space / Parent / Title". */
  trail: string;
  space: { id: string; title: string };
  url: string;
  /** Words of its best matching section around the match, as plain text. */
  snippet: string;
}

export function searchBody(view: { org: string; query: string; results: FoundPage[] }): SafeHtml {
  const results = view.results.map(
    (r) =>
      html`<li><a href="${r.url}">${r.label}</a><div class="muted small">${r.trail}</div>${r.snippet ? html`<p class="small">${r.snippet}</p>` : ""}</li>`,
  );
  return html`<h1>Search</h1>
    <form method="get" action="/app/o/${encodeURIComponent(view.org)}/search" role="search" class="actions">
      <input type="search" name="q" value="${view.query}" maxlength="512" aria-label="Search pages" size="40">
      <button type="submit">Search</button></form>
    ${
      !view.query
        ? emptyNote("Type words to look for in the pages of the spaces you can read.")
        : results.length > 0
          ? html`<ul class="plain search-results">${results}</ul>`
          : emptyNote(`No page of the spaces you can read matches “${view.query}”.`)
    }`;
}
