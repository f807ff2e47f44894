/**
 * A change request: its page-by-page and block-level diff against its base, comments in place,
 * reviews, conflicts and the merge verdict, with the actions as forms.
 */
import Type from "typebox";
import { changeRequestHandler } from "../../web.kinds.js";
import { sendOrgPage } from "../../web.steps.js";
import { CrParams, DoneQuery } from "./changes.schemas.js";
import { crumbTrail, NOTICES } from "./changes.views.js";
import { loadDetailView } from "./detail.steps.js";
import { detailPage } from "./detail.views.js";

const schema = { params: CrParams, querystring: Type.Object({ done: DoneQuery }) };

export const changeRequestPage = changeRequestHandler(schema, async (request, reply, ctx) => {
  const view = await loadDetailView(ctx, request.query.done ? NOTICES[request.query.done] : undefined);
  const cr = view.changeRequest;
  return sendOrgPage(reply, ctx, {
    title: `#${cr.number} ${cr.subject}`,
    body: detailPage(view),
    crumbs: crumbTrail(view.org, view.space, cr),
    wide: true,
  });
});
