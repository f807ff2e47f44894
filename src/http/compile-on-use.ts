/**
 * Request and response schemas compiled by their first use (src/http/validators.ts, serializers.ts):
 * a route's validator or serializer is a function that compiles the real one when first called,
 * then hands every call to it.
 */

interface CompiledValidator {
  (data: unknown, context?: unknown): unknown;
  errors?: unknown[] | null;
}

/** The compile step of each function made here (compileNow). */
const compileSteps = new WeakMap<object, () => unknown>();

/**
 * A validator compiled on its first call. Its `errors` are those of the compiled validator's last
 * call. `ajvParentData`: Fastify passes the parent object (the request) to a validator that has a
 * `schemaEnv`, as Ajv's functions do, so that Ajv can replace a root value it coerces or defaults.
 */
export function compiledOnFirstUse<V extends CompiledValidator>(compile: () => V, options: { ajvParentData?: boolean } = {}): V {
  let compiled: V | undefined;
  const compileOnce = () => (compiled ??= compile());
  const validate = ((data: unknown, context?: unknown) => {
    const real = compileOnce();
    const result = real(data, context);
    validate.errors = real.errors ?? null;
    return result;
  }) as V;
  validate.errors = null;
  if (options.ajvParentData) Object.defineProperty(validate, "schemaEnv", { value: true });
  compileSteps.set(validate, compileOnce);
  return validate;
}

/** A serializer compiled on its first call. */
export function serializerOnFirstUse<S extends (data: never) => string>(compile: () => S): S {
  let compiled: S | undefined;
  const compileOnce = () => (compiled ??= compile());
  const serialize = ((data: never) => compileOnce()(data)) as S;
  compileSteps.set(serialize, compileOnce);
  return serialize;
}

/** Compiles now a validator or serializer made here (it throws what its compiler throws); false for any other function. */
export function compileNow(fn: object): boolean {
  const step = compileSteps.get(fn);
  step?.();
  return step !== undefined;
}
