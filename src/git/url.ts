/**
 * Remote URL policy and credential hygiene.
 *
 * Only http(s):// remotes (and file:// under the operator's root, when enabled) are accepted, and
 * an address written in the URL must be one the address policy allows (address.ts resolves host
 * names when the operation starts). Credentials in the URL are split off here: git is given the
 * bare URL, and the credentials travel to it through its environment (see run.ts), never through
 * argv, which every local user can read.
 */
import { isIP } from "node:net";
import path from "node:path";
import { allowingNetworks } from "../lib/public-fetch.js";
import { GitError } from "./errors.js";

export interface RemoteUrl {
  /** What git is given: normalized by the WHATWG parser, without credentials or fragment. */
  url: string;
  protocol: "http" | "https" | "file";
  /** Basic-auth credentials that were in the URL (percent-decoded). */
  credentials?: { username: string; password: string };
}

export interface UrlPolicy {
  /** Accept file:// URLs (config `gitAllowFileUrls`, env QUIRE_GIT_ALLOW_FILE_URLS). */
  allowFile: boolean;
  /**
   * The directory file:// remotes must be in (config `gitFileRoot`, env QUIRE_GIT_FILE_ROOT), as an
   * absolute path; without it no file:// URL is accepted.
   */
  fileRoot?: string | undefined;
  /**
   * Networks (CIDR) an http(s) remote may be in besides public addresses (config
   * `fetchAllowNetworks`, env QUIRE_FETCH_ALLOW_NETWORKS); private, loopback and link-local
   * addresses are refused otherwise.
   */
  allowNetworks?: readonly string[] | undefined;
}

/** The message of a remote refused by the address policy; the same for an address written in the URL and one a name resolved to. */
export const ADDRESS_POLICY =
  "Quire connects only to public addresses and to the networks QUIRE_FETCH_ALLOW_NETWORKS allows, never to private, loopback or link-local ones";

const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

/** Validates a remote URL against the policy and splits off its credentials. Throws GitError("url_refused"). */
export function parseRemoteUrl(raw: string, policy: UrlPolicy): RemoteUrl {
  const shown = () => JSON.stringify(redactUrl(raw));
  if (typeof raw !== "string" || raw.length === 0) throw refused("The Git URL is empty");
  if (raw.length > 4096) throw refused("The Git URL is longer than 4096 characters");
  // A leading "-" would be read by git as an option (e.g. --upload-pack=...).
  if (raw.startsWith("-")) throw refused(`The Git URL ${shown()} must not start with "-"`);
  if (CONTROL_OR_SPACE.test(raw)) throw refused(`The Git URL ${shown()} contains whitespace or control characters`);
  // "<transport>::<address>" runs a remote helper (ext:: runs any command, fd:: uses open descriptors).
  if (/^[A-Za-z0-9+.-]*::/.test(raw)) {
    throw refused(`The Git URL ${shown()} uses a transport helper ("::"), which is not allowed; use an https:// URL`);
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw refused(
      `The Git URL ${shown()} is not an absolute URL (local paths and scp-like "host:path" addresses are not allowed); use an https:// URL`,
    );
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (scheme === "file") {
    if (!policy.allowFile) {
      throw refused(`file:// Git URLs are disabled; set QUIRE_GIT_ALLOW_FILE_URLS=true to allow ${shown()}`);
    }
    if (parsed.hostname !== "" && parsed.hostname !== "localhost") {
      throw refused(`The file:// Git URL ${shown()} names a host; only local paths (file:///path) are allowed`);
    }
    if (parsed.username || parsed.password) throw refused(`The file:// Git URL ${shown()} must not carry credentials`);
    if (!policy.fileRoot || !path.isAbsolute(policy.fileRoot)) {
      throw refused(
        `file:// Git URLs are accepted only under a directory the operator sets (QUIRE_GIT_FILE_ROOT), and none is set; got ${shown()}`,
      );
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(parsed.pathname);
    } catch {
      throw refused(`The file:// Git URL ${shown()} has an invalid percent-encoding`);
    }
    if (CONTROL_OR_SPACE.test(pathname.replace(/ /g, "x"))) {
      throw refused(`The file:// Git URL ${shown()} contains control characters`);
    }
    // Decoding can make ".." segments (%2e%2e%2f): the path is judged, and given to git, resolved.
    const resolved = path.resolve("/", pathname);
    if (!isInside(resolved, path.resolve(policy.fileRoot))) {
      throw refused(`The file:// Git URL ${shown()} is outside the directory file:// remotes must be in (QUIRE_GIT_FILE_ROOT)`);
    }
    // git does not percent-decode file:// URLs, so it is given the decoded path.
    return { url: `file://${resolved}`, protocol: "file" };
  }
  if (scheme !== "http" && scheme !== "https") {
    throw refused(`The Git URL scheme "${scheme}:" is not allowed (only https:// and http://); got ${shown()}`);
  }
  if (!parsed.hostname) throw refused(`The Git URL ${shown()} has no host`);
  // An address written in the URL (in any spelling: the parser made 2130706433 and 0x7f.1 into
  // 127.0.0.1) is judged now; a host name when the operation resolves it (address.ts).
  const literal = parsed.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !allowingNetworks(policy.allowNetworks ?? [])(literal)) {
    throw refused(`The Git URL ${shown()} is refused by policy: ${literal} is not a public address. ${ADDRESS_POLICY}.`);
  }
  let credentials: RemoteUrl["credentials"];
  if (parsed.username || parsed.password) {
    try {
      credentials = {
        username: decodeURIComponent(parsed.username),
        password: decodeURIComponent(parsed.password),
      };
    } catch {
      throw refused(`The credentials in the Git URL ${shown()} have an invalid percent-encoding`);
    }
  }
  parsed.username = "";
  parsed.password = "";
  parsed.hash = "";
  return { url: parsed.href, protocol: scheme, ...(credentials ? { credentials } : {}) };
}

/** True when `child` (an absolute, resolved path) is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

function refused(message: string): GitError {
  return new GitError("url_refused", message);
}

// "scheme://userinfo@" anywhere in a text; userinfo cannot contain "/", "@" or whitespace.
const USERINFO_IN_URL = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi;

/** The URL with any credentials replaced by `***`, for messages and stored metadata. Never throws. */
export function redactUrl(url: string): string {
  if (typeof url !== "string") return "";
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = "***";
      parsed.password = "";
      return parsed.href;
    }
    return url.replace(USERINFO_IN_URL, "$1***@");
  } catch {
    return url.replace(USERINFO_IN_URL, "$1***@");
  }
}

/**
 * A function that removes the given secrets (and any URL userinfo) from a text. Each secret is also
 * removed in its percent-encoded and base64 `user:password` forms, the forms git or a server could echo.
 */
export function createRedactor(credentials: RemoteUrl["credentials"]): (text: string) => string {
  const secrets = new Set<string>();
  if (credentials) {
    const { username, password } = credentials;
    const add = (s: string, minLength: number) => {
      if (s.length >= minLength) {
        secrets.add(s);
        secrets.add(encodeURIComponent(s));
      }
    };
    // Passwords are always secret. A username is often the token itself (https://<token>@host),
    // but very short ones ("git") would mangle every message, so they are kept.
    add(password, 1);
    add(username, 4);
    secrets.add(Buffer.from(`${username}:${password}`).toString("base64"));
  }
  const ordered = [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text.replace(USERINFO_IN_URL, "$1***@");
    for (const secret of ordered) out = out.split(secret).join("***");
    return out;
  };
}
