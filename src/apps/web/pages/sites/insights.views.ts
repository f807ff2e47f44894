/**
 * A site's Insights page: what readers did over the days chosen. Views per day as a bar chart made
 * of boxes (browsers and agents stacked), with its numbers in a table for those who cannot see it;
 * the pages read most, agents apart; searches and those that found nothing; questions asked and
 * those the docs did not answer; page feedback. From the site's events (the aggregations of
 * aggregateSiteEvents): which agents read it, the sites readers came from, the addresses that found no page.
 */
import { html, type SafeHtml } from "../../../../content/html/safe-html.js";
import { barPercent, type EventInsights, type EventList } from "../../../../modules/insights/insights.model.js";
import type { SiteInsightsValue } from "../../../../modules/insights/insights.schemas.js";
import { emptyNote, when } from "../../common.views.js";

export const INSIGHT_DAYS = [7, 30, 90] as const;

const SOURCE_LABELS: Record<string, string> = {
  page: "Pages",
  markdown: "Pages as Markdown (.md)",
  "llms.txt": "llms.txt",
  "llms-full.txt": "llms-full.txt",
  mcp: "MCP endpoint",
};

export interface InsightsPageView {
  siteTitle: string;
  base: string;
  days: number;
  insights: SiteInsightsValue;
  retentionDays: number;
  enabled: boolean;
  events: EventInsights;
}

/** The agents most seen, by the name their user agent gives (events.model.ts BOTS). */
const BOT_LABELS: Record<string, string> = {
  unknown: "Other programs (scripts, unnamed crawlers)",
  googlebot: "Googlebot",
  bingbot: "Bingbot",
  chatgpt: "ChatGPT (a user's request)",
  openai: "OpenAI search",
  gptbot: "GPTBot (OpenAI)",
  claude: "Claude (a user's request)",
  claudebot: "ClaudeBot (Anthropic)",
  "claude-code": "Claude Code",
  anthropic: "Anthropic",
  perplexity: "Perplexity",
  gemini: "Gemini",
  applebot: "Applebot",
  cursor: "Cursor",
  "github-copilot": "GitHub Copilot",
  codex: "Codex",
};

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

