/**
 * The README's quick start, run as written: the block marked `quick-start` in README.md goes to
 * bash, from a fresh folder whose server was started as `npm start` starts it (with built-in
 * defaults and the folder's `data/`). The repository it imports is a GitBook-format repository on
 * this machine (the suite has no internet): the block reads REPO and REF for that.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { createBareRepo } from "./helpers/git.js";
import { freePort } from "./helpers/ports.js";

const root = path.resolve(import.meta.dirname, "..");

/** The shell block that follows the `quick-start` marker in the README. */
function quickStartBlock(readme: string): string {
  const marker = readme.indexOf("<!-- quick-start:");
  expect(marker, "README.md has no quick-start marker").toBeGreaterThan(-1);
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
  expect(match, "no ```sh block after the quick-start marker").toBeTruthy();
  return match![1]!;
}

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

it("creates a space, imports a Git repository, publishes it and reads it, as the README says", async () => {
  const repo = createBareRepo(
    {
      "README.md": "# Handbook\n\nHow we work.\n",
      "SUMMARY.md": "# Table of contents\n\n* [Handbook](README.md)\n* [Onboarding](onboarding.md)\n",
      "onboarding.md": '# Onboarding\n\n{% hint style="info" %}\nWelcome aboard.\n{% endhint %}\n',
    },
    { branch: "master" },
  );
  cleanups.push(repo.cleanup);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "quire-quick-start-"));
  cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  const port = await freePort();

  // The server as `npm start` runs it from `folder`: no settings but the port and the local remote.
  const server = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), path.join(root, "src/cli.ts"), "serve"], {
    cwd: folder,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      QUIRE_SAMPLE: "false",
      QUIRE_GIT_ALLOW_FILE_URLS: "true",
      QUIRE_GIT_FILE_ROOT: path.dirname(repo.dir),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  cleanups.push(() => server.kill("SIGKILL"));
  let logs = "";
  server.stdout!.on("data", (d) => (logs += d));
  server.stderr!.on("data", (d) => (logs += d));
  for (let i = 0; i < 1800 && !logs.includes("quire is serving"); i++) await new Promise((r) => setTimeout(r, 100));
  expect(logs).toContain("quire is serving");

  const block = quickStartBlock(fs.readFileSync(path.join(root, "README.md"), "utf8"));
  const { stdout } = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", block], {
    cwd: folder,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      QUIRE_PUBLIC_URL: `http://localhost:${port}`,
      REPO: repo.url,
      REF: "refs/heads/master",
    },
    timeout: 600_000,
  });
  const lines = stdout.trim().split("\n");
  expect(lines[0]).toBe("succeeded");
  expect(lines[1]).toMatch(new RegExp(`^http://localhost:${port}/s/`));
  expect(stdout).toContain("[Onboarding](");
  const onboarding = await (await fetch(`${lines[1]}/onboarding.md`)).text();
  expect(onboarding).toContain("Welcome aboard.");
}, 900_000);
