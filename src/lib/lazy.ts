/**
 * Modules loaded on first use. The server's start loads only what every process needs; a family of
 * modules that some requests never need (the editor model, the collaboration server, OIDC,
 * conversations' phone numbers, the API reference page...) is reached through one accessor made
 * here, next to the family, and loaded by the first request that calls it
 * (`node scripts/measure-start.mjs` measures the start).
 */

/** A function returning `load()`'s promise, loading once: a failed load is tried again on the next call. */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
