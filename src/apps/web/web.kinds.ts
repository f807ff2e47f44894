/**
 * The kinds of handler the web app has, by what a request must have passed before the handler's
 * own work: nothing (public), a session (member), the organization in the address (org), or the
 * change request in the address too (changeRequest). Each handler file declares its kind with its
 * schema; the route table (web.routes.ts) says where it answers. The CSRF check of a form runs
 * before any of these (a preHandler the table adds to every POST that a browser of the app posts).
 */
import type { IncomingMessage } from "node:http";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest, FastifySchema, RawServerDefault, RouteGenericInterface } from "fastify";
import type { TObject, TString } from "typebox";
import { setAuditActor } from "../../db/audit.js";
import type { Deps } from "../../deps.js";
import {
  type ChangeRequestContext,
  type MemberContext,
  memberContext,
  type OrgContext,
  requireOrgChangeRequest,
  requireWebOrganization,
  signedInOf,
  toSignIn,
} from "./web.steps.js";

/** A handler as the route table registers it. */
export interface WebHandler {
  readonly schema: FastifySchema;
  run(request: FastifyRequest, reply: FastifyReply, deps: Deps): Promise<unknown>;
}

/** A request as a route with schema S receives it: params, query and body typed from the schema. */
export type SchemaRequest<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  IncomingMessage,
  S,
  TypeBoxTypeProvider
>;

type Run<S extends FastifySchema, C> = (request: SchemaRequest<S>, reply: FastifyReply, context: C) => Promise<unknown>;

// Fastify validated the request against the handler's schema before `run` is called: the casts
// below only give the handler that schema's types.

/** Anyone may call it (sign-in, SAML, static files): the handler makes its own checks. */
export function publicHandler<const S extends FastifySchema>(schema: S, run: Run<S, Deps>): WebHandler {
  return { schema, run: (request, reply, deps) => run(request as SchemaRequest<S>, reply, deps) };
}

/** A page or form of a signed-in member; a visitor without a session is sent to sign in. */
export function memberHandler<const S extends FastifySchema>(schema: S, run: Run<S, MemberContext>): WebHandler {
  return {
    schema,
    async run(request, reply, deps) {
      const signedIn = await signedInOf(deps.db, request);
      if (!signedIn) return toSignIn(request, reply);
      setAuditActor({ type: "user", id: signedIn.user.id, label: signedIn.user.email });
      return run(request as SchemaRequest<S>, reply, memberContext(deps, signedIn, reply));
    },
  };
}

type OrgSchema = FastifySchema & { params: TObject<{ org: TString }> };

/** ... of the organization in the address: 404 for outsiders, 403 where its SSO rule keeps the member out. */
export function orgHandler<const S extends OrgSchema>(schema: S, run: Run<S, OrgContext>): WebHandler {
  return memberHandler(schema, async (request, reply, member) => {
    const { org, access } = await requireWebOrganization(member.deps.db, member.signedIn, (request.params as { org: string }).org);
    return run(request as SchemaRequest<S>, reply, { ...member, org, access });
  });
}

type ChangeRequestSchema = FastifySchema & { params: TObject<{ org: TString; space: TString; number: TString }> };

/** ... of the change request in the address, loaded with the API's loader: 404 for what the member may not see. */
export function changeRequestHandler<const S extends ChangeRequestSchema>(schema: S, run: Run<S, ChangeRequestContext>): WebHandler {
  return orgHandler(schema, async (request, reply, ctx) => {
    const { space, number } = request.params as { space: string; number: string };
    const loaded = await requireOrgChangeRequest(ctx, space, number);
    return run(request as SchemaRequest<S>, reply, { ...ctx, loaded });
  });
}
