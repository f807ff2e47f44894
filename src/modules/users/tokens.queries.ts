import { inTransaction, recordAudit } from "../../db/audit.js";
import type { Executor } from "../../db/database.js";
import { hashToken, newApiToken, newId, TOKEN_PREFIX } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";

/** Issues a new API token for a user. The token is returned once and stored only as a hash. */
export function createApiToken(db: Executor, userId: string, label?: string): Promise<{ id: string; token: string }> {
  // In the caller's transaction, or one of its own: the entry commits with the token (db/audit.ts).
  return inTransaction(db, async (trx) => {
    const token = newApiToken();
    const id = newId();
    await trx
      .insertInto("apiTokens")
      .values({ id, userId, tokenHash: hashToken(token), label: label ?? null, createdAt: nowIso(), lastUsedAt: null, revokedAt: null })
      .execute();
    // Recorded here, the one place tokens are made (web app, CLI), so no caller can forget it.
    recordAudit({
      action: "api_token.created",
      target: { type: "api-token", id, label: label ?? null },
      payload: { userId, label: label ?? null },
    });
    return { id, token };
  });
}

/** Revokes a token given either the token itself or its id. Returns false when none matched. */
export function revokeApiToken(db: Executor, tokenOrId: string): Promise<boolean> {
  const column = tokenOrId.startsWith(TOKEN_PREFIX) ? "tokenHash" : "id";
  const value = column === "tokenHash" ? hashToken(tokenOrId) : tokenOrId;
  return inTransaction(db, async (trx) => {
    const revoked = await trx
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
  });
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
