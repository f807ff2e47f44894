/**
 * The browser side of SAML sign-in, outside /v1 (no API token): the service provider's metadata,
 * the SP-initiated start (AuthnRequest by HTTP-Redirect, RelayState = where the member was going),
 * and the Assertion Consumer Service (HTTP-POST) that validates the answer and opens a session.
 * Registered inside the web app's context, which provides sessions.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { Deps } from "../../deps.js";
import { invalid, missing } from "../../lib/errors.js";
import { safeNext, startSession } from "../web/web.session.js";
import { samlProviderStatus } from "./saml.presenter.js";
import { getSamlProviderById } from "./saml.queries.js";
import { signInWithSaml } from "./saml.service.js";
import { consumeResponse, serviceProviderMetadata, startUrl } from "./saml.sp.js";

const ProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });

export const samlFlowRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  async function activeProvider(providerId: string) {
    const provider = await getSamlProviderById(db, providerId);
    if (!provider) throw missing(`No SAML provider with id "${providerId}".`);
    if (samlProviderStatus(provider) !== "active") {
      throw invalid("This SAML provider is not fully configured yet (entity ID, SSO URL and certificate are needed).");
    }
    return provider;
  }

  app.get("/saml/:providerId/metadata", { schema: { hide: true, params: ProviderParams } }, async (request, reply) => {
    const provider = await getSamlProviderById(db, request.params.providerId);
    if (!provider) throw missing(`No SAML provider with id "${request.params.providerId}".`);
    return reply.type("application/samlmetadata+xml; charset=utf-8").send(serviceProviderMetadata(urls, provider.id));
  });

  app.get(
    "/saml/:providerId/start",
    { schema: { hide: true, params: ProviderParams, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }) } },
    async (request, reply) => {
      const provider = await activeProvider(request.params.providerId);
      const location = await startUrl(db, urls, provider, safeNext(request.query.next));
      return reply.header("cache-control", "no-store").redirect(location, 302);
    },
  );

  app.post(
    "/saml/:providerId/acs",
    {
      schema: {
        hide: true,
        params: ProviderParams,
        body: Type.Object({
          SAMLResponse: Type.String({ minLength: 1, maxLength: 512 * 1024 }),
          RelayState: Type.Optional(Type.String({ maxLength: 2000 })),
        }),
      },
    },
    async (request, reply) => {
      const provider = await activeProvider(request.params.providerId);
      const { user } = await db.transaction().execute(async (trx) => {
        const identity = await consumeResponse(trx, urls, provider, request.body.SAMLResponse);
        return signInWithSaml(trx, provider, identity);
      });
      await startSession(request, user.id, { method: "saml", orgId: provider.orgId, providerId: provider.id });
      request.log.info({ userId: user.id, providerId: provider.id }, "signed in with SAML");
      return reply.redirect(safeNext(request.body.RelayState), 303);
    },
  );
};
