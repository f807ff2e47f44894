/**
 * Where an operation's git may connect, decided once when the operation starts:
 *
 * - an http(s) remote's host name is resolved here, every address it resolves to must be allowed
 *   (public, or in the networks the operator allowed), and git is pinned to exactly those
 *   addresses (`http.curloptResolve`), so a DNS answer that changes between the check and git's own
 *   lookup (DNS rebinding) cannot send it elsewhere. git follows no redirect (run.ts), the one other
 *   way it could reach an address nobody checked.
 * - a file:// remote must really be under the operator's root: its real path (symlinks followed)
 *   is checked, and git is given that path.
 *
 * A host name that does not resolve, or resolves to an address that is not allowed, gives the same
 * message as a remote that refuses the connection or does not answer (repo.ts): which names exist
 * on the server's network, and which of their ports answer, is not for the caller to learn. The
 * reason goes to the server log (GitError.detail).
 */
import { execFile } from "node:child_process";
import dns from "node:dns";
import fs from "node:fs/promises";
import { isIP } from "node:net";
import path from "node:path";
import { allowingNetworks } from "../lib/public-fetch.js";
import { GitError } from "./errors.js";
import { isInside, type RemoteUrl, type UrlPolicy } from "./url.js";

/** Resolves a host name to all its addresses (dns.lookup, as git's libcurl would). */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface RemotePolicy extends UrlPolicy {
  /** Resolves host names (tests give their own); default: the system resolver. */
  resolveHost?: HostResolver | undefined;
}

export interface CheckedRemote {
  /** The remote to give git (for file://, its real path). */
  remote: RemoteUrl;
  /** `http.curloptResolve` entries (`host:port:address,...`) that pin git to the checked addresses. */
  pins: string[];
}

const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** The generic failure of a remote that could not be reached, with the reason for the server log. */
export function unreachable(displayUrl: string, detail: string): GitError {
  return new GitError(
    "remote_unavailable",
    `The remote ${displayUrl} could not be reached: its host name did not resolve, or resolved to an address Quire may not connect to, or the server refused the connection, did not answer or failed (network or TLS error). Quire connects only to public addresses and to the networks QUIRE_FETCH_ALLOW_NETWORKS allows. The server log has the details.`,
    detail,
  );
}

/** Checks where `remote` leads under `policy` (see the header); throws GitError. */
export async function checkRemote(remote: RemoteUrl, policy: RemotePolicy, signal: AbortSignal): Promise<CheckedRemote> {
  if (remote.protocol === "file") return { remote: await checkFileRemote(remote, policy), pins: [] };
  const url = new URL(remote.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const allowed = allowingNetworks(policy.allowNetworks ?? []);
  // An address in the URL was judged when the URL was parsed; judged again here, as the policy
  // may have changed since (a job waits in the queue).
  if (isIP(host)) {
    if (!allowed(host))
      throw new GitError("url_refused", `The Git URL ${remote.url} is refused by policy: ${host} is not a public address`);
    return { remote, pins: [] };
  }
  const lookup = (policy.resolveHost ?? systemResolver)(url.hostname);
  let addresses: { address: string; family: number }[];
  try {
    addresses = await abortable(lookup, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw unreachable(remote.url, `${url.hostname} did not resolve: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const refused = addresses.filter((a) => !allowed(a.address));
  if (addresses.length === 0 || refused.length > 0) {
    throw unreachable(
      remote.url,
      addresses.length === 0
        ? `${url.hostname} resolved to no address`
        : `${url.hostname} resolves to ${refused.map((a) => a.address).join(", ")}, refused by the address policy`,
    );
  }
  // An older git ignores http.curloptResolve without a word, and would do its own lookup.
  await requirePinningGit();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const list = addresses.map((a) => (a.family === 6 || isIP(a.address) === 6 ? `[${a.address}]` : a.address)).join(",");
  return { remote, pins: [`${url.hostname}:${port}:${list}`] };
}

/** The file:// remote with its real path, which must be inside the real path of the root. */
async function checkFileRemote(remote: RemoteUrl, policy: RemotePolicy): Promise<RemoteUrl> {
  const wanted = remote.url.slice("file://".length);
  if (!policy.allowFile || !policy.fileRoot) {
    throw new GitError("url_refused", "file:// Git URLs are disabled (QUIRE_GIT_ALLOW_FILE_URLS and QUIRE_GIT_FILE_ROOT)");
  }
  let real: string;
  let root: string;
  try {
    root = await fs.realpath(path.resolve(policy.fileRoot));
  } catch {
    throw new GitError("url_refused", "The directory file:// Git remotes must be in (QUIRE_GIT_FILE_ROOT) does not exist");
  }
  try {
    real = await fs.realpath(wanted);
  } catch {
    throw new GitError("repo_not_found", `No Git repository was found at ${remote.url}`);
  }
  // A symlink under the root may lead anywhere: what counts is where it leads.
  if (!isInside(real, root)) {
    throw new GitError(
      "url_refused",
      `The file:// Git URL ${remote.url} leads outside the directory file:// remotes must be in (QUIRE_GIT_FILE_ROOT)`,
    );
  }
  return { ...remote, url: `file://${real}` };
}

let pinningGit: Promise<void> | undefined;

/** Fails unless the git program knows `http.curloptResolve` (git 2.37); asked once per process. */
function requirePinningGit(): Promise<void> {
  pinningGit ??= new Promise<void>((resolve, reject) => {
    execFile("git", ["version"], { env: { PATH: process.env.PATH ?? "", LC_ALL: "C" }, timeout: 10_000 }, (error, stdout) => {
      const [major = 0, minor = 0] = (/git version (\d+)\.(\d+)/.exec(stdout ?? "") ?? []).slice(1).map(Number);
      if (!error && (major > 2 || (major === 2 && minor >= 37))) return resolve();
      pinningGit = undefined;
      reject(
        new GitError(
          "git_failed",
          `Git remotes given by host name need git 2.37 or later (to pin the addresses Quire checked); ${error ? "git could not be run" : `this is ${stdout.trim()}`}`,
        ),
      );
    });
  });
  return pinningGit;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
