/** SCIM resources (RFC 7643) from Quire's members and teams; the ETag is a hash of what is shown. Pure. */
import { createHash } from "node:crypto";
import type { ScimMemberRow, ScimTeamRow } from "./scim.queries.js";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

export type ScimResource = Record<string, unknown> & { id: string; meta: Record<string, unknown> };

function versioned(resource: ScimResource): ScimResource {
  const version = `W/"${createHash("sha256").update(JSON.stringify(resource)).digest("hex").slice(0, 20)}"`;
  return { ...resource, meta: { ...resource.meta, version } };
}

/** The display name split as a person's name is usually written (given names, then the family name). */
function nameOf(displayName: string): { formatted: string; givenName?: string; familyName?: string } {
  const parts = displayName.trim().split(/\s+/);
  if (parts.length < 2) return { formatted: displayName, ...(parts[0] ? { givenName: parts[0] } : {}) };
  return { formatted: displayName, givenName: parts.slice(0, -1).join(" "), familyName: parts.at(-1) as string };
}

export function presentScimUser(
  base: string,
  row: ScimMemberRow,
  externalId: string | undefined,
  groups: { id: string; title: string }[],
): ScimResource {
  return versioned({
    schemas: [USER_SCHEMA],
    id: row.userId,
    ...(externalId !== undefined ? { externalId } : {}),
    userName: row.email,
    name: nameOf(row.displayName),
    displayName: row.displayName,
    emails: [{ value: row.email, type: "work", primary: true }],
    active: row.disabled !== 1,
    groups: groups.map((g) => ({ value: g.id, display: g.title, $ref: `${base}/Groups/${g.id}` })),
    meta: { resourceType: "User", created: row.joinedAt, lastModified: row.updatedAt, location: `${base}/Users/${row.userId}` },
  });
}

export function presentScimGroup(
  base: string,
  row: ScimTeamRow,
  externalId: string | undefined,
  members: { userId: string; displayName: string }[] | undefined,
): ScimResource {
  return versioned({
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(externalId !== undefined ? { externalId } : {}),
    displayName: row.title,
    ...(members ? { members: members.map((m) => ({ value: m.userId, display: m.displayName, $ref: `${base}/Users/${m.userId}` })) } : {}),
    meta: { resourceType: "Group", created: row.createdAt, lastModified: row.updatedAt, location: `${base}/Groups/${row.id}` },
  });
}

export function listResponse(resources: ScimResource[], total: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

/** What `attributes` / `excludedAttributes` ask for (RFC 7644 3.4.2.5 and 3.9). */
export interface AttributeSelection {
  attributes?: string | undefined;
  excludedAttributes?: string | undefined;
}

/** Attributes returned whatever is asked (RFC 7643 "returned: always"), and the message's schemas. */
const ALWAYS = new Set(["id", "schemas"]);

/** `userName`, `name.givenName` or `urn:...:User:name.givenName`, as lower-case paths. */
function attributePaths(list: string | undefined): string[][] {
  if (!list) return [];
  return list
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const lower = item.toLowerCase();
      for (const schema of [USER_SCHEMA, GROUP_SCHEMA]) {
        if (lower.startsWith(`${schema.toLowerCase()}:`)) return lower.slice(schema.length + 1).split(".");
      }
      return lower.split(".");
    });
}

function keyIn(record: Record<string, unknown>, lowerName: string): string | undefined {
  return Object.keys(record).find((key) => key.toLowerCase() === lowerName);
}

function pick(value: unknown, sub: string): unknown {
  if (Array.isArray(value)) return value.map((item) => pick(item, sub));
  if (!value || typeof value !== "object") return undefined;
  const key = keyIn(value as Record<string, unknown>, sub);
  return key === undefined ? {} : { [key]: (value as Record<string, unknown>)[key] };
}

function omit(value: unknown, sub: string): unknown {
  if (Array.isArray(value)) return value.map((item) => omit(item, sub));
  if (!value || typeof value !== "object") return value;
  const key = keyIn(value as Record<string, unknown>, sub);
  if (key === undefined) return value;
  const { [key]: _, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * The resource with only the attributes asked for (plus `id` and `schemas`), or without the ones
 * excluded; `attributes` wins when both are given. Unknown names are ignored, as the RFC allows.
 */
export function selectAttributes<R extends Record<string, unknown>>(resource: R, selection: AttributeSelection): Record<string, unknown> {
  const wanted = attributePaths(selection.attributes);
  if (wanted.length > 0) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(resource)) if (ALWAYS.has(key)) out[key] = value;
    for (const [name, sub] of wanted) {
      const key = keyIn(resource, name as string);
      if (key === undefined || ALWAYS.has(key)) continue;
      const value = resource[key];
      if (sub === undefined) out[key] = value;
      else if (out[key] === undefined) out[key] = pick(value, sub);
      else if (Array.isArray(out[key]) && Array.isArray(value)) {
        out[key] = (out[key] as unknown[]).map((item, i) => ({ ...(item as object), ...(pick(value[i], sub) as object) }));
      } else out[key] = { ...(out[key] as object), ...(pick(value, sub) as object) };
    }
    return out;
  }
  let out: Record<string, unknown> = { ...resource };
  for (const [name, sub] of attributePaths(selection.excludedAttributes)) {
    const key = keyIn(out, name as string);
    if (key === undefined || ALWAYS.has(key)) continue;
    if (sub === undefined) {
      const { [key]: _, ...rest } = out;
      out = rest;
    } else out[key] = omit(out[key], sub);
  }
  return out;
}