function chart(insights: SiteInsightsValue): SafeHtml {
  const max = Math.max(0, ...insights.views.map((d) => d.browser + d.agent));
  const total = insights.totals.views.browser + insights.totals.views.agent;
  const days = insights.views.map((d) => {
    const label = `${d.day}: ${plural(d.browser, "view")} by browsers, ${plural(d.agent, "view")} by agents`;
    return html`<div class="day" title="${label}"><div class="agent" style="height:${barPercent(d.agent, max)}%"></div><div class="browser" style="height:${barPercent(d.browser, max)}%"></div></div>`;
  });
  const rows = insights.views.map((d) => html`<tr><td>${d.day}</td><td>${d.browser}</td><td>${d.agent}</td></tr>`);
  return html`<figure style="margin:0">
      <div class="bars" role="img" aria-label="${`Views per day from ${insights.from} to ${insights.to}: ${plural(total, "view")} in all, the most in one day ${max}.`}">${days}</div>
      <figcaption class="small muted"><span class="legend browser"></span> browsers <span class="legend agent"></span> agents · ${insights.from} to ${insights.to}, the highest bar ${plural(max, "view")}</figcaption>
    </figure>
    <details><summary class="small">Views per day as a table</summary><div class="table-wrap" tabindex="0" role="region" aria-label="Views per day"><table><thead><tr><th>Day</th><th>Browsers</th><th>Agents</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

/** A table in a box that scrolls on a narrow screen: focusable, so that a keyboard scrolls it too. */
function table(label: string, headers: readonly string[], rows: readonly SafeHtml[], empty: string): SafeHtml {
  if (rows.length === 0) return emptyNote(empty);
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${label}"><table><thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The rows of a list read from the events, or why it could not be read. */
function eventTable<T>(label: string, headers: readonly string[], list: EventList<T>, row: (item: T) => SafeHtml, empty: string): SafeHtml {
  if ("unavailable" in list) return html`<p class="small" role="status">Not shown: ${list.unavailable}</p>`;
  return table(label, headers, list.rows.map(row), empty);
}

export function insightsBody(view: InsightsPageView): SafeHtml {
  const { insights } = view;
  const t = insights.totals;
  const choices = INSIGHT_DAYS.map((d) => html`<option value="${d}" ${d === view.days ? html`selected` : ""}>Last ${d} days</option>`);
  const figure = (label: string, value: number, note: string) =>
    html`<div class="card"><span class="small muted">${label}</span><strong>${value.toLocaleString("en")}</strong><span class="small muted">${note}</span></div>`;
  const sources = insights.sources.map(
    (s) => html`<tr><td>${SOURCE_LABELS[s.source] ?? s.source}</td><td>${s.agent ? "Agents" : "Browsers"}</td><td>${s.views}</td></tr>`,
  );
  const pages = insights.pages.map((p) => html`<tr><td>${p.title}</td><td>${p.browser}</td><td>${p.agent}</td></tr>`);
  const searchRow = (s: SiteInsightsValue["searches"][number]) =>
    html`<tr><td>${s.query}</td><td>${s.searches}</td><td>${s.noResult}</td></tr>`;
  const questions = insights.questions.map(
    (q) => html`<tr><td>${q.question}</td><td>${q.answers}</td><td>${q.unanswered}</td><td class="small">${when(q.askedAt)}</td></tr>`,
  );
  const unanswered = insights.questions
    .filter((q) => q.unanswered > 0)
    .map((q) => html`<tr><td>${q.question}</td><td>${q.unanswered}</td><td class="small">${when(q.askedAt)}</td></tr>`);
  const feedback = insights.feedback.map((f) => {
    const total = f.good + f.ok + f.bad;
    return html`<tr><td>${f.title}</td><td>${f.good}</td><td>${f.ok}</td><td>${f.bad}</td><td>${total ? Math.round((100 * f.good) / total) : 0}%</td></tr>`;
  });
  const { events } = view;
  const agents = eventTable(
    "Agents by name",
    ["Agent", "Reads"],
    events.agents,
    (a) => html`<tr><td>${BOT_LABELS[a.bot] ?? a.bot}</td><td>${a.reads.toLocaleString("en")}</td></tr>`,
    "No agent read the site in these days.",
  );
  const broken = eventTable(
    "Addresses that found no page",
    ["Address", "Times"],
    events.broken,
    (b) => html`<tr><td><code>${b.path}</code></td><td>${b.views.toLocaleString("en")}</td></tr>`,
    "Every address read found its page.",
  );
  const referrers = eventTable(
    "Sites readers came from",
    ["Site", "Views", "Visitors"],
    events.referrers,
    (r) => html`<tr><td>${r.domain}</td><td>${r.views.toLocaleString("en")}</td><td>${r.visitors.toLocaleString("en")}</td></tr>`,
    "No reader came from another site in these days (or their browser did not say).",
  );
  return html`<div class="page-head"><h1>Insights: ${view.siteTitle}</h1></div>
    <p class="muted small">What readers did on the published site. No cookie is set and no address is kept: a visitor is a hash changed every day. Agents (pages as Markdown, llms.txt, llms-full.txt, the MCP endpoint, and known crawlers and assistants) are counted apart from browsers. Kept ${view.retentionDays} days.${view.enabled ? "" : " Counting is off on this server (QUIRE_INSIGHTS=false): nothing new is counted."}</p>
    <form method="get" action="${view.base}" class="actions" aria-label="Choose the days shown">
      <label>Period <select name="days">${choices}</select></label> <button type="submit">Show</button>
    </form>
    <div class="figures">
      ${figure("Views by browsers", t.views.browser, `${plural(t.visitors.browser, "visitor")}, each counted once a day`)}
      ${figure("Reads by agents", t.views.agent, `${plural(t.visitors.agent, "agent")}, each counted once a day`)}
      ${figure("Searches", t.searches, `${plural(t.searchesWithoutResult, "search", "searches")} found nothing`)}
      ${figure("Questions asked", t.questions, `${t.unanswered.toLocaleString("en")} not answered by the docs`)}
    </div>
    <section class="card" aria-labelledby="views-h"><h2 id="views-h" style="margin-top:0">Views over time</h2>${chart(insights)}</section>
    <section class="card" aria-labelledby="agents-h"><h2 id="agents-h" style="margin-top:0">Browsers and agents</h2>
      ${table("Browsers and agents", ["Where", "Who", "Views"], sources, "Nothing read in these days.")}
      <h3 id="agent-names-h">Agents by name</h3>
      ${agents}</section>
    <section class="card" aria-labelledby="pages-h"><h2 id="pages-h" style="margin-top:0">Pages read most</h2>
      ${table("Pages read most", ["Page", "Browsers", "Agents"], pages, "No page read in these days.")}</section>
    <section class="card" aria-labelledby="broken-h"><h2 id="broken-h" style="margin-top:0">Addresses that found no page</h2>
      <p class="small muted">Addresses of the site that readers asked for and that showed "page not found": an old link to mend, or a page to redirect (the site's redirects).</p>
      ${broken}</section>
    <section class="card" aria-labelledby="referrers-h"><h2 id="referrers-h" style="margin-top:0">Sites readers came from</h2>
      <p class="small muted">The site a reader followed a link from, as their browser said; moves between the site's own pages are left out.</p>
      ${referrers}</section>
    <section class="card" aria-labelledby="searches-h"><h2 id="searches-h" style="margin-top:0">Searches</h2>
      ${table("Searches", ["Search", "Times", "Without result"], insights.searches.map(searchRow), "No search in these days.")}
      <h3 id="no-result-h">Searches that found nothing</h3>
      ${table("Searches", ["Search", "Times", "Without result"], insights.searchesWithoutResult.map(searchRow), "Every search found something.")}</section>
    <section class="card" aria-labelledby="questions-h"><h2 id="questions-h" style="margin-top:0">Questions asked</h2>
      ${table("Questions asked", ["Question", "Asked", "Not answered", "Last asked"], questions, "No question asked in these days.")}
      <h3 id="unanswered-h">Questions the docs did not answer</h3>
      ${table("Questions the docs did not answer", ["Question", "Not answered", "Last asked"], unanswered, "The docs answered every question.")}</section>
    <section class="card" aria-labelledby="feedback-h"><h2 id="feedback-h" style="margin-top:0">Page feedback</h2>
      ${table("Page feedback", ["Page", "Yes", "Somewhat", "No", "Helpful"], feedback, 'No answer to "Was this page helpful?" in these days.')}</section>`;
}
