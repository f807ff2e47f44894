import type { OrgAccess } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import type { OpenAPISpecPermissionsValue } from "./openapi.schemas.js";

/**
 * What the caller may do with the organization's OpenAPI specs. Members with a role (not guests)
 * view them; members who may create content (the organization's `createOpenAPISpec`) create,
 * update, change the visibility of and delete them. Outsiders see nothing.
 */
export function openapiSpecPermissions(access: Pick<OrgAccess, "membership"> | undefined): OpenAPISpecPermissionsValue {
  const role = access?.membership?.role ?? null;
  return { view: !!access?.membership && role !== null, edit: atLeast(role, "create") };
}

/** Who may read a spec's processed document: anyone when it is public, else those who may view it. */
export function canReadDocument(spec: { visibility: string }, permissions: OpenAPISpecPermissionsValue | undefined): boolean {
  return spec.visibility === "public" || !!permissions?.view;
}
