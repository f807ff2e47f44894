/** The site's fingerprinted assets (`<site>/~quire/assets/<name>`): the same for every reader, asked before any access decision. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { plainNotFound, type SiteApp, YEAR_SECONDS } from "../site.steps.js";

export const siteAsset = async (request: FastifyRequest, reply: FastifyReply, app: SiteApp, params: Record<string, string>) => {
  const asset = app.assets.files.get(params["*"] ?? "");
  if (!asset) return plainNotFound(reply);
  reply.header("cache-control", `public, max-age=${YEAR_SECONDS}, immutable`);
  return app.encodings.send(request, reply, asset.file, asset.contentType, asset.body);
};
