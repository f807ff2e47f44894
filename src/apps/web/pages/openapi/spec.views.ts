/** An OpenAPI spec's page: where it comes from, how its processing went, and its versions. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { badge, emptyNote, processingBadge, when } from "../../common.views.js";

export function specBody(view: {
  spec: {
    slug: string;
    processingState: string;
    visibility: string;
    sourceUrl: string | null;
    lastProcessedAt: string | null;
    lastProcessErrorCode: string | null;
    lastVersionId: string | null;
  };
  errors: readonly { message: string }[];
  versions: readonly { id: string; createdAt: string; documentUrl: string }[];
}): SafeHtml {
  const { spec, errors, versions } = view;
  return html`<h1>${spec.slug}</h1>
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
                  <td><a href="${v.documentUrl}">openapi.json</a></td></tr>`,
              )}</tbody></table></div>`
            : emptyNote("No version processed yet.")
        }`;
}
