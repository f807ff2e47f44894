/**
 * What a user may do inside one organization: loaded in a few queries, then resolved in memory
 * for any number of collections and spaces (lists never query per item).
 *
 * Resolution of a user's level on a space or collection (README "Permissions" has the table):
 *  1. not a member of the organization, or a disabled member: nothing (the API answers 404);
 *  2. organization admin: admin on everything;
 *  3. otherwise the highest of
 *     - grants to the user or to one of their teams, on the object or any ancestor collection;
 *     - for members (not guests): the object's default level, capped at the member's
 *       organization role. `inherit` takes the parent collection's default, and at the top of
 *       the tree the member's organization role; null means no default access.
 */
import { type Kysely, sql } from "kysely";
import type { Executor } from "../db/database.js";
import { derivedFromCached, prepared } from "../db/prepared.js";
import type { Database } from "../db/schema.js";
import { type DefaultLevel, isRole, maxRole, minRole, type Role } from "./roles.js";

export interface Membership {
  /** Organization role; null for guests. */
  role: Role | null;
  sso: boolean;
}

export interface CollectionNode {
  parentId: string | null;
  defaultLevel: DefaultLevel;
}

/** A content object as the resolver sees it. */
export interface ContentNode {
  id: string;
  parentId: string | null;
  defaultLevel: string | null;
}

/** Read-only: one is shared by every request of the same user while the database is unchanged. */
export interface OrgAccess {
  readonly orgId: string;
  readonly userId: string;
  /** Undefined when the user is not an (enabled) member of the organization. */
  readonly membership: Readonly<Membership> | undefined;
  readonly teamIds: readonly string[];
  /** Teams of the organization the user owns (may manage). */
  readonly ownedTeamIds: readonly string[];
  /** Highest grant to the user or one of their teams, by target (space or collection) id. */
  readonly grants: ReadonlyMap<string, Role>;
  /** Every collection of the organization, to walk parent chains. */
  readonly collections: ReadonlyMap<string, CollectionNode>;
}

export function toDefaultLevel(value: string | null): DefaultLevel {
  if (value === "inherit") return "inherit";
  return isRole(value) ? value : null;
}

/**
 * Everything about one user in one organization, in one round trip: their membership, their
 * teams, every collection node, and the grants to them or their teams (`kind` tells the rows
 * apart; values are text so that both engines accept the union).
 */
interface OrgAccessRow {
  kind: string;
  a: string | null;
  b: string | null;
  c: string | null;
}

const orgAccessRows = prepared<{ orgId: string; userId: string }, OrgAccessRow>(
  (kysely, param) => {
    const db = kysely as Kysely<Database>;
    const text = (ref: string) => sql<string | null>`cast(${sql.ref(ref)} as text)`;
    const userTeams = db
      .selectFrom("teamMembers")
      .innerJoin("teams", "teams.id", "teamMembers.teamId")
      .where("teams.orgId", "=", param("orgId"))
      .where("teamMembers.userId", "=", param("userId"));
    return db
      .selectFrom("members")
      .select([sql<string>`'member'`.as("kind"), "role as a", text("sso").as("b"), text("disabled").as("c")])
      .where("orgId", "=", param("orgId"))
      .where("userId", "=", param("userId"))
      .unionAll(userTeams.select([sql<string>`'team'`.as("kind"), "teams.id as a", "teamMembers.role as b", sql<null>`null`.as("c")]))
      .unionAll(
        db
          .selectFrom("collections")
          .select([sql<string>`'collection'`.as("kind"), "id as a", "parentId as b", "defaultLevel as c"])
          .where("orgId", "=", param("orgId")),
      )
      .unionAll(
        db
          .selectFrom("grants")
          .select([sql<string>`'grant'`.as("kind"), "targetId as a", "role as b", sql<null>`null`.as("c")])
          .where("orgId", "=", param("orgId"))
          .where((eb) =>
            eb.or([
              eb.and([eb("principalType", "=", "user"), eb("principalId", "=", param("userId"))]),
              eb.and([eb("principalType", "=", "team"), eb("principalId", "in", userTeams.select("teams.id"))]),
            ]),
          ),
      );
  },
  { cache: true },
);

