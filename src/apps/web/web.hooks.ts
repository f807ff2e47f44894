/**
 * What every response of the web app gets: its security headers and content security policy, and
 * the error page (every error answers a page a person can act on, never the API's JSON).
 */
import type { FastifyError, FastifyInstance } from "fastify";
import { EMBED_FRAME_ORIGINS } from "../../content/html/index.js";
import { html } from "../../content/html/safe-html.js";
import { statusOfDomainError } from "../../http/error-handler.js";
import { HttpError } from "../../http/errors.js";
import { DomainError } from "../../lib/errors.js";
import { page } from "./layout.views.js";

/**
 * Page content (web.render.ts) needs the renderer's own stylesheets, scripts and fonts, inline
 * styles (widths, colors, and the diagrams mermaid draws), images from anywhere (as on the
 * published site), and the players of the embeds it knows. Scripts fetch from this origin only.
 * Nothing frames the app.
 */
const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  // The header's search and the editor's preview fetch from the app itself, never elsewhere.
  "connect-src 'self'",
  "img-src 'self' https: http: data:",
  `frame-src ${EMBED_FRAME_ORIGINS.join(" ")}`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

declare module "fastify" {
  interface FastifyContextConfig {
    /** An endpoint of a page's script: its errors answer JSON. */
    json?: boolean;
  }
}

export function registerWebHooks(app: FastifyInstance): void {
  app.addHook("onSend", (_request, reply, _payload, done) => {
    // Pages are never cached; the fingerprinted assets set their own (immutable) caching.
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-store");
    reply.header("x-frame-options", "DENY");
    reply.header("x-content-type-options", "nosniff");
    // Addresses of the app (organization, space and change request ids) stay on this host.
    reply.header("referrer-policy", "same-origin");
    reply.header("content-security-policy", APP_CONTENT_SECURITY_POLICY);
    done();
  });

  app.setErrorHandler((error: FastifyError | DomainError | HttpError, request, reply) => {
    let status = 500;
    let message = `Something went wrong (request ${request.id}). The server log has the details.`;
    const fastifyError = error as FastifyError;
    const clientStatus = fastifyError.statusCode ?? 500;
    if (error instanceof DomainError) [status, message] = [statusOfDomainError[error.kind], error.message];
    else if (error instanceof HttpError) [status, message] = [error.statusCode, error.message];
    else if (fastifyError.code === "FST_CSRF_INVALID_TOKEN" || fastifyError.code === "FST_CSRF_MISSING_SECRET") {
      [status, message] = [403, "The form has expired or did not come from this site. Go back, reload the page and try again."];
    } else if (fastifyError.validation) [status, message] = [400, `The form is not valid: ${error.message}`];
    else if (clientStatus < 500) [status, message] = [clientStatus, error.message];
    if (status >= 500) request.log.error({ err: error }, "web app error");
    // The app's JSON endpoints (the header's search, the editor's saves) answer errors as the API does.
    if (request.routeOptions.config?.json || request.url.split("?")[0]!.endsWith(".json")) {
      return reply.status(status).send({ error: { code: status, message } });
    }
    const heading = status === 404 ? "Not found" : "Cannot continue";
    return reply
      .status(status)
      .type("text/html; charset=utf-8")
      .send(page(heading, html`<h1>${heading}</h1><p class="error">${message}</p><p><a href="/app">Back to Quire</a></p>`));
  });
}
