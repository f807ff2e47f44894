import { derivedFromCached } from "../../db/prepared.js";
import type { SpaceRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { deepFreeze, parseJson, parseJsonOrNull } from "../../lib/json.js";
import type { OrgAccess } from "../../permissions/access.js";
import { toDefaultLevel } from "../../permissions/access.js";
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

/** A space's JSON columns, parsed once per cached row (shared: frozen). */
const storedJsonOf = derivedFromCached((space: SpaceRow) =>
  deepFreeze({
    mergeRules: parseJson<SpaceMergeRulesValue>(space.mergeRules, "spaces.merge_rules"),
    gitSync: parseJsonOrNull<GitSyncStateValue>(space.gitSync, "spaces.git_sync"),
    visitorAuth: parseJsonOrNull<VisitorAuthValue>(space.visitorAuth, "spaces.visitor_auth"),
  }),
);
