import { type ContentNode, contentLevel, type OrgAccess } from "../../permissions/access.js";
import { atLeast } from "../../permissions/roles.js";
import type { TranslationPermissionsValue } from "./translations.schemas.js";

/** The source space as the policy sees it (undefined when it is gone or left the organization). */
export interface TranslationSourceNode extends ContentNode {
  deletedAt: string | null;
}

/**
 * What the caller may do with a translation. Organization admins manage translations (create,
 * change, run, delete: a translation writes a space of the organization on its own); members who
 * may read the source space may view its translation, since it shows that space's id and activity.
 */
export function translationPermissions(access: OrgAccess, source: TranslationSourceNode | undefined): TranslationPermissionsValue {
  const admin = access.membership?.role === "admin";
  const readsSource = !!source && !source.deletedAt && atLeast(contentLevel(access, source), "read");
  return { view: admin || readsSource, edit: admin };
}

/**
 * The members (user ids, sorted) who may read a translation's target space but not its source. A
 * translation reads like its source, no wider: a run refuses to write while this is not empty.
 */
export function readersBeyondSource(
  members: ReadonlyMap<string, OrgAccess>,
  source: TranslationSourceNode,
  target: TranslationSourceNode,
): string[] {
  const beyond: string[] = [];
  for (const [userId, access] of members) {
    if (atLeast(contentLevel(access, target), "read") && !atLeast(contentLevel(access, source), "read")) beyond.push(userId);
  }
  return beyond.sort();
}
