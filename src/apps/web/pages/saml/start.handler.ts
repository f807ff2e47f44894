/** The SP-initiated sign-in: an AuthnRequest by HTTP-Redirect, RelayState = where the member was going. */
import Type from "typebox";
import { publicHandler } from "../../web.kinds.js";
import { rememberSamlRequest, safeNext } from "../../web.session.js";
import { ProviderParams } from "./saml.schemas.js";
import { requireActiveProvider, samlServiceProvider } from "./saml.steps.js";

const schema = { params: ProviderParams, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }) };

export const samlStart = publicHandler(schema, async (request, reply, deps) => {
  const provider = await requireActiveProvider(deps.db, request.params.providerId);
  const { url, requestId } = await (await samlServiceProvider()).startSignIn(deps.db, deps.urls, provider, safeNext(request.query.next));
  // This browser started this request: only it may complete the sign-in that answers it.
  rememberSamlRequest(deps, reply, { providerId: provider.id, requestId });
  return reply.header("cache-control", "no-store").redirect(url, 302);
});
