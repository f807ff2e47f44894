/** Ask from the app: an answer written from the pages the member may read, with its sources (the API's askInOrganization). */
import { orgHandler } from "../../web.kinds.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { SearchRequest } from "./search.schemas.js";
import { askDocs } from "./search.steps.js";
import { askBody } from "./search.views.js";

export const askPage = orgHandler(SearchRequest, async (request, reply, ctx) => {
  const question = (request.query.q ?? "").trim();
  const answer = question ? await askDocs(ctx, question) : undefined;
  return sendOrgPage(reply, ctx, {
    title: question ? `Ask: ${question}` : "Ask",
    body: askBody({ org: ctx.org.id, question, answer }),
    crumbs: [orgCrumb(ctx), { label: "Ask" }],
  });
});
