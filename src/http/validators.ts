/**
 * Schema validators: bodies are validated as sent, query strings and path parameters may coerce.
 *
 * A JSON body carries its own types, so a number where a string is expected is the caller's mistake
 * and answers 400 naming the field (coercion would store `42` as "42", or `["Writers"]` as "Writers").
 * Query strings and path parameters are text by nature: `?limit=20` becomes the number 20 and a single
 * `?ids=a` a one-item array. Numbers must be finite everywhere (`limit=1e309` is Infinity: a 400).
 *
 * A schema is compiled by the first request that needs it, not when its route is registered: Ajv
 * compiling the app's ~1,000 route schemas was a third of the server's start (scripts/measure-start.mjs).
 * test/route-schemas.test.ts compiles every route's schemas, so a schema Ajv refuses fails a test.
 */
import { createRequire } from "node:module";
import type { BuildCompilerFromPool, ValidatorFactory } from "@fastify/ajv-compiler";
import { compiledOnFirstUse } from "./compile-on-use.js";

const shared = { useDefaults: true, removeAdditional: true, allErrors: false, strictNumbers: true } as const;

// Fastify asks for a compiler in each plugin context that registers routes (some 30 per app). A
// pool keeps one Ajv per set of external schemas and options, so that each compiles the JSON
// Schema meta-schema once and each route schema once (its compiled function is cached by schema
// object); a new pool per call compiled the meta-schema 64 times per app, most of its build time.
// Ajv itself (some 100 modules) is required by the first compile.
let pools: { strict: BuildCompilerFromPool; coercing: BuildCompilerFromPool } | undefined;
function ajvPools() {
  if (!pools) {
    const { AjvCompiler } = createRequire(import.meta.url)("@fastify/ajv-compiler") as typeof import("@fastify/ajv-compiler");
    pools = { strict: AjvCompiler(), coercing: AjvCompiler() };
  }
  return pools;
}

// One validator per schema object and pool key (as Ajv keeps one compiled function per schema object).
const validators = new Map<string, { strict: WeakMap<object, Validate>; coercing: WeakMap<object, Validate> }>();

/** The `schemaController.compilersFactory.buildValidator` of buildApp. */
export const buildValidator = ((...[externalSchemas, ajvOptions]: Parameters<BuildCompilerFromPool>) => {
  const options = ajvOptions ?? {};
  const strict = (route: unknown) =>
    ajvPools().strict(externalSchemas, {
      ...options,
      customOptions: { ...options.customOptions, ...shared, coerceTypes: false },
    } as never)(route as never) as Validate;
  const coercing = (route: unknown) =>
    ajvPools().coercing(externalSchemas, {
      ...options,
      customOptions: { ...options.customOptions, ...shared, coerceTypes: "array" },
    } as never)(route as never) as Validate;
  const key = `${JSON.stringify(externalSchemas ?? {})}${JSON.stringify(options.customOptions ?? {})}`;
  let cache = validators.get(key);
  if (!cache) validators.set(key, (cache = { strict: new WeakMap(), coercing: new WeakMap() }));
  const { strict: strictCache, coercing: coercingCache } = cache;
  // Fastify calls the compiler with its route definition ({ schema, httpPart, ... }).
  return ((route: { schema: object; httpPart?: string }) => {
    const body = route.httpPart === "body";
    const bySchema = body ? strictCache : coercingCache;
    let validate = bySchema.get(route.schema);
    if (!validate) {
      // A body validator is Ajv's own function: Fastify passes it the request as parent data.
      validate = body
        ? compiledOnFirstUse(() => strict(route), { ajvParentData: true })
        : compiledOnFirstUse(() => finiteOnly(coercing(route)));
      bySchema.set(route.schema, validate);
    }
    return validate;
  }) as never;
}) as ValidatorFactory;

type Validate = ((data: unknown, context?: unknown) => boolean) & { errors?: unknown[] | null };

const infinite = (value: unknown): boolean => typeof value === "number" && !Number.isFinite(value);

/**
 * Ajv coerces "1e309" to Infinity and then skips `minimum`/`maximum` (they only run on finite
 * numbers), so a coerced query value is checked here: query strings and path parameters are flat
 * objects of values or arrays of values.
 */
function finiteOnly(validate: Validate): Validate {
  const checked: Validate = (data) => {
    if (!validate(data)) {
      checked.errors = validate.errors ?? null;
      return false;
    }
    if (data && typeof data === "object") {
      // Every request's path and query pass here: no array or closure made per value.
      for (const key of Object.keys(data)) {
        const value = (data as Record<string, unknown>)[key];
        if (Array.isArray(value) ? value.some(infinite) : infinite(value)) {
          checked.errors = [{ keyword: "finite", instancePath: `/${key}`, params: {}, message: "must be a finite number" }];
          return false;
        }
      }
    }
    checked.errors = null;
    return true;
  };
  return checked;
}
