/**
 * The API reference page (Swagger UI) under /reference, loaded by its first request, not at start:
 * registering @fastify/swagger-ui reads its files and loads @fastify/static, yaml and their
 * dependencies (~100 ms of CPU at each start). The routes here answer from a small Fastify
 * instance made on first use, which holds Swagger UI over this app's OpenAPI document; its answer
 * goes out through this app's reply, so this app's hooks (request id, rate limits...) apply as on
 * every route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { lazily } from "../lib/lazy.js";

// Headers of the inner answer that this app's reply sets itself.
const OWN_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "date", "keep-alive"]);

export function registerApiReference(app: FastifyInstance, options: { routePrefix: string; uiConfig: Record<string, unknown> }): void {
  const reference = lazily(async () => {
    const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
      import("fastify"),
      import("@fastify/swagger"),
      import("@fastify/swagger-ui"),
    ]);
    const inner = Fastify({ routerOptions: { maxParamLength: 500 } });
    // This app's document, as /openapi.json serves it (every route is registered by then).
    await inner.register(swagger, { mode: "static", specification: { document: app.swagger() as never } });
    await inner.register(swaggerUi, { routePrefix: options.routePrefix, uiConfig: options.uiConfig });
    await inner.ready();
    return inner;
  });

  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await reference();
    const headers = { ...request.headers };
    delete headers.host;
    // HEAD asks the inner app for the whole answer: this reply sends its headers (length included) without the body.
    const res = await inner.inject({ method: "GET", url: request.url, headers });
    // Not found, and any other refusal, answer as every route of this app does.
    if (res.statusCode === 404) return reply.callNotFound();
    if (res.statusCode >= 400) {
      let message = "The API reference could not answer this request.";
      try {
        message = (res.json() as { message?: string }).message ?? message;
      } catch {}
      return reply.code(res.statusCode).send({ error: { code: res.statusCode, message } });
    }
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !OWN_HEADERS.has(name.toLowerCase())) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  const route = { config: { public: true }, schema: { hide: true } };
  app.get(options.routePrefix, route, answer);
  app.get(`${options.routePrefix}/*`, route, answer);
}
