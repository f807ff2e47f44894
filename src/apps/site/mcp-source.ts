/**
 * The site's pages as the MCP server reads them (mcp.ts's SiteMcpSource), bound to one reader: the
 * pages they see listed, a page as Markdown by its path from the site's root, and search. Paths
 * always name the page (`<section>/<variant>/<page path>`), as the page's `.md` address does.
 */
import type { Deps } from "../../deps.js";
import type { LayoutContext } from "./layout.js";
import { siteHref } from "./layout.js";
import { allListedPages, markdownHref, pageMarkdown, searchSite } from "./site-pages.js";
import { pageMarkdownPath, resolvePath } from "./site-view.js";

export interface SitePagesForMcp {
  site: { title: string; url: string };
  listPages(): Promise<Array<{ title: string; path: string; url: string; description?: string | undefined; section?: string | undefined }>>;
  readPage(path: string): Promise<{ title: string; url: string; markdown: string } | undefined>;
  search(query: string, limit: number): Promise<Array<{ title: string; url: string; path: string; snippet: string }>>;
}

export function siteMcpSource(deps: Deps, ctx: LayoutContext & { origin: string }): SitePagesForMcp {
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
      return results.map((r) => ({
        title: r.title,
        url: absolute(r.href),
        path: r.href.slice(ctx.base.length + 1),
        snippet: r.sections[0]?.snippet ?? "",
      }));
    },
  };
}
