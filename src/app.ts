/**
 * buildApp(deps): the Fastify application with every plugin, module and application registered
 * explicitly, so this file shows the whole API surface; and the job kinds the worker runs, each
 * defined by the module that owns its work. It never listens and never runs jobs; main.ts does.
 */
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type RouteOptions } from "fastify";
import { sql } from "kysely";
import { publishedSiteRoutes } from "./apps/site/site.routes.js";
import { SiteHosts } from "./apps/site/site-hosts.steps.js";
import { purgeExpiredSignInsJob } from "./apps/web/web.jobs.js";
import { webRoutes } from "./apps/web/web.routes.js";
import { onPrimaryContentChange } from "./content/revision/primary-hooks.js";
import { searchIndexJob } from "./content/search/search-index.jobs.js";
import { pendingMigrations } from "./db/migrate.js";
import type { Deps } from "./deps.js";
import { registerApiReference } from "./http/api-reference.js";
import { registerAudit } from "./http/audit.js";
import { registerAuthentication } from "./http/authenticate.js";
import { registerErrorHandling } from "./http/error-handler.js";
import { registerJsonBodyParser } from "./http/json-body.js";
import { serializeRequest } from "./http/log-redaction.js";
import { registerRateLimits } from "./http/rate-limit.js";
import { registerRouteOptions, routeOptionsOf } from "./http/route-options.js";
import { buildSerializer } from "./http/serializers.js";
import { registerTextInputGuard } from "./http/text-input.js";
import { buildValidator } from "./http/validators.js";
import { type JobDefinition, type PeriodicJob, periodicJobsOf } from "./jobs/registry.js";
import { randomBase62 } from "./lib/ids.js";
import { askRoutes } from "./modules/ask/ask.routes.js";
import { purgeAuditEventsJob } from "./modules/audit/audit.jobs.js";
import { auditRoutes } from "./modules/audit/audit.routes.js";
import { changeRequestContentRoutes } from "./modules/change-request-content/change-request-content.routes.js";
import { changeRequestMergeRoutes } from "./modules/change-request-merge/change-request-merge.routes.js";
import { reviewRoutes } from "./modules/change-request-reviews/change-request-reviews.routes.js";
import { changeRequestRoutes } from "./modules/change-requests/change-requests.routes.js";
import { collabRoutes } from "./modules/collab/collab.routes.js";
import { collectionRoutes } from "./modules/collections/collections.routes.js";
import { commentRoutes } from "./modules/comments/comments.routes.js";
import { contentRoutes } from "./modules/content/content.routes.js";
import { templateRoutes } from "./modules/content/templates.routes.js";
import { contentPermissionRoutes } from "./modules/content-permissions/content-permissions.routes.js";
import { sitePermissionRoutes } from "./modules/content-permissions/site-permissions.routes.js";
import { conversationsAnalyseJob } from "./modules/conversations/conversations.jobs.js";
import { conversationRoutes } from "./modules/conversations/conversations.routes.js";
import { fileRoutes } from "./modules/files/files.routes.js";
import { imageVariantsJob, onSpaceContentChanged, spaceImageVariantsJob } from "./modules/files/image-variants.jobs.js";
import { gitExportJob, gitImportJob } from "./modules/git-sync/git-sync.jobs.js";
import { gitSyncRoutes } from "./modules/git-sync/git-sync.routes.js";
import { siteEventRoutes } from "./modules/insights/events.routes.js";
import { purgeSiteInsightsJob } from "./modules/insights/insights.jobs.js";
import { siteInsightsRoutes } from "./modules/insights/insights.routes.js";
import { InsightsRecorder } from "./modules/insights/recorder.service.js";
import { inviteRoutes } from "./modules/invites/invites.routes.js";
import { memberRoutes } from "./modules/members/members.routes.js";
import { oidcRoutes } from "./modules/oidc/oidc.routes.js";
import { openapiProcessJob, openapiRefreshJob } from "./modules/openapi/openapi.jobs.js";
import { openapiRoutes } from "./modules/openapi/openapi.routes.js";
import { organizationRoutes } from "./modules/organizations/organizations.routes.js";
import { pdfRoutes } from "./modules/pdf/pdf.routes.js";
import { samlRoutes } from "./modules/saml/saml.routes.js";
import { scimRoutes, scimTokenRoutes } from "./modules/scim/scim.routes.js";
import { searchRoutes } from "./modules/search/search.routes.js";
import { siteCustomizationRoutes } from "./modules/sites/customization.routes.js";
import { siteRedirectRoutes } from "./modules/sites/redirects.routes.js";
import { shareLinkRoutes } from "./modules/sites/share-links.routes.js";
import { siteSettingsRoutes } from "./modules/sites/site-settings.routes.js";
import { siteRoutes } from "./modules/sites/sites.routes.js";
import { siteStructureRoutes } from "./modules/sites/structure.routes.js";
import { purgeDeletedSpacesJob } from "./modules/spaces/spaces.jobs.js";
import { spaceRoutes } from "./modules/spaces/spaces.routes.js";
import { teamRoutes } from "./modules/teams/teams.routes.js";
import { onSourceChanged, translationRunJob } from "./modules/translations/translations.jobs.js";
import { translationRoutes } from "./modules/translations/translations.routes.js";
import { userRoutes } from "./modules/users/users.routes.js";

