/** The site's MCP endpoint (`<site>/~quire/mcp`, GET, POST and DELETE): one request over the reader's pages. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { siteMcpSource } from "../mcp-source.steps.js";
import { plainNotFound, type SiteRequest, visitOf } from "../site.steps.js";

export const mcpHandler = async (request: FastifyRequest, reply: FastifyReply, { app, ctx, site }: SiteRequest) => {
  if (!app.mcp) return plainNotFound(reply);
  // A POST is a message of the protocol (a tool called, a list asked for): the agent's read.
  if (request.method === "POST") app.insights?.view(visitOf(request, site), "mcp");
  await app.mcp(
    request,
    reply,
    siteMcpSource(app.deps, ctx, { site, ip: request.ip, visit: visitOf(request, site), insights: app.insights }),
  );
  return reply;
};
