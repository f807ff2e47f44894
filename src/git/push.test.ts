import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BareRepo,
  commitFiles,
  createBareRepo,
  git,
  logOf,
  readRepoFiles,
  serveGitOverHttp,
  TEST_REMOTES,
} from "../../test/helpers/git.js";
import { GitError } from "./errors.js";
import { type CommitAndPushOptions, commitAndPush } from "./push.js";

const author = { name: "Ada Lovelace", email: "ada@example.com" };
const repos: BareRepo[] = [];
function remote(files: Parameters<typeof createBareRepo>[0], options?: Parameters<typeof createBareRepo>[1]): BareRepo {
  const r = createBareRepo(files, options);
  repos.push(r);
  return r;
}
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function options(r: BareRepo, extra: Partial<CommitAndPushOptions>): CommitAndPushOptions {
  return { url: r.url, ref: "refs/heads/main", ...TEST_REMOTES, message: "Export from Quire", author, ...extra };
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

const text = (m: Map<string, Buffer | { symlink: string }>, p: string) => {
  const v = m.get(p);
  return Buffer.isBuffer(v) ? v.toString() : v;
};

describe("commitAndPush over file://", () => {
  it("commits on top of the branch: writes, deletes, keeps the rest and the executable bit", async () => {
    const r = remote({ "README.md": "# Old\n", "old.md": "gone", "keep.txt": "kept", "tools/run.sh": "#!/bin/sh\n" });
    // Make run.sh executable in the remote.
    const work = commitExecutable(r);
    const result = await commitAndPush(
      options(r, {
        files: new Map([
          ["README.md", Buffer.from("# New\n")],
          ["guides/ünï (1).md", Buffer.from("# Unicode\n")],
          ["tools/run.sh", Buffer.from("#!/bin/sh\necho hi\n")],
        ]),
        deletions: ["old.md", "never-existed.md"],
        date: new Date("2024-05-01T12:00:00Z"),
      }),
    );
    expect(result).toMatchObject({ committed: true, parent: work, ref: "refs/heads/main" });
    const files = readRepoFiles(r.dir);
    expect([...files.keys()].sort()).toEqual(["README.md", "guides/ünï (1).md", "keep.txt", "tools/run.sh"]);
    expect(text(files, "README.md")).toBe("# New\n");
    expect(text(files, "keep.txt")).toBe("kept");
    const mode = git(["ls-tree", "refs/heads/main", "tools/run.sh"], r.dir).toString();
    expect(mode.startsWith("100755")).toBe(true);
    const log = git(["log", "-1", "--format=%an <%ae>|%at|%s", "refs/heads/main"], r.dir).toString().trim();
    expect(log).toBe(`Ada Lovelace <ada@example.com>|${Date.parse("2024-05-01T12:00:00Z") / 1000}|Export from Quire`);
    expect(logOf(r.dir)[0]).toBe(result.commit);
  });

  it("makes no commit when nothing changed", async () => {
    const r = remote({ "README.md": "# Same\n", "a/b.md": "b" });
    const before = logOf(r.dir);
    const result = await commitAndPush(options(r, { files: new Map([["README.md", Buffer.from("# Same\n")]]), deletions: ["missing.md"] }));
    expect(result).toEqual({ committed: false, commit: before[0], ref: "refs/heads/main" });
    expect(logOf(r.dir)).toEqual(before);
  });

  it("starts the branch when the remote does not have it", async () => {
    const r = remote({ "code.js": "1" });
    const result = await commitAndPush(options(r, { ref: "refs/heads/docs", files: new Map([["README.md", Buffer.from("# Docs\n")]]) }));
    expect(result).toMatchObject({ committed: true, parent: null });
    expect([...readRepoFiles(r.dir, "refs/heads/docs").keys()]).toEqual(["README.md"]);
    expect(logOf(r.dir, "refs/heads/docs")).toHaveLength(1);
    // The other branch is untouched.
    expect([...readRepoFiles(r.dir).keys()]).toEqual(["code.js"]);
  });

  it("works on an empty remote repository", async () => {
    const r = remote({});
    const empty = await commitAndPush(options(r, { files: new Map() }));
    expect(empty).toEqual({ committed: false, commit: null, ref: "refs/heads/main" });
    const result = await commitAndPush(options(r, { files: new Map([["README.md", Buffer.from("x")]]) }));
    expect(result.committed).toBe(true);
  });

  it("gives prepare() the current branch to compute changes from", async () => {
    const r = remote({ "README.md": "# A\n", "pages/x.md": "x", "pages/y.md": "y" });
    const result = await commitAndPush(
      options(r, {
        prepare: async (base) => {
          expect(base).not.toBeNull();
          const entries = await base!.listTree("pages");
          const [x] = await base!.readBlobs([entries[0]!.oid]);
          return { files: new Map([["pages/x.md", Buffer.concat([x!, Buffer.from("!")])]]), deletions: ["pages/y.md"] };
        },
      }),
    );
    expect(result.committed).toBe(true);
    const files = readRepoFiles(r.dir);
    expect(text(files, "pages/x.md")).toBe("x!");
    expect(files.has("pages/y.md")).toBe(false);
  });

  it("deleting a directory removes everything under it", async () => {
    const r = remote({ "README.md": "r", "old/a.md": "a", "old/deep/b.md": "b" });
    await commitAndPush(options(r, { files: new Map(), deletions: ["old"] }));
    expect([...readRepoFiles(r.dir).keys()]).toEqual(["README.md"]);
  });

  it("a concurrent push makes the export fail with a retryable error, losing nothing", async () => {
    const r = remote({ "README.md": "v1" });
    let theirs = "";
    const error = await failure(
      commitAndPush(
        options(r, {
          prepare: async () => {
            // Someone else pushes while we prepare our commit.
            theirs = commitFiles(r.dir, { "other.md": "theirs" }, { message: "Concurrent" });
            return { files: new Map([["README.md", Buffer.from("v2")]]) };
          },
        }),
      ),
    );
    expect(error.code).toBe("push_rejected");
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/changed while exporting \(non-fast-forward\); run the export again/);
    expect(logOf(r.dir)[0]).toBe(theirs);
    // The retry succeeds on top of their commit.
    const retry = await commitAndPush(options(r, { files: new Map([["README.md", Buffer.from("v2")]]) }));
    expect(retry).toMatchObject({ committed: true, parent: theirs });
    expect([...readRepoFiles(r.dir).keys()].sort()).toEqual(["README.md", "other.md"]);
  });

  it("two exports racing: one wins, the other is told to retry", async () => {
    const r = remote({ "README.md": "v1" });
    // Both have fetched the same tip before either pushes.
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothFetched = new Promise<void>((resolve) => {
      release = resolve;
    });
    const results = await Promise.allSettled(
      ["a", "b"].map((name) =>
        commitAndPush(
          options(r, {
            prepare: async () => {
              if (++arrived === 2) release();
              await bothFetched;
              return { files: new Map([[`${name}.md`, Buffer.from(name)]]) };
            },
          }),
        ),
      ),
    );
    const fulfilled = results.filter((x) => x.status === "fulfilled");
    const rejected = results.filter((x): x is PromiseRejectedResult => x.status === "rejected");
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason.code).toBe("push_rejected");
  });

  it.each([["../escape.md"], ["/abs.md"], [".git/config"], ["docs/.GIT/hooks/x"], ["a\\b.md"], ["a//b.md"], ["a/./b.md"]])(
    "refuses to write the path %j",
    async (bad) => {
      const r = remote({ "README.md": "x" });
      const error = await failure(commitAndPush(options(r, { files: new Map([[bad, Buffer.from("x")]]) })));
      expect(error.code).toBe("path_refused");
      expect(error.message).toContain(JSON.stringify(bad));
    },
  );

  it("refuses tags and files over the size limit", async () => {
    const r = remote({ "README.md": "x" });
    expect((await failure(commitAndPush(options(r, { ref: "refs/tags/v1", files: new Map() })))).code).toBe("ref_invalid");
    const error = await failure(
      commitAndPush(options(r, { files: new Map([["big.bin", Buffer.alloc(2000)]]), limits: { maxFileBytes: 1000 } })),
    );
    expect(error.message).toMatch(/"big\.bin" is 2000 bytes, over the limit of 1000 bytes \(maxFileBytes\)/);
    const files = new Map([
      ["a.bin", Buffer.alloc(60_000)],
      ["b.bin", Buffer.alloc(60_000)],
    ]);
    const total = await failure(commitAndPush(options(r, { files, limits: { maxRepoBytes: 100_000 } })));
    expect(total.message).toMatch(/export is 120000 bytes, over the limit of 100000 bytes in total \(maxRepoBytes\)/);
    const count = await failure(commitAndPush(options(r, { files, limits: { maxFiles: 1 } })));
    expect(count.message).toMatch(/2 files, over the limit of 1 \(maxFiles\)/);
  });

  it("cleans up its temp dir on success and on error", async () => {
    const r = remote({ "README.md": "x" });
    const tmpDir = fs.mkdtempSync(path.join(r.dir, "..", "tmp-"));
    await commitAndPush(options(r, { tmpDir, files: new Map([["a.md", Buffer.from("a")]]) }));
    await failure(commitAndPush(options(r, { tmpDir, files: new Map([["../x", Buffer.from("a")]]) })));
    await failure(
      commitAndPush(
        options(r, {
          tmpDir,
          prepare: async () => {
            throw new GitError("aborted", "stop");
          },
        }),
      ),
    );
    expect(fs.readdirSync(tmpDir)).toEqual([]);
  });
});

