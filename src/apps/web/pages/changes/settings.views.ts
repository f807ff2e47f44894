/** A page's settings form (title, slug, emoji, description, hidden, indexing), with the page's address as it would be. */

import { html, raw, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { ChangeRequestRow } from "../../../../db/schema.js";
import { SETTINGS_SCRIPT_PATH } from "./changes.client.js";
import { CHANGES_STYLE, csrfField, type Named } from "./changes.views.js";
import type { PageSettingsForm } from "./settings.model.js";
import { addressHtml, type PageAddress } from "./structure.views.js";

export interface SettingsView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  page: { id: string; title: string; kind: string };
  form: PageSettingsForm;
  /** The parent's path in the space ("" at the top level). */
  parentPath: string;
  /** Where the page is with the slug in the form. */
  address: PageAddress;
  problem?: { field?: string; message: string };
  csrf: string;
}

export function settingsPage(view: SettingsView): SafeHtml {
  const base = `/app/o/${view.org.id}/s/${view.space.id}/~/changes/${view.changeRequest.number}`;
  const { form, problem } = view;
  const invalid = (field: string) => (problem?.field === field ? raw('aria-invalid="true" aria-describedby="settings-problem"') : "");
  const fieldProblem = (field: string) =>
    problem?.field === field ? html`<span class="field-error" id="settings-problem" role="alert">${problem.message}</span>` : "";
  return html`${CHANGES_STYLE}<div class="cr-wide">
    <h1>Settings of “${view.page.title || "Untitled page"}”</h1>
    <p class="muted">In change request #${view.changeRequest.number} “${view.changeRequest.subject}”: saved to the change request, published when it is merged. <a href="${base}/pages">Back to the pages</a></p>
    ${problem && !problem.field ? html`<p class="error" id="settings-problem" role="alert">${problem.message}</p>` : ""}
    <form method="post" action="${base}/p/${view.page.id}/settings" class="card settings" id="settings-form" data-parent-path="${view.parentPath}">${csrfField(view.csrf)}
      <label>Title <input name="title" id="title" value="${form.title}" required maxlength="256" ${invalid("title")}></label>${fieldProblem("title")}
      <label>Slug <input name="slug" id="slug" value="${form.slug}" maxlength="100" ${invalid("slug")}></label>${fieldProblem("slug")}
      <p class="hint">Its address: <span id="address">${addressHtml(view.address, "on the published site:")}</span>. Leave the slug empty to make it from the title.</p>
      <label>Emoji <input name="emoji" id="emoji" value="${form.emoji}" maxlength="50" size="6" placeholder="📘" ${invalid("emoji")}></label>${fieldProblem("emoji")}
      <p class="hint">Shown before the title in the site's navigation. One emoji, or empty for none.</p>
      <label>Description <textarea name="description" id="description" rows="3" maxlength="1000" ${invalid("description")}>${form.description}</textarea></label>${fieldProblem("description")}
      <p class="hint">Shown under the title on the published page and in llms.txt.</p>
      <label class="check"><input type="checkbox" name="hidden" value="true" ${form.hidden ? raw("checked") : ""}> Hidden: left out of the site's navigation, search and sitemap, still open to its address</label>
      <label class="check"><input type="checkbox" name="noIndex" value="true" ${form.noIndex ? raw("checked") : ""}> Not indexed: left out of search and the sitemap, and search engines are asked not to index it</label>
      <label class="check"><input type="checkbox" name="noRobotsIndex" value="true" ${form.noRobotsIndex ? raw("checked") : ""}> Not for search engines: they are asked not to index it and it leaves the sitemap; the site's search still finds it</label>
      <p><button type="submit" class="primary">Save to the change request</button> <a href="${base}/pages">Cancel</a></p>
    </form></div>
    <script src="${SETTINGS_SCRIPT_PATH}" defer></script>`;
}
