import { describe, expect, it } from "vitest";
import { GitError } from "./errors.js";
import { resolveRelative, symlinkTarget, unsafePathReason } from "./paths.js";
import { blobOid, memoryTree, VirtualTree } from "./tree.js";

function files(spec: Record<string, string | { symlink: string }>) {
  return memoryTree(new Map(Object.entries(spec).map(([k, v]) => [k, typeof v === "string" ? Buffer.from(v) : v])));
}

async function refused(promise: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    if (typeof promise === "function") promise();
    else await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).code).toBe("path_refused");
    return (error as GitError).message;
  }
  throw new Error("expected a refusal");
}

describe("paths", () => {
  it.each([
    ["a/b.md", undefined],
    ["ünï code/page (1).md", undefined],
    ["", "empty"],
    ["/etc/passwd", "absolute"],
    ["C:/x", "absolute"],
    ["a/../b", '".."'],
    ["./a", '"."'],
    ["a//b", "empty segment"],
    ["a\\b", "backslash"],
    ["a\0b", "NUL"],
    ["a\nb", "control"],
    [".git/config", '".git"'],
    ["x/.Git/hooks", '".git"'],
  ])("unsafePathReason(%j)", (path, reason) => {
    if (reason === undefined) expect(unsafePathReason(path)).toBeUndefined();
    else expect(unsafePathReason(path)).toContain(reason);
  });

  it("resolveRelative stays inside the repository", () => {
    expect(resolveRelative("docs/guide", "../img/a.png")).toBe("docs/img/a.png");
    expect(resolveRelative("docs", "./a/./b.md")).toBe("docs/a/b.md");
    expect(resolveRelative("docs", "../../x")).toBeUndefined();
    expect(resolveRelative("docs", "/x/y")).toBe("x/y");
  });

  it("symlinkTarget refuses absolute and escaping targets, naming the link", async () => {
    expect(symlinkTarget("docs/a.md", "b.md")).toBe("docs/b.md");
    expect(await refused(() => symlinkTarget("docs/passwd.md", "/etc/passwd"))).toMatch(/"docs\/passwd.md" -> "\/etc\/passwd": .*absolute/);
    expect(await refused(() => symlinkTarget("docs/x", "../../outside"))).toMatch(/leaves the repository/);
    expect(await refused(() => symlinkTarget("x", ".git/config"))).toMatch(/inside ".git"/);
  });
});

describe("VirtualTree", () => {
  it("resolves file and directory symlinks virtually", async () => {
    const { entries, reader } = files({
      "docs/a.md": "A",
      "docs/alias.md": { symlink: "a.md" },
      "docs/chain.md": { symlink: "alias.md" },
      "shared/img.png": "P",
      "docs/assets": { symlink: "../shared" },
    });
    const tree = await VirtualTree.load(entries, reader);
    expect(tree.file("docs/chain.md")?.oid).toBe(blobOid(Buffer.from("A")));
    expect(tree.resolve("docs/assets/img.png")).toMatchObject({ kind: "file", path: "shared/img.png" });
    expect(tree.resolve("docs/assets")).toEqual({ kind: "dir", path: "shared" });
    expect(tree.resolve("docs/missing.md")).toBeUndefined();
  });

  it("refuses a symlink to /etc/passwd, naming it", async () => {
    const { entries, reader } = files({ "README.md": "x", "docs/passwd.md": { symlink: "/etc/passwd" } });
    expect(await refused(VirtualTree.load(entries, reader))).toContain('"docs/passwd.md"');
  });

  it("refuses a symlink leaving the repository through ..", async () => {
    const { entries, reader } = files({ "docs/up.md": { symlink: "../../../home/user/.ssh/id_rsa" } });
    expect(await refused(VirtualTree.load(entries, reader))).toMatch(/"docs\/up.md".*leaves the repository/);
  });

  it("refuses symlink loops", async () => {
    const { entries, reader } = files({ "a.md": { symlink: "b.md" }, "b.md": { symlink: "a.md" } });
    expect(await refused(VirtualTree.load(entries, reader))).toMatch(/symlink loop/);
    const self = files({ "dir/self": { symlink: "self" } });
    expect(await refused(VirtualTree.load(self.entries, self.reader))).toMatch(/symlink loop/);
  });

  it("a directory symlink to its parent only loops when followed", async () => {
    const { entries, reader } = files({ "docs/a.md": "A", "docs/loop": { symlink: "." } });
    const tree = await VirtualTree.load(entries, reader);
    expect(tree.file("docs/loop/loop/a.md")?.path).toBe("docs/a.md");
    expect(await refused(() => tree.resolve(`docs/${"loop/".repeat(41)}a.md`))).toMatch(/symlink loop/);
  });

  it("refuses a symlink leaving the scope (content root) even if it stays in the repository", async () => {
    const { entries, reader } = files({ "secret.txt": "s", "docs/a.md": "A", "docs/s.md": { symlink: "../secret.txt" } });
    expect(await refused(VirtualTree.load(entries, reader, "docs"))).toMatch(/"docs\/s.md".*leaves "docs"/);
    const tree = await VirtualTree.load(entries, reader);
    expect(await refused(() => tree.checkSymlinks("docs"))).toMatch(/leaves "docs"/);
  });

  it("ignores entries outside the scope, unsafe ones included", async () => {
    const { entries, reader } = files({ "other/evil": { symlink: "/etc/passwd" }, "docs/a.md": "A" });
    const tree = await VirtualTree.load(entries, reader, "docs");
    expect([...tree.files.keys()]).toEqual(["docs/a.md"]);
  });
});
