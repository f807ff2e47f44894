/** What the site answers machines: llms.txt, llms-full.txt, sitemap.xml and robots.txt, built for the reader and kept. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { answer, robotsOf, type SiteRequest, sendKept, visitOf } from "../site.steps.js";
import { llmsFullTxt, llmsTxt, robotsTxt, sitemapXml } from "../site-pages.steps.js";

export const llmsTxtHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  site.app.insights?.view(visitOf(request, site.site), "llms.txt");
  return sendKept(request, reply, site, async () => answer(200, "text/plain; charset=utf-8", llmsTxt(site.ctx), robotsOf(site.reader)));
};

export const llmsFullTxtHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) => {
  site.app.insights?.view(visitOf(request, site.site), "llms-full.txt");
  return sendKept(request, reply, site, async () =>
    answer(200, "text/plain; charset=utf-8", await llmsFullTxt(site.app.deps, site.ctx), robotsOf(site.reader)),
  );
};

export const sitemapHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) =>
  sendKept(request, reply, site, async () => answer(200, "application/xml; charset=utf-8", sitemapXml(site.ctx), robotsOf(site.reader)));

export const robotsTxtHandler = async (request: FastifyRequest, reply: FastifyReply, site: SiteRequest) =>
  sendKept(request, reply, site, async () => answer(200, "text/plain; charset=utf-8", robotsTxt(site.ctx), robotsOf(site.reader)));
