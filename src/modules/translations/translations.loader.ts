/** Loading a translation (or an organization's translations) with the caller's access to it. */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow, TranslationRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import type { OrgAccess } from "../../permissions/access.js";
import { organizationPermissions } from "../organizations/organizations.policy.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { translationPermissions } from "./translations.policy.js";
import { getTranslation, listTranslationsOfOrg, sourceNodes } from "./translations.queries.js";
import type { TranslationPermissionsValue } from "./translations.schemas.js";

/** Whoever asks: their access to each organization (the request's actor). */
export interface Caller {
  access: { forOrg(orgId: string): Promise<OrgAccess> };
}

export interface LoadedOrg {
  org: OrganizationRow;
  access: OrgAccess;
  admin: boolean;
}

export const translationNotFound = (id: string) => missing(`No translation with id "${id}".`);

/** An organization the caller is a member of (404 otherwise: outsiders cannot tell it exists). */
export async function requireMemberOrg(db: Executor, caller: Caller, orgId: string): Promise<LoadedOrg> {
  const org = await getOrganization(db, orgId);
  const access = org ? await caller.access.forOrg(org.id) : undefined;
  if (!org || !access?.membership) throw missing(`No organization with id "${orgId}" that you are a member of.`);
  return { org, access, admin: organizationPermissions(access).admin };
}

export interface LoadedTranslation extends LoadedOrg {
  translation: TranslationRow;
  permissions: TranslationPermissionsValue;
}

/** A translation the caller may view (404 when it does not exist, is another organization's, or is hidden from them). */
export async function requireTranslation(db: Executor, caller: Caller, orgId: string, id: string): Promise<LoadedTranslation> {
  const loaded = await requireMemberOrg(db, caller, orgId);
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