export const API_VERSION = "0.1.0";

/** Every job kind the worker runs (one line per kind; each is defined next to its work). */
// biome-ignore lint/suspicious/noExplicitAny: definitions of different payload types in one list; each is checked where it is defined.
export const jobDefinitions: readonly JobDefinition<any>[] = [
  purgeDeletedSpacesJob,
  searchIndexJob,
  imageVariantsJob,
  spaceImageVariantsJob,
  gitImportJob,
  gitExportJob,
  translationRunJob,
  openapiProcessJob,
  openapiRefreshJob,
  purgeExpiredSignInsJob,
  conversationsAnalyseJob,
  purgeAuditEventsJob,
  purgeSiteInsightsJob,
];

/**
 * Work that follows a change of a space's primary content, in the transaction of the change
 * (content/revision/primary-hooks.ts). Every process that commits content wires it once: the server
 * (buildApp) and a worker started alone (`quire worker`). Wiring twice is harmless (a hook is kept once).
 */
export function wireContentHooks(): void {
  onPrimaryContentChange(onSourceChanged);
  onPrimaryContentChange(onSpaceContentChanged);
}

/** The jobs the worker enqueues on a fixed period: those whose definition declares `everyMs`. */
export const periodicJobs: PeriodicJob[] = periodicJobsOf(jobDefinitions);

// A client-supplied request id is kept only when it is short and harmless to log.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module "fastify" {
  interface FastifyInstance {
    /** The recorder of published sites' insights (tests write its counts with `flush()`). */
    insights?: InsightsRecorder;
  }
}

