/**
 * Loads an organization's OpenAPI specs with the caller's access: "load the object and what the
 * caller may do with it". Outsiders, and callers asking with another organization's id, get the
 * same 404 as for an organization that does not exist.
 */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow } from "../../db/schema.js";
import { missing } from "../../lib/errors.js";
import type { AccessCache, OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { getOrganization } from "../organizations/organizations.queries.js";
import { openapiSpecPermissions } from "./openapi.policy.js";
import { getSpecBySlug, getVersion, type OpenApiSpec, type OpenApiVersion } from "./openapi.queries.js";
import type { OpenAPISpecPermissionsValue } from "./openapi.schemas.js";

export interface LoadedSpecsOrg {
  org: OrganizationRow;
  access: OrgAccess;
  /** What the caller may do with the organization's specs. */
  permissions: OpenAPISpecPermissionsValue;
}

export interface LoadedSpec extends LoadedSpecsOrg {
  spec: OpenApiSpec;
}

export const specNotFound = (slug: string) => missing(`No OpenAPI spec with slug "${slug}" in this organization.`);

/** The organization, for one of its members (guests included: the policy decides what they see). */
export async function loadSpecsOrg(db: Executor, actor: Actor, orgId: string): Promise<LoadedSpecsOrg> {
  const { org, access } = await requireOrganization(db, actor, orgId);
  return { org, access, permissions: openapiSpecPermissions(access) };
}

/** A spec the caller may view; 404 when it does not exist or they may not. */
export async function loadSpec(db: Executor, actor: Actor, orgId: string, slug: string): Promise<LoadedSpec> {
  const loaded = await loadSpecsOrg(db, actor, orgId);
  if (!loaded.permissions.view) throw specNotFound(slug);
  const spec = await getSpecBySlug(db, loaded.org.id, slug);
  if (!spec) throw specNotFound(slug);
  return { ...loaded, spec };
}

/** A version of a spec the caller may view: `latest` is the spec's last version. */
export async function loadVersion(db: Executor, spec: OpenApiSpec, versionId: string): Promise<OpenApiVersion> {
  const id = versionId === "latest" ? spec.lastVersionId : versionId;
  const version = id ? await getVersion(db, spec.id, id) : undefined;
  if (!version) {
    throw missing(
      versionId === "latest"
        ? `The OpenAPI spec "${spec.slug}" has no processed version yet (processingState: ${spec.processingState}${spec.lastProcessErrorCode ? `, last error: ${spec.lastProcessErrorCode}` : ""}).`
        : `No version "${versionId}" of the OpenAPI spec "${spec.slug}".`,
    );
  }
  return version;
}

/**
 * A spec for the public document URL, whoever asks: the caller's permissions when they are a
 * member, undefined otherwise. The route decides with canReadDocument().
 */
export async function loadSpecForDocument(
  db: Executor,
  access: AccessCache | undefined,
  orgId: string,
  slug: string,
): Promise<{ spec: OpenApiSpec | undefined; permissions: OpenAPISpecPermissionsValue | undefined }> {
  const org = await getOrganization(db, orgId);
  if (!org) return { spec: undefined, permissions: undefined };
  const orgAccess = access ? await access.forOrg(org.id) : undefined;
  const permissions = orgAccess?.membership ? openapiSpecPermissions(orgAccess) : undefined;
  return { spec: await getSpecBySlug(db, org.id, slug), permissions };
}
