import { recordAudit } from "../../db/audit.js";
import type { Executor } from "../../db/database.js";
import { hashToken, newApiToken, newId, TOKEN_PREFIX } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";

/** Issues a new API token for a user. The token is returned once and stored only as a hash. */
export async function createApiToken(db: Executor, userId: string, label?: string): Promise<{ id: string; token: string }> {
  const token = newApiToken();
  const id = newId();
  await db
    .insertInto("apiTokens")
    .values({ id, userId, tokenHash: hashToken(token), label: label ?? null, createdAt: nowIso(), lastUsedAt: null, revokedAt: null })
    .execute();
  // Recorded here, the one place tokens are made (web app, CLI), so no caller can forget it; the
  // entry is written with the caller's transaction, or when its request ends (db/audit.ts).
  recordAudit({
    action: "api_token.created",
    target: { type: "api-token", id, label: label ?? null },
    payload: { userId, label: label ?? null },
  });
  return { id, token };
}

/** Revokes a token given either the token itself or its id. Returns false when none matched. */
export async function revokeApiToken(db: Executor, tokenOrId: string): Promise<boolean> {
  const column = tokenOrId.startsWith(TOKEN_PREFIX) ? "tokenHash" : "id";
  const value = column === "tokenHash" ? hashToken(tokenOrId) : tokenOrId;
  const revoked = await db
    .updateTable("apiTokens")
    .set({ revokedAt: nowIso() })
    .where(column, "=", value)
    .where("revokedAt", "is", null)
    .returning(["id", "userId", "label"])
    .executeTakeFirst();
  if (!revoked) return false;
  recordAudit({
    action: "api_token.revoked",
    target: { type: "api-token", id: revoked.id, label: revoked.label },
    payload: { userId: revoked.userId },
  });
  return true;
}

export function listApiTokens(db: Executor, userId: string) {
  return db
    .selectFrom("apiTokens")
    .select(["id", "label", "createdAt", "lastUsedAt", "revokedAt"])
    .where("userId", "=", userId)
    .orderBy("createdAt")
    .execute();
}

/**
 * Revokes every API token of the user and ends every web session they have, in every process at
 * once (both are looked up in the database on each use).
 */
export async function revokeCredentialsOfUser(db: Executor, userId: string): Promise<{ revokedTokens: number; endedSessions: number }> {
  const tokens = await db
    .updateTable("apiTokens")
    .set({ revokedAt: nowIso() })
    .where("userId", "=", userId)
    .where("revokedAt", "is", null)
    .executeTakeFirst();
  const sessions = await db.deleteFrom("webSessions").where("userId", "=", userId).executeTakeFirst();
  return { revokedTokens: Number(tokens.numUpdatedRows), endedSessions: Number(sessions.numDeletedRows) };
}
