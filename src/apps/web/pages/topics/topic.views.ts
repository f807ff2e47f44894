/** A conversation topic: its summary and issues, linked to the pages that answer them (those the member may read). */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { badge, emptyNote, when } from "../../common.views.js";
import { appPath } from "../../web.paths.js";

export interface TopicIssue {
  title: string;
  summary: string;
  question: string | null;
  conversationCreatedAt: string;
  /** The pages that answer it (none: a documentation gap). */
  pages: { spaceId: string; pageId: string; title: string }[];
}

export function topicBody(view: {
  org: string;
  cluster: {
    label: string;
    summary: string;
    issues: number | string;
    conversations: number | string;
    documentationGaps: number | string;
    updatedAt: string;
  };
  keywords: readonly string[];
  issues: readonly TopicIssue[];
  canRead: (spaceId: string) => boolean;
}): SafeHtml {
  const { cluster, keywords } = view;
  const issue = (i: TopicIssue) => {
    const shown = i.pages.filter((p) => view.canRead(p.spaceId));
    return html`<li><strong>${i.title}</strong> <span class="muted small">${when(i.conversationCreatedAt)}</span>
                <p class="small">${i.summary}</p>
                ${i.question && !i.summary.includes(i.question) ? html`<p class="small muted">“${i.question}”</p>` : ""}
                ${
                  i.pages.length === 0
                    ? badge("documentation gap", "bad")
                    : html`<p class="small">Answered by ${shown.map((p) => html`<a href="${appPath.page(view.org, p.spaceId, p.pageId)}">${p.title}</a> `)}${shown.length < i.pages.length ? html`<span class="muted">(and pages you cannot read)</span>` : ""}</p>`
                }</li>`;
  };
  return html`<h1>${cluster.label}</h1>
      <p class="description">${cluster.summary}</p>
      <p class="muted small">${Number(cluster.issues)} issues in ${Number(cluster.conversations)} conversations · ${Number(cluster.documentationGaps)} documentation gaps · updated ${when(cluster.updatedAt)}</p>
      ${keywords.length > 0 ? html`<p>${keywords.map((k) => html`${badge(k)} `)}</p>` : ""}
      <h2>Issues</h2>
      ${view.issues.length > 0 ? html`<ul class="plain">${view.issues.map(issue)}</ul>` : emptyNote("No issues in this topic.")}`;
}
