import type { RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { saveContent, saveDocumentsJson } from "../../content/revision/storage.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";
import type { Executor } from "../../db/database.js";
import type { SpaceRow } from "../../db/schema.js";
import { announceAccessChange } from "../../lib/access-changes.js";
import { conflicting, invalid, preconditionFailed } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { isoDaysAgo, nowIso } from "../../lib/time.js";
import type { OrgAccess } from "../../permissions/access.js";
import { copyGrants, deleteAccessToTargets, grantCreatorAdmin } from "../../permissions/grants.queries.js";
import { removeSpacesFromSitesOutside } from "../content-tree/departures.queries.js";
import { type ContentPositionValue, planMove } from "../content-tree/move.model.js";
import { keyAtEnd, positionsFor, sortSiblings } from "../content-tree/positions.model.js";
import { listSiblings, writePositions } from "../content-tree/tree.queries.js";
import { SPACE_RETENTION_DAYS } from "./spaces.jobs.js";
import { insertFirstRevision, insertSpace, markSpaceDeleted, markSpaceRestored, placeSpace } from "./spaces.queries.js";

/** Content a new space starts with: its page tree and the documents it refers to (canonical JSON by hash). */
export interface StartContent {
  content: RevisionContent;
  documents: ReadonlyMap<string, string>;
}

export interface NewSpaceInput {
  orgId: string;
  parentId: string | null;
  title: string;
  emoji?: string | undefined;
  language?: string | undefined;
  editMode?: string | undefined;
  /**
   * A space whose access the new one takes: its default level and its user and team grants (a
   * translation reads like its source, no wider). Without it the new space inherits from its parent.
   */
  accessLike?: Pick<SpaceRow, "id" | "defaultLevel"> | undefined;
  /** A space of the same organization whose current content the new one starts with (a template), else none. */
  contentOf?: Pick<SpaceRow, "id" | "orgId" | "revisionId"> | undefined;
  /** Content the new space starts with (a built-in template of the web app); not with `contentOf`. */
  startContent?: StartContent | undefined;
  access: OrgAccess;
  actorId: string;
}

/**
 * Creates a space at the end of its parent with its first revision (empty: no tree yet, or the
 * template's content), so that `space.revision` always names a revision. Run inside a transaction.
 */
export async function createSpace(trx: Executor, input: NewSpaceInput): Promise<SpaceRow> {
  const siblings = await listSiblings(trx, input.orgId, input.parentId);
  const now = nowIso();
  const space: SpaceRow = {
    id: newId(),
    orgId: input.orgId,
    parentId: input.parentId,
    title: input.title,
    emoji: input.emoji ?? "",
    iconUrl: null,
    visibility: "private",
    editMode: input.editMode ?? "live",
    // New content follows its parent (or the organization's roles at the top level).
    defaultLevel: input.accessLike ? input.accessLike.defaultLevel : "inherit",
    language: input.language ?? null,
    mergeRules: JSON.stringify({ type: "inherit" }),
    revisionId: newId(),
    position: keyAtEnd(siblings),
    gitSync: null,
    visitorAuth: null,
    createdBy: input.actorId,
    deletedAt: null,
    deletedBy: null,
    createdAt: now,
    updatedAt: now,
  };
  if (input.contentOf && input.contentOf.orgId !== input.orgId) throw invalid("A space starts only from a space of its own organization.");
  // Content is content-addressed: the new space's first revision shares the template's tree.
  let treeHash = input.contentOf ? ((await getSpaceRevision(trx, input.contentOf.id, input.contentOf.revisionId))?.treeHash ?? null) : null;
  if (input.startContent && !input.contentOf) {
    await saveDocumentsJson(trx, input.startContent.documents);
    treeHash = await saveContent(trx, input.startContent.content);
  }
  await insertSpace(trx, space);
  await insertFirstRevision(trx, { id: space.revisionId, spaceId: space.id, treeHash, createdBy: input.actorId });
  if (input.accessLike) await copyGrants(trx, input.accessLike.id, { targetId: space.id, targetType: "space" });
  await grantCreatorAdmin(trx, input.access, space, "space");
  if (treeHash) await requestSearchIndex(trx, space.id);
  return space;
}

/** Keeps the " (copy)" suffix and shortens the title (by characters, not UTF-16 units) to fit 50. */
export function copyTitle(title: string): string {
  const suffix = " (copy)";
  const chars = Array.from(title);
  return chars.slice(0, 50 - suffix.length).join("") + suffix;
}

/**
 * A new space with the same settings and grants as `original`, placed right after it, whose first
 * revision shares the original's current tree (content is content-addressed, so nothing is
 * copied). Git sync is not copied: it binds one space to one repository. Run inside a transaction.
 */
export async function duplicateSpace(trx: Executor, input: { original: SpaceRow; access: OrgAccess; actorId: string }): Promise<SpaceRow> {
  const { original } = input;
  const revision = await getSpaceRevision(trx, original.id, original.revisionId);
  const siblings = sortSiblings(await listSiblings(trx, original.orgId, original.parentId));
  const index = siblings.findIndex((s) => s.kind === "space" && s.id === original.id);
  const id = newId();
  const order = [...siblings.slice(0, index + 1), { kind: "space" as const, id, position: "" }, ...siblings.slice(index + 1)];
  const positions = positionsFor(order, { kind: "space", id });
  const now = nowIso();
  const copy: SpaceRow = {
    ...original,
    id,
    title: copyTitle(original.title),
    revisionId: newId(),
    position: positions.find((p) => p.id === id)?.position ?? keyAtEnd(siblings),
    gitSync: null,
    createdBy: input.actorId,
    deletedAt: null,
    deletedBy: null,
    createdAt: now,
    updatedAt: now,
  };
  await insertSpace(trx, copy);
  // Siblings are renumbered only when the original and its next sibling share a key.
  await writePositions(
    trx,
    positions.filter((p) => p.id !== id),
  );
  await insertFirstRevision(trx, {
    id: copy.revisionId,
    spaceId: copy.id,
    treeHash: revision?.treeHash ?? null,
    createdBy: input.actorId,
  });
  await copyGrants(trx, original.id, { targetId: copy.id, targetType: "space" });
  await grantCreatorAdmin(trx, input.access, copy, "space");
  // The copy shares the original's content, which its own search index must cover.
  await requestSearchIndex(trx, copy.id);
  return copy;
}

/** Soft-deletes a space: hidden everywhere, restorable by its admins for 7 days, then purged. */
export async function deleteSpace(trx: Executor, input: { space: SpaceRow; actorId: string }): Promise<void> {
  await markSpaceDeleted(trx, input.space.id, input.actorId);
  announceAccessChange({ kind: "space", spaceId: input.space.id });
}

/**
 * Restores a space deleted in the last 7 days (400 later: the purge job may not have run yet, but
 * the retention promise has expired). Back at its old place, or at the end of its parent when
 * another item took its key meanwhile. Run inside a transaction.
 */
export async function restoreSpace(trx: Executor, input: { space: SpaceRow }): Promise<void> {
  const { space } = input;
  if (!space.deletedAt) throw conflicting(`Space "${space.id}" is not deleted; there is nothing to restore.`);
  if (space.deletedAt < isoDaysAgo(SPACE_RETENTION_DAYS)) {
    throw invalid(
      `Space "${space.id}" was deleted on ${space.deletedAt}, more than ${SPACE_RETENTION_DAYS} days ago; only spaces deleted in the last ${SPACE_RETENTION_DAYS} days can be restored.`,
    );
  }
  const siblings = await listSiblings(trx, space.orgId, space.parentId);
  const taken = siblings.some((s) => s.position === space.position && !(s.kind === "space" && s.id === space.id));
  await markSpaceRestored(trx, space.id, taken ? keyAtEnd(siblings) : undefined);
}

/** Moves a space among its siblings and/or into another collection (validated by planMove). */
export async function moveSpace(
  trx: Executor,
  input: { space: SpaceRow; destinationParentId: string | null; position?: ContentPositionValue | undefined },
): Promise<void> {
  const { space, destinationParentId } = input;
  const siblings = await listSiblings(trx, space.orgId, destinationParentId);
  const updates = planMove({
    item: { kind: "space", id: space.id, parentId: space.parentId },
    destinationParentId,
    siblings,
    position: input.position,
  });
  await writePositions(trx, updates, { kind: "space", id: space.id, parentId: destinationParentId });
  // Another collection's grants apply to it now.
  if (destinationParentId !== space.parentId) announceAccessChange({ kind: "space", spaceId: space.id });
}

/**
 * Moves a space to another organization and/or collection, at the end. 409 when it is already
 * there; 412 when the organization changes and the space has Git sync configured (the Git
 * installation belongs to the old organization). Grants and invite links are dropped when the
 * organization changes: they name users and teams of the old one. Run inside a transaction.
 */
export async function transferSpace(
  trx: Executor,
  input: { space: SpaceRow; targetOrgId: string; destinationParentId: string | null },
): Promise<void> {
  const { space, targetOrgId, destinationParentId } = input;
  const orgChanges = targetOrgId !== space.orgId;
  if (!orgChanges && destinationParentId === space.parentId) {
    throw conflicting(`Space "${space.id}" is already there; the transfer would change nothing.`);
  }
  if (orgChanges && space.gitSync !== null) {
    throw preconditionFailed(
      `Space "${space.id}" cannot be transferred to another organization while Git sync is configured on it. Remove its Git sync first.`,
    );
  }
  const position = keyAtEnd(await listSiblings(trx, targetOrgId, destinationParentId));
  if (orgChanges) {
    await deleteAccessToTargets(trx, [space.id]);
    // The old organization's sites stop showing it (their site spaces go; their sections stay).
    await removeSpacesFromSitesOutside(trx, [space.id], targetOrgId);
  }
  await placeSpace(trx, space.id, { orgId: targetOrgId, parentId: destinationParentId, position });
  announceAccessChange({ kind: "space", spaceId: space.id });
}
