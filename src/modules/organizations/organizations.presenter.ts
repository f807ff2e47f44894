import type { OrganizationRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { parseJson, parseJsonOrNull } from "../../lib/json.js";
import { isRole } from "../../permissions/roles.js";
import type { OrganizationPermissionsValue, OrganizationResponse } from "./organizations.schemas.js";

/** Quire is self-hosted: every organization has every feature, reported as the top plan. */
export const SELF_HOSTED_PLAN = "enterprise_2024";

export function presentOrganization(org: OrganizationRow, permissions: OrganizationPermissionsValue, urls: Urls): OrganizationResponse {
  const defaultContent = parseJsonOrNull<{ type: "site"; site: string }>(org.defaultContent, "organizations.default_content");
  return {
    object: "organization",
    id: org.id,
    title: org.title,
    createdAt: org.createdAt,
    emailDomains: parseJson<string[]>(org.emailDomains, "organizations.email_domains"),
    ...(org.hostname ? { hostname: org.hostname } : {}),
    type: org.type as OrganizationResponse["type"],
    ...(org.useCase ? { useCase: org.useCase as OrganizationResponse["useCase"] } : {}),
    ...(org.communityType ? { communityType: org.communityType as OrganizationResponse["communityType"] } : {}),
    defaultRole: isRole(org.defaultRole) ? org.defaultRole : null,
    ...(defaultContent ? { defaultContent } : {}),
    sso: org.sso === 1,
    ai: org.ai === 1,
    inviteLinks: org.inviteLinks === 1,
    plan: SELF_HOSTED_PLAN,
    mergeRules: parseJson(org.mergeRules, "organizations.merge_rules"),
    urls: {
      location: urls.api(`/orgs/${org.id}`),
      app: urls.app(`/o/${org.id}`),
      ...(org.logoUrl ? { logo: org.logoUrl } : {}),
    },
    trial: { status: "notapplicable", count: 0 },
    permissions,
  };
}
