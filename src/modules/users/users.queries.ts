import type { Executor } from "../../db/database.js";
import type { UserRow } from "../../db/schema.js";
import { newId } from "../../lib/ids.js";
import { nowIso } from "../../lib/time.js";
import type { EmailVerification } from "./users.policy.js";

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function getUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

export function getUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("email", "=", normalizeEmail(email)).executeTakeFirst();
}

export function getUsersByIds(db: Executor, ids: string[]): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom("users").selectAll().where("id", "in", ids).execute();
}

export interface NewUserInput {
  email: string;
  displayName: string;
  verification: EmailVerification;
  pending: boolean;
  photoUrl?: string | null;
}

export async function insertUser(db: Executor, input: NewUserInput): Promise<UserRow> {
  const now = nowIso();
  const row: UserRow = {
    id: newId(),
    email: normalizeEmail(input.email),
    displayName: input.displayName,
    photoUrl: input.photoUrl ?? null,
    ...verificationColumns(input.verification),
    pending: input.pending ? 1 : 0,
    createdAt: now,
    updatedAt: now,
  };
  await db.insertInto("users").values(row).execute();
  return row;
}

/** The three columns that say who verified the address; written together, never one alone. */
export function verificationColumns(
  verification: EmailVerification,
): Pick<UserRow, "emailVerified" | "emailVerifiedVia" | "emailVouchedBy"> {
  switch (verification.via) {
    case "operator":
    case "sign-in-link":
      return { emailVerified: 1, emailVerifiedVia: verification.via, emailVouchedBy: null };
    case "idp":
      return { emailVerified: 0, emailVerifiedVia: "idp", emailVouchedBy: verification.orgId };
    case null:
      return { emailVerified: 0, emailVerifiedVia: null, emailVouchedBy: null };
  }
}

export async function setEmailVerification(db: Executor, userId: string, verification: EmailVerification): Promise<void> {
  await db
    .updateTable("users")
    .set({ ...verificationColumns(verification), updatedAt: nowIso() })
    .where("id", "=", userId)
    .execute();
}

export async function updateUser(
  db: Executor,
  id: string,
  changes: { displayName?: string; photoUrl?: string | null; pending?: 0 | 1 },
): Promise<void> {
  await db
    .updateTable("users")
    .set({ ...changes, updatedAt: nowIso() })
    .where("id", "=", id)
    .execute();
}

/** True when both users belong to at least one common organization (what makes a user visible). */
export async function shareAnOrganization(db: Executor, a: string, b: string): Promise<boolean> {
  const row = await db
    .selectFrom("members as m1")
    .innerJoin("members as m2", "m2.orgId", "m1.orgId")
    .select("m1.orgId")
    .where("m1.userId", "=", a)
    .where("m2.userId", "=", b)
    .limit(1)
    .executeTakeFirst();
  return !!row;
}
