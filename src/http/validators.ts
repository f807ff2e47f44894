/**
 * Schema validators: bodies are validated as sent, query strings and path parameters may coerce.
 *
 * A JSON body carries its own types, so a number where a string is expected is the caller's mistake
 * and answers 400 naming the field (coercion would store `42` as "42", or `["Writers"]` as "Writers").
 * Query strings and path parameters are text by nature: `?limit=20` becomes the number 20 and a single
 * `?ids=a` a one-item array. Numbers must be finite everywhere (`limit=1e309` is Infinity: a 400).
 */
import { AjvCompiler, type BuildCompilerFromPool, type ValidatorFactory } from "@fastify/ajv-compiler";

const shared = { useDefaults: true, removeAdditional: true, allErrors: false, strictNumbers: true } as const;

/** The `schemaController.compilersFactory.buildValidator` of buildApp. */
export const buildValidator = ((...[externalSchemas, ajvOptions]: Parameters<BuildCompilerFromPool>) => {
  const options = ajvOptions ?? {};
  const strict = AjvCompiler()(externalSchemas, {
    ...options,
    customOptions: { ...options.customOptions, ...shared, coerceTypes: false },
  } as never);
  const coercing = AjvCompiler()(externalSchemas, {
    ...options,
    customOptions: { ...options.customOptions, ...shared, coerceTypes: "array" },
  } as never);
  // Fastify calls the compiler with its route definition ({ schema, httpPart, ... }).
  return ((route: { httpPart?: string }) =>
    route.httpPart === "body" ? strict(route as never) : finiteOnly(coercing(route as never) as Validate)) as never;
}) as ValidatorFactory;

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

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
      for (const [key, value] of Object.entries(data)) {
        const values = Array.isArray(value) ? value : [value];
        if (values.some((v) => typeof v === "number" && !Number.isFinite(v))) {
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
