/** The search results page: what the header's box opens without script, and its "all results" link. */
import { orgHandler } from "../../web.kinds.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { SearchRequest } from "./search.schemas.js";
import { findPages } from "./search.steps.js";
import { searchBody } from "./search.views.js";

const PAGE_RESULTS = 50;

export const searchPage = orgHandler(SearchRequest, async (request, reply, ctx) => {
  const query = (request.query.q ?? "").trim();
  const results = await findPages(ctx, query, PAGE_RESULTS);
  return sendOrgPage(reply, ctx, {
    title: query ? `Search: ${query}` : "Search",
    body: searchBody({ org: ctx.org.id, query, results }),
    crumbs: [orgCrumb(ctx), { label: "Search" }],
    search: query,
  });
});
