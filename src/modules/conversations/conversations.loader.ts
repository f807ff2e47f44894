/** Loads an organization's conversation data with the caller's access to it. */
import type { Executor } from "../../db/database.js";
import type { OrganizationRow } from "../../db/schema.js";
import { notAllowed } from "../../lib/errors.js";
import { contentLevel, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { requireOrganization } from "../organizations/organizations.loader.js";
import { listSpaceNodes } from "../spaces/spaces.queries.js";
import { type ConversationsPermissions, conversationsPermissions } from "./conversations.policy.js";

export interface LoadedConversations {
  org: OrganizationRow;
  access: OrgAccess;
  permissions: ConversationsPermissions;
}

/**
 * The organization and what the caller may do with its conversations: 404 when it does not exist
 * or the caller is not a member (outsiders cannot tell the two apart), 403 when they may not `need`.
 */
export async function loadConversations(
  db: Executor,
  actor: Actor,
  orgId: string,
  need: keyof ConversationsPermissions,
): Promise<LoadedConversations> {
  const { org, access } = await requireOrganization(db, actor, orgId);
  const permissions = conversationsPermissions(access);
  if (!permissions[need]) {
    throw notAllowed(
      need === "ingest"
        ? "Only organization admins can ingest conversations."
        : "Guests cannot see the organization's conversations, issues and clusters.",
    );
  }
  return { org, access, permissions };
}

/** The organization's live spaces the caller may read (documentation pages are shown only from these). */
export async function readableSpaceIds(db: Executor, access: OrgAccess): Promise<Set<string>> {
  const nodes = await listSpaceNodes(db, { orgId: access.orgId });
  return new Set(nodes.filter((node) => contentLevel(access, node) !== null).map((node) => node.id));
}
