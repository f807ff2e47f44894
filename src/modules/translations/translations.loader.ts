/** Loading a translation (or an organization's translations) with the caller's access to it. */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow, TranslationRow } from "../../db/schema.js";
import type { Actor } from "../../http/authenticate.js";
import { missing } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { translationPermissions } from "./translations.policy.js";
import { getTranslation, listTranslationsOfOrg, sourceNodes } from "./translations.queries.js";
import type { TranslationPermissionsValue } from "./translations.schemas.js";

export interface LoadedOrg {
  org: OrganizationRow;
  access: OrgAccess;
  admin: boolean;
}

export const translationNotFound = (id: string) => missing(`No translation with id "${id}".`);

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
