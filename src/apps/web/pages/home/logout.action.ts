/** Signing out: Quire's session ends first, then the identity provider's single logout, when it has one. */

import { html } from "../../../../content/html/safe-html.js";
import { setAuditActor } from "../../../../db/audit.js";
import { page } from "../../layout.views.js";
import { publicHandler } from "../../web.kinds.js";
import { endSession } from "../../web.session.js";
import { sendHtml } from "../../web.steps.js";
import { samlLogoutUrl } from "../saml/saml.steps.js";
import { signingOutBody } from "./home.views.js";

export const logout = publicHandler({}, async (request, reply, deps) => {
  const via = request.session.get("signedInWith");
  const userId = request.session.get("userId");
  if (userId) setAuditActor({ type: "user", id: userId });
  await endSession(deps, request, reply);
  const idp = await samlLogoutUrl(deps, via, request.log);
  if (!idp) return reply.redirect("/app/login", 303);
  // A refresh, not a redirect: the form's CSP (form-action 'self') would stop a redirect to the IdP.
  const head = html`<meta http-equiv="refresh" content="0;url=${idp.url}">`;
  return sendHtml(reply, 200, page("Signing out", signingOutBody(idp), { head }));
});
