import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BareRepo, createBareRepo, git, serveGitOverHttp, TEST_REMOTES } from "../../test/helpers/git.js";
import { unreachable } from "./address.js";
import { GitError } from "./errors.js";
import { assertValidRef, type FetchOptions, fetchRef, READ_WINDOW_BYTES, withFetchedRef } from "./repo.js";
import { MODE_SYMLINK } from "./tree.js";

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "quire-repo-test-"));
let tmpCount = 0;
/** A fresh parent for the operation's temp dir, so a test can check that nothing is left behind. */
function freshTmp(): string {
  const dir = path.join(tmpRoot, String(tmpCount++));
  fs.mkdirSync(dir);
  return dir;
}

async function failure(promise: Promise<unknown>): Promise<GitError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GitError);
    return error as GitError;
  }
  throw new Error("expected a GitError");
}

let repo: BareRepo;
beforeAll(() => {
  repo = createBareRepo({
    "README.md": "# Hello\n",
    "docs/guide.md": "# Guide\n",
    "docs/ünïcode file (1).md": "# Unicode\n",
    "link.md": { symlink: "docs/guide.md" },
  });
  git(["tag", "-a", "v1.0", "-m", "release", "main"], repo.dir);
});
afterAll(() => {
  repo.cleanup();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

const fileOptions = (extra: Partial<FetchOptions> = {}): FetchOptions => ({ ...TEST_REMOTES, tmpDir: freshTmp(), ...extra });

describe("fetchRef over file://", () => {
  it("lists the tree and reads blobs without a checkout, then removes its temp dir", async () => {
    const options = fileOptions();
    const local = await fetchRef(repo.url, "refs/heads/main", options);
    try {
      expect(local.commit.oid).toBe(repo.commit);
      expect(local.commit.message).toBe("Test commit\n");
      expect(local.commit.author).toMatchObject({ name: "Test Author", email: "author@example.com" });
      const entries = await local.listTree();
      expect(entries.map((e) => e.path)).toEqual(["README.md", "docs/guide.md", "docs/ünïcode file (1).md", "link.md"]);
      const link = entries.find((e) => e.path === "link.md");
      expect(link?.mode).toBe(MODE_SYMLINK);
      const [readme, target, head] = await local.readBlobs([entries[0]?.oid as string, link?.oid as string, entries[1]?.oid as string]);
      expect(readme?.toString()).toBe("# Hello\n");
      expect(target?.toString()).toBe("docs/guide.md");
      expect(head?.toString()).toBe("# Guide\n");
      const [partial] = await local.readBlobs([entries[0]?.oid as string], { maxBytes: 3 });
      expect(partial?.toString()).toBe("# H");
      expect((await local.listTree("docs")).map((e) => e.path)).toEqual(["docs/guide.md", "docs/ünïcode file (1).md"]);
      // Nothing of the repository is checked out: the temp dir holds only git's own files.
      const [opDir] = fs.readdirSync(options.tmpDir as string);
      expect(fs.readdirSync(path.join(options.tmpDir as string, opDir as string)).sort()).toEqual(["home", "repo.git"]);
      expect(fs.readdirSync(path.join(options.tmpDir as string, opDir as string, "home"))).toEqual([]);
    } finally {
      await local.dispose();
    }
    expect(fs.readdirSync(options.tmpDir as string)).toEqual([]);
  });

  it("fetches an annotated tag", async () => {
    const commit = await withFetchedRef(repo.url, "refs/tags/v1.0", fileOptions(), async (r) => r.commit.oid);
    expect(commit).toBe(repo.commit);
  });

  it("refuses file:// unless allowed", async () => {
    const error = await failure(fetchRef(repo.url, "refs/heads/main", { ...TEST_REMOTES, allowFile: false }));
    expect(error.code).toBe("url_refused");
    expect(error.message).toContain("QUIRE_GIT_ALLOW_FILE_URLS=true");
  });

  it("names a missing ref, and cleans up", async () => {
    const options = fileOptions();
    const error = await failure(fetchRef(repo.url, "refs/heads/does-not-exist", options));
    expect(error.code).toBe("ref_not_found");
    expect(error.message).toContain('"refs/heads/does-not-exist"');
    expect(error.retryable).toBe(false);
    expect(fs.readdirSync(options.tmpDir as string)).toEqual([]);
  });

  it("rejects a missing repository", async () => {
    const missing = pathToFileURL(path.join(os.tmpdir(), "quire-no-such-repo", "repo.git")).href;
    const error = await failure(fetchRef(missing, "refs/heads/main", fileOptions()));
    expect(error.code).toBe("repo_not_found");
    expect(error.message).toContain(`No Git repository was found at ${missing}`);
  });

  it.each([
    "main",
    "heads/main",
    "refs/remotes/origin/main",
    "refs/heads/a..b",
    "refs/heads/x y",
    "refs/heads/-x/.hidden",
    "refs/heads/a.lock",
    "refs/heads/",
  ])("refuses the ref %j with a clear error", async (ref) => {
    const error = await failure(fetchRef(repo.url, ref, fileOptions()));
    expect(error.code).toBe("ref_invalid");
    expect(error.message).toContain("refs/heads/<branch> or refs/tags/<tag>");
  });

  it("accepts branch names with slashes and unicode", () => {
    expect(() => assertValidRef("refs/heads/feature/ünï-1.2")).not.toThrow();
  });
});

describe("forEachBlob", () => {
  it("hands each blob in order, small ones in one reused buffer and one larger than a window on its own, across windows", async () => {
    const big = randomBytes(READ_WINDOW_BYTES + 1000);
    const files: Record<string, string | Buffer> = { "big.bin": big };
    // More than a window of medium files, so several windows are written and read in turn.
    for (let i = 0; i < 12; i++) files[`medium-${i}.bin`] = randomBytes(600_000 + i);
    files["tiny.txt"] = "tiny\n";
    const source = createBareRepo(files);
    const local = await fetchRef(source.url, "refs/heads/main", fileOptions({ limits: { maxFileBytes: 10 * 1024 * 1024 } }));
    try {
      const entries = (await local.listTree()).filter((e) => e.path !== "big.bin");
      entries.push((await local.listTree()).find((e) => e.path === "big.bin")!);
      const seen: { oid: string; same: boolean; buffer: ArrayBufferLike }[] = [];
      await local.forEachBlob(entries, async (oid, bytes) => {
        const path = entries.find((e) => e.oid === oid)!.path;
        const expected = files[path] as string | Buffer;
        seen.push({ oid, same: bytes.equals(Buffer.from(expected)), buffer: bytes.buffer });
      });
      expect(seen.map((s) => s.oid)).toEqual(entries.map((e) => e.oid));
      expect(seen.every((s) => s.same)).toBe(true);
      // Every blob up to a window shares one buffer: nothing is allocated per blob.
      const small = seen.slice(0, -1);
      expect(new Set(small.map((s) => s.buffer)).size).toBe(1);
      expect(seen.at(-1)!.buffer).not.toBe(small[0]!.buffer);
    } finally {
      await local.dispose();
      source.cleanup();
    }
  });

  it("refuses a blob over the per-file limit, and an object that is not in the repository", async () => {
    const source = createBareRepo({ "a.bin": Buffer.alloc(5000, 1), "b.txt": "b\n" });
    const local = await fetchRef(source.url, "refs/heads/main", fileOptions({ limits: { maxFileBytes: 1000 } }));
    try {
      const entries = await local.listTree();
      const a = entries.find((e) => e.path === "a.bin")!;
      const b = entries.find((e) => e.path === "b.txt")!;
      const visited: string[] = [];
      const over = await failure(local.forEachBlob([b, a], async (oid) => void visited.push(oid)));
      expect(over.code).toBe("limit_exceeded");
      expect(over.message).toMatch(/over the limit of 1000 bytes \(maxFileBytes\)/);
      expect(visited).toEqual([b.oid]);
      const missing = await failure(local.forEachBlob([{ oid: "1".repeat(40), size: 10 }], async () => undefined));
      expect(missing.message).toMatch(/is not in the repository/);
    } finally {
      await local.dispose();
      source.cleanup();
    }
  });
});

describe("limits", () => {
  let big: BareRepo;
  beforeAll(() => {
    big = createBareRepo({
      "small.md": "x",
      "huge.bin": randomBytes(300_000),
      "a.md": "a",
      "b.md": "b",
    });
  });
  afterAll(() => big.cleanup());

  it("listing does not apply the file-size limits: only the files an import uses count (readRepository)", async () => {
    const local = await fetchRef(big.url, "refs/heads/main", fileOptions({ limits: { maxFileBytes: 100_000, maxRepoBytes: 1000 } }));
    try {
      const entries = await local.listTree();
      expect(entries.map((e) => [e.path, e.size])).toEqual([
        ["a.md", 1],
        ["b.md", 1],
        ["huge.bin", 300_000],
        ["small.md", 1],
      ]);
    } finally {
      await local.dispose();
    }
  });

  it("tree entries listed", async () => {
    const local = await fetchRef(big.url, "refs/heads/main", fileOptions({ limits: { maxTreeEntries: 3 } }));
    try {
      const error = await failure(local.listTree());
      expect(error.code).toBe("limit_exceeded");
      expect(error.message).toMatch(/more than 3 files and folders to list \(maxTreeEntries\)/);
    } finally {
      await local.dispose();
    }
  });

  it("total size of the fetched repository", async () => {
    const options = fileOptions({ limits: { maxFetchBytes: 200_000 } });
    const error = await failure(fetchRef(big.url, "refs/heads/main", options));
    expect(error.code).toBe("limit_exceeded");
    expect(error.message).toMatch(/larger than the limit of 200000 bytes \(maxFetchBytes\)/);
    expect(fs.readdirSync(options.tmpDir as string)).toEqual([]);
  });

  it("reading a blob over the per-file limit", async () => {
    const local = await fetchRef(big.url, "refs/heads/main", fileOptions());
    try {
      const entries = await local.listTree();
      const huge = entries.find((e) => e.path === "huge.bin");
      const strict = await fetchRef(big.url, "refs/heads/main", fileOptions({ limits: { maxFileBytes: 1000 } }));
      try {
        const [error, small] = await Promise.allSettled([
          strict.readBlobs([huge?.oid as string]),
          strict.readBlobs([entries.find((e) => e.path === "small.md")?.oid as string]),
        ]);
        expect((error as PromiseRejectedResult).reason.message).toMatch(/over the limit of 1000 bytes \(maxFileBytes\)/);
        // The reader stays in step after skipping the refused blob.
        expect((small as PromiseFulfilledResult<Buffer[]>).value[0]?.toString()).toBe("x");
      } finally {
        await strict.dispose();
      }
    } finally {
      await local.dispose();
    }
  });
});

/** An HTTP server that accepts connections and never answers (a hung remote). */
async function hangingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/repo.git`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("timeout and abort", () => {
  it("times out a hung remote, kills git and cleans up; to the caller, the same failure as a closed port", async () => {
    const server = await hangingServer();
    try {
      const options: FetchOptions = { ...TEST_REMOTES, allowFile: false, timeoutMs: 500, tmpDir: freshTmp() };
      const started = Date.now();
      const error = await failure(fetchRef(server.url, "refs/heads/main", options));
      // Nothing arrived before the time limit: a port that never answers is not told apart from a closed one.
      expect(error.code).toBe("remote_unavailable");
      expect(error.message).toBe(unreachable(server.url, "").message);
      expect(error.detail).toMatch(/time limit of 500 ms/);
      expect(error.retryable).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(fs.readdirSync(options.tmpDir as string)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("keeps credentials out of every process's command line (visible to all local users)", async () => {
    const server = await hangingServer();
    const password = "argv-S3CRET-check";
    const controller = new AbortController();
    try {
      const url = server.url.replace("http://", `http://someone:${password}@`);
      const pending = fetchRef(url, "refs/heads/main", { ...TEST_REMOTES, allowFile: false, signal: controller.signal }).catch((e) => e);
      // Wait until git (and its remote helper) are running and blocked on the server.
      let gitSeen = false;
      for (let i = 0; i < 50 && !gitSeen; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
          let cmdline = "";
          try {
            cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
          } catch {
            continue;
          }
          expect(cmdline).not.toContain(password);
          if (cmdline.includes("remote-http") && cmdline.includes(server.url.split("//")[1] as string)) gitSeen = true;
        }
      }
      expect(gitSeen).toBe(true);
      controller.abort();
      expect(((await pending) as GitError).code).toBe("aborted");
    } finally {
      await server.close();
    }
  });

  it("stops on the caller's abort signal", async () => {
    const server = await hangingServer();
    try {
      const controller = new AbortController();
      const options: FetchOptions = { ...TEST_REMOTES, allowFile: false, signal: controller.signal, tmpDir: freshTmp() };
      setTimeout(() => controller.abort(), 300);
      const error = await failure(fetchRef(server.url, "refs/heads/main", options));
      expect(error.code).toBe("aborted");
      expect(fs.readdirSync(options.tmpDir as string)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe("fetchRef over HTTP", () => {
  it("clones from an anonymous smart-HTTP remote", async () => {
    const server = await serveGitOverHttp(repo.dir);
    try {
      const paths = await withFetchedRef(server.url, "refs/heads/main", { ...TEST_REMOTES, allowFile: false }, async (r) =>
        (await r.listTree()).map((e) => e.path),
      );
      expect(paths).toContain("docs/guide.md");
    } finally {
      await server.close();
    }
  });

  it("follows no redirect, to another protocol (file://) or to another server, even without credentials", async () => {
    const other = await serveGitOverHttp(repo.dir);
    for (const target of [repo.url, other.url]) {
      const redirecting = await serveGitOverHttp(repo.dir, { redirectTo: target });
      try {
        const error = await failure(fetchRef(redirecting.url, "refs/heads/main", { ...TEST_REMOTES }));
        expect(error.code).toBe("url_refused");
        expect(error.message).toBe(
          `The remote ${redirecting.url} answered with a redirect, which Quire does not follow; use the repository's current URL (where the redirect leads)`,
        );
        expect(error.retryable).toBe(false);
      } finally {
        await redirecting.close();
      }
    }
    expect(other.requests).toEqual([]);
    await other.close();
  });

  describe("with credentials", () => {
    const username = "deploy-user";
    const password = "s3cr3t-T0KEN-value";
    let server: Awaited<ReturnType<typeof serveGitOverHttp>>;
    beforeAll(async () => {
      server = await serveGitOverHttp(repo.dir, { username, password });
    });
    afterAll(() => server.close());

    function expectNoSecret(value: unknown): void {
      const text = typeof value === "string" ? value : JSON.stringify(value, Object.getOwnPropertyNames(value ?? {}));
      expect(text).not.toContain(password);
      expect(text).not.toContain(username);
      expect(text).not.toContain(Buffer.from(`${username}:${password}`).toString("base64"));
    }

    it("sends them to the remote and never returns them", async () => {
      const local = await fetchRef(server.urlWith(username, password), "refs/heads/main", { ...TEST_REMOTES, allowFile: false });
      try {
        expect(local.commit.oid).toBe(repo.commit);
        expectNoSecret(local.url);
        expectNoSecret(local.commit);
        expectNoSecret(await local.listTree());
      } finally {
        await local.dispose();
      }
      expect(server.requests.at(-1)?.authorization).toBe(`Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`);
    });

    it("a wrong password gives auth_failed without echoing any credential", async () => {
      const wrong = "wr0ng-PASSWORD-value";
      const error = await failure(fetchRef(server.urlWith(username, wrong), "refs/heads/main", { ...TEST_REMOTES, allowFile: false }));
      expect(error.code).toBe("auth_failed");
      expect(error.message).toContain(server.url);
      expectNoSecret(error);
      expectNoSecret(error.stack);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(wrong);
    });

    it("no credentials gives auth_failed saying credentials are needed", async () => {
      const error = await failure(fetchRef(server.url, "refs/heads/main", { ...TEST_REMOTES, allowFile: false }));
      expect(error.code).toBe("auth_failed");
      expect(error.message).toMatch(/requires credentials/);
    });

    it("a missing ref is named, without the credentials", async () => {
      const error = await failure(fetchRef(server.urlWith(username, password), "refs/heads/nope", { ...TEST_REMOTES, allowFile: false }));
      expect(error.code).toBe("ref_not_found");
      expect(error.message).toContain("refs/heads/nope");
      expectNoSecret(error);
    });

    it("does not follow a redirect that would carry the credentials to another server", async () => {
      const other = await serveGitOverHttp(repo.dir);
      const redirecting = await serveGitOverHttp(repo.dir, { redirectTo: other.url });
      try {
        const error = await failure(
          fetchRef(redirecting.urlWith(username, password), "refs/heads/main", { ...TEST_REMOTES, allowFile: false }),
        );
        expect(error.code).toBe("url_refused");
        expect(error.message).toMatch(/redirect/);
        expectNoSecret(error);
        expectNoSecret(error.detail);
        expect(other.requests).toEqual([]);
      } finally {
        await other.close();
        await redirecting.close();
      }
    });
  });
});

describe("hostile repositories", () => {
  it("refuses a tree with a '..' entry (git fsck on fetch)", async () => {
    const hostile = createBareRepo({ "README.md": "x" });
    try {
      const blob = git(["hash-object", "-w", "--stdin"], hostile.dir, "owned\n").toString().trim();
      const tree = git(["mktree"], hostile.dir, `100644 blob ${blob}\t..\n`).toString().trim();
      const commit = git(["commit-tree", "-m", "evil", tree], hostile.dir).toString().trim();
      git(["update-ref", "refs/heads/evil", commit], hostile.dir);
      const error = await failure(fetchRef(hostile.url, "refs/heads/evil", fileOptions()));
      expect(error.code).toBe("invalid_repository");
    } finally {
      hostile.cleanup();
    }
  });

  it("refuses a path with a backslash when listing", async () => {
    const hostile = createBareRepo({ "docs\\..\\x.md": "x" });
    try {
      const local = await fetchRef(hostile.url, "refs/heads/main", fileOptions());
      try {
        const error = await failure(local.listTree());
        expect(error.code).toBe("path_refused");
        expect(error.message).toContain("backslash");
      } finally {
        await local.dispose();
      }
    } finally {
      hostile.cleanup();
    }
  });
});
