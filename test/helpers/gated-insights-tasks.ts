/**
 * The insights reads' task module (src/modules/insights/worker-reads.queries.ts) with a gate before each
 * read, for a test to hold a read in its worker thread as a long statement would: the read writes
 * `<database file>.started`, then blocks its thread (synchronously, as a statement does) until
 * `<database file>.release` exists.
 */
import fs from "node:fs";
import run, { type RowsRead } from "../../src/modules/insights/worker-reads.queries.js";

const nap = new Int32Array(new SharedArrayBuffer(4));

export default function gated(task: { name: string; input: unknown }): unknown {
  const { file } = task.input as RowsRead;
  fs.writeFileSync(`${file}.started`, "");
  while (!fs.existsSync(`${file}.release`)) Atomics.wait(nap, 0, 0, 5);
  return run(task);
}
