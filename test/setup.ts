/**
 * Run before every test file (vitest.config.ts `setupFiles`). Test files share worker processes
 * (`isolate: false`: the app's modules load once per worker, not once per file), so a file must
 * leave the process as it found it: this fails the file that leaves process.env changed, naming
 * the variables, rather than letting a later file, in whichever order files land, inherit them.
 */
import { afterAll, beforeAll } from "vitest";

let before: Record<string, string | undefined> = {};
beforeAll(() => {
  before = { ...process.env };
});
afterAll(() => {
  const names = new Set([...Object.keys(before), ...Object.keys(process.env)]);
  const changed = [...names].filter((name) => before[name] !== process.env[name]).sort();
  if (changed.length > 0) {
    throw new Error(
      `This test file left process.env changed (${changed.join(", ")}); test files share a process (vitest.config.ts): restore what a test changes.`,
    );
  }
});
