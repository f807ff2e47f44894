// The worker threads' entry when Quire runs from its TypeScript sources (tsx, vitest): registers
// tsx's loader in the thread, then hands the tasks to piscina. Built code uses tasks.js directly.
import { register } from "tsx/esm/api";

register();
const { default: runTask } = await import("./tasks.ts");
export default runTask;
