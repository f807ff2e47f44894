/**
 * Runs the git program without a shell, in a locked-down environment, bound to an operation's
 * deadline and abort signal. All output that reaches an error message goes through the operation's
 * redactor first.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { GitError } from "./errors.js";
import type { RemoteUrl } from "./url.js";

/** Variables passed through from our own environment: locating programs and reaching the network. */
const PASSTHROUGH_ENV = [
  "PATH",
  "TMPDIR",
  "http_proxy",
  "https_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "no_proxy",
  "NO_PROXY",
  "all_proxy",
  "ALL_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "GIT_EXEC_PATH",
];

export interface GitEnvOptions {
  /** Private, empty directory used as HOME (no ~/.gitconfig, no credential stores, no ~/.netrc). */
  home: string;
  remote?: RemoteUrl;
}

/**
 * The environment every git process runs with. Built from scratch (nothing inherited except
 * PATH/proxy/CA variables), so GIT_* variables of our own process (GIT_DIR, GIT_SSH_COMMAND,
 * GIT_ASKPASS, GIT_TRACE, ...) cannot redirect or reveal anything.
 */
export function gitEnv({ home, remote }: GitEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSTHROUGH_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: home,
    // Stable English messages: errors are recognised by their text.
    LC_ALL: "C",
    LANG: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    // git's own protocol allowlist, also applied to redirects and to any URL a server suggests.
    GIT_ALLOW_PROTOCOL: remote?.protocol === "file" ? "file" : "http:https",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    // Paths we pass after "--" are plain paths, never pathspec magic like ":(glob)".
    GIT_LITERAL_PATHSPECS: "1",
    GIT_NO_LAZY_FETCH: "1",
    GIT_AUTHOR_NAME: "Quire",
    GIT_AUTHOR_EMAIL: "quire@localhost",
    GIT_COMMITTER_NAME: "Quire",
    GIT_COMMITTER_EMAIL: "quire@localhost",
  });
  // Config given through the environment (git >= 2.31) rather than `-c` arguments: argv is visible
  // to every local user in the process list, the environment only to us.
  const config: [string, string][] = [];
  if (remote?.credentials) {
    const { username, password } = remote.credentials;
    const token = Buffer.from(`${username}:${password}`).toString("base64");
    config.push(["http.extraHeader", `Authorization: Basic ${token}`]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * `-c` options pinned on every git command. None is secret. They repeat the environment's
 * allowlist (defence in depth) and turn off everything that could run code or reach elsewhere.
 * `pins` are `http.curloptResolve` entries (address.ts): the only addresses git may connect to.
 */
export function gitConfigArgs(remote?: RemoteUrl, pins: readonly string[] = []): string[] {
  const settings: Record<string, string> = {
    "protocol.allow": "never",
    "protocol.http.allow": remote?.protocol === "file" ? "never" : "always",
    "protocol.https.allow": remote?.protocol === "file" ? "never" : "always",
    "protocol.file.allow": remote?.protocol === "file" ? "always" : "never",
    "protocol.ext.allow": "never",
    "protocol.ssh.allow": "never",
    "protocol.git.allow": "never",
    // A redirect would send git to an address nobody checked (and, with credentials, carry the
    // Authorization header there): none is followed; the caller is told to use the final URL.
    "http.followRedirects": "false",
    "core.hooksPath": "/dev/null",
    "core.fsmonitor": "false",
    "core.sshCommand": "false",
    "credential.helper": "",
    "submodule.recurse": "false",
    "fetch.recurseSubmodules": "false",
    "fetch.fsckObjects": "true",
    "transfer.fsckObjects": "true",
    "gc.auto": "0",
    "maintenance.auto": "false",
    "fetch.writeCommitGraph": "false",
    "advice.detachedHead": "false",
    "init.defaultBranch": "main",
    "core.quotePath": "false",
  };
  return [
    ...Object.entries(settings).flatMap(([key, value]) => ["-c", `${key}=${value}`]),
    ...pins.flatMap((pin) => ["-c", `http.curloptResolve=${pin}`]),
  ];
}

/** One Git operation: its temp dir, environment, deadline, signal and redactor, shared by its processes. */
export interface GitOperation {
  env: Record<string, string>;
  configArgs: string[];
  signal: AbortSignal;
  /** Explains why `signal` fired: the caller's abort or our timeout. */
  abortError(): GitError;
  redact(text: string): string;
}

export interface RunOptions {
  cwd?: string;
  stdin?: Buffer | string;
  /** Called with each stdout chunk instead of collecting it (for large, streamed outputs). */
  onStdout?: (chunk: Buffer) => void;
  /** A file descriptor git writes its stdout to, instead of a pipe to this process. */
  stdoutFd?: number;
  /** Largest stdout collected; more kills the process with this error. */
  maxStdout?: { bytes: number; error: () => GitError };
}

export interface RunResult {
  code: number;
  stdout: Buffer;
  /** Redacted, truncated stderr. */
  stderr: string;
}

const MAX_STDERR = 64 * 1024;

/** Kills the whole process group: git runs helpers (git-remote-https, index-pack) as children. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Starts `git <configArgs> <args>` (no shell) in its own process group. */
export function spawnGit(op: GitOperation, args: string[], cwd?: string): ChildProcessWithoutNullStreams {
  return spawnGitTo(op, args, cwd, "pipe") as ChildProcessWithoutNullStreams;
}

/** spawnGit with stdout to a pipe or to a file descriptor of ours. */
function spawnGitTo(op: GitOperation, args: string[], cwd: string | undefined, stdout: "pipe" | number): ChildProcess {
  return spawn("git", [...op.configArgs, ...args], {
    cwd,
    env: op.env,
    stdio: ["pipe", stdout, "pipe"],
    // Own process group, so a timeout or abort can kill git's helpers (remote-https, index-pack) too.
    detached: true,
    windowsHide: true,
  });
}

/** Runs git and resolves with its exit code and outputs; rejects on abort/timeout/limit. */
export function runGit(op: GitOperation, args: string[], options: RunOptions = {}): Promise<RunResult> {
  if (op.signal.aborted) return Promise.reject(op.abortError());
  return new Promise<RunResult>((resolve, reject) => {
    const child = spawnGitTo(op, args, options.cwd, options.stdoutFd ?? "pipe");
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    let failure: GitError | undefined;
    const fail = (error: GitError) => {
      if (!failure) failure = error;
      killGroup(child.pid);
    };
    const onAbort = () => fail(op.abortError());
    op.signal.addEventListener("abort", onAbort, { once: true });

    child.stdout?.on("data", (chunk: Buffer) => {
      if (failure) return;
      if (options.onStdout) {
        try {
          options.onStdout(chunk);
        } catch (error) {
          fail(error instanceof GitError ? error : new GitError("git_failed", op.redact(String(error))));
        }
        return;
      }
      stdoutBytes += chunk.length;
      if (options.maxStdout && stdoutBytes > options.maxStdout.bytes) {
        fail(options.maxStdout.error());
        return;
      }
      stdout.push(chunk);
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.stdin?.on("error", () => {
      // EPIPE when git exits before reading all input; the exit code tells what happened.
    });
    child.on("error", (error) => {
      op.signal.removeEventListener("abort", onAbort);
      reject(failure ?? new GitError("git_failed", `Could not run git: ${op.redact(error.message)}`));
    });
    child.on("close", (code) => {
      op.signal.removeEventListener("abort", onAbort);
      if (failure) {
        reject(failure);
        return;
      }
      resolve({ code: code ?? -1, stdout: Buffer.concat(stdout), stderr: op.redact(stderr.slice(0, MAX_STDERR)) });
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    else child.stdin?.end();
  });
}

/** Runs git and throws GitError("git_failed") with its (redacted) stderr when it exits non-zero. */
export async function runGitChecked(op: GitOperation, args: string[], options: RunOptions = {}): Promise<Buffer> {
  const result = await runGit(op, args, options);
  if (result.code !== 0) {
    throw new GitError("git_failed", `git ${args[0]} failed: ${lastLines(result.stderr)}`);
  }
  return result.stdout;
}

/** The last few meaningful lines of git's stderr, for an error message. */
export function lastLines(stderr: string, count = 4): string {
  const lines = stderr
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l && !/^(remote: )?(Enumerating|Counting|Compressing|Receiving|Resolving|Total|Writing)/.test(l));
  return lines.slice(-count).join(" | ") || "(no output)";
}
