/** The header's search box asks this as one types: the pages found, as JSON (errors too, web.hooks.ts). */
import { orgHandler } from "../../web.kinds.js";
import { SearchRequest } from "./search.schemas.js";
import { findPages } from "./search.steps.js";

/** Results the box lists; the results page shows more. */
const BOX_RESULTS = 8;

export const searchJson = orgHandler(SearchRequest, async (request, reply, ctx) => {
  const items = await findPages(ctx, request.query.q ?? "", BOX_RESULTS);
  return reply.header("cache-control", "no-store").send({ items });
});
