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
import type { FastifyBaseLogger } from "fastify";
import Type from "typebox";
import { isUniqueViolation } from "../../db/dialect.js";
import type { Deps } from "../../deps.js";
import { conflicting, invalid, missing, notAllowed } from "../../lib/errors.js";
import { samlProviderStatus } from "../saml/saml.presenter.js";
import { getSamlProviderById } from "../saml/saml.queries.js";
import { signInWithSaml } from "../saml/saml.service.js";
import { openTicket, sealTicket } from "../saml/saml.ticket.js";
import { html, page } from "./web.html.js";
import { deleteSamlSessions } from "./web.queries.js";
import { type SignedInWith, safeNext, startSession } from "./web.session.js";

/** node-saml and its XML signature stack are ~15 MB resident: loaded by the first SAML request. */
const samlServiceProvider = () => import("../saml/saml.sp.js");
const samlSingleLogout = () => import("../saml/saml.slo.js");

/**
 * Where to send a member who just signed out (their session is already ended): the identity
 * provider's single logout with a signed LogoutRequest, when the session was opened by a SAML
 * assertion of a provider that has a single logout URL; undefined otherwise, or when the request
 * cannot be made (the member is signed out of Quire all the same).
 */
export async function samlLogoutUrl(
  deps: Deps,
  via: SignedInWith | undefined,
  log: FastifyBaseLogger,
): Promise<{ url: string; label: string } | undefined> {
  if (via?.method !== "saml" || !via.subject) return undefined;
  try {
    const provider = await getSamlProviderById(deps.db, via.providerId);
    if (!provider?.sloUrl || samlProviderStatus(provider) !== "active") return undefined;
    return { url: await (await samlSingleLogout()).logoutRequestUrl(deps.db, deps.urls, provider, via.subject), label: provider.label };
  } catch (err) {
    log.warn({ err, providerId: via.providerId }, "could not start SAML single logout; signed out of Quire only");
    return undefined;
  }
}

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
      const { user, requestId, subject } = await db
        .transaction()
        .execute(async (trx) => {
          const identity = await (await samlServiceProvider()).consumeResponse(trx, urls, provider, request.body.SAMLResponse);
          return { ...(await signInWithSaml(trx, provider, identity)), requestId: identity.requestId, subject: identity.subject };
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
        subject,
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
      await startSession(request, ticket.userId, {
        method: "saml",
        orgId: ticket.orgId,
        providerId: ticket.providerId,
        ...(ticket.subject ? { subject: ticket.subject } : {}),
      });
      request.log.info({ userId: ticket.userId, providerId: ticket.providerId }, "signed in with SAML");
      return reply.redirect(ticket.next, 303);
    },
  );

  const SloQuery = Type.Object({
    SAMLRequest: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
    SAMLResponse: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
    RelayState: Type.Optional(Type.String({ maxLength: 2000 })),
    SigAlg: Type.Optional(Type.String({ maxLength: 200 })),
    Signature: Type.Optional(Type.String({ maxLength: 4000 })),
  });

  // Single logout, HTTP-Redirect binding: the IdP's LogoutRequest (it ends sessions here) or its
  // LogoutResponse to the LogoutRequest sent at sign-out (see ../saml/saml.slo.ts).
  app.get("/saml/:providerId/slo", { schema: { hide: true, params: ProviderParams, querystring: SloQuery } }, async (request, reply) => {
    const provider = await activeProvider(request.params.providerId);
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
    const again = html`<p><a href="/app/login?org=${provider.orgId}">Sign in again</a></p>`;
    if (message.type === "request") {
      request.log.info({ providerId: provider.id, sessions: message.ended }, "SAML single logout requested by the identity provider");
      if (provider.sloUrl) return reply.redirect(slo.logoutResponseUrl(db, urls, provider, message.id, message.relayState), 302);
      return reply
        .type("text/html; charset=utf-8")
        .send(page("Signed out", html`<h1>Signed out</h1><p>${provider.label} signed you out of Quire.</p>${again}`));
    }
    const body = message.success
      ? html`<h1>Signed out</h1><p>You are signed out of Quire and of ${provider.label}.</p>${again}`
      : html`<h1>Signed out</h1><p>You are signed out of Quire. ${provider.label} answered that it could not end your session there (${message.status}); close the browser to be sure.</p>${again}`;
    return reply.type("text/html; charset=utf-8").send(page("Signed out", body));
  });

  // Only the HTTP-Redirect binding is spoken here: an IdP set up to POST its logout messages is told so.
  app.post("/saml/:providerId/slo", { schema: { hide: true, params: ProviderParams } }, async (request) => {
    await activeProvider(request.params.providerId);
    throw invalid(
      "This single logout endpoint speaks the HTTP-Redirect binding only (as the SP metadata says); " +
        "set the identity provider to send logout messages by redirect (GET).",
    );
  });
};
