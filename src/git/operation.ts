/**
 * The lifetime of one Git operation (an import's fetch and reads, or an export): a private temp
 * directory, the locked-down environment, one deadline and one abort signal for all its processes,
 * and guaranteed removal of the directory.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type CheckedRemote, checkRemote, type RemotePolicy } from "./address.js";
import { GitError } from "./errors.js";
import { type GitOperation, gitConfigArgs, gitEnv } from "./run.js";
import { createRedactor, type RemoteUrl } from "./url.js";

export interface GitLimits {
  /** Largest single file (blob) imported or exported, in bytes. GitBook's own limit is 100 MB. */
  maxFileBytes: number;
  /**
   * Largest import or export: the sum of the files it stores or writes. An import counts only the
   * files its pages use (pages, includes and the files they refer to), not every file of the tree.
   */
  maxRepoBytes: number;
  /** Most files an import stores or an export writes. */
  maxFiles: number;
  /** Largest fetch: the size of the fetched objects on disk (the whole commit, used or not). */
  maxFetchBytes: number;
  /** Most entries listed from a tree (files, links and submodules, used or not). */
  maxTreeEntries: number;
  /** Whole operation, from the first git command to the last read or the push. */
  timeoutMs: number;
}

export const DEFAULT_GIT_LIMITS: GitLimits = {
  maxFileBytes: 100 * 1024 * 1024,
  maxRepoBytes: 1024 * 1024 * 1024,
  maxFiles: 50_000,
  maxFetchBytes: 4 * 1024 * 1024 * 1024,
  maxTreeEntries: 500_000,
  timeoutMs: 10 * 60_000,
};

export interface OperationOptions {
  signal?: AbortSignal;
  /** Overrides limits.timeoutMs. */
  timeoutMs?: number;
  limits?: Partial<GitLimits>;
  /** Parent of the private temp directory (default: the OS temp directory). */
  tmpDir?: string;
}

export interface OperationHandle extends GitOperation {
  /** The private temp directory (mode 0700); git's bare repository is `repoDir` inside it. */
  dir: string;
  repoDir: string;
  limits: GitLimits;
  remote: RemoteUrl;
  /** The URL safe to show (no credentials). */
  displayUrl: string;
  /** Fails the operation with `error`: kills its running processes and refuses new ones. */
  fail(error: GitError): void;
  /** Stops the timer and removes the temp directory. Idempotent; never throws. */
  close(): Promise<void>;
}

/**
 * Starts an operation on `remote`: checks where it leads under `policy` (address.ts: resolves and
 * pins an http(s) host, finds a file:// remote's real path), then prepares the temp directory.
 */
export async function openOperation(remote: RemoteUrl, options: OperationOptions, policy: RemotePolicy): Promise<OperationHandle> {
  const limits: GitLimits = { ...DEFAULT_GIT_LIMITS, ...options.limits };
  if (options.timeoutMs !== undefined) limits.timeoutMs = options.timeoutMs;
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0) throw new GitError("git_failed", `Git limit ${name} must be a positive number`);
  }
  if (options.signal?.aborted) throw new GitError("aborted", "The Git operation was aborted");

  const controller = new AbortController();
  const fail = (error: GitError) => {
    if (!controller.signal.aborted) controller.abort(error);
  };
  const onCallerAbort = () => fail(new GitError("aborted", "The Git operation was aborted"));
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const timer = setTimeout(
    () => fail(new GitError("timeout", `The Git operation exceeded its time limit of ${limits.timeoutMs} ms (timeoutMs)`)),
    limits.timeoutMs,
  );
  timer.unref();

  let checked: CheckedRemote;
  let dir: string | undefined;
  let home: string;
  try {
    checked = await checkRemote(remote, policy, controller.signal);
    dir = await fs.mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), "quire-git-"));
    home = path.join(dir, "home");
    await fs.mkdir(home, { mode: 0o700 });
  } catch (error) {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onCallerAbort);
    if (dir) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }

  let closed: Promise<void> | undefined;
  return {
    dir,
    repoDir: path.join(dir, "repo.git"),
    limits,
    remote: checked.remote,
    displayUrl: remote.url,
    env: gitEnv({ home, remote: checked.remote }),
    configArgs: gitConfigArgs(checked.remote, checked.pins),
    signal: controller.signal,
    abortError: () =>
      controller.signal.reason instanceof GitError ? controller.signal.reason : new GitError("aborted", "The Git operation was aborted"),
    redact: createRedactor(remote.credentials),
    fail,
    close() {
      closed ??= (async () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onCallerAbort);
        // Processes still running (an abandoned read) must not write into a directory being removed.
        fail(new GitError("aborted", "The Git operation was closed"));
        await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
      })();
      return closed;
    },
  };
}

/** Total size of the files under `dir` (to watch a fetch that is still writing). */
export async function directorySize(dir: string): Promise<number> {
  let total = 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(full);
    else if (entry.isFile())
      total += await fs.stat(full).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}
