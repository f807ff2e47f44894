/**
 * PATCH operations (RFC 7644 3.5.2) as Okta and Microsoft Entra send them, turned into changes:
 * `op` in any case (Entra writes `Replace`), with or without `path`, booleans as strings (`"False"`),
 * `emails[type eq "work"].value`, `name.givenName`, and for groups `members` added, removed
 * (`members[value eq "id"]`, or `members` with a value list) or replaced. Attributes Quire does not
 * keep (title, enterprise extension...) are accepted and ignored. Pure.
 */
import { invalid } from "../../lib/errors.js";
import { PATCH_SCHEMA } from "./scim.presenter.js";

/** What a SCIM client may set on a User. Undefined: leave as it is. */
export interface UserChange {
  userName?: string;
  displayName?: string;
  givenName?: string;
  familyName?: string;
  active?: boolean;
  externalId?: string | null;
}

interface Operation {
  op: string;
  path?: string;
  value?: unknown;
}

export function operationsOf(body: unknown): Operation[] {
  const ops = (body as { Operations?: unknown; schemas?: unknown })?.Operations;
  const schemas = (body as { schemas?: unknown })?.schemas;
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA))
    throw invalid(`invalidSyntax: a PATCH body must list the schema ${PATCH_SCHEMA}.`);
  if (!Array.isArray(ops) || ops.length === 0 || ops.length > 1000)
    throw invalid("invalidSyntax: Operations must be a list of 1 to 1000 operations.");
  return ops.map((raw, i) => {
    const op = (raw as { op?: unknown })?.op;
    const path = (raw as { path?: unknown })?.path;
    if (typeof op !== "string" || !["add", "replace", "remove"].includes(op.toLowerCase())) {
      throw invalid(`invalidSyntax: Operations[${i}].op must be add, replace or remove.`);
    }
    if (path !== undefined && typeof path !== "string") throw invalid(`invalidPath: Operations[${i}].path must be a string.`);
    return { op: op.toLowerCase(), ...(path !== undefined ? { path } : {}), value: (raw as { value?: unknown }).value };
  });
}

function bool(value: unknown, field: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  throw invalid(`invalidValue: ${field} must be true or false.`);
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(`invalidValue: ${field} must be a string.`);
  return value;
}

const unprefix = (path: string) => path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:User:/i, "").toLowerCase();

/** One attribute of a User set (or removed, `value` undefined) into the change. */
function setUserAttribute(change: UserChange, path: string, value: unknown, remove: boolean): void {
  const p = unprefix(path);
  if (p === "active") change.active = remove ? true : bool(value, "active");
  else if (p === "username") change.userName = text(value, "userName");
  else if (p === "displayname") change.displayName = remove ? "" : text(value, "displayName");
  else if (p === "externalid") change.externalId = remove ? null : text(value, "externalId");
  else if (p === "name.givenname") change.givenName = remove ? "" : text(value, "name.givenName");
  else if (p === "name.familyname") change.familyName = remove ? "" : text(value, "name.familyName");
  else if (p === "name.formatted") change.displayName = remove ? "" : text(value, "name.formatted");
  else if (p === "name" && !remove && typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) setUserAttribute(change, `name.${k}`, v, false);
  } else if (/^emails(\[.*\])?(\.value)?$/.test(p) && !remove) {
    const primary = Array.isArray(value)
      ? ((value as { value?: unknown; primary?: unknown }[]).find((e) => e?.primary === true) ?? value[0])?.value
      : typeof value === "object" && value !== null
        ? (value as { value?: unknown }).value
        : value;
    if (primary !== undefined) change.userName = text(primary, "emails.value");
  }
}

export function userChangeOf(body: unknown): UserChange {
  const change: UserChange = {};
  for (const { op, path, value } of operationsOf(body)) {
    if (path === undefined) {
      if (op === "remove") throw invalid("noTarget: a remove operation needs a path.");
      if (typeof value !== "object" || value === null) throw invalid("invalidValue: an operation without path needs an object value.");
      for (const [k, v] of Object.entries(value)) setUserAttribute(change, k, v, false);
    } else setUserAttribute(change, path, value, op === "remove");
  }
  return change;
}

export interface GroupChange {
  displayName?: string;
  externalId?: string | null;
  setMembers?: string[];
  addMembers?: string[];
  removeMembers?: string[];
}

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((m, i) => text((m as { value?: unknown })?.value, `members[${i}].value`));
}

export function groupChangeOf(body: unknown): GroupChange {
  const change: GroupChange = {};
  const add = (ids: string[]) => {
    change.addMembers = [...(change.addMembers ?? []), ...ids];
  };
  const remove = (ids: string[]) => {
    change.removeMembers = [...(change.removeMembers ?? []), ...ids];
  };
  for (const { op, path, value } of operationsOf(body)) {
    const p = path?.toLowerCase();
    const one = p ? /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/.exec(path ?? "") : null;
    if (p === undefined) {
      if (typeof value !== "object" || value === null) throw invalid("invalidValue: an operation without path needs an object value.");
      for (const [k, v] of Object.entries(value)) {
        const key = k.toLowerCase();
        if (key === "displayname") change.displayName = text(v, "displayName");
        else if (key === "externalid") change.externalId = text(v, "externalId");
        else if (key === "members") op === "replace" ? (change.setMembers = memberIds(v)) : add(memberIds(v));
      }
    } else if (p === "displayname") change.displayName = text(value, "displayName");
    else if (p === "externalid") change.externalId = op === "remove" ? null : text(value, "externalId");
    else if (one) remove([one[1] as string]);
    else if (p === "members") {
      if (op === "add") add(memberIds(value));
      else if (op === "replace") change.setMembers = memberIds(value);
      else if (value === undefined) change.setMembers = [];
      else remove(memberIds(value));
    } else throw invalid(`invalidPath: "${path}" is not an attribute of a Group Quire keeps (displayName, externalId, members).`);
  }
  if (change.displayName !== undefined && (change.displayName.trim() === "" || change.displayName.length > 100)) {
    throw invalid("invalidValue: displayName must be 1 to 100 characters.");
  }
  return change;
}
