/**
 * Where git may connect: the address policy of http(s) remotes (resolved, checked and pinned), the
 * root of file:// remotes, and one message for every remote that cannot be reached.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BareRepo, createBareRepo, type GitHttpServer, serveGitOverHttp, TEST_REMOTES } from "../../test/helpers/git.js";
import { type HostResolver, unreachable } from "./address.js";
import { GitError } from "./errors.js";
import { type FetchOptions, fetchRef, withFetchedRef } from "./repo.js";

async function failure(promise: Promise<unknown>): Promise<GitError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GitError);
    return error as GitError;
  }
  throw new Error("expected a GitError");
}

/** A resolver that knows only `names` (what DNS would answer), and counts its questions. */
function resolver(names: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

let repo: BareRepo;
let server: GitHttpServer;
let port: number;
beforeAll(async () => {
  repo = createBareRepo({ "README.md": "# Pinned\n" });
  server = await serveGitOverHttp(repo.dir);
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
  repo.cleanup();
});

const repoPath = () => new URL(server.url).pathname;

describe("http(s) remotes: resolved, checked and pinned", () => {
  it("connects git to the address that was checked, never to what its own lookup would say (DNS rebinding)", async () => {
    // No resolver of the machine knows this name (.test is reserved): git can reach the server
    // only through the pinned address.
    const names = resolver({ "git.pinned.test": ["127.0.0.1"] });
    const url = `http://git.pinned.test:${port}${repoPath()}`;
    const paths = await withFetchedRef(url, "refs/heads/main", { ...TEST_REMOTES, resolveHost: names }, async (r) =>
      (await r.listTree()).map((e) => e.path),
    );
    expect(paths).toEqual(["README.md"]);
    expect(names.asked).toEqual(["git.pinned.test"]);
  });

  it("refuses a name that resolves to an address the policy does not allow, before git runs", async () => {
    const before = server.requests.length;
    const cases: [Record<string, string[]>, string, RegExp][] = [
      [{ "loopback.example": ["127.0.0.1"] }, "loopback.example", /resolves to 127\.0\.0\.1, refused by the address policy/],
      [{ "meta.example": ["169.254.169.254"] }, "meta.example", /169\.254\.169\.254/],
      [{ "mapped.example": ["::ffff:127.0.0.1"] }, "mapped.example", /::ffff:127\.0\.0\.1/],
      [{ "compat.example": ["::7f00:1"] }, "compat.example", /::7f00:1/],
      // One bad address among good ones refuses the name: git may try any of them.
      [{ "mixed.example": ["8.8.8.8", "10.0.0.5"] }, "mixed.example", /resolves to 10\.0\.0\.5,/],
    ];
    for (const [names, host, detail] of cases) {
      const error = await failure(
        fetchRef(`http://${host}:${port}${repoPath()}`, "refs/heads/main", { allowFile: false, resolveHost: resolver(names) }),
      );
      expect(error.code, host).toBe("remote_unavailable");
      expect(error.detail, host).toMatch(detail);
    }
    expect(server.requests.length).toBe(before);
  });

  it("with the system resolver too: localhost is loopback, refused unless its network is allowed", async () => {
    const url = `http://localhost:${port}${repoPath()}`;
    const error = await failure(fetchRef(url, "refs/heads/main", { allowFile: false }));
    expect(error.code).toBe("remote_unavailable");
    expect(error.detail).toMatch(/^localhost resolves to .*refused by the address policy$/);
    const allowed = await fetchRef(url, "refs/heads/main", { allowFile: false, allowNetworks: ["127.0.0.0/8", "::1/128"] });
    expect(allowed.commit.oid).toBe(repo.commit);
    await allowed.dispose();
  });

  it("refuses an address written in the URL when the operation starts too (the policy may have changed since the job was queued)", async () => {
    for (const host of ["127.0.0.1", "[::7f00:1]", "2130706433", "0x7f.1"]) {
      const error = await failure(fetchRef(`http://${host}:${port}${repoPath()}`, "refs/heads/main", { allowFile: false }));
      expect(error.code, host).toBe("url_refused");
      expect(error.message, host).toMatch(/refused by policy/);
    }
  });

  it("gives one message, and the same retry, whether the name does not resolve, is refused by policy, the port is closed or never answers", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const hung = http.createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    const hungPort = (hung.address() as AddressInfo).port;
    const names = resolver({ "private.example": ["10.9.8.7"], "closed.example": ["127.0.0.1"], "hung.example": ["127.0.0.1"] });
    const options: FetchOptions = { ...TEST_REMOTES, allowFile: false, resolveHost: names, timeoutMs: 1500 };
    try {
      const cases = [
        ["unresolvable", "http://nowhere.example/r.git"],
        ["refused by policy", "http://private.example/r.git"],
        ["closed port", `http://closed.example:${closedPort}/r.git`],
        ["never answers", `http://hung.example:${hungPort}/r.git`],
      ] as const;
      const seen: { code: string; message: string; retryable: boolean; detail: string | undefined }[] = [];
      for (const [, url] of cases) {
        const error = await failure(fetchRef(url, "refs/heads/main", options));
        seen.push({ code: error.code, message: error.message.replace(url, "<url>"), retryable: error.retryable, detail: error.detail });
      }
      for (const outcome of seen) {
        expect(outcome).toMatchObject({ code: "remote_unavailable", message: unreachable("<url>", "").message, retryable: true });
      }
      // The reasons differ, in the detail the server logs.
      expect(seen.map((s) => s.detail)).toEqual([
        expect.stringMatching(/nowhere\.example did not resolve: ENOTFOUND/),
        expect.stringMatching(/private\.example resolves to 10\.9\.8\.7, refused by the address policy/),
        expect.stringMatching(/Failed to connect|Couldn't connect|Connection refused/),
        expect.stringMatching(/no answer within the time limit of 1500 ms/),
      ]);
    } finally {
      hung.closeAllConnections();
      await new Promise((resolve) => hung.close(resolve));
    }
  });

  it("never puts the URL's credentials in a message or a detail", async () => {
    const names = resolver({ "private.example": ["10.9.8.7"] });
    const error = await failure(
      fetchRef("https://deploy:t0ken-S3CRET@private.example/r.git", "refs/heads/main", { allowFile: false, resolveHost: names }),
    );
    const all = JSON.stringify({ message: error.message, detail: error.detail, stack: error.stack });
    expect(all).not.toContain("t0ken-S3CRET");
    expect(all).not.toContain("deploy");
  });
});

describe("file:// remotes: under the root, symlinks followed", () => {
  let root: string;
  let outside: BareRepo;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "quire-file-root-"));
    outside = createBareRepo({ "README.md": "# Outside\n" });
    fs.symlinkSync(outside.dir, path.join(root, "link.git"));
    fs.symlinkSync(repo.dir, path.join(root, "inside-link.git"));
  });
  afterAll(() => {
    outside.cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("refuses a repository outside the root, also through a symlink under it", async () => {
    const policy = { allowFile: true, fileRoot: root };
    for (const url of [outside.url, pathToFileURL(path.join(root, "link.git")).href, "file:///etc"]) {
      const error = await failure(fetchRef(url, "refs/heads/main", policy));
      expect(error.code, url).toBe("url_refused");
      expect(error.message, url).toMatch(/(is|leads) outside the directory file:\/\/ remotes must be in \(QUIRE_GIT_FILE_ROOT\)/);
    }
  });

  it("accepts one under the root, given to git by its real path", async () => {
    fs.cpSync(repo.dir, path.join(root, "copy.git"), { recursive: true });
    const local = await fetchRef(pathToFileURL(path.join(root, "copy.git")).href, "refs/heads/main", { allowFile: true, fileRoot: root });
    expect(local.commit.oid).toBe(repo.commit);
    await local.dispose();
    // A symlink inside the root to a repository also inside it (the test's temp directory holds both).
    const viaLink = await fetchRef(pathToFileURL(path.join(root, "inside-link.git")).href, "refs/heads/main", {
      allowFile: true,
      fileRoot: os.tmpdir(),
    });
    expect(viaLink.commit.oid).toBe(repo.commit);
    await viaLink.dispose();
  });
});
