/**
 * Live collaboration's HTTP side: the token the editor asks for when it (re)connects, for the member
 * signed in to the web app (its session cookie), and the WebSocket endpoint /app/collab attached to
 * the HTTP server's `upgrade` (collab-server.adapter.ts). Neither is part of the API document.
 *
 * The collaboration server (Hocuspocus, Yjs and the editor model) is made by the first upgrade
 * request, not at start: most processes of a server never see one. With REDIS_URL it is made at
 * start, since it relays this process's access changes to the other processes' connections.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { notFound, unauthorized } from "../../http/errors.js";
import { memberOfSessionCookie } from "../../http/member-session.js";
import { ErrorBody } from "../../http/schemas.js";
import { notAllowed } from "../../lib/errors.js";
import { lazily } from "../../lib/lazy.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { webAccessAllowed } from "../saml/saml.policy.js";
import { CollabTokenBody, CollabTokenQuery } from "./collab.schemas.js";
import { collabAccess, issueCollabToken, parseCollabDocumentName, setCollabWarmer } from "./collab.service.js";
import type { CollabServer } from "./collab-server.adapter.js";

export const collabRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  let made: CollabServer | undefined;
  let asked = false;
  const collabServer = lazily(async () => {
    asked = true;
    const { CollabServer } = await import("./collab-server.adapter.js");
    made = new CollabServer({
      db: deps.db,
      dialect: deps.dialect,
      secret: deps.secret,
      publicUrl: deps.config.publicUrl,
      config: deps.config.collab,
      log: deps.log,
    });
    return made;
  });
  if (deps.config.collab.redisUrl) await collabServer();
  if (deps.config.collab.enabled)
    setCollabWarmer(deps, (document, userId) => {
      collabServer().then(
        (server) => server.warm(document, userId),
        (err: unknown) => deps.log.error({ err }, "collab: the collaboration server could not be loaded"),
      );
    });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (made) return made.handleUpgrade(request, socket, head);
    // Until the server is loaded, a socket error (the client gone) must not go unheard.
    const ignore = () => {};
    socket.on("error", ignore);
    collabServer().then(
      (server) => {
        socket.off("error", ignore);
        server.handleUpgrade(request, socket, head);
      },
      (err: unknown) => {
        deps.log.error({ err }, "collab: the collaboration server could not be loaded");
        socket.destroy();
      },
    );
  };
  app.server.on("upgrade", onUpgrade);
  app.addHook("onClose", async () => {
    app.server.off("upgrade", onUpgrade);
    // A server still loading is closed once made.
    const server = made ?? (asked ? await collabServer().catch(() => undefined) : undefined);
    await server?.close();
  });

  app.get(
    "/app/collab/token",
    {
      config: { public: true },
      schema: {
        hide: true,
        querystring: CollabTokenQuery,
        response: { 200: CollabTokenBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      const member = await memberOfSessionCookie(deps, request.headers.cookie);
      if (!member) throw unauthorized("Sign in to the app first (your session has ended).");
      const document = parseCollabDocumentName(request.query.document);
      if (!document) throw notFound("No such document: names are change-requests/<changeRequestId>/pages/<pageId>.");
      if (!deps.config.collab.enabled) throw notAllowed("Live collaboration is off on this server (QUIRE_COLLAB=false).");
      const access = await collabAccess(deps.db, member.userId, document);
      if (!access.allowed) throw access.code === "not-found" ? notFound(access.reason) : notAllowed(access.reason);
      // The web app's rule for an SSO-only organization holds here too (its pages refuse such a member).
      const org = await getOrganization(deps.db, access.loaded.space.orgId);
      if (org && !webAccessAllowed(org, access.loaded.access.membership ?? undefined, member.signedInWith)) {
        throw notAllowed(`${org.title} requires single sign-on: sign in with its identity provider.`);
      }
      return {
        token: issueCollabToken(deps.secret, {
          userId: member.userId,
          document: document.name,
          ttlSeconds: deps.config.collab.tokenTtlSeconds,
        }),
      };
    },
  );
};
