/**
 * The parts of docs/architecture.md generated from the code (scripts/architecture-doc.mjs): the job
 * kinds as the worker runs them, and a stale document failing the check.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../scripts/architecture-doc.mjs";
import { jobKinds } from "../../scripts/lib/jobs.mjs";
import { jobDefinitions, periodicJobs } from "../../src/app.js";

const root = path.resolve(import.meta.dirname, "../..");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A repository of the given files (path -> text). */
function repository(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-doc-"));
  made.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const app = (definitions: string) => `import { purgeJob } from "./modules/spaces/spaces.jobs.js";
export const jobDefinitions = [${definitions}];
`;
const spacesJobs = `import { defineJob } from "../../jobs/registry.js";
import { HOURS } from "./hours.js";
const ATTEMPTS = 1 + 2;
export const EVERY = 2 * HOURS;
export const purgeJob = defineJob({ kind: "purge", maxAttempts: ATTEMPTS, everyMs: EVERY, async run() {} });
`;
const doc = [
  "# Architecture",
  "<!-- generated:module-graph (node scripts/architecture-doc.mjs; do not edit by hand) -->",
  "<!-- end generated:module-graph -->",
  "<!-- generated:jobs (node scripts/architecture-doc.mjs; do not edit by hand) -->",
  "<!-- end generated:jobs -->",
  "",
].join("\n");

async function run(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, "scripts/architecture-doc.mjs"), ...args]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("the job kinds read from the code", () => {
  it("are the ones the worker runs, with the attempts and periods it uses", () => {
    const read = jobKinds().map(({ kind, maxAttempts, everyMs }) => ({ kind, maxAttempts, everyMs }));
    const running = jobDefinitions.map((definition) => ({
      kind: definition.kind,
      maxAttempts: definition.maxAttempts ?? 5,
      everyMs: periodicJobs.find((periodic) => periodic.kind === definition.kind)?.everyMs,
    }));
    expect(read).toEqual(running);
    for (const job of jobKinds()) expect(job.file).toMatch(/^src\/.*\.jobs\.ts$/);
  });

  it("follow constants through imports, and refuse a job defined outside a .jobs.ts file or never listed", () => {
    const files = {
      "src/modules/spaces/hours.ts": "export const HOURS = 60 * 60_000;\n",
      "src/modules/spaces/spaces.jobs.ts": spacesJobs,
      "src/app.ts": app("purgeJob"),
    };
    expect(jobKinds(repository(files))).toEqual([
      { kind: "purge", file: "src/modules/spaces/spaces.jobs.ts", line: 5, maxAttempts: 3, everyMs: 7_200_000 },
    ]);
    const forgotten = {
      ...files,
      "src/modules/spaces/more.jobs.ts": 'export const other = defineJob({ kind: "other", async run() {} });\n',
    };
    expect(() => jobKinds(repository(forgotten))).toThrow(/more\.jobs\.ts:1: this job is defined but not listed in jobDefinitions/);
    const misplaced = {
      ...files,
      "src/modules/spaces/spaces.jobs.ts": "",
      "src/app.ts": app("purgeJob").replace("spaces.jobs.js", "purge.js"),
      "src/modules/spaces/purge.ts": spacesJobs,
    };
    expect(() => jobKinds(repository(misplaced))).toThrow(/purge\.ts:5: job purge is defined outside a \*\.jobs\.ts file/);
  });
});

describe("the generated document", () => {
  it("fails the check when stale, and is rewritten between its markers", async () => {
    const dir = repository({
      "docs/architecture.md": doc,
      "src/app.ts": app("purgeJob"),
      "src/modules/spaces/spaces.jobs.ts": spacesJobs,
      "src/modules/spaces/hours.ts": "export const HOURS = 60 * 60_000;\n",
      "src/modules/web/web.routes.ts":
        'import { purgeJob } from "../spaces/spaces.jobs.js";\nconst lazy = () => import("../spaces/hours.js");\n',
    });
    const stale = await run(["--check", dir]);
    expect(stale.code).toBe(1);
    expect(stale.output).toContain("docs/architecture.md is out of date");
    expect((await run([dir])).code).toBe(0);
    const written = fs.readFileSync(path.join(dir, "docs/architecture.md"), "utf8");
    expect(written).toContain("| `web` | `spaces` (also `import()`) |");
    expect(written).toContain("| `spaces` | none |");
    expect(written).toContain("| `purge` | `src/modules/spaces/spaces.jobs.ts` | 3 | every 2 h (its `everyMs`) |");
    expect(await run(["--check", dir])).toEqual({ code: 0, output: expect.stringContaining("match the code") });
    expect(generate(written, dir)).toBe(written);
  });
});
