/**
 * Bearer authentication. Every /v1 route requires `Authorization: Bearer <token>` unless its route
 * config says `public: true`. The token is looked up by its SHA-256 hash; a missing, unknown or
 * revoked token is a 401, and a bad one (not a missing one) a failed sign-in in the audit log
 * (token-failures.ts).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import { outsideAudit } from "../db/audit.js";
import type { Db } from "../db/database.js";
import { derivedFromCached, prepared } from "../db/prepared.js";
import type { Database, UserRow } from "../db/schema.js";
import { AccessCache } from "../permissions/access.js";
import type { Actor } from "../permissions/actor.js";
import { bearerHashOf, bearerOf, registerBearer } from "./bearer.js";
import { unauthorized } from "./errors.js";
import { registerRouteOptions, routeOptionsOf } from "./route-options.js";
import { type TokenFailure, TokenFailureAudit } from "./token-failures.js";

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyContextConfig {
    /** Route reachable without a token. */
    public?: boolean;
  }
}

type TokenRow = UserRow & { tokenId: string; revokedAt: string | null; lastUsedAt: string | null };

const userByTokenHash = prepared<{ hash: string }, TokenRow>(
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

/** Each database's recorder of bad tokens (one per application; `optionalActor` finds it by the database it is given). */
const tokenFailures = new WeakMap<Db, TokenFailureAudit>();

export function registerAuthentication(app: FastifyInstance, db: Db): void {
  const failures = new TokenFailureAudit(db, app.log);
  tokenFailures.set(db, failures);
  failures.start();
  app.addHook("onClose", () => failures.close());
  app.decorateRequest("actor", null);
  registerBearer(app);
  registerRouteOptions(app);
  // Callback style: where the token's kept row answers at once (actorAtOnce), no promise is made.
  app.addHook("onRequest", (request, _reply, done) => {
    if (routeOptionsOf(request).config?.public || !request.url.startsWith("/v1")) return done();
    const actor = actorAtOnce(db, request);
    if (actor) {
      request.actor = actor;
      return done();
    }
    authenticate(db, request).then((actor) => {
      request.actor = actor;
      done();
    }, done);
  });
}

/**
 * The caller, when the token's row is at hand without waiting (prepared's `now`: SQLite, or kept
 * on PostgreSQL), the token is valid and its use was recorded recently enough; else undefined,
 * and `authenticate` does the rest (a read to wait for, a 401 and its audit, a write of the use).
 */
function actorAtOnce(db: Db, request: FastifyRequest): Actor | undefined {
  const hash = bearerHashOf(request);
  if (!hash) return undefined;
  const row = userByTokenHash.now(db, { hash })?.[0];
  const token = row && tokenOf(row);
  if (!token || token.revoked || lastUseDue(token.lastUsedMs, Date.now())) return undefined;
  return { user: token.user, tokenId: token.tokenId, access: new AccessCache(db, token.user.id) };
}

function lastUseDue(lastUsedMs: number | null, now: number): boolean {
  return lastUsedMs === null || now - lastUsedMs > LAST_USED_RESOLUTION_MS;
}

async function authenticate(db: Db, request: FastifyRequest): Promise<Actor> {
  const header = request.headers.authorization;
  if (!header) {
    throw unauthorized("Authentication required: send `Authorization: Bearer <API token>`.");
  }
  const bearer = bearerOf(request);
  const hash = bearerHashOf(request);
  if (!bearer || !hash) {
    await failedSignIn(db, request, { reason: "malformed" });
    throw unauthorized("The Authorization header must have the form `Bearer <API token>`.");
  }
  const [row] = await userByTokenHash(db, { hash });
  const token = row && tokenOf(row);
  if (!token || token.revoked) {
    await failedSignIn(
      db,
      request,
      token ? { reason: "revoked", token: bearer, tokenId: token.tokenId, userId: token.user.id } : { reason: "unknown", token: bearer },
    );
    throw unauthorized("The API token is unknown or has been revoked.");
  }
  const now = Date.now();
  if (lastUseDue(token.lastUsedMs, now)) {
    // Bookkeeping, not the request's change: it must not carry (nor commit early) the request's audit entry.
    await outsideAudit(() =>
      db
        .updateTable("apiTokens")
        .set({ lastUsedAt: new Date(now).toISOString() })
        .where("id", "=", token.tokenId)
        .execute(),
    );
  }
  return { user: token.user, tokenId: token.tokenId, access: new AccessCache(db, token.user.id) };
}

function failedSignIn(db: Db, request: FastifyRequest, failure: Omit<TokenFailure, "address" | "userAgent" | "requestId">) {
  return tokenFailures.get(db)?.note({
    ...failure,
    address: request.ip,
    userAgent: request.headers["user-agent"]?.slice(0, 500) ?? null,
    requestId: request.id,
  });
}

/** A token's row taken apart once per cached row: every request of its holder needs the same. */
const tokenOf = derivedFromCached((row: TokenRow) => {
  const { tokenId, revokedAt, lastUsedAt, ...user } = row;
  return {
    user: Object.freeze(user) as UserRow,
    tokenId,
    revoked: revokedAt !== null,
    lastUsedMs: lastUsedAt === null ? null : Date.parse(lastUsedAt),
  };
});

/**
 * The caller of a public route (`config.public`), when they sent a token: null without an
 * Authorization header, 401 for a bad or revoked token, as on every other route.
 */
export async function optionalActor(db: Db, request: FastifyRequest): Promise<Actor | null> {
  if (request.headers.authorization === undefined) return null;
  request.actor ??= await authenticate(db, request);
  return request.actor;
}

/** The authenticated caller of a route that requires authentication. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorized("Authentication required.");
  return request.actor;
}

/** The recorder of bad tokens of the application over `db` (its summaries are written by its timer; tests flush them). */
export function tokenFailureAuditOf(db: Db): TokenFailureAudit | undefined {
  return tokenFailures.get(db);
}
