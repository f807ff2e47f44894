/** The sign-in page: an organization's single sign-on, or how to get a one-time sign-in link. */
import Type from "typebox";
import { page } from "../../layout.views.js";
import { publicHandler } from "../../web.kinds.js";
import { safeNext } from "../../web.session.js";
import { sendHtml, signedInOf } from "../../web.steps.js";
import { singleSignOns } from "../saml/saml.steps.js";
import { loginBody } from "./home.views.js";

const schema = {
  querystring: Type.Object({
    next: Type.Optional(Type.String({ maxLength: 2000 })),
    org: Type.Optional(Type.String({ maxLength: 100 })),
  }),
};

export const loginPage = publicHandler(schema, async (request, reply, deps) => {
  const next = safeNext(request.query.next);
  if (await signedInOf(deps.db, request)) return reply.redirect(next, 303);
  const { org } = request.query;
  const signIns = org ? await singleSignOns(deps, org, encodeURIComponent(next)) : [];
  return sendHtml(reply, 200, page("Sign in", loginBody({ next, org, signIns })));
});
