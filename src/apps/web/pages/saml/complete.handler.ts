/**
 * The sign-in's completion in the browser that started it, under /app: the browser brings the
 * session it may already have, which the new one replaces (see modules/saml/saml-ticket.model.ts).
 */
import Type from "typebox";
import { invalid, notAllowed } from "../../../../lib/errors.js";
import { openTicket } from "../../../../modules/saml/saml-ticket.model.js";
import { publicHandler } from "../../web.kinds.js";
import { startSession, takeSamlRequest } from "../../web.session.js";
import { ProviderParams } from "./saml.schemas.js";
import { ticketKey } from "./saml.steps.js";

const schema = { params: ProviderParams, querystring: Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 4000 }) }) };

export const samlComplete = publicHandler(schema, async (request, reply, deps) => {
  const ticket = openTicket(ticketKey(deps.secret), request.query.ticket);
  if (!ticket || ticket.providerId !== request.params.providerId) {
    throw invalid("This sign-in has expired or its link is damaged. Start signing in again.");
  }
  const started = takeSamlRequest(deps, request, reply);
  if (started?.requestId !== ticket.requestId || started.providerId !== ticket.providerId) {
    throw notAllowed(
      "This sign-in was not started in this browser, or was already completed. Start signing in again from the sign-in page.",
    );
  }
  await startSession(deps, request, reply, ticket.userId, {
    method: "saml",
    orgId: ticket.orgId,
    providerId: ticket.providerId,
    ...(ticket.subject ? { subject: ticket.subject } : {}),
  });
  request.log.info({ userId: ticket.userId, providerId: ticket.providerId }, "signed in with SAML");
  return reply.redirect(ticket.next, 303);
});
