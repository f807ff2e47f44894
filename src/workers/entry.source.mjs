// The worker threads' entry when Quire runs from its TypeScript sources (tsx, vitest): registers
// tsx's loader in the thread, so that entry.ts and the task modules it imports (.ts files) load.
// Built code uses entry.js directly.
import { register } from "tsx/esm/api";

register();
const { default: runEntry } = await import("./entry.ts");
export default runEntry;
