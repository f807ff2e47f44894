/**
 * The site's pages as the MCP server reads them (mcp.ts's SiteMcpSource), bound to one reader: the
 * pages they see listed, a page as Markdown by its path from the site's root, and search. Paths
 * always name the page (`<section>/<variant>/<page path>`), as the page's `.md` address does.
 */
import type { SiteRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import type { InsightsRecorder, Visit } from "../../modules/insights/recorder.service.js";
import type { FeedbackRating } from "../../modules/sites/feedback.queries.js";
import type { LayoutContext } from "./layout.views.js";
import { siteHref } from "./layout.views.js";
import { recordReaderFeedback } from "./pages/feedback.steps.js";
import { allListedPages, askSite, countQuestion, markdownHref, pageMarkdown, searchSite } from "./site-pages.steps.js";
import { pageMarkdownPath, resolvePath } from "./site-view.model.js";

export interface SitePagesForMcp {
  site: { title: string; url: string };
  listPages(): Promise<Array<{ title: string; path: string; url: string; description?: string | undefined; section?: string | undefined }>>;
  readPage(path: string): Promise<{ title: string; url: string; markdown: string } | undefined>;
  search(query: string, limit: number): Promise<Array<{ title: string; url: string; path: string; snippet: string }>>;
  ask(question: string): Promise<{ answered: boolean; markdown: string; sources: { title: string; url: string }[] }>;
  sendFeedback(path: string, rating: FeedbackRating): Promise<{ recorded: true } | { recorded: false; message: string }>;
}

/** Who is calling: the site, and the address a rating is counted against. */
export interface McpCaller {
  site: SiteRow;
  ip: string;
  /** Who calls, as insights count them; the searches and questions of the agent are counted there. */
  visit?: Visit;
  insights?: InsightsRecorder | undefined;
}

export function siteMcpSource(deps: Deps, ctx: LayoutContext & { origin: string }, caller: McpCaller): SitePagesForMcp {
  const { view, reader } = ctx;
  const absolute = (href: string) => `${ctx.origin}${href}`;
  const several = view.variants.size > 1;
  return {
    site: { title: view.site.title, url: absolute(siteHref(ctx, "")) },
    async listPages() {
      return allListedPages(view, reader).map(({ variant, pageId, page }) => ({
        title: page.title,
        path: pageMarkdownPath(variant, pageId),
        url: absolute(siteHref(ctx, pageMarkdownPath(variant, pageId))),
        description: page.description,
        section: several ? [variant.section?.title, variant.siteSpace.space.title].filter(Boolean).join(" / ") : undefined,
      }));
    },
    async readPage(path: string) {
      const segments = path.split("/").filter((s) => s !== "");
      const resolution = resolvePath(view, segments, reader, []);
      if (resolution.kind !== "page") return undefined;
      const { variant, pageId } = resolution;
      const page = variant.pages.get(pageId)?.page;
      if (!page) return undefined;
      const markdown = await pageMarkdown(deps, { ...ctx, variant, pageId }, variant, pageId);
      return { title: page.title, url: absolute(markdownHref(ctx, variant, pageId).replace(/\.md$/, "")), markdown };
    },
    async search(query: string, limit: number) {
      // One snippet per result: the first section's.
      const results = await searchSite(deps, ctx, query, limit, 1);
      if (caller.visit) caller.insights?.search(caller.visit, query, results.length, false);
      return results.map((r) => ({
        title: r.title,
        url: absolute(r.href),
        path: r.href.slice(ctx.base.length + 1),
        snippet: r.sections[0]?.snippet ?? "",
      }));
    },
    async ask(question: string) {
      const answer = await askSite(deps, ctx, question);
      countQuestion(caller.insights, caller.site.id, answer, "api");
      return {
        answered: answer.answered,
        markdown: answer.markdown,
        sources: answer.citations.map((c) => ({
          title: c.section && c.section !== c.title ? `${c.title} > ${c.section}` : c.title,
          url: absolute(c.href),
        })),
      };
    },
    async sendFeedback(path: string, rating: FeedbackRating) {
      const resolution = resolvePath(
        view,
        path.split("/").filter((s) => s !== ""),
        reader,
        [],
      );
      const outcome = await recordReaderFeedback(deps, {
        site: caller.site,
        view,
        reader,
        variant: resolution.kind === "page" ? resolution.variant : undefined,
        pageId: resolution.kind === "page" ? resolution.pageId : "",
        rating,
        ip: caller.ip,
        // An agent keeps no cookie: its address stands for it (one rating per address, page and day).
        voter: `mcp\n${caller.ip}`,
      });
      if (outcome.recorded) return outcome;
      return { recorded: false as const, message: outcome.status === 404 ? `${outcome.message} (${path})` : outcome.message };
    },
  };
}
