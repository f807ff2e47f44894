import type { OrgAccess } from "../../permissions/access.js";

export interface ConversationsPermissions {
  /** See conversations, their issues and clusters: every member but guests. */
  view: boolean;
  /** Push conversations in: organization admins (the organization's `ingestConversations`). */
  ingest: boolean;
}

/**
 * What the caller may do with the organization's support conversations. They are redacted, but
 * still the words of the organization's customers: guests (members without a role) see none.
 */
export function conversationsPermissions(access: Pick<OrgAccess, "membership"> | undefined): ConversationsPermissions {
  const membership = access?.membership;
  const role = membership?.role ?? null;
  return {
    view: !!membership && role !== null,
    ingest: role === "admin",
  };
}
