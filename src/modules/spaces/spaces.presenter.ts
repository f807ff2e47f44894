import { derivedFromCached } from "../../db/prepared.js";
import type { SpaceRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { deepFreeze, parseJson, parseJsonOrNull } from "../../lib/json.js";
import type { OrgAccess } from "../../permissions/access.js";
import { toDefaultLevel } from "../../permissions/access.js";
import type { Role } from "../../permissions/roles.js";
import type { SpaceMergeRulesValue } from "../merge-rules/merge-rules.schemas.js";
import type { SpaceCounts } from "./space-activity.queries.js";
import { spacePermissions } from "./spaces.policy.js";
import type { GitSyncStateValue, SpacePermissionsValue, SpaceResponse, VisitorAuthValue } from "./spaces.schemas.js";

export type { SpaceCounts };

/** Spaces as the caller sees them: their permissions, with activity counted before for all of them at once. */
export function presentSpacesFor(
  access: OrgAccess,
  spaces: readonly SpaceRow[],
  counts: ReadonlyMap<string, SpaceCounts>,
  urls: Urls,
): SpaceResponse[] {
  return spaces.map((space) => presentSpace(space, { permissions: spacePermissions(access, space), counts: counts.get(space.id)! }, urls));
}

/** The public shape of a space (`Space`). */
export function presentSpace(
  space: SpaceRow,
  input: { permissions: SpacePermissionsValue; counts: SpaceCounts },
  urls: Urls,
): SpaceResponse {
  const { mergeRules, gitSync, visitorAuth } = storedJsonOf(space);
  return {
    object: "space",
    id: space.id,
    title: space.title,
    emoji: space.emoji,
    visibility: space.visibility as SpaceResponse["visibility"],
    createdAt: space.createdAt,
    updatedAt: space.updatedAt,
    ...(space.deletedAt ? { deletedAt: space.deletedAt } : {}),
    editMode: space.editMode as SpaceResponse["editMode"],
    mergeRules,
    urls: {
      location: urls.api(`/spaces/${space.id}`),
      app: urls.app(`/o/${space.orgId}/s/${space.id}`),
      // No `published`/`public` address: nothing is published until sites exist.
      ...(space.iconUrl ? { icon: space.iconUrl } : {}),
    },
    organization: space.orgId,
    ...(space.parentId ? { parent: space.parentId } : {}),
    ...(space.language ? { language: space.language as NonNullable<SpaceResponse["language"]> } : {}),
    ...(gitSync ? { gitSync } : {}),
    ...(visitorAuth ? { visitorAuth } : {}),
    revision: space.revisionId,
    defaultLevel: toDefaultLevel(space.defaultLevel),
    ...input.counts,
    permissions: input.permissions,
  };
}

/** Texts kept per space row, at most: one per level and counters seen while the row is cached. */
const MAX_KEPT_PER_SPACE = 8;

/**
 * The JSON text of a space as `presentSpace` presents it and `serialize` (one route's response
 * serializer) writes it, kept with the space's cached row: while the row and the counters are
 * unchanged, every read of the space by a caller with the same level is the same text, and
 * presenting and serializing it again would cost more than the reads that found it. The
 * permissions are a function of the row and the level (spacePermissionsForLevel), so the level,
 * with the counters' values, tells the texts of one row apart. A row that is not cached (not
 * frozen: read in a transaction, or on PostgreSQL without the change feed) is presented each time.
 * One keeper per route: the `urls` and `serialize` of its first call are those of every later one.
 */
export function spaceJsonKeeper(): (
  loaded: { space: SpaceRow; level: Role | null; permissions: SpacePermissionsValue },
  counts: SpaceCounts,
  urls: Urls,
  serialize: (space: SpaceResponse) => string,
) => string {
  const kept = new WeakMap<SpaceRow, Map<string, string>>();
  return ({ space, level, permissions }, counts, urls, serialize) => {
    const write = () => serialize(presentSpace(space, { permissions, counts }, urls));
    if (!Object.isFrozen(space)) return write();
    const key = `${level}|${counts.comments}|${counts.changeRequests}|${counts.changeRequestsOpen}|${counts.changeRequestsDraft}`;
    let texts = kept.get(space);
    let text = texts?.get(key);
    if (text !== undefined) return text;
    text = write();
    if (!texts) kept.set(space, (texts = new Map()));
    else if (texts.size >= MAX_KEPT_PER_SPACE) texts.clear();
    texts.set(key, text);
    return text;
  };
}

/** A space's JSON columns, parsed once per cached row (shared: frozen). */
const storedJsonOf = derivedFromCached((space: SpaceRow) =>
  deepFreeze({
    mergeRules: parseJson<SpaceMergeRulesValue>(space.mergeRules, "spaces.merge_rules"),
    gitSync: parseJsonOrNull<GitSyncStateValue>(space.gitSync, "spaces.git_sync"),
    visitorAuth: parseJsonOrNull<VisitorAuthValue>(space.visitorAuth, "spaces.visitor_auth"),
  }),
);
