/** The site's MCP endpoint (`<site>/~quire/mcp`, GET, POST and DELETE): one request over the reader's pages. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { siteMcpSource } from "../mcp-source.steps.js";
import { plainNotFound, type SiteRequest } from "../site.steps.js";

export const mcpHandler = async (request: FastifyRequest, reply: FastifyReply, { app, ctx, site }: SiteRequest) => {
  if (!app.mcp) return plainNotFound(reply);
  await app.mcp(request, reply, siteMcpSource(app.deps, ctx, { site, ip: request.ip }));
  return reply;
};
