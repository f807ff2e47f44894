/**
 * Setup shared by `quire init` and the first start of `quire serve`: an organization, its owner
 * and an API token for the owner, created in one transaction.
 */
import fs from "node:fs";
import path from "node:path";
import type { Config } from "./config.js";
import type { Db, Executor } from "./db/database.js";
import type { UserRow } from "./db/schema.js";
import { randomBase62 } from "./lib/ids.js";
import { nowIso } from "./lib/time.js";
import { createOrganization } from "./modules/organizations/organizations.service.js";
import { createApiToken } from "./modules/users/tokens.queries.js";
import { getUserByEmail, insertUser, setEmailVerification, updateUser } from "./modules/users/users.queries.js";

export interface InitResult {
  organization: { id: string };
  user: { id: string };
  token: string;
}

/** Finds the user with this email, or creates an active one (an operator vouches for the address). */
export async function ensureUser(db: Executor, email: string, displayName: string): Promise<UserRow> {
  const existing = await getUserByEmail(db, email);
  if (existing) return existing;
  return insertUser(db, { email, displayName, verification: { via: "operator" }, pending: false });
}

export async function initOrganization(trx: Executor, input: { orgTitle: string; email: string; name: string }): Promise<InitResult> {
  const user = await ensureUser(trx, input.email, input.name);
  if (user.pending) {
    // Naming an invited account as the owner vouches for its address, as creating it would.
    await updateUser(trx, user.id, { pending: 0 });
    await setEmailVerification(trx, user.id, { via: "operator" });
  }
  const org = await createOrganization(trx, { title: input.orgTitle, ownerId: user.id });
  const { token } = await createApiToken(trx, user.id, "quire init");
  return { organization: { id: org.id }, user: { id: user.id }, token };
}

export interface FirstStart extends InitResult {
  /** Where the owner's API token was written. */
  tokenFile: string;
}

export const DEFAULT_BOOTSTRAP = { orgTitle: "My Organization", email: "admin@localhost", name: "Admin" };

/**
 * On the very first start (no organization at all), creates the default organization and owner and
 * writes the owner's token to `<dataDir>/admin-token` (mode 0600). Several processes starting at
 * once on one PostgreSQL database bootstrap exactly once: the `bootstrap` settings row is the lock.
 * Returns what it created and the token file's path when it bootstrapped.
 */
export async function bootstrapIfEmpty(db: Db, dataDir: string): Promise<FirstStart | undefined> {
  const result = await db.transaction().execute(async (trx) => {
    const claimed = await trx
      .insertInto("settings")
      .values({ key: "bootstrap", value: nowIso() })
      .onConflict((oc) => oc.column("key").doNothing())
      .executeTakeFirst();
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) return undefined;
    const anyOrg = await trx.selectFrom("organizations").select("id").limit(1).executeTakeFirst();
    if (anyOrg) return undefined;
    return initOrganization(trx, DEFAULT_BOOTSTRAP);
  });
  if (!result) return undefined;
  const file = path.join(dataDir, "admin-token");
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${result.token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { ...result, tokenFile: file };
}

/**
 * The instance secret that signs download URLs. Generated once and kept in the database, so every
 * process sharing the database signs and verifies alike.
 */
export async function loadInstanceSecret(db: Executor, configured?: string): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto("settings")
    .values({ key: "secret", value: randomBase62(48) })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await db.selectFrom("settings").select("value").where("key", "=", "secret").executeTakeFirstOrThrow();
  return row.value;
}

/** Keeps the running server's public address, for commands run beside it (they may not share its environment). */
export async function recordPublicUrl(db: Executor, publicUrl: string): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key: "public_url", value: publicUrl })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: publicUrl }))
    .execute();
}

/**
 * The address a command prints links under: QUIRE_PUBLIC_URL when the command's environment sets
 * it, else the one the server last started with, else the default of the command's own settings.
 */
export async function commandPublicUrl(db: Executor, config: Config, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.QUIRE_PUBLIC_URL) return config.publicUrl;
  const row = await db.selectFrom("settings").select("value").where("key", "=", "public_url").executeTakeFirst();
  return row?.value ?? config.publicUrl;
}
