/**
 * A one-time sign-in link (`quire users login-link`): opening it shows a button, and only the
 * posted form uses it, so a link preview or scanner that fetches the URL does not use it up.
 */
import Type from "typebox";
import { emailVerificationOf } from "../../../../modules/users/users.policy.js";
import { getUserById, setEmailVerification } from "../../../../modules/users/users.queries.js";
import { page } from "../../layout.views.js";
import { publicHandler } from "../../web.kinds.js";
import { peekLoginLink, useLoginLink } from "../../web.queries.js";
import { startSession } from "../../web.session.js";
import { sendHtml } from "../../web.steps.js";
import { LINK_USED_OR_EXPIRED, loginLinkBody } from "./home.views.js";

const schema = { params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }) };

export const loginLinkPage = publicHandler(schema, async (request, reply, deps) => {
  const userId = await peekLoginLink(deps.db, request.params.token);
  const user = userId ? await getUserById(deps.db, userId) : undefined;
  if (!user) return sendHtml(reply, 410, page("Sign-in link", LINK_USED_OR_EXPIRED));
  const body = loginLinkBody({ displayName: user.displayName, email: user.email, token: request.params.token, csrf: reply.generateCsrf() });
  return sendHtml(reply, 200, page("Sign in", body));
});

export const useLoginLinkForm = publicHandler(schema, async (request, reply, deps) => {
  const userId = await useLoginLink(deps.db, request.params.token);
  const user = userId ? await getUserById(deps.db, userId) : undefined;
  if (!user) return sendHtml(reply, 410, page("Sign-in link", LINK_USED_OR_EXPIRED));
  // The operator chose who gets the link: that vouches for an address nobody had verified (an
  // invited account's). An address an identity provider vouched for is left as it is: only
  // `quire users verify` takes an account out of that organization's hands.
  if (emailVerificationOf(user).via === null) await setEmailVerification(deps.db, user.id, { via: "sign-in-link" });
  await startSession(deps, request, reply, user.id, { method: "link" });
  return reply.redirect("/app", 303);
});
