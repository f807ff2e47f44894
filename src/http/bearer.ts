/**
 * The API token a request carries (`Authorization: Bearer <token>`) and its SHA-256 hash, worked
 * out once per request: the rate limiter counts by the hash and authentication looks the token up
 * by it.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { hashToken } from "../lib/ids.js";

declare module "fastify" {
  interface FastifyRequest {
    /** `hashToken` of the request's bearer token once worked out (bearerHashOf); "" without one. */
    bearerHash: string | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Gives requests the field `bearerHashOf` keeps its answer in (once per application; harmless twice). */
export function registerBearer(app: FastifyInstance): void {
  if (!app.hasRequestDecorator("bearerHash")) app.decorateRequest("bearerHash", null);
}

/** The token of a well-formed `Authorization: Bearer <token>` header; undefined without one. */
export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  return BEARER.exec(header)?.[1];
}

/** `hashToken(bearerOf(request))`, computed once per request; undefined without a token. */
export function bearerHashOf(request: FastifyRequest): string | undefined {
  if (request.bearerHash === null || request.bearerHash === undefined) {
    const token = bearerOf(request);
    request.bearerHash = token === undefined ? "" : hashToken(token);
  }
  return request.bearerHash === "" ? undefined : request.bearerHash;
}
