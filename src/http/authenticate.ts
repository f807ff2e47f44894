/**
 * Bearer authentication. Every /v1 route requires `Authorization: Bearer <token>` unless its route
 * config says `public: true`. The token is looked up by its SHA-256 hash; a missing, unknown or
 * revoked token is a 401.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../db/database.js";
import type { Kysely } from "kysely";
import { prepared } from "../db/prepared.js";
import type { Database, UserRow } from "../db/schema.js";
import { hashToken } from "../lib/ids.js";
import { AccessCache } from "../permissions/access.js";
import { unauthorized } from "./errors.js";

export interface Actor {
  user: UserRow;
  tokenId: string;
  /** Per-request memo of the caller's access to each organization. */
  access: AccessCache;
}

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** Route reachable without a token. */
    public?: boolean;
  }
}

const userByTokenHash = prepared<{ hash: string }, UserRow & { tokenId: string; revokedAt: string | null; lastUsedAt: string | null }>(
  (db, param) =>
    (db as Kysely<Database>)
      .selectFrom("apiTokens")
      .innerJoin("users", "users.id", "apiTokens.userId")
      .selectAll("users")
      .select(["apiTokens.id as tokenId", "apiTokens.revokedAt", "apiTokens.lastUsedAt"])
      .where("apiTokens.tokenHash", "=", param("hash")),
  { cache: true },
);

// Recording every use would turn each read into a write; once a minute is enough to show activity.
const LAST_USED_RESOLUTION_MS = 60_000;

export function registerAuthentication(app: FastifyInstance, db: Db): void {
  app.decorateRequest("actor", null);
  app.addHook("onRequest", async (request) => {
    if (request.routeOptions.config?.public) return;
    if (!request.url.startsWith("/v1")) return;
    request.actor = await authenticate(db, request);
  });
}

async function authenticate(db: Db, request: FastifyRequest): Promise<Actor> {
  const header = request.headers.authorization;
  if (!header) {
    throw unauthorized("Authentication required: send `Authorization: Bearer <API token>`.");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw unauthorized("The Authorization header must have the form `Bearer <API token>`.");
  }
  const [row] = await userByTokenHash(db, { hash: hashToken(match[1]) });
  if (!row || row.revokedAt) {
    throw unauthorized("The API token is unknown or has been revoked.");
  }
  const { tokenId, revokedAt: _revoked, lastUsedAt, ...user } = row;
  const now = Date.now();
  if (!lastUsedAt || now - Date.parse(lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    await db
      .updateTable("apiTokens")
      .set({ lastUsedAt: new Date(now).toISOString() })
      .where("id", "=", tokenId)
      .execute();
  }
  return { user, tokenId, access: new AccessCache(db, user.id) };
}

/** The authenticated caller of a route that requires authentication. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorized("Authentication required.");
  return request.actor;
}
