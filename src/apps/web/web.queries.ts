import type { Executor } from "../../db/database.js";
import { readSessionByIdHash } from "../../http/member-session.queries.js";
import { hashToken, randomBase62 } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";

// --- sessions (the store of @fastify/session) ---

export async function readSession(db: Executor, sessionId: string): Promise<string | undefined> {
  return readSessionByIdHash(db, hashToken(sessionId));
}

/** Who a SAML assertion signed in: what an identity provider's LogoutRequest names. */
export interface SamlSessionKey {
  providerId: string;
  nameId: string;
  sessionIndex: string | null;
}

export async function writeSession(
  db: Executor,
  sessionId: string,
  input: { userId: string | null; data: string; expiresAt: string; saml?: SamlSessionKey | undefined },
): Promise<void> {
  const idHash = hashToken(sessionId);
  const values = {
    userId: input.userId,
    data: input.data,
    expiresAt: input.expiresAt,
    samlProviderId: input.saml?.providerId ?? null,
    samlNameId: input.saml?.nameId ?? null,
    samlSessionIndex: input.saml?.sessionIndex ?? null,
  };
  await db
    .insertInto("webSessions")
    .values({ idHash, ...values })
    .onConflict((oc) => oc.column("idHash").doUpdateSet(values))
    .execute();
}

/**
 * Ends the sessions an identity provider's LogoutRequest names: every session of that NameID
 * signed in with that provider, or, when the request lists session indexes, only those (and those
 * whose assertion named no session index). Returns
 * how many were ended.
 */
export async function deleteSamlSessions(
  db: Executor,
  input: { providerId: string; nameId: string; sessionIndexes: string[] },
): Promise<number> {
  let query = db.deleteFrom("webSessions").where("samlProviderId", "=", input.providerId).where("samlNameId", "=", input.nameId);
  // A session whose assertion had no SessionIndex cannot be told apart from the ones named: it ends too.
  if (input.sessionIndexes.length > 0) {
    query = query.where((eb) => eb.or([eb("samlSessionIndex", "in", input.sessionIndexes), eb("samlSessionIndex", "is", null)]));
  }
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteSession(db: Executor, sessionId: string): Promise<void> {
  await db.deleteFrom("webSessions").where("idHash", "=", hashToken(sessionId)).execute();
}

export async function purgeExpiredSessions(db: Executor): Promise<void> {
  await db.deleteFrom("webSessions").where("expiresAt", "<=", nowIso()).execute();
  await db.deleteFrom("loginLinks").where("expiresAt", "<=", nowIso()).execute();
}

// --- one-time sign-in links ---

export const LOGIN_LINK_TTL_MS = 15 * 60 * 1000;

/** A new link token for a user, valid once for 15 minutes; only its hash is stored. */
export async function createLoginLink(db: Executor, userId: string, now = Date.now()): Promise<{ token: string; expiresAt: string }> {
  const token = randomBase62(43);
  const expiresAt = new Date(now + LOGIN_LINK_TTL_MS).toISOString();
  await db
    .insertInto("loginLinks")
    .values({ tokenHash: hashToken(token), userId, createdAt: new Date(now).toISOString(), expiresAt, usedAt: null })
    .execute();
  return { token, expiresAt };
}

/** The user of a link that can still be used, without using it. */
export async function peekLoginLink(db: Executor, token: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("loginLinks")
    .select("userId")
    .where("tokenHash", "=", hashToken(token))
    .where("usedAt", "is", null)
    .where("expiresAt", ">", nowIso())
    .executeTakeFirst();
  return row?.userId;
}

/** Uses a link: the conditional update succeeds for exactly one caller. Returns the user, or undefined. */
export async function useLoginLink(db: Executor, token: string): Promise<string | undefined> {
  const tokenHash = hashToken(token);
  const now = nowIso();
  const result = await db
    .updateTable("loginLinks")
    .set({ usedAt: now })
    .where("tokenHash", "=", tokenHash)
    .where("usedAt", "is", null)
    .where("expiresAt", ">", now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  const row = await db.selectFrom("loginLinks").select("userId").where("tokenHash", "=", tokenHash).executeTakeFirst();
  return row?.userId;
}
