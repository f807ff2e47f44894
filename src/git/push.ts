/**
 * Export: one commit on top of the remote branch, built entirely in the object database with
 * `git fast-import` (no work tree, no checkout), pushed as a fast-forward.
 */
import { GitError } from "./errors.js";
import { openOperation } from "./operation.js";
import { assertSafePath, isWithin } from "./paths.js";
import { assertValidRef, classifyRemoteError, type FetchOptions, fetchInto, type GitPerson, LocalRepo, readCommit } from "./repo.js";
import { lastLines, runGit, runGitChecked } from "./run.js";
import { blobOid, MODE_EXECUTABLE, MODE_FILE, type TreeEntry } from "./tree.js";
import { parseRemoteUrl } from "./url.js";

export interface ExportChanges {
  /** Files to write (repository path -> content). */
  files: ReadonlyMap<string, Buffer>;
  /** Paths to remove (a directory path removes everything under it). Missing paths are ignored. */
  deletions?: Iterable<string>;
}

export interface CommitAndPushOptions extends FetchOptions {
  url: string;
  /** The branch, refs/heads/<branch>. Created when the remote does not have it. */
  ref: string;
  message: string;
  author: GitPerson;
  /** Defaults to the author. */
  committer?: GitPerson;
  /** Commit date (default: now). */
  date?: Date;
  /** The changes; or use `prepare` to compute them from the fetched branch. */
  files?: ReadonlyMap<string, Buffer>;
  deletions?: Iterable<string>;
  /**
   * Computes the changes from the current state of the branch (null when it does not exist yet),
   * e.g. to read its .gitbook.yaml or to delete files of pages removed since. Called once.
   */
  prepare?: (base: LocalRepo | null) => Promise<ExportChanges>;
}

export type PushResult =
  | { committed: true; commit: string; parent: string | null; ref: string }
  | { committed: false; commit: string | null; ref: string };

/** Name and email as git requires them: no angle brackets or line breaks. */
function sanitizePerson(person: GitPerson, role: string): GitPerson {
  const clean = (s: string) => s.replace(/[<>\n\r\0]/g, "").trim();
  const name = clean(person.name);
  const email = clean(person.email);
  if (!name) throw new GitError("git_failed", `The commit ${role} needs a name`);
  return { name, email };
}