describe("commitAndPush over HTTP with credentials", () => {
  it("pushes with good credentials; a bad password fails without revealing either", async () => {
    const r = remote({ "README.md": "# A\n" });
    const password = "push-S3CRET-token";
    const server = await serveGitOverHttp(r.dir, { username: "pusher", password });
    try {
      const result = await commitAndPush({
        ...options(r, { files: new Map([["README.md", Buffer.from("# B\n")]]) }),
        url: server.urlWith("pusher", password),
        ...TEST_REMOTES,
        allowFile: false,
      });
      expect(result.committed).toBe(true);
      expect(JSON.stringify(result)).not.toContain(password);
      expect(text(readRepoFiles(r.dir), "README.md")).toBe("# B\n");

      const error = await failure(
        commitAndPush({
          ...options(r, { files: new Map([["README.md", Buffer.from("# C\n")]]) }),
          url: server.urlWith("pusher", "bad-PASSWORD-x"),
          ...TEST_REMOTES,
          allowFile: false,
        }),
      );
      expect(error.code).toBe("auth_failed");
      const dump = JSON.stringify(error, Object.getOwnPropertyNames(error));
      expect(dump).not.toContain(password);
      expect(dump).not.toContain("bad-PASSWORD-x");
      expect(dump).not.toContain("pusher");
    } finally {
      await server.close();
    }
  });

  it("detects a concurrent push over HTTP too", async () => {
    const r = remote({ "README.md": "v1" });
    const server = await serveGitOverHttp(r.dir);
    try {
      const error = await failure(
        commitAndPush({
          ...options(r, {
            prepare: async () => {
              commitFiles(r.dir, { "other.md": "x" });
              return { files: new Map([["README.md", Buffer.from("v2")]]) };
            },
          }),
          url: server.url,
          ...TEST_REMOTES,
          allowFile: false,
        }),
      );
      expect(error.code).toBe("push_rejected");
    } finally {
      await server.close();
    }
  });
});

/** Marks tools/run.sh executable in the remote (a new commit) and returns the new tip. */
function commitExecutable(r: BareRepo): string {
  const tree = git(["ls-tree", "refs/heads/main"], r.dir).toString();
  const tools = /040000 tree ([0-9a-f]+)\ttools/.exec(tree)?.[1] as string;
  const toolsListing = git(["ls-tree", tools], r.dir).toString().replace("100644 blob", "100755 blob");
  const newTools = git(["mktree"], r.dir, toolsListing).toString().trim();
  const rootListing = tree.replace(tools, newTools);
  const newRoot = git(["mktree"], r.dir, rootListing).toString().trim();
  const commit = git(["commit-tree", "-p", "refs/heads/main", "-m", "chmod", newRoot], r.dir).toString().trim();
  git(["update-ref", "refs/heads/main", commit], r.dir);
  return commit;
}
