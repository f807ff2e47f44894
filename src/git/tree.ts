/**
 * A repository tree held in memory (path -> blob id), with symlinks resolved virtually: a symlink
 * is followed by looking its target up in this map, never through the filesystem, and only when
 * the target stays inside the allowed directory.
 */
import { createHash } from "node:crypto";
import { GitError } from "./errors.js";
import { assertSafePath, isWithin, symlinkTarget } from "./paths.js";

/** One entry of `git ls-tree -r -l`: a blob (100644/100755), a symlink (120000) or a submodule (160000). */
export interface TreeEntry {
  path: string;
  mode: string;
  /** Blob size in bytes (0 for submodules). */
  size: number;
  oid: string;
}

export const MODE_FILE = "100644";
export const MODE_EXECUTABLE = "100755";
export const MODE_SYMLINK = "120000";
export const MODE_SUBMODULE = "160000";

/** Reads blob contents by object id, in batches (one round trip for many blobs). */
export interface BlobReader {
  /** Contents in the order of `oids`; with `maxBytes`, only the first bytes of each blob. */
  readBlobs(oids: readonly string[], options?: { maxBytes?: number }): Promise<Buffer[]>;
  /**
   * Calls `fn` with the bytes of each blob in turn, in the order given, one at a time. The bytes
   * may be a view of a buffer that is reused for the next blob: `fn` must be done with them when
   * its promise settles (copy what it keeps). For reading many large files with bounded memory.
   */
  forEachBlob(blobs: readonly { oid: string; size: number }[], fn: (oid: string, bytes: Buffer) => Promise<void>): Promise<void>;
}

/** Splits `files` into consecutive windows of at most `windowBytes` (a larger file is a window of its own). */
export function readWindows<T extends { size: number }>(files: readonly T[], windowBytes: number): T[][] {
  const windows: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && bytes + file.size > windowBytes) {
      windows.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

/** The git blob id (SHA-1) of a content, as `git hash-object` computes it. */
export function blobOid(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** An in-memory tree and reader, for tests and for re-reading what writeRepository produced. */
export function memoryTree(files: ReadonlyMap<string, Buffer | { symlink: string }>): {
  entries: TreeEntry[];
  reader: BlobReader;
} {
  const blobs = new Map<string, Buffer>();
  const entries: TreeEntry[] = [];
  for (const [path, value] of files) {
    const isLink = !Buffer.isBuffer(value);
    const content = isLink ? Buffer.from(value.symlink) : value;
    const oid = blobOid(content);
    blobs.set(oid, content);
    entries.push({ path, mode: isLink ? MODE_SYMLINK : MODE_FILE, size: content.length, oid });
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const blob = (oid: string) => {
    const content = blobs.get(oid);
    if (!content) throw new GitError("git_failed", `Blob ${oid} is not in the tree`);
    return content;
  };
  return {
    entries,
    reader: {
      async readBlobs(oids, options) {
        return oids.map((oid) => (options?.maxBytes !== undefined ? blob(oid).subarray(0, options.maxBytes) : blob(oid)));
      },
      async forEachBlob(list, fn) {
        for (const { oid } of list) await fn(oid, blob(oid));
      },
    },
  };
}

export type Resolved = { kind: "file"; path: string; entry: TreeEntry } | { kind: "dir"; path: string };

/** Symlink hops after which a path is declared a loop (Linux's ELOOP uses 40 too). */
const MAX_HOPS = 40;

export class VirtualTree {
  /** Regular blobs (files and executables) by path. */
  readonly files = new Map<string, TreeEntry>();
  /** Every directory that contains something, "" included. */
  readonly dirs = new Set<string>([""]);
  /** Symlink path -> the repository path it points at. */
  private readonly links = new Map<string, string>();

  private constructor(
    entries: readonly TreeEntry[],
    private readonly scope: string,
  ) {
    for (const entry of entries) {
      if (!isWithin(entry.path, scope)) continue;
      assertSafePath(entry.path);
      if (entry.mode === MODE_SUBMODULE) continue;
      if (entry.mode !== MODE_SYMLINK) this.files.set(entry.path, entry);
      const parts = entry.path.split("/");
      for (let i = 1; i < parts.length; i++) this.dirs.add(parts.slice(0, i).join("/"));
    }
  }

  /**
   * Builds the tree of the entries under `scope` (a repository path, "" for all). Reads every
   * symlink's target, refuses those leaving the repository or `scope`, and refuses loops.
   */
  static async load(entries: readonly TreeEntry[], reader: BlobReader, scope = ""): Promise<VirtualTree> {
    const tree = new VirtualTree(entries, scope);
    const links = entries.filter((e) => e.mode === MODE_SYMLINK && isWithin(e.path, scope));
    if (links.length > 0) {
      // A symlink blob is a path; anything longer than PATH_MAX is not a real one.
      const targets = await reader.readBlobs(
        links.map((l) => l.oid),
        { maxBytes: 4096 },
      );
      links.forEach((link, i) => {
        tree.links.set(link.path, symlinkTarget(link.path, (targets[i] as Buffer).toString("utf8")));
      });
      tree.checkSymlinks(scope);
    }
    return tree;
  }

  /** Resolves every symlink under `within`, so one that leaves `within` or loops is refused up front. */
  checkSymlinks(within: string): void {
    for (const link of this.links.keys()) if (isWithin(link, within)) this.resolve(link, within);
  }

  /** Symlink paths (under scope), for listing. */
  symlinks(): string[] {
    return [...this.links.keys()];
  }

  /**
   * Follows symlinks along `path` and returns what it names, or undefined when nothing is there.
   * Throws GitError("path_refused") naming the symlink that leaves `within` (default: the scope), or a loop.
   */
  resolve(path: string, within = this.scope): Resolved | undefined {
    let remaining = path.split("/").filter(Boolean);
    let current = "";
    let hops = 0;
    while (remaining.length > 0) {
      const segment = remaining.shift() as string;
      const next = current ? `${current}/${segment}` : segment;
      const target = this.links.get(next);
      if (target !== undefined) {
        if (++hops > MAX_HOPS) {
          throw new GitError(
            "path_refused",
            `Refused symlink ${JSON.stringify(next)}: symlink loop while resolving ${JSON.stringify(path)}`,
          );
        }
        if (!isWithin(target, within)) {
          throw new GitError(
            "path_refused",
            `Refused symlink ${JSON.stringify(next)} -> ${JSON.stringify(target)}: its target leaves ${within ? JSON.stringify(within) : "the repository"}`,
          );
        }
        remaining = [...target.split("/").filter(Boolean), ...remaining];
        current = "";
        continue;
      }
      current = next;
    }
    const entry = this.files.get(current);
    if (entry) return { kind: "file", path: current, entry };
    if (this.dirs.has(current)) return { kind: "dir", path: current };
    return undefined;
  }

  /** Resolves to a file entry, or undefined (missing, a directory, or a dangling symlink). */
  file(path: string, within = this.scope): TreeEntry | undefined {
    const resolved = this.resolve(path, within);
    return resolved?.kind === "file" ? resolved.entry : undefined;
  }

  isSymlink(path: string): boolean {
    return this.links.has(path);
  }
}
