/** Loading a translation (or an organization's translations) with the caller's access to it. */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow, SpaceRow, TranslationRow } from "../../db/schema.js";
import { invalid, missing } from "../../lib/errors.js";
import { contentLevel, loadMembersAccess, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { atLeast } from "../../permissions/roles.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { readersBeyondSource, type TranslationSourceNode, translationPermissions } from "./translations.policy.js";
import { getTranslation, listTranslationsOfOrg, sourceNodes } from "./translations.queries.js";
import type { TranslationPermissionsValue } from "./translations.schemas.js";

export interface LoadedOrg {
  org: OrganizationRow;
  access: OrgAccess;
  admin: boolean;
}

export const translationNotFound = (id: string) => missing(`No translation with id "${id}".`);

/**
 * The source space a new translation names, which the caller must be able to read (a translation
 * shows its content): a 400 naming the field otherwise, as for an id that does not exist.
 */
export async function requireTranslationSource(db: Executor, access: OrgAccess, spaceId: string): Promise<SpaceRow> {
  const source = await getSpace(db, spaceId);
  if (!source || source.orgId !== access.orgId || !atLeast(contentLevel(access, source), "read")) {
    throw invalid(`body.source.space names "${spaceId}", which is not a space of this organization.`);
  }
  return source;
}

/**
 * Members of the organization who may read a translation's target space but not its source: a run
 * would show them the source's content (translations.policy.ts `readersBeyondSource`).
 */
export async function membersReadingBeyondSource(
  db: Executor,
  orgId: string,
  source: TranslationSourceNode,
  target: TranslationSourceNode,
): Promise<string[]> {
  return readersBeyondSource(await loadMembersAccess(db, orgId), source, target);
}

/** An organization the caller is a member of (404 otherwise: outsiders cannot tell it exists). */
export async function requireMemberOrg(db: Executor, actor: Actor, orgId: string): Promise<LoadedOrg> {
  const { org, access, permissions } = await requireOrganization(db, actor, orgId);
  return { org, access, admin: permissions.admin };
}

export interface LoadedTranslation extends LoadedOrg {
  translation: TranslationRow;
  permissions: TranslationPermissionsValue;
}

/** A translation the caller may view (404 when it does not exist, is another organization's, or is hidden from them). */
export async function requireTranslation(db: Executor, actor: Actor, orgId: string, id: string): Promise<LoadedTranslation> {
  const loaded = await requireMemberOrg(db, actor, orgId);
  const translation = await getTranslation(db, loaded.org.id, id);
  if (!translation) throw translationNotFound(id);
  const nodes = await sourceNodes(db, loaded.org.id, [translation.sourceSpaceId]);
  const permissions = translationPermissions(loaded.access, nodes.get(translation.sourceSpaceId));
  if (!permissions.view) throw translationNotFound(id);
  return { ...loaded, translation, permissions };
}

/** The organization's translations the caller may view, each with its permissions. */
export async function visibleTranslations(
  db: Executor,
  loaded: LoadedOrg,
): Promise<Array<{ translation: TranslationRow; permissions: TranslationPermissionsValue }>> {
  const rows = await listTranslationsOfOrg(db, loaded.org.id);
  const nodes = await sourceNodes(
    db,
    loaded.org.id,
    rows.map((r) => r.sourceSpaceId),
  );
  return rows
    .map((translation) => ({ translation, permissions: translationPermissions(loaded.access, nodes.get(translation.sourceSpaceId)) }))
    .filter((t) => t.permissions.view);
}