/** C-style quoting for fast-import paths (any byte allowed except those escaped). */
function quotePath(path: string): string {
  return `"${path.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * Fetches `ref` (or starts it as a new branch with no parent), applies the changes, and pushes one
 * commit. An export that changes nothing makes no commit and returns `{ committed: false }`.
 * Throws GitError; "push_rejected" (retryable) when the branch moved meanwhile.
 */
export async function commitAndPush(options: CommitAndPushOptions): Promise<PushResult> {
  const remote = parseRemoteUrl(options.url, options);
  assertValidRef(options.ref, ["heads"]);
  if (!options.prepare && !options.files) throw new GitError("git_failed", "commitAndPush needs files or prepare");
  const author = sanitizePerson(options.author, "author");
  const committer = sanitizePerson(options.committer ?? options.author, "committer");
  const op = await openOperation(remote, options, options);
  try {
    const baseOid = await fetchInto(op, options.ref, true);
    const base = baseOid ? new LocalRepo(op, await readCommit(op, baseOid), options.ref, false) : null;
    let changes: ExportChanges;
    let baseEntries: TreeEntry[] = [];
    try {
      baseEntries = base ? await base.listTree() : [];
      changes = options.prepare ? await options.prepare(base) : { files: options.files ?? new Map(), deletions: options.deletions };
    } finally {
      await base?.dispose();
    }

    const { maxFileBytes, maxFiles, maxRepoBytes } = op.limits;
    if (changes.files.size > maxFiles) {
      throw new GitError("limit_exceeded", `The export has ${changes.files.size} files, over the limit of ${maxFiles} (maxFiles)`);
    }
    let totalBytes = 0;
    for (const content of changes.files.values()) totalBytes += content.length;
    if (totalBytes > maxRepoBytes) {
      throw new GitError(
        "limit_exceeded",
        `The export is ${totalBytes} bytes, over the limit of ${maxRepoBytes} bytes in total (maxRepoBytes)`,
      );
    }
    const byPath = new Map(baseEntries.map((e) => [e.path, e]));
    const writes: [string, Buffer, string][] = [];
    for (const [path, content] of changes.files) {
      assertSafePath(path);
      if (content.length > maxFileBytes) {
        throw new GitError(
          "limit_exceeded",
          `The file ${JSON.stringify(path)} is ${content.length} bytes, over the limit of ${maxFileBytes} bytes (maxFileBytes)`,
        );
      }
      const existing = byPath.get(path);
      // Keep the executable bit of a file we overwrite; anything else is written as a plain file.
      const mode = existing?.mode === MODE_EXECUTABLE ? MODE_EXECUTABLE : MODE_FILE;
      if (existing && existing.mode === mode && existing.oid === blobOid(content)) continue;
      writes.push([path, content, mode]);
    }
    const deletes: string[] = [];
    for (const path of changes.deletions ?? []) {
      assertSafePath(path);
      const removesSomething = baseEntries.some((e) => isWithin(e.path, path) && !changes.files.has(e.path));
      if (removesSomething) deletes.push(path);
    }
    if (writes.length === 0 && deletes.length === 0) {
      return { committed: false, commit: baseOid, ref: options.ref };
    }

    const when = Math.floor((options.date ?? new Date()).getTime() / 1000);
    const chunks: Buffer[] = [];
    const text = (s: string) => chunks.push(Buffer.from(s, "utf8"));
    const message = Buffer.from(options.message, "utf8");
    text("feature done\ncommit refs/quire/export\n");
    text(`author ${author.name} <${author.email}> ${when} +0000\n`);
    text(`committer ${committer.name} <${committer.email}> ${when} +0000\n`);
    text(`data ${message.length}\n`);
    chunks.push(message);
    text("\n");
    if (baseOid) text(`from ${baseOid}\n`);
    for (const path of deletes) text(`D ${quotePath(path)}\n`);
    for (const [path, content, mode] of writes) {
      text(`M ${mode} inline ${quotePath(path)}\ndata ${content.length}\n`);
      chunks.push(content);
      text("\n");
    }
    text("\ndone\n");
    const imported = await runGit(op, ["fast-import", "--quiet", "--done", "--date-format=raw"], {
      cwd: op.repoDir,
      stdin: Buffer.concat(chunks),
    });
    if (imported.code !== 0) throw new GitError("git_failed", `git fast-import failed: ${lastLines(imported.stderr)}`);
    const commit = (await runGitChecked(op, ["rev-parse", "--verify", "refs/quire/export^{commit}"], { cwd: op.repoDir }))
      .toString("utf8")
      .trim();

    // A change whose bytes equal what is there (e.g. deleting then re-adding) leaves the tree as it was.
    if (baseOid) {
      const trees = await runGitChecked(op, ["rev-parse", `${baseOid}^{tree}`, `${commit}^{tree}`], { cwd: op.repoDir });
      const [before, after] = trees.toString("utf8").trim().split("\n");
      if (before === after) return { committed: false, commit: baseOid, ref: options.ref };
    }

    const pushed = await runGit(
      op,
      ["push", "--porcelain", "--no-verify", "--no-recurse-submodules", "--", op.remote.url, `${commit}:${options.ref}`],
      { cwd: op.repoDir },
    );
    if (pushed.code !== 0) {
      const output = `${pushed.stdout.toString("utf8")}\n${pushed.stderr}`;
      if (
        /\[rejected\]|non-fast-forward|fetch first|stale info|\[remote rejected\].*(cannot lock|failed to update|incorrect old value)/i.test(
          output,
        )
      ) {
        throw new GitError(
          "push_rejected",
          `The branch ${options.ref} of ${op.displayUrl} changed while exporting (non-fast-forward); run the export again`,
        );
      }
      if (/\[remote rejected\]/.test(output)) {
        throw new GitError("git_failed", `${op.displayUrl} refused the push to ${options.ref}: ${lastLines(op.redact(output))}`);
      }
      throw classifyRemoteError(op, pushed.stderr, options.ref);
    }
    return { committed: true, commit, parent: baseOid, ref: options.ref };
  } finally {
    await op.close();
  }
}
