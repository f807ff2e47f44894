/** A space's Git panel: the repository it syncs with, its last import and export, and the forms that start one. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import type { GitSyncRunValue, StoredGitSyncState } from "../../../../modules/git-sync/git-sync-state.model.js";
import { badge, when } from "../../common.views.js";

function gitRun(label: string, run: GitSyncRunValue | undefined): SafeHtml {
  if (!run) return html`<p><strong>${label}:</strong> <span class="muted">never</span></p>`;
  const tone = run.status === "succeeded" ? "ok" : run.status === "failed" ? "bad" : run.status === "skipped" ? "" : "wait";
  return html`<p><strong>${label}:</strong> ${badge(run.status, tone)} requested ${when(run.requestedAt)}${run.finishedAt ? html`, finished ${when(run.finishedAt)}` : ""}
      ${run.commit ? html`<span class="muted small">commit <code>${run.commit.slice(0, 12)}</code></span>` : ""}
      ${run.message ? html`<br><span class="${run.status === "failed" ? "error" : "muted"} small">${run.message}</span>` : ""}</p>`;
}

/** `action` is the space's Git address (`.../git`); the forms are shown only to those who may sync (`canSync`). */
export function gitPanel(view: {
  state: StoredGitSyncState | null;
  action: string;
  canSync: boolean;
  notice: string | undefined;
  csrf: string;
}): SafeHtml {
  const { state, action, csrf } = view;
  const remote = state?.remote ?? "";
  const ref = state?.ref ?? "refs/heads/main";
  const directory = state?.projectDirectory ?? "";
  const fields = html`<label>Repository URL <input name="url" required maxlength="4096" value="${remote}" placeholder="https://github.com/acme/docs.git"></label>
      <label>Branch or tag <input name="ref" required maxlength="255" value="${ref}"></label>
      <label>Project directory <input name="repoProjectDirectory" maxlength="1024" value="${directory}" placeholder="(the repository's root)"></label>`;
  const forms = view.canSync
    ? html`<details><summary>Import from Git</summary><form class="stack" method="post" action="${action}/import"><input type="hidden" name="_csrf" value="${csrf}">
          ${fields}<div><button class="primary" type="submit">Import</button></div></form></details>
        <details><summary>Export to Git</summary><form class="stack" method="post" action="${action}/export"><input type="hidden" name="_csrf" value="${csrf}">
          ${fields}<label>Commit message <input name="commitMessage" required maxlength="10000" value="Update from Quire"></label>
          <div><button class="primary" type="submit">Export</button></div></form></details>`
    : html`<p class="muted small">Only members who can edit this space (while it is live) can import or export.</p>`;
  return html`<section class="card" id="git"><h2 style="margin-top:0">Git sync</h2>
      ${view.notice ? html`<p class="badge wait">${view.notice}</p>` : ""}
      ${state?.remote ? html`<p class="small">Repository <code>${state.remote}</code> · <code>${state.ref ?? ""}</code>${state.projectDirectory ? html` · <code>${state.projectDirectory}</code>` : ""}</p>` : html`<p class="muted small">No repository is set up yet.</p>`}
      ${gitRun("Last import", state?.lastImport)}${gitRun("Last export", state?.lastExport)}
      ${state?.conflicts?.length ? html`<p class="warn"><strong>${state.conflicts.length} page(s) in conflict</strong>: edited both in Git and in Quire since the last sync. <a class="button" href="${action}/conflicts">Resolve conflicts</a></p>` : ""}${forms}</section>`;
}

/** What the space page says after an import or export was requested (by the `git` query value, never text from the URL). */
export function gitNotice(requested: string | undefined): string | undefined {
  if (requested === "import") return "Import requested: it runs in the background.";
  if (requested === "export") return "Export requested: it runs in the background.";
  return undefined;
}