export interface BuildOptions {
  /** Called as each route is registered, before any (scripts/lib/routes.ts maps routes to their code with it). */
  onRoute?: (route: RouteOptions) => void;
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  wireContentHooks();
  // Request ids: unique per process start, cheap to make (a counter, not random bytes per request).
  const requestIdPrefix = randomBase62(8);
  let requestCounter = 0;
  // Published sites on their own host names (sites.proxy) are routed to /s/<basename>/...
  const siteHosts = new SiteHosts(new URL(deps.config.publicUrl).host);
  const app = Fastify({
    rewriteUrl: (req) => siteHosts.rewrite(req),
    // Request logs show URLs with their signatures and capability tokens redacted.
    loggerInstance: deps.log.child({}, { serializers: { req: serializeRequest } }) as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimit,
    trustProxy: deps.config.trustProxy,
    // SIGTERM: stop accepting, let in-flight requests finish, close idle keep-alive sockets.
    forceCloseConnections: "idle",
    requestIdHeader: false,
    // Page paths and slugs can be long; ids are 20 characters.
    routerOptions: { maxParamLength: 500 },
    // Errors the router raises before any route runs get the same body as every other error.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
      const status = tooLong ? 414 : 400;
      const message = tooLong
        ? "A path segment of the URL is longer than 500 characters."
        : "The URL is not valid: a path segment has a malformed percent-encoding.";
      reply.code(status).send({ error: { code: status, message } });
    },
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && SAFE_REQUEST_ID.test(given) ? given : `${requestIdPrefix}-${(++requestCounter).toString(36)}`;
    },
    // Bodies are validated as sent, query strings and path parameters coerce (src/http/validators.ts);
    // one serializer per response schema, not per route and status (src/http/serializers.ts).
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.onRoute) app.addHook("onRoute", options.onRoute);
  // Before any route: each route that may change something is given its audit scope as it is registered.
  registerAudit(app, deps.db);

  registerRouteOptions(app);
  // Synchronous hooks (done-callback style) on every request: an async hook costs a promise round.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });

  // UTF-8 only, nesting depth capped, an empty body read as `{}` (src/http/json-body.ts).
  registerJsonBodyParser(app);
  // A route that declares a body schema but received no body validates `{}` (clear "required" errors).
  app.addHook("preValidation", (request, _reply, done) => {
    if (request.body === undefined && routeOptionsOf(request).schema?.body) request.body = {};
    done();
  });

  registerErrorHandling(app);
  registerTextInputGuard(app);
  // Before authentication: a refused request costs no token lookup.
  const limits = await registerRateLimits(app, deps.config.rateLimit, deps.db, deps.log);
  registerAuthentication(app, deps.db);

  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Quire API",
        version: API_VERSION,
        description: "Self-hosted documentation platform; REST API compatible with GitBook's public API.",
      },
      servers: [{ url: deps.config.publicUrl }],
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
  });
  // Swagger UI, loaded by the first request under /reference (src/http/api-reference.ts).
  registerApiReference(app, { routePrefix: "/reference", uiConfig: { docExpansion: "none" } });

  app.get("/openapi.json", { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  app.get("/healthz", { config: { public: true }, schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/readyz", { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      const pending = await pendingMigrations(deps.db);
      if (pending.length > 0) {
        return reply.code(503).send({ error: { code: 503, message: `Migrations pending: ${pending.join(", ")}` } });
      }
    } catch (err) {
      deps.log.warn({ err }, "readiness check failed");
      return reply.code(503).send({ error: { code: 503, message: "Database unavailable" } });
    }
    // Without Redis requests are served, only not limited: degraded, still 200 (a 503 would take
    // every process out of its load balancer at once, for a store the limiter can do without).
    const redis = await limits.redisHealth?.();
    if (redis === undefined) return { status: "ready" };
    return { status: redis === "ok" ? "ready" : "degraded", redis };
  });
  // QUIRE_SERVICES: a process without `web` answers only its health and, with `collab`, the editor's
  // live collaboration (a proxy sends /app/collab there); one without `collab` refuses collaboration.
  if (deps.config.services.web) await registerWeb();
  // Live collaboration: the editor's token, and the WebSocket endpoint /app/collab on this server's port.
  await app.register(collabRoutes, { deps });

  async function registerWeb(): Promise<void> {
    app.get("/v1/", { config: { public: true }, schema: { tags: ["meta"], operationId: "getApiInformation" } }, async () => ({
      version: API_VERSION,
      build: process.env.QUIRE_BUILD ?? "dev",
    }));

    await app.register(userRoutes, { deps });
    await app.register(organizationRoutes, { deps });
    await app.register(fileRoutes, { deps });
    await app.register(memberRoutes, { deps });
    await app.register(auditRoutes, { deps });
    await app.register(teamRoutes, { deps });
    await app.register(inviteRoutes, { deps });
    await app.register(collectionRoutes, { deps });
    await app.register(spaceRoutes, { deps });
    await app.register(contentPermissionRoutes, { deps });
    await app.register(sitePermissionRoutes, { deps });
    await app.register(contentRoutes, { deps });
    await app.register(changeRequestRoutes, { deps });
    await app.register(changeRequestContentRoutes, { deps });
    await app.register(changeRequestMergeRoutes, { deps });
    await app.register(reviewRoutes, { deps });
    await app.register(gitSyncRoutes, { deps });
    await app.register(searchRoutes, { deps });
    await app.register(askRoutes, { deps });
    await app.register(templateRoutes, { deps });
    await app.register(commentRoutes, { deps });
    await app.register(pdfRoutes, { deps });
    await app.register(siteRoutes, { deps });
    await app.register(siteStructureRoutes, { deps });
    await app.register(shareLinkRoutes, { deps });
    await app.register(siteRedirectRoutes, { deps });
    await app.register(siteCustomizationRoutes, { deps });
    await app.register(siteSettingsRoutes, { deps });
    // What readers of published sites do, counted in memory and written in batches off the request path.
    const insights = new InsightsRecorder(deps, deps.config.insights.enabled, deps.config.insights.flushMs);
    app.decorate("insights", insights);
    insights.start();
    app.addHook("onClose", async () => insights.stop());
    await app.register(siteInsightsRoutes, { deps });
    await app.register(siteEventRoutes, { deps, insights });
    await app.register(translationRoutes, { deps });
    await app.register(openapiRoutes, { deps });
    await app.register(samlRoutes, { deps });
    await app.register(oidcRoutes, { deps });
    await app.register(scimTokenRoutes, { deps });
    // SCIM 2.0 provisioning at /scim/v2, authenticated by an organization's SCIM token (its own hooks and error bodies).
    await app.register(scimRoutes, { deps });
    // The member web app (src/apps/web): its pages and forms under /app, SAML sign-in under /saml.
    await app.register(webRoutes, { deps });
    await app.register(conversationRoutes, { deps });
    // The MCP SDK (with zod) is ~25 MB resident: loaded by the first MCP request, not at startup.
    const mcp = async (...args: Parameters<typeof import("./apps/site/mcp.steps.js").handleMcpRequest>) =>
      (await import("./apps/site/mcp.steps.js")).handleMcpRequest(...args);
    await app.register(publishedSiteRoutes, { deps, siteHosts, mcp, insights });
  }

  return app;
}
