/** The service provider's metadata for an identity provider's administrator (any provider, configured or not). */
import { missing } from "../../../../lib/errors.js";
import { getSamlProviderById } from "../../../../modules/saml/saml.queries.js";
import { publicHandler } from "../../web.kinds.js";
import { ProviderParams } from "./saml.schemas.js";
import { samlServiceProvider } from "./saml.steps.js";

export const samlMetadata = publicHandler({ params: ProviderParams }, async (request, reply, deps) => {
  const provider = await getSamlProviderById(deps.db, request.params.providerId);
  if (!provider) throw missing(`No SAML provider with id "${request.params.providerId}".`);
  return reply
    .type("application/samlmetadata+xml; charset=utf-8")
    .send((await samlServiceProvider()).serviceProviderMetadata(deps.urls, provider));
});
