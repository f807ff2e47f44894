/**
 * The audit log's side of HTTP: every route that may change something (a POST, PUT, PATCH or
 * DELETE, and the sign-in routes a browser reaches by GET) runs its handler in an audit scope
 * (db/audit.ts) that owes the route's entry. The scope is opened as each route is registered
 * (`onRoute`), so a new route is audited without a line of its own; one that changes nothing
 * durable says so in its `config.audit.skip`, with the reason. The entry is written by the
 * request's first committed transaction (a single-statement write opens one), else, when nothing
 * was written, before the answer is sent (`onSend`); an answer of
 * 400 or more drops the route's entry (nothing changed), and writes the route's `failure` entry
 * instead where it has one (a failed sign-in).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { type AuditActor, AuditScope, type AuditSource, flushAudit, inAuditScope, organizationsOfParams, SECRET_KEY } from "../db/audit.js";
import type { Db } from "../db/database.js";

export interface RouteAudit {
  /** The action of the route's entry; by default its operationId, or one made from its path. */
  action?: string;
  /** The handler records its own, more precise entries (`recordAudit`): no generic one. */
  explicit?: true;
  /** The action recorded when the route fails (a failed sign-in). */
  failure?: string;
  /** Why the route records nothing: what it does is not a durable change. */
  skip?: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    audit?: RouteAudit;
  }
  interface FastifyRequest {
    /** Who calls, when a route's own authentication knows it (a SCIM token and its organization). */
    auditCaller?: { actor: AuditActor; orgId?: string };
    auditScope?: AuditScope;
    auditError?: string;
  }
}

export const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Actions with a label, for listOrganizationAuditEventActions: every audited route's, and those code records. */
const catalogue = new Map<string, string>([
  ["sign_in", "Signed in"],
  ["sign_in.failed", "Failed sign-in"],
  ["sign_out", "Signed out"],
  ["api_token.created", "API token created"],
  ["api_token.revoked", "API token revoked"],
  ["login_link.created", "Sign-in link created"],
  ["scim_token.created", "SCIM token created"],
  ["scim_token.revoked", "SCIM token revoked"],
  ["user.created", "User created"],
  ["user.verified", "User's email address vouched for by the operator"],
  ["organization.created", "Organization created"],
]);

export function auditActionCatalogue(): ReadonlyMap<string, string> {
  return catalogue;
}

/** Adds an action code records (a CLI command's) to the catalogue. */
export function declareAuditAction(action: string, label: string): void {
  catalogue.set(action, label);
}

const SEGMENT_NAMES: Record<string, string> = { c: "collections", s: "spaces", p: "pages" };

/** The action of a route's entry (undefined for a route that records nothing). */
export function auditActionOf(route: Pick<RouteOptions, "method" | "url" | "schema" | "config">): string | undefined {
  const audit = (route.config as { audit?: RouteAudit } | undefined)?.audit;
  const methods = [route.method].flat().map(String);
  if (audit?.skip) return undefined;
  if (!audit && !methods.some((m) => WRITE_METHODS.has(m))) return undefined;
  if (audit?.action) return audit.action;
  const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
  if (operationId) return operationId;
  const words = route.url
    .split("/")
    .filter((s) => s !== "" && !s.startsWith(":") && s !== "~" && s !== "o" && s !== "v2" && s !== "*")
    .map((s) => SEGMENT_NAMES[s] ?? s.toLowerCase());
  const method = methods.find((m) => WRITE_METHODS.has(m)) ?? methods[0] ?? "GET";
  return [...words, ...(method === "POST" || method === "GET" ? [] : [method.toLowerCase()])].join(".");
}

function labelOf(route: RouteOptions, action: string): string {
  const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
  if (operationId === action) {
    const words = action.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }
  return `${[route.method].flat().join(", ")} ${route.url}`;
}

function sourceOf(url: string): AuditSource {
  if (url.startsWith("/v1/")) return "api";
  if (url.startsWith("/scim/")) return "integration";
  return "ui";
}

function apiActor(request: FastifyRequest): AuditActor | undefined {
  const actor = request.actor;
  if (!actor) return undefined;
  return { type: "user", id: actor.user.id, label: actor.user.email, tokenId: actor.tokenId };
}

const MAX_USER_AGENT = 500;

/** Opens an audit scope for every route that may change something. Call before any route is registered. */
export function registerAudit(app: FastifyInstance, db: Db): void {
  app.addHook("onRoute", (route) => {
    const action = auditActionOf(route);
    if (!action) return;
    const audit = route.config?.audit;
    catalogue.set(action, catalogue.get(action) ?? labelOf(route, action));
    if (audit?.failure) catalogue.set(audit.failure, catalogue.get(audit.failure) ?? audit.failure);

    const open = async (request: FastifyRequest) => {
      const params = (request.params ?? {}) as Record<string, string>;
      const scope = new AuditScope(
        {
          source: sourceOf(route.url),
          address: request.ip,
          userAgent: request.headers["user-agent"]?.slice(0, MAX_USER_AGENT) ?? null,
          requestId: request.id,
        },
        audit?.explicit
          ? undefined
          : { action, url: route.url, params, body: request.body, orgIds: await organizationsOfParams(db, params) },
      );
      scope.actorOf = () => apiActor(request);
      if (request.auditCaller) {
        scope.actor = request.auditCaller.actor;
        scope.orgId = request.auditCaller.orgId;
      }
      request.auditScope = scope;
    };
    const written = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const scope = request.auditScope;
      if (!scope) return payload;
      if (reply.statusCode >= 400) {
        scope.dropRouteEntry();
        if (audit?.failure) {
          const params = Object.fromEntries(
            Object.entries((request.params ?? {}) as Record<string, string>).filter(([k]) => !SECRET_KEY.test(k)),
          );
          const providerId = params.providerId;
          scope.record({
            action: audit.failure,
            target: providerId ? { type: "identity-provider", id: providerId } : { type: "sign-in", id: route.url },
            payload: { params, status: reply.statusCode, reason: request.auditError ?? null },
          });
        }
      }
      await flushAudit(db, scope);
      return payload;
    };
    route.preHandler = [...[route.preHandler ?? []].flat(), open];
    route.onSend = [...[route.onSend ?? []].flat(), written];
    route.onError = [
      ...[route.onError ?? []].flat(),
      async (request: FastifyRequest, _reply: FastifyReply, error: Error) => {
        request.auditError = error.message.slice(0, 300);
      },
    ];
    const handler = route.handler;
    route.handler = function audited(this: FastifyInstance, request, reply) {
      const scope = request.auditScope;
      return scope ? inAuditScope(scope, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    };
  });
}
