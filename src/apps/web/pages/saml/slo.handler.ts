/**
 * Single logout, HTTP-Redirect binding: the IdP's LogoutRequest (it ends the sessions it names
 * here) or its LogoutResponse to the LogoutRequest sent at sign-out (see modules/saml/saml-slo.adapter.ts).
 */
import { invalid } from "../../../../lib/errors.js";
import { page } from "../../layout.views.js";
import { publicHandler } from "../../web.kinds.js";
import { deleteSamlSessions } from "../../web.queries.js";
import { sendHtml } from "../../web.steps.js";
import { ProviderParams, SloQuery } from "./saml.schemas.js";
import { requireActiveProvider, samlSingleLogout } from "./saml.steps.js";
import { signedOutBody } from "./saml.views.js";

export const samlLogout = publicHandler({ params: ProviderParams, querystring: SloQuery }, async (request, reply, deps) => {
  const { db, urls } = deps;
  const provider = await requireActiveProvider(db, request.params.providerId);
  const question = request.url.indexOf("?");
  const rawQuery = question < 0 ? "" : request.url.slice(question + 1);
  const slo = await samlSingleLogout();
  const message = await db.transaction().execute(async (trx) => {
    const received = await slo.receiveLogoutMessage(trx, urls, provider, rawQuery);
    if (received.type === "response") return { ...received, ended: 0 };
    const ended = await deleteSamlSessions(trx, {
      providerId: provider.id,
      nameId: received.nameId,
      sessionIndexes: received.sessionIndexes,
    });
    return { ...received, ended };
  });
  reply.header("cache-control", "no-store");
  if (message.type === "request") {
    request.log.info({ providerId: provider.id, sessions: message.ended }, "SAML single logout requested by the identity provider");
    if (provider.sloUrl) return reply.redirect(slo.logoutResponseUrl(db, urls, provider, message.id, message.relayState), 302);
  }
  return sendHtml(reply, 200, page("Signed out", signedOutBody(provider, message)));
});

// Only the HTTP-Redirect binding is spoken here: an IdP set up to POST its logout messages is told so.
export const samlLogoutPosted = publicHandler({ params: ProviderParams }, async (request, _reply, deps) => {
  await requireActiveProvider(deps.db, request.params.providerId);
  throw invalid(
    "This single logout endpoint speaks the HTTP-Redirect binding only (as the SP metadata says); " +
      "set the identity provider to send logout messages by redirect (GET).",
  );
});
