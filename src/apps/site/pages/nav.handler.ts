/**
 * A sidebar branch for the toggle (`<site>/~quire/nav/<variant>/<fingerprint>?page=<href>`): built for
 * this reader like the page it came from. Its URL's fingerprint names the tree's content, so while
 * it matches the answer never changes.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { answer, plainNotFound, type SiteRequest, send, YEAR_SECONDS } from "../site.steps.js";
import { navBranch } from "../site-nav.views.js";
import { variantVisible } from "../site-view.model.js";

export const navBranchHandler = async (request: FastifyRequest, reply: FastifyReply, { app, view, reader, ctx, params }: SiteRequest) => {
  const variant = view.variants.get(params.variant ?? "");
  if (!variant || !variantVisible(view, variant, reader)) return plainNotFound(reply);
  const page = (request.query as Record<string, unknown> | undefined)?.page;
  if (typeof page !== "string" || page === "") return plainNotFound(reply);
  const branch = navBranch({ ...ctx, variant }, variant, page);
  if (!branch) return plainNotFound(reply);
  const lasting = `${reader.indexable && !reader.member ? "public" : "private"}, max-age=${YEAR_SECONDS}, immutable`;
  const fragment = answer(200, "text/html; charset=utf-8", branch.html, { "x-robots-tag": "noindex" });
  return send(request, reply, fragment, branch.fingerprint === params.fingerprint ? lasting : "private, no-cache", app);
};
