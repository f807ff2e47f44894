/** The "Was this page helpful?" answers of a site's pages, for its editors. */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { emptyNote } from "../../common.views.js";

/** One page's answers of the last 30 days, with the titles the editor may see. */
export interface FeedbackRow {
  page: string;
  space: string;
  good: number;
  ok: number;
  bad: number;
}

export function feedbackPanel(enabled: boolean, counts: readonly FeedbackRow[]): SafeHtml {
  const rows = counts.map((c) => {
    const total = c.good + c.ok + c.bad;
    return html`<tr><td>${c.page} <span class="muted small">${c.space}</span></td><td>${c.good}</td><td>${c.ok}</td><td>${c.bad}</td><td>${Math.round((100 * c.good) / total)}%</td></tr>`;
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
