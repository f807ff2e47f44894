/**
 * A request's route options, worked out once per request. Fastify's `request.routeOptions` is a
 * getter that builds a new object (and asks the router about version constraints) on each read,
 * and the hooks every request passes through (the limiter, authentication, the body default) read
 * it several times.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** `request.routeOptions` once read (routeOptionsOf). */
    keptRouteOptions: FastifyRequest["routeOptions"] | null;
  }
}

/** Gives requests the field `routeOptionsOf` keeps its answer in (harmless twice). */
export function registerRouteOptions(app: FastifyInstance): void {
  if (!app.hasRequestDecorator("keptRouteOptions")) app.decorateRequest("keptRouteOptions", null);
}

/** `request.routeOptions`, read once per request (a request's route does not change once routed). */
export function routeOptionsOf(request: FastifyRequest): FastifyRequest["routeOptions"] {
  return (request.keptRouteOptions ??= request.routeOptions);
}
