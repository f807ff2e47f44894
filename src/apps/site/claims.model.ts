/**
 * A visitor's claims as conditions see them (`visitor.claims`): the signed claims of their visitor
 * token, plus the unsigned claims (`visitor.claims.unsigned`) the site's adaptive schema declares,
 * read from `visitor.<path>=<value>` query parameters and `*-visitor-public*` cookies (JSON) and
 * typed by the schema. Anything the schema does not declare, or of the wrong type, is dropped: a
 * visitor can forge unsigned claims, but only within the shape the site asked for. Pure.
 */
import { createHash } from "node:crypto";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Claims the JWT format defines for itself: they say nothing about the visitor, and change per token. */
const REGISTERED = new Set(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]);
const BLOCKED = new Set(["__proto__", "constructor", "prototype"]);

/** The claims of a verified token's payload that describe the visitor: all but the registered ones. */
export function signedClaimsOf(payload: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(payload)) {
    if (!REGISTERED.has(key) && !BLOCKED.has(key)) out[key] = value;
  }
  return out;
}

/** The `properties` the adaptive schema declares under `unsigned`, or undefined when it declares none. */
export function unsignedSchemaOf(schema: Json | undefined): Json | undefined {
  const unsigned = isObject(schema?.properties) ? (schema.properties as Json).unsigned : undefined;
  return isObject(unsigned) && isObject(unsigned.properties) ? unsigned.properties : undefined;
}

/** A value typed as `claim` declares it, or undefined when it cannot be. Strings from a URL are parsed. */
function typed(claim: Json, value: unknown, depth: number): unknown {
  if (depth > 8) return undefined;
  switch (claim.type) {
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true") return true;
      if (value === "false") return false;
      return undefined;
    case "number": {
      const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case "string":
      if (typeof value !== "string") return undefined;
      if (Array.isArray(claim.enum) && !claim.enum.includes(value)) return undefined;
      return value;
    case "array": {
      let list = value;
      if (typeof value === "string") {
        try {
          list = JSON.parse(value);
        } catch {
          list = value.split(",");
        }
      }
      if (!Array.isArray(list) || !isObject(claim.items)) return undefined;
      const items = claim.items;
      const out = list.slice(0, 100).map((item) => typed(items, item, depth + 1));
      return out.every((item) => item !== undefined) ? out : undefined;
    }
    case "object": {
      let object = value;
      if (typeof value === "string") {
        try {
          object = JSON.parse(value);
        } catch {
          return undefined;
        }
      }
      return isObject(object) && isObject(claim.properties) ? typedObject(claim.properties, object, depth + 1) : undefined;
    }
    default:
      return undefined;
  }
}

/** The declared properties of `value`, each typed; undeclared or mistyped ones left out. */
function typedObject(properties: Json, value: Json, depth: number): Json {
  const out: Json = {};
  for (const [name, raw] of Object.entries(value)) {
    const claim = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!isObject(claim) || BLOCKED.has(name)) continue;
    const v = typed(claim, raw, depth);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** Sets `value` at `path` inside `target` (creating objects on the way), when the schema declares the path. */
function setDeclared(target: Json, properties: Json, path: readonly string[], raw: string): void {
  let schema = properties;
  let into = target;
  for (let i = 0; i < path.length; i++) {
    const name = path[i] as string;
    const claim = Object.hasOwn(schema, name) ? schema[name] : undefined;
    if (!isObject(claim) || BLOCKED.has(name)) return;
    if (i === path.length - 1) {
      const v = typed(claim, raw, 0);
      if (v !== undefined) into[name] = v;
      return;
    }
    if (claim.type !== "object" || !isObject(claim.properties)) return;
    const next = isObject(into[name]) ? (into[name] as Json) : {};
    into[name] = next;
    into = next;
    schema = claim.properties;
  }
}

/** Deep merge of plain objects, `over` winning. */
function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = isObject(value) && isObject(out[key]) ? merge(out[key] as Json, value) : value;
  }
  return out;
}

export interface UnsignedSources {
  /** JSON texts of the `*-visitor-public*` cookies, in the order the browser sent them. */
  cookies: readonly string[];
  /** `visitor.<path>` query parameters: the path (without `visitor.`) and the raw value. */
  query: readonly (readonly [string, string])[];
}

/** Unsigned claims from cookies then query parameters (a query parameter wins), kept to what the schema declares. */
export function unsignedClaims(properties: Json | undefined, sources: UnsignedSources): Json {
  if (!properties) return {};
  let out: Json = {};
  for (const text of sources.cookies) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    if (isObject(parsed)) out = merge(out, typedObject(properties, parsed, 0));
  }
  const fromQuery: Json = {};
  for (const [path, value] of sources.query) {
    const names = path.split(".");
    if (names.length > 6 || names.some((n) => n === "")) continue;
    setDeclared(fromQuery, properties, names, value);
  }
  return merge(out, fromQuery);
}

/** Claims as conditions see them: the signed ones, with `unsigned` when there are any. */
export function combineClaims(signed: Json, unsigned: Json): Json {
  return Object.keys(unsigned).length > 0 ? { ...signed, unsigned } : { ...signed };
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * A short stable key of what a reader sees with these claims, for page caches and ETags: equal
 * claims (whatever their key order) give equal keys. No claims give "v0", so the common case of a
 * reader without claims shares one entry.
 */
export function variantKeyOf(claims: Json, member: boolean): string {
  if (Object.keys(claims).length === 0 && !member) return "v0";
  return createHash("sha256")
    .update(`${member ? "m" : "v"}${canonical(claims)}`)
    .digest("base64url")
    .slice(0, 22);
}