/** Loads everything needed to resolve the user's access to any content of the organization. */
export async function loadOrgAccess(db: Executor, userId: string, orgId: string): Promise<OrgAccess> {
  return { orgId, userId, ...accessFromRows(await orgAccessRows(db, { orgId, userId })) };
}

/** loadOrgAccess without a promise when the rows are at hand (prepared's `now`); undefined when they must be waited for. */
export function orgAccessNow(db: Executor, userId: string, orgId: string): OrgAccess | undefined {
  const rows = orgAccessRows.now(db, { orgId, userId });
  return rows && { orgId, userId, ...accessFromRows(rows) };
}

/** The caller's access from their rows; kept with the cached rows, as every request needs it. */
const accessFromRows = derivedFromCached((rows: readonly OrgAccessRow[]): Omit<OrgAccess, "orgId" | "userId"> => {
  let member: { role: string | null; sso: number; disabled: number } | undefined;
  const teams: { id: string; role: string }[] = [];
  const collections: { id: string; parentId: string | null; defaultLevel: string | null }[] = [];
  const grantRows: { targetId: string; role: string }[] = [];
  for (const row of rows) {
    if (row.kind === "member") member = { role: row.a, sso: Number(row.b), disabled: Number(row.c) };
    else if (row.kind === "team") teams.push({ id: row.a!, role: row.b! });
    else if (row.kind === "collection") collections.push({ id: row.a!, parentId: row.b, defaultLevel: row.c });
    else grantRows.push({ targetId: row.a!, role: row.b! });
  }
  const membership = member && !member.disabled ? { role: isRole(member.role) ? member.role : null, sso: member.sso === 1 } : undefined;
  const teamIds = membership ? teams.map((t) => t.id) : [];
  const ownedTeamIds = membership ? teams.filter((t) => t.role === "owner").map((t) => t.id) : [];
  const grants = new Map<string, Role>();
  if (membership) {
    for (const row of grantRows) {
      if (!isRole(row.role)) continue;
      grants.set(row.targetId, maxRole(grants.get(row.targetId), row.role) as Role);
    }
  }
  return {
    membership,
    teamIds,
    ownedTeamIds,
    grants,
    collections: new Map(collections.map((c) => [c.id, { parentId: c.parentId, defaultLevel: toDefaultLevel(c.defaultLevel) }])),
  };
});

// Collections are moved with cycle checks, but a bound keeps a corrupted tree from hanging a request.
const MAX_DEPTH = 64;

/** Resolves a default level through `inherit` links; "org" means the member's organization role. */
function resolveDefault(access: OrgAccess, level: DefaultLevel, parentId: string | null): Role | null | "org" {
  let current = level;
  let parent = parentId;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (current !== "inherit") return current;
    if (!parent) return "org";
    const node = access.collections.get(parent);
    if (!node) return "org";
    current = node.defaultLevel;
    parent = node.parentId;
  }
  return null;
}

/** The user's level on a space or collection of this organization, or null for no access. */
export function contentLevel(access: OrgAccess, node: ContentNode): Role | null {
  const membership = access.membership;
  if (!membership) return null;
  if (membership.role === "admin") return "admin";

  let level: Role | null = access.grants.get(node.id) ?? null;
  let parent = node.parentId;
  for (let depth = 0; parent && depth < MAX_DEPTH; depth++) {
    level = maxRole(level, access.grants.get(parent));
    parent = access.collections.get(parent)?.parentId ?? null;
  }

  if (membership.role) {
    const fallback = resolveDefault(access, toDefaultLevel(node.defaultLevel), node.parentId);
    const byDefault = fallback === "org" ? membership.role : minRole(fallback, membership.role);
    level = maxRole(level, byDefault);
  }
  return level;
}

/** Per-request memo of OrgAccess, so several lookups in one request load each organization once. */
export class AccessCache {
  private readonly byOrg = new Map<string, Promise<OrgAccess>>();
  /** The accesses `forOrgNow` found at once (each also in byOrg, so that forOrg answers the same). */
  private readonly known = new Map<string, OrgAccess>();

  constructor(
    private readonly db: Executor,
    private readonly userId: string,
  ) {}

