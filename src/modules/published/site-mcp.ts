/**
 * The MCP source of a published site for one reader: the site's own listing, Markdown and search
 * (site-pages.ts), so the MCP server sees exactly what the reader sees on the site (hidden pages
 * and failing conditions left out, links pointing at the site's URLs).
 */
import type { Deps } from "../../deps.js";
import type { LayoutContext } from "./layout.js";
import { pageHref } from "./layout.js";
import type { McpPage, SiteMcpSource } from "./mcp.js";
import { allListedPages, pageMarkdown, searchSite } from "./site-pages.js";
import { resolvePath } from "./site-view.js";

/** Redirects followed when a tool names an old path (a section renamed twice, ...). */
const MAX_REDIRECTS = 5;

export function siteMcpSource(
  deps: Deps,
  ctx: LayoutContext & { origin: string },
  redirects: readonly { fromPath: string; targetType: string; targetId: string }[],
): SiteMcpSource {
  const siteUrl = `${ctx.origin}${ctx.base}`;
  const fromRoot = (href: string) => (href.startsWith(ctx.base) ? href.slice(ctx.base.length) : href).replace(/^\/+|\/+$/g, "");
  const decoded = (path: string) => {
    try {
      return decodeURIComponent(path);
    } catch {
      return path;
    }
  };
  return {
    site: { title: ctx.view.site.title, url: siteUrl },
    async listPages() {
      return allListedPages(ctx.view, ctx.reader).map(({ variant, pageId, page }): McpPage => {
        const href = pageHref(ctx, variant, pageId);
        return {
          title: page.title,
          path: decoded(fromRoot(href)),
          url: `${ctx.origin}${href}`,
          description: page.description ?? undefined,
          section: variant.section?.title ?? (ctx.view.variants.size > 1 ? variant.siteSpace.space.title : undefined),
        };
      });
    },
    async readPage(path) {
      let segments = path.split("/").filter((s) => s !== "");
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const resolution = resolvePath(ctx.view, segments, ctx.reader, redirects);
        if (resolution.kind === "not-found") return undefined;
        if (resolution.kind === "redirect") {
          segments = resolution.path.split("/").filter((s) => s !== "");
          continue;
        }
        const { variant, pageId } = resolution;
        const page = variant.pages.get(pageId)?.page;
        if (!page) return undefined;
        return {
          title: page.title,
          url: `${ctx.origin}${pageHref(ctx, variant, pageId)}`,
          markdown: await pageMarkdown(deps, { ...ctx, variant }, variant, pageId),
        };
      }
      return undefined;
    },
    async search(query, limit) {
      const results = await searchSite(deps, ctx, query, limit);
      return results.map((r) => ({
        title: r.title,
        url: `${ctx.origin}${r.href}`,
        path: decoded(fromRoot(r.href)),
        snippet: r.sections
          .map((s) => s.snippet)
          .filter(Boolean)
          .join(" … "),
      }));
    },
  };
}
