/**
 * Real Git remotes for tests: bare repositories built with the git program, served over file://
 * or over smart HTTP by `git http-backend` behind a Node http server (with optional basic auth).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export type FileSpec = string | Buffer | { symlink: string };

/**
 * The remote policy that lets the Git layer reach the remotes of these helpers: bare repositories
 * under the temp directory (file://) and `git http-backend` on loopback. The default policy refuses
 * both (src/git/address.test.ts).
 */
export const TEST_REMOTES = { allowFile: true, fileRoot: os.tmpdir(), allowNetworks: ["127.0.0.0/8"] } as const;

/** An environment in which the test's own git commands ignore the machine's configuration. */
function isolatedEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Test Author",
    GIT_AUTHOR_EMAIL: "author@example.com",
    GIT_COMMITTER_NAME: "Test Author",
    GIT_COMMITTER_EMAIL: "author@example.com",
    LC_ALL: "C",
  };
}

// A HOME that does not exist: git then finds no user configuration, and there is nothing to clean up.
const helperHome = path.join(os.tmpdir(), "quire-test-no-home-does-not-exist");

/** Runs git synchronously for test setup and returns stdout. */
export function git(args: string[], cwd?: string, input?: string | Buffer): Buffer {
  return execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: isolatedEnv(helperHome),
    input,
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

export interface BareRepo {
  /** Path of the bare repository. */
  dir: string;
  /** file:// URL of it. */
  url: string;
  /** Commit id at the tip of the branch. */
  commit: string;
  cleanup(): void;
}

function writeTree(root: string, files: Record<string, FileSpec>): void {
  for (const [rel, spec] of Object.entries(files)) {
    const full = path.join(root, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    if (typeof spec === "object" && !Buffer.isBuffer(spec)) fs.symlinkSync(spec.symlink, full);
    else fs.writeFileSync(full, spec);
  }
}

/** A bare repository whose `branch` (default main) holds exactly `files` in one commit. */
export function createBareRepo(files: Record<string, FileSpec>, options: { branch?: string; message?: string } = {}): BareRepo {
  const branch = options.branch ?? "main";
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "quire-test-repo-"));
  const dir = path.join(base, "remote.git");
  git(["init", "--bare", "--quiet", dir]);
  const commit = Object.keys(files).length > 0 ? commitFiles(dir, files, { branch, message: options.message }) : "";
  return {
    dir,
    url: pathToFileURL(dir).href,
    commit,
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/**
 * Adds a commit to `branch` of a bare repository (on top of its tip when it exists) that writes
 * `files`, or with `replace` makes them the whole tree. Returns the new commit id.
 */
export function commitFiles(
  bareDir: string,
  files: Record<string, FileSpec>,
  options: { branch?: string; message?: string; replace?: boolean } = {},
): string {
  const branch = options.branch ?? "main";
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "quire-test-work-"));
  try {
    git(["init", "--quiet", work]);
    const exists =
      git(["ls-remote", bareDir, `refs/heads/${branch}`])
        .toString()
        .trim() !== "";
    if (exists && !options.replace) {
      git(["fetch", "--quiet", bareDir, `refs/heads/${branch}`], work);
      git(["checkout", "--quiet", "-B", branch, "FETCH_HEAD"], work);
    } else {
      git(["checkout", "--quiet", "--orphan", branch], work);
    }
    writeTree(work, files);
    git(["add", "-A"], work);
    git(["commit", "--quiet", "--allow-empty", "-m", options.message ?? "Test commit"], work);
    git(["push", "--quiet", "--force", bareDir, `HEAD:refs/heads/${branch}`], work);
    return git(["rev-parse", "HEAD"], work).toString().trim();
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The files of `ref` in a bare repository: path -> content (symlinks as `{ symlink }`). */
export function readRepoFiles(bareDir: string, ref = "refs/heads/main"): Map<string, Buffer | { symlink: string }> {
  const out = new Map<string, Buffer | { symlink: string }>();
  const listing = git(["ls-tree", "-r", "-z", ref], bareDir).toString("utf8");
  for (const record of listing.split("\0").filter(Boolean)) {
    const [meta, file] = record.split("\t") as [string, string];
    const [mode, , oid] = meta.split(" ") as [string, string, string];
    const content = git(["cat-file", "blob", oid], bareDir);
    out.set(file, mode === "120000" ? { symlink: content.toString() } : content);
  }
  return out;
}

/** Commit ids of `ref`, newest first. */
export function logOf(bareDir: string, ref = "refs/heads/main"): string[] {
  return git(["rev-list", ref], bareDir).toString().trim().split("\n").filter(Boolean);
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The Authorization header as received (tests check what git sent). */
  authorization: string | undefined;
}

export interface GitHttpServer {
  /** http://127.0.0.1:<port>/<name>, without credentials. */
  url: string;
  /** The same URL with `username:password@` in it. */
  urlWith(username: string, password: string): string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface ServeOptions {
  username?: string;
  password?: string;
  /** Answer every request with a 302 to this base URL (plus the request path). */
  redirectTo?: string;
}

/**
 * Serves `bareDir` over Git smart HTTP (fetch and push) by running `git http-backend` as CGI.
 * With username/password, every request without the right basic-auth header gets a 401.
 */
export async function serveGitOverHttp(bareDir: string, options: ServeOptions = {}): Promise<GitHttpServer> {
  const requests: RecordedRequest[] = [];
  const projectRoot = path.dirname(bareDir);
  const name = path.basename(bareDir);
  const expected =
    options.username !== undefined ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ""}`).toString("base64")}` : undefined;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    requests.push({ method: req.method ?? "GET", path: url.pathname, authorization: req.headers.authorization });
    if (options.redirectTo) {
      res.writeHead(302, { Location: `${options.redirectTo}${url.pathname.slice(name.length + 1)}${url.search}` });
      res.end();
      return;
    }
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="test"', "Content-Type": "text/plain" });
      res.end("Unauthorized\n");
      return;
    }
    const env: NodeJS.ProcessEnv = {
      ...isolatedEnv(helperHome),
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      // http-backend enables receive-pack only for authenticated users unless configured.
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.receivepack",
      GIT_CONFIG_VALUE_0: "true",
      REMOTE_USER: options.username ?? "anonymous",
      REMOTE_ADDR: "127.0.0.1",
      REQUEST_METHOD: req.method,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
    };
    if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
    const cgi = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "pipe"] });
    req.pipe(cgi.stdin);
    cgi.stdin.on("error", () => undefined);
    cgi.stderr.resume();
    let head = Buffer.alloc(0);
    let headersSent = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(key, value);
      }
      res.writeHead(status);
      headersSent = true;
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => {
      if (!headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/${name}`;
  return {
    url,
    urlWith: (username, password) => `http://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/git");

/**
 * The files of a fixture directory under test/fixtures/git/<name>. An optional `.fixture.json`
 * there adds what a checked-in directory should not hold: `symlinks` (path -> target) and
 * `generated` (path -> size in bytes of a zero-filled file).
 */
export function loadFixture(name: string): Record<string, FileSpec> {
  const root = path.join(FIXTURES, name);
  const files: Record<string, FileSpec> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full).split(path.sep).join("/");
      if (rel === ".fixture.json") continue;
      if (entry.isDirectory()) walk(full);
      else files[rel] = fs.readFileSync(full);
    }
  };
  walk(root);
  const manifestPath = path.join(root, ".fixture.json");
  if (fs.existsSync(manifestPath)) {
    const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as {
      symlinks?: Record<string, string>;
      generated?: Record<string, number>;
    };
    for (const [rel, target] of Object.entries(manifest.symlinks ?? {})) files[rel] = { symlink: target };
    for (const [rel, size] of Object.entries(manifest.generated ?? {})) files[rel] = Buffer.alloc(size);
  }
  return files;
}
