/**
 * `node --import tsx --import ./bench/compiled.mjs <bench file>`: the bench's own TypeScript runs
 * through tsx, but every module it (or anything it imports) loads from src/ comes from the compiled
 * build in dist/ instead, which is what `quire serve` runs. tsx's transform is not tsc's: it keeps
 * function names by wrapping each function it creates in a `__name(…)` call, which in a request's
 * closures costs CPU on every request that the built server never spends.
 *
 * A src/ module without a compiled twin (the editor's sources, which the build leaves to esbuild)
 * is loaded from src/ as before.
 */
import { register } from "node:module";

register("./compiled-hooks.mjs", import.meta.url);
