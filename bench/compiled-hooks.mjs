/** Module resolution hooks of bench/compiled.mjs: src/<path>.ts resolved as dist/<path>.js when built. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../", import.meta.url).href;
const source = `${root}src/`;
const built = `${root}dist/`;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(source) || !resolved.url.endsWith(".ts")) return resolved;
  const url = `${built}${resolved.url.slice(source.length, -".ts".length)}.js`;
  return existsSync(fileURLToPath(url)) ? { ...resolved, url, format: "module" } : resolved;
}
