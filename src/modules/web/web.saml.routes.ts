/**
 * The browser side of SAML sign-in, outside /v1 (no API token): the service provider's metadata,
 * the SP-initiated start (AuthnRequest by HTTP-Redirect, RelayState = where the member was going),
 * the Assertion Consumer Service (HTTP-POST) that validates the answer, and the completion in the
 * browser that started the sign-in, which opens the session (see ../saml/saml.ticket.ts). It lives
 * with the web app, whose sessions it opens, so that saml/ does not import web/ back.
 * Registered inside the web app's context, which provides sessions.
 */
import { createHmac } from "node:crypto";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import { isUniqueViolation } from "../../db/dialect.js";
import type { Deps } from "../../deps.js";
import { conflicting, invalid, missing, notAllowed } from "../../lib/errors.js";
import { samlProviderStatus } from "../saml/saml.presenter.js";
import { getSamlProviderById } from "../saml/saml.queries.js";
import { signInWithSaml } from "../saml/saml.service.js";
import { openTicket, sealTicket } from "../saml/saml.ticket.js";
import { safeNext, startSession } from "./web.session.js";

/** node-saml and its XML signature stack are ~15 MB resident: loaded by the first SAML request. */
const samlServiceProvider = () => import("../saml/saml.sp.js");

const ProviderParams = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });

export const samlFlowRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;
  const ticketKey = createHmac("sha256", deps.secret).update("quire saml sign-in ticket").digest("hex");

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
    return reply
      .type("application/samlmetadata+xml; charset=utf-8")
      .send((await samlServiceProvider()).serviceProviderMetadata(urls, provider));
  });

  app.get(
    "/saml/:providerId/start",
    { schema: { hide: true, params: ProviderParams, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) }) } },
    async (request, reply) => {
      const provider = await activeProvider(request.params.providerId);
      const { url, requestId } = await (await samlServiceProvider()).startSignIn(db, urls, provider, safeNext(request.query.next));
      // This browser started this request: only it may complete the sign-in that answers it.
      request.session.set("samlRequest", { providerId: provider.id, requestId });
      return reply.header("cache-control", "no-store").redirect(url, 302);
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
      const { user, requestId } = await db
        .transaction()
        .execute(async (trx) => {
          const identity = await (await samlServiceProvider()).consumeResponse(trx, urls, provider, request.body.SAMLResponse);
          return { ...(await signInWithSaml(trx, provider, identity)), requestId: identity.requestId };
        })
        .catch((err: unknown) => {
          // Two first sign-ins of the same new address at once: one creates the account, the other loses the race.
          if (isUniqueViolation(err))
            throw conflicting("Your account was being created by another sign-in at the same moment. Sign in again.");
          throw err;
        });
      const ticket = sealTicket(ticketKey, {
        userId: user.id,
        providerId: provider.id,
        orgId: provider.orgId,
        requestId,
        next: safeNext(request.body.RelayState),
      });
      return reply.redirect(`/saml/${encodeURIComponent(provider.id)}/complete?ticket=${encodeURIComponent(ticket)}`, 303);
    },
  );

  app.get(
    "/saml/:providerId/complete",
    {
      schema: { hide: true, params: ProviderParams, querystring: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 4000 }) }) },
    },
    async (request, reply) => {
      const ticket = openTicket(ticketKey, request.query.ticket);
      if (!ticket || ticket.providerId !== request.params.providerId) {
        throw invalid("This sign-in has expired or its link is damaged. Start signing in again.");
      }
      const started = request.session.get("samlRequest");
      if (started?.requestId !== ticket.requestId || started.providerId !== ticket.providerId) {
        throw notAllowed(
          "This sign-in was not started in this browser, or was already completed. Start signing in again from the sign-in page.",
        );
      }
      await startSession(request, ticket.userId, { method: "saml", orgId: ticket.orgId, providerId: ticket.providerId });
      request.log.info({ userId: ticket.userId, providerId: ticket.providerId }, "signed in with SAML");
      return reply.redirect(ticket.next, 303);
    },
  );
};
