/**
 * The Assertion Consumer Service (HTTP-POST): validates the identity provider's answer, signs the
 * person in (or creates their account, just in time), and hands the browser a sealed ticket to
 * complete the sign-in under /app, where its session cookie goes (complete.handler.ts).
 */
import Type from "typebox";
import { isUniqueViolation } from "../../../../db/dialect.js";
import { conflicting } from "../../../../lib/errors.js";
import { signInWithSaml } from "../../../../modules/saml/saml.service.js";
import { sealTicket } from "../../../../modules/saml/saml-ticket.model.js";
import { publicHandler } from "../../web.kinds.js";
import { safeNext } from "../../web.session.js";
import { ProviderParams } from "./saml.schemas.js";
import { requireActiveProvider, samlServiceProvider, ticketKey } from "./saml.steps.js";

const schema = {
  params: ProviderParams,
  body: Type.Object({
    SAMLResponse: Type.String({ minLength: 1, maxLength: 512 * 1024 }),
    RelayState: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
};

export const samlAssertionConsumer = publicHandler(schema, async (request, reply, deps) => {
  const provider = await requireActiveProvider(deps.db, request.params.providerId);
  const { user, requestId, subject } = await deps.db
    .transaction()
    .execute(async (trx) => {
      const identity = await (await samlServiceProvider()).consumeResponse(trx, deps.urls, provider, request.body.SAMLResponse);
      return { ...(await signInWithSaml(trx, provider, identity)), requestId: identity.requestId, subject: identity.subject };
    })
    .catch((err: unknown) => {
      // Two first sign-ins of the same new address at once: one creates the account, the other loses the race.
      if (isUniqueViolation(err)) throw conflicting("Your account was being created by another sign-in at the same moment. Sign in again.");
      throw err;
    });
  const ticket = sealTicket(ticketKey(deps.secret), {
    userId: user.id,
    providerId: provider.id,
    orgId: provider.orgId,
    requestId,
    next: safeNext(request.body.RelayState),
    subject,
  });
  return reply.redirect(`/app/saml/${encodeURIComponent(provider.id)}/complete?ticket=${encodeURIComponent(ticket)}`, 303);
});
