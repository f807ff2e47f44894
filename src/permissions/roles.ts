/**
 * Role levels, highest first: admin > create > review > edit > comment > read.
 * Every access decision is a comparison on this scale.
 */
export const ROLES = ["admin", "create", "review", "edit", "comment", "read"] as const;
export type Role = (typeof ROLES)[number];

/** A content object's default for organization members: a level, `inherit` from its parent, or none. */
export type DefaultLevel = Role | "inherit" | null;

const RANK: Record<Role, number> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && value in RANK;
}

/** True when `level` is at least `required`; no level means no access. */
export function atLeast(level: Role | null | undefined, required: Role): boolean {
  return !!level && RANK[level] >= RANK[required];
}

export function maxRole(a: Role | null | undefined, b: Role | null | undefined): Role | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

export function minRole(a: Role | null | undefined, b: Role | null | undefined): Role | null {
  if (!a || !b) return null;
  return RANK[a] <= RANK[b] ? a : b;
}

export function compareRoles(a: Role, b: Role): number {
  return RANK[a] - RANK[b];
}
