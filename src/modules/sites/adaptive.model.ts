/**
 * The adaptive schema of a site: a draft-07 JSON Schema of the claims a visitor brings (signed in
 * their token, unsigned under `unsigned`), of exactly the shape @gitbook/api 0.146.0 gives
 * (`SiteAdaptiveJSONSchema`). Checked here by hand so that a refusal says where and why; then the
 * template conditions are generated from it. Pure: no database, no HTTP.
 */
import { invalid } from "../../lib/errors.js";

export const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
export const UNSIGNED_DESCRIPTION = "Unsigned claims of the site visitor.";

/** Nested objects deeper than this are refused (a claim path of 6 names at most). */
const MAX_DEPTH = 5;
const MAX_CLAIMS = 500;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function onlyKeys(value: Json, allowed: readonly string[], at: string): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) {
    throw invalid(`${at} has the property "${extra}", which is not allowed here (allowed: ${allowed.join(", ")}).`);
  }
}

function requireDescription(value: Json, at: string): void {
  if (typeof value.description !== "string") throw invalid(`${at}.description is required and must be a string.`);
}

function checkFalse(value: Json, at: string): void {
  if (value.additionalProperties !== false) throw invalid(`${at}.additionalProperties must be false.`);
}

/** A primitive claim: boolean, string (with an optional enum of strings) or number. */
function checkPrimitive(value: Json, at: string): void {
  if (value.type === "boolean" || value.type === "number") {
    onlyKeys(value, ["type", "description"], at);
    requireDescription(value, at);
    return;
  }
  if (value.type === "string") {
    onlyKeys(value, ["type", "description", "enum"], at);
    requireDescription(value, at);
    if (value.enum !== undefined) {
      if (!Array.isArray(value.enum) || value.enum.length === 0 || !value.enum.every((v) => typeof v === "string")) {
        throw invalid(`${at}.enum must be a non-empty array of strings.`);
      }
      if (new Set(value.enum).size !== value.enum.length) throw invalid(`${at}.enum must not repeat a value.`);
    }
    return;
  }
  throw invalid(`${at}.type must be "boolean", "string" or "number" here, not ${JSON.stringify(value.type)}.`);
}

function checkClaims(properties: unknown, at: string, depth: number, count: { n: number }): void {
  if (!isObject(properties)) throw invalid(`${at} must be an object of claims.`);
  for (const [name, claim] of Object.entries(properties)) {
    const claimAt = `${at}.${name}`;
    if (name.length === 0 || name.length > 100) throw invalid(`${at} has a claim name of ${name.length} characters; use 1 to 100.`);
    if (++count.n > MAX_CLAIMS) throw invalid(`The schema declares more than ${MAX_CLAIMS} claims.`);
    if (!isObject(claim)) throw invalid(`${claimAt} must be an object describing the claim.`);
    if (claim.type === "object") {
      if (depth >= MAX_DEPTH) throw invalid(`${claimAt} nests objects more than ${MAX_DEPTH} levels deep.`);
      onlyKeys(claim, ["type", "description", "properties", "additionalProperties"], claimAt);
      requireDescription(claim, claimAt);
      checkFalse(claim, claimAt);
      checkClaims(claim.properties, `${claimAt}.properties`, depth + 1, count);
    } else if (claim.type === "array") {
      onlyKeys(claim, ["type", "description", "items"], claimAt);
      requireDescription(claim, claimAt);
      if (!isObject(claim.items)) throw invalid(`${claimAt}.items must be an object describing the items.`);
      checkPrimitive(claim.items, `${claimAt}.items`);
    } else if (["boolean", "string", "number"].includes(claim.type as string)) {
      checkPrimitive(claim, claimAt);
    } else {
      throw invalid(`${claimAt}.type must be one of "boolean", "string", "number", "array", "object", not ${JSON.stringify(claim.type)}.`);
    }
  }
}

/**
 * Checks that `schema` is an adaptive schema of the accepted shape; throws a 400 naming the first
 * place where it is not.
 */
export function checkAdaptiveSchema(schema: Record<string, unknown>, at = "body.jsonSchema"): void {
  onlyKeys(schema, ["$schema", "type", "properties", "additionalProperties"], at);
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_07) throw invalid(`${at}.$schema must be "${DRAFT_07}" when given.`);
  if (schema.type !== "object") throw invalid(`${at}.type must be "object".`);
  checkFalse(schema, at);
  if (!isObject(schema.properties)) throw invalid(`${at}.properties is required and must be an object of claims.`);
  const { unsigned, ...signed } = schema.properties;
  const count = { n: 0 };
  checkClaims(signed, `${at}.properties`, 1, count);
  if (unsigned !== undefined) {
    const unsignedAt = `${at}.properties.unsigned`;
    if (!isObject(unsigned)) throw invalid(`${unsignedAt} must be an object.`);
    onlyKeys(unsigned, ["type", "description", "properties", "additionalProperties"], unsignedAt);
    if (unsigned.type !== "object") throw invalid(`${unsignedAt}.type must be "object".`);
    if (unsigned.description !== UNSIGNED_DESCRIPTION) throw invalid(`${unsignedAt}.description must be "${UNSIGNED_DESCRIPTION}".`);
    checkFalse(unsigned, unsignedAt);
    checkClaims(unsigned.properties, `${unsignedAt}.properties`, 2, count);
  }
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function access(base: string, name: string): string {
  return IDENTIFIER.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`;
}

function conditionsOf(properties: Json, base: string, out: TemplateCondition[]): void {
  for (const [name, raw] of Object.entries(properties)) {
    const claim = raw as Json;
    const path = access(base, name);
    const label = typeof claim.description === "string" && claim.description ? claim.description : name;
    if (claim.type === "boolean") {
      out.push({ description: `${label}: ${name} is true`, condition: `${path} === true` });
    } else if (claim.type === "string" && Array.isArray(claim.enum)) {
      for (const value of claim.enum as string[]) {
        out.push({ description: `${label}: ${name} is ${JSON.stringify(value)}`, condition: `${path} === ${JSON.stringify(value)}` });
      }
    } else if (claim.type === "array" && isObject(claim.items) && Array.isArray(claim.items.enum)) {
      for (const value of claim.items.enum as string[]) {
        out.push({
          description: `${label}: ${name} includes ${JSON.stringify(value)}`,
          condition: `${path}?.includes(${JSON.stringify(value)}) === true`,
        });
      }
    } else if (claim.type === "object" && isObject(claim.properties)) {
      conditionsOf(claim.properties, path, out);
    }
  }
}

/**
 * Conditions a writer can start from: one per boolean claim and one per value of each enum (signed
 * claims under `visitor.claims`, unsigned ones under `visitor.claims.unsigned`), in schema order.
 */
export function templateConditions(schema: Record<string, unknown>): TemplateCondition[] {
  const out: TemplateCondition[] = [];
  const properties = isObject(schema.properties) ? schema.properties : {};
  const { unsigned, ...signed } = properties;
  conditionsOf(signed, "visitor.claims", out);
  if (isObject(unsigned) && isObject(unsigned.properties)) conditionsOf(unsigned.properties, "visitor.claims.unsigned", out);
  return out;
}