  forOrg(orgId: string): Promise<OrgAccess> {
    let access = this.byOrg.get(orgId);
    if (!access) {
      access = loadOrgAccess(this.db, this.userId, orgId);
      this.byOrg.set(orgId, access);
    }
    return access;
  }

  /**
   * forOrg's access without a promise, when it was found at once before or its rows are at hand
   * (orgAccessNow); undefined when it must be waited for (call forOrg). A hot path's way around a
   * promise per request, answering what forOrg answers.
   */
  forOrgNow(orgId: string): OrgAccess | undefined {
    const known = this.known.get(orgId);
    // A load already under way by forOrg: its answer is the request's.
    if (known || this.byOrg.has(orgId)) return known;
    const access = orgAccessNow(this.db, this.userId, orgId);
    if (access) {
      this.known.set(orgId, access);
      this.byOrg.set(orgId, Promise.resolve(access));
    }
    return access;
  }

  /** Forget an organization after a write that changes the caller's own access. */
  invalidate(orgId: string): void {
    this.byOrg.delete(orgId);
    this.known.delete(orgId);
  }
}

/**
 * OrgAccess of every enabled member of an organization, in a fixed number of queries, for lists
 * that answer "who can access this?" (aggregate permissions). Resolves exactly like
 * loadOrgAccess; `targetIds` limits the grants loaded to the objects the caller will resolve
 * (an object and its ancestor collections).
 */
export async function loadMembersAccess(
  db: Executor,
  orgId: string,
  options: { targetIds?: string[] } = {},
): Promise<Map<string, OrgAccess>> {
  if (options.targetIds && options.targetIds.length === 0) return new Map();
  const [members, teamRows, collections, grantRows] = await Promise.all([
    db.selectFrom("members").select(["userId", "role", "sso"]).where("orgId", "=", orgId).where("disabled", "=", 0).execute(),
    db
      .selectFrom("teamMembers")
      .innerJoin("teams", "teams.id", "teamMembers.teamId")
      .select(["teams.id", "teamMembers.userId", "teamMembers.role"])
      .where("teams.orgId", "=", orgId)
      .execute(),
    db.selectFrom("collections").select(["id", "parentId", "defaultLevel"]).where("orgId", "=", orgId).execute(),
    db
      .selectFrom("grants")
      .select(["targetId", "principalType", "principalId", "role"])
      .where("orgId", "=", orgId)
      .$if(!!options.targetIds, (qb) => qb.where("targetId", "in", options.targetIds ?? []))
      .execute(),
  ]);
  const collectionMap = new Map(
    collections.map((c) => [c.id, { parentId: c.parentId, defaultLevel: toDefaultLevel(c.defaultLevel) }] as const),
  );
  const teamsOf = new Map<string, { id: string; role: string }[]>();
  for (const row of teamRows) {
    const list = teamsOf.get(row.userId) ?? [];
    list.push({ id: row.id, role: row.role });
    teamsOf.set(row.userId, list);
  }
  const grantsByPrincipal = new Map<string, { targetId: string; role: Role }[]>();
  for (const row of grantRows) {
    if (!isRole(row.role)) continue;
    const key = `${row.principalType}:${row.principalId}`;
    const list = grantsByPrincipal.get(key) ?? [];
    list.push({ targetId: row.targetId, role: row.role });
    grantsByPrincipal.set(key, list);
  }
  const result = new Map<string, OrgAccess>();
  for (const member of members) {
    const teams = teamsOf.get(member.userId) ?? [];
    const grants = new Map<string, Role>();
    for (const key of [`user:${member.userId}`, ...teams.map((t) => `team:${t.id}`)]) {
      for (const grant of grantsByPrincipal.get(key) ?? []) {
        grants.set(grant.targetId, maxRole(grants.get(grant.targetId), grant.role) as Role);
      }
    }
    result.set(member.userId, {
      orgId,
      userId: member.userId,
      membership: { role: isRole(member.role) ? member.role : null, sso: member.sso === 1 },
      teamIds: teams.map((t) => t.id),
      ownedTeamIds: teams.filter((t) => t.role === "owner").map((t) => t.id),
      grants,
      collections: collectionMap,
    });
  }
  return result;
}
