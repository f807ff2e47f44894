/**
 * Fetching one ref of a remote into a private bare repository and reading its tree and blobs
 * straight from the object database (no checkout: no file of the repository is ever written to
 * disk under its own name, so paths and symlinks in it cannot touch our filesystem).
 */
import fs from "node:fs/promises";
import path from "node:path";
import { type RemotePolicy, unreachable } from "./address.js";
import { GitError } from "./errors.js";
import { directorySize, type GitLimits, type OperationHandle, type OperationOptions, openOperation } from "./operation.js";
import { assertSafePath } from "./paths.js";
import { killGroup, lastLines, runGit, runGitChecked, spawnGit } from "./run.js";
import { type BlobReader, MODE_SUBMODULE, readWindows, type TreeEntry } from "./tree.js";
import { parseRemoteUrl } from "./url.js";

/**
 * An operation's options and the policy of the remotes it may reach (url.ts, address.ts): file://
 * only with `allowFile` and under `fileRoot`; http(s) only to public addresses and `allowNetworks`.
 */
export interface FetchOptions extends OperationOptions, RemotePolicy {}

export interface GitPerson {
  name: string;
  email: string;
}

export interface CommitInfo {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  author: GitPerson & { date: Date };
  committer: GitPerson & { date: Date };
}

const REF_PATTERN = /^refs\/(heads|tags)\/./;

/** Throws GitError("ref_invalid") unless `ref` is refs/heads/<branch> or refs/tags/<tag> and a valid ref name. */
export function assertValidRef(ref: string, allowed: readonly ("heads" | "tags")[] = ["heads", "tags"]): void {
  const invalid = (reason: string) =>
    new GitError(
      "ref_invalid",
      `Invalid Git ref ${JSON.stringify(ref)}: ${reason}; expected ${allowed.map((k) => `refs/${k}/<${k === "heads" ? "branch" : "tag"}>`).join(" or ")}`,
    );
  if (typeof ref !== "string" || !REF_PATTERN.test(ref)) throw invalid("it does not start with refs/heads/ or refs/tags/");
  const kind = ref.split("/")[1] as "heads" | "tags";
  if (!allowed.includes(kind)) throw invalid(`refs/${kind}/ is not accepted here`);
  if (ref.length > 1024) throw invalid("it is too long");
  // The rules of git check-ref-format.
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref)) throw invalid("it contains a space, control character or one of ~ ^ : ? * [ \\");
  if (ref.includes("..") || ref.includes("//") || ref.includes("@{")) throw invalid('it contains "..", "//" or "@{"');
  if (ref.endsWith("/") || ref.endsWith(".")) throw invalid('it ends with "/" or "."');
  for (const part of ref.split("/")) {
    if (part.startsWith(".") || part.endsWith(".lock")) throw invalid('a component starts with "." or ends with ".lock"');
  }
}

/** Maps a failed fetch or push to a GitError with a message a person can act on. */
export function classifyRemoteError(op: OperationHandle, stderr: string, ref: string): GitError {
  const where = op.displayUrl;
  const detail = lastLines(stderr);
  if (/couldn't find remote ref/i.test(stderr)) {
    return new GitError("ref_not_found", `The ref ${JSON.stringify(ref)} does not exist in ${where}`);
  }
  if (
    /Authentication failed|could not read (Username|Password)|terminal prompts disabled|returned error: 40[13]|HTTP Basic: Access denied/i.test(
      stderr,
    )
  ) {
    return new GitError(
      "auth_failed",
      `Authentication to ${where} failed: ${op.remote.credentials ? "the credentials in the URL were refused" : "the repository requires credentials (user:token@ in the URL)"} (${detail})`,
    );
  }
  if (/fsck error|hasDot|fsck failed|bad tree object|zeroPaddedFilemode|badFilemode|missing tree/i.test(stderr)) {
    return new GitError("invalid_repository", `The repository at ${where} failed git's integrity checks: ${detail}`);
  }
  if (/transport '[^']*' not allowed|unsupported protocol|not supported or disabled in libcurl/i.test(stderr)) {
    return new GitError("url_refused", `The remote ${where} led to a protocol that is not allowed: ${detail}`);
  }
  if (/returned error: 30[0-8]|redirect/i.test(stderr)) {
    // git is not told where to: following it would connect to an address nobody checked.
    return new GitError(
      "url_refused",
      `The remote ${where} answered with a redirect, which Quire does not follow; use the repository's current URL (where the redirect leads)`,
      detail,
    );
  }
  if (/returned error: 404|repository .* not found|does not appear to be a git repository|not found/i.test(stderr)) {
    return new GitError("repo_not_found", `No Git repository was found at ${where} (${detail})`);
  }
  if (
    /Could not resolve|Connection refused|Couldn't connect|Failed to connect|timed out|returned error: 5\d\d|SSL|TLS|certificate|Empty reply|Connection reset|early EOF|unexpected disconnect|RPC failed|unable to access/i.test(
      stderr,
    )
  ) {
    // One message whatever the network said (see address.ts); what it said goes to the log.
    return unreachable(where, detail);
  }
  return new GitError("git_failed", `Git failed on ${where}: ${detail}`);
}

/**
 * Fetches the single commit at `ref` (shallow, no tags, no submodules) into a bare repository of the
 * operation. Returns the commit id, or null when `missingOk` and the remote has no such ref.
 */
export async function fetchInto(op: OperationHandle, ref: string, missingOk: boolean): Promise<string | null> {
  await runGitChecked(op, ["init", "--bare", "--quiet", "--template=", op.repoDir]);
  const local = "refs/quire/fetched";
  // The fetch writes a pack before we can list the tree; watch its size on disk so a huge
  // repository is stopped while it downloads, not after it filled the disk.
  const tooLarge = () =>
    new GitError(
      "limit_exceeded",
      `The repository at ${op.displayUrl} is larger than the limit of ${op.limits.maxFetchBytes} bytes (maxFetchBytes)`,
    );
  const watch = setInterval(() => {
    directorySize(`${op.repoDir}/objects`).then(
      (size) => {
        if (size > op.limits.maxFetchBytes) op.fail(tooLarge());
      },
      () => undefined,
    );
  }, 200);
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(
      op,
      [
        "fetch",
        "--quiet",
        "--depth=1",
        "--no-tags",
        "--no-recurse-submodules",
        "--no-write-fetch-head",
        "--no-auto-maintenance",
        "--",
        op.remote.url,
        `+${ref}:${local}`,
      ],
      { cwd: op.repoDir },
    );
  } catch (error) {
    // Out of time before the remote sent anything: to the caller, the same as a remote that
    // refuses the connection (a filtered port must not be told apart from a closed one).
    if (error instanceof GitError && error.code === "timeout" && (await directorySize(`${op.repoDir}/objects`)) === 0) {
      throw unreachable(op.displayUrl, `no answer within the time limit of ${op.limits.timeoutMs} ms`);
    }
    throw error;
  } finally {
    clearInterval(watch);
  }
  if (result.code !== 0) {
    const error = classifyRemoteError(op, result.stderr, ref);
    if (missingOk && error.code === "ref_not_found" && /couldn't find remote ref/i.test(result.stderr)) return null;
    throw error;
  }
  // A fetch faster than the watch's period is measured once it is done.
  if ((await directorySize(`${op.repoDir}/objects`)) > op.limits.maxFetchBytes) throw tooLarge();
  const oid = await runGitChecked(op, ["rev-parse", "--verify", "--quiet", `${local}^{commit}`], { cwd: op.repoDir });
  return oid.toString("utf8").trim();
}

function parsePerson(line: string): GitPerson & { date: Date } {
  const match = /^(.*?) <([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: "", date: new Date(0) };
  return { name: match[1] as string, email: match[2] as string, date: new Date(Number(match[3]) * 1000) };
}

/** Parses the raw text of a commit object (`git cat-file commit`). */
export function parseCommit(oid: string, raw: string): CommitInfo {
  const split = raw.indexOf("\n\n");
  const header = split < 0 ? raw : raw.slice(0, split);
  const message = split < 0 ? "" : raw.slice(split + 2);
  const info: CommitInfo = {
    oid,
    tree: "",
    parents: [],
    message,
    author: { name: "", email: "", date: new Date(0) },
    committer: { name: "", email: "", date: new Date(0) },
  };
  for (const line of header.split("\n")) {
    const space = line.indexOf(" ");
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === "tree") info.tree = value;
    else if (key === "parent") info.parents.push(value);
    else if (key === "author") info.author = parsePerson(value);
    else if (key === "committer") info.committer = parsePerson(value);
  }
  return info;
}

/** A fetched commit, read from the object database. Holds a temp directory until dispose(). */
export class LocalRepo implements BlobReader {
  private catFile: CatFile | undefined;
  /** Numbers the temp files of forEachBlob (calls may overlap). */
  private blobFiles = 0;

  constructor(
    private readonly op: OperationHandle,
    readonly commit: CommitInfo,
    readonly ref: string,
    private readonly ownsOperation: boolean,
  ) {}

  /** The remote URL without credentials (safe to store and show). */
  get url(): string {
    return this.op.displayUrl;
  }

  get limits(): GitLimits {
    return this.op.limits;
  }

  /**
   * Every blob, symlink and submodule of the commit under `directory` ("" for all), with paths
   * validated and at most `maxTreeEntries` entries. Sizes are not limited here: a tree may hold
   * files no page uses, and only what an import stores counts against the file and size limits
   * (readRepository applies them).
   */
  async listTree(directory = ""): Promise<TreeEntry[]> {
    if (directory) assertSafePath(directory, "directory");
    const { maxTreeEntries } = this.op.limits;
    const entries: TreeEntry[] = [];
    let pending: Buffer = Buffer.alloc(0);
    const decoder = new TextDecoder("utf-8", { fatal: false });
    const onRecord = (record: Buffer) => {
      // "<mode> SP <type> SP <oid> SP+ <size> TAB <path>"
      const tab = record.indexOf(9);
      const [mode, , oid, size] = record.subarray(0, tab).toString("latin1").split(/ +/);
      const path = decoder.decode(record.subarray(tab + 1));
      assertSafePath(path);
      if (entries.length + 1 > maxTreeEntries) {
        throw new GitError("limit_exceeded", `The repository has more than ${maxTreeEntries} files and folders to list (maxTreeEntries)`);
      }
      entries.push({ path, mode: mode as string, size: mode === MODE_SUBMODULE ? 0 : Number(size), oid: oid as string });
    };
    const args = ["ls-tree", "-r", "-l", "-z", "--full-tree", this.commit.oid];
    if (directory) args.push("--", directory);
    const result = await runGit(this.op, args, {
      cwd: this.op.repoDir,
      onStdout: (chunk) => {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        let start = 0;
        for (let nul = pending.indexOf(0, start); nul >= 0; nul = pending.indexOf(0, start)) {
          onRecord(pending.subarray(start, nul));
          start = nul + 1;
        }
        pending = pending.subarray(start);
      },
    });
    if (result.code !== 0) throw new GitError("git_failed", `git ls-tree failed: ${lastLines(result.stderr)}`);
    return entries;
  }

  async readBlobs(oids: readonly string[], options: { maxBytes?: number } = {}): Promise<Buffer[]> {
    this.catFile ??= new CatFile(this.op);
    return Promise.all(oids.map((oid) => (this.catFile as CatFile).read(oid, options.maxBytes)));
  }

  /**
   * `BlobReader.forEachBlob`: git writes a window of blobs (`READ_WINDOW_BYTES`) to a file of the
   * operation's temp directory, and they are read back one by one into one buffer that is reused
   * (a blob larger than it gets its own). The next window is written while this one is read.
   *
   * Why not the cat-file pipe: every read from a pipe allocates a new buffer, and so does every
   * blob, and that memory is given back only by a garbage collection, which V8 starts after some
   * 64 MB of it. Storing a repository's images through the pipe held that much garbage at a time,
   * and the process kept the pages (measured: 60 MB more peak RSS on an import of 800 images).
   * Here nothing is allocated per read or per blob.
   */
  async forEachBlob(blobs: readonly { oid: string; size: number }[], fn: (oid: string, bytes: Buffer) => Promise<void>): Promise<void> {
    for (const { oid } of blobs) if (!OID.test(oid)) throw new GitError("git_failed", `Invalid object id ${JSON.stringify(oid)}`);
    const windows = readWindows(blobs, READ_WINDOW_BYTES);
    // Sized for the largest blob up to a window; a larger one is read into a buffer of its own.
    const reused = Buffer.allocUnsafe(
      Math.min(
        READ_WINDOW_BYTES,
        blobs.reduce((n, b) => Math.max(n, b.size), 0),
      ),
    );
    const write = (index: number) => {
      const window = windows[index];
      if (!window) return undefined;
      const file = path.join(this.op.dir, `blobs-${this.blobFiles++}`);
      const written = writeBlobsFile(this.op, window, file);
      // Awaited on a later turn; until then a failure must not count as unhandled.
      written.catch(() => undefined);
      return { window, file, written };
    };
    let next = write(0);
    for (let i = 0; next; i++) {
      const { window, file, written } = next;
      await written;
      next = write(i + 1);
      const handle = await fs.open(file, "r");
      try {
        let position = 0;
        for (const { oid } of window) {
          const header = await readHeader(handle, position, oid);
          position += header.length;
          if (header.type !== "blob") throw new GitError("git_failed", `Object ${oid} is a ${header.type}, not a file`);
          if (header.size > this.op.limits.maxFileBytes) {
            throw new GitError(
              "limit_exceeded",
              `Object ${oid} is ${header.size} bytes, over the limit of ${this.op.limits.maxFileBytes} bytes (maxFileBytes)`,
            );
          }
          const target = header.size <= reused.length ? reused : Buffer.allocUnsafe(header.size);
          await readExactly(handle, target, header.size, position);
          // The content is followed by one LF.
          position += header.size + 1;
          if (this.op.signal.aborted) throw this.op.abortError();
          await fn(oid, target.subarray(0, header.size));
        }
      } finally {
        await handle.close();
        await fs.rm(file, { force: true });
      }
    }
  }

  /** Stops the reader and, unless the repository belongs to a larger operation, removes the temp directory. */
  async dispose(): Promise<void> {
    this.catFile?.close();
    this.catFile = undefined;
    if (this.ownsOperation) await this.op.close();
  }
}

/**
 * Fetches `ref` of `url` and returns the repository positioned at that commit. The caller must
 * call dispose() (or use withFetchedRef). Throws GitError: url_refused, ref_invalid, ref_not_found,
 * auth_failed, remote_unavailable, limit_exceeded, timeout, aborted, invalid_repository.
 */
export async function fetchRef(url: string, ref: string, options: FetchOptions): Promise<LocalRepo> {
  const remote = parseRemoteUrl(url, options);
  assertValidRef(ref);
  const op = await openOperation(remote, options, options);
  try {
    const oid = (await fetchInto(op, ref, false)) as string;
    const commit = await readCommit(op, oid);
    return new LocalRepo(op, commit, ref, true);
  } catch (error) {
    await op.close();
    throw error;
  }
}

/** fetchRef + fn + dispose, with the temp directory removed whatever happens. */
export async function withFetchedRef<T>(url: string, ref: string, options: FetchOptions, fn: (repo: LocalRepo) => Promise<T>): Promise<T> {
  const repo = await fetchRef(url, ref, options);
  try {
    return await fn(repo);
  } finally {
    await repo.dispose();
  }
}

export async function readCommit(op: OperationHandle, oid: string): Promise<CommitInfo> {
  const raw = await runGitChecked(op, ["cat-file", "commit", oid], { cwd: op.repoDir });
  return parseCommit(oid, raw.toString("utf8"));
}

/** Bytes of blobs git writes to a file at once for `forEachBlob` (a larger blob is written alone). */
export const READ_WINDOW_BYTES = 4 * 1024 * 1024;

/** Writes the `git cat-file --batch` output for `blobs` to `file`. */
async function writeBlobsFile(op: OperationHandle, blobs: readonly { oid: string }[], file: string): Promise<void> {
  const handle = await fs.open(file, "w", 0o600);
  try {
    const result = await runGit(op, ["cat-file", "--batch"], {
      cwd: op.repoDir,
      stdin: blobs.map((b) => `${b.oid}\n`).join(""),
      stdoutFd: handle.fd,
    });
    if (result.code !== 0) throw new GitError("git_failed", `git cat-file failed: ${lastLines(result.stderr)}`);
  } finally {
    await handle.close();
  }
}

/** Reads the `<oid> <type> <size>\n` line at `position` (or `<oid> missing`). */
async function readHeader(handle: fs.FileHandle, position: number, oid: string): Promise<{ type: string; size: number; length: number }> {
  const bytes = Buffer.alloc(160);
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, position);
  const newline = bytes.subarray(0, bytesRead).indexOf(10);
  const [name, type, sizeText] = bytes.subarray(0, Math.max(newline, 0)).toString("latin1").split(" ");
  if (newline < 0 || name !== oid || type === "missing" || type === undefined || sizeText === undefined) {
    throw new GitError("git_failed", `Object ${oid} is not in the repository`);
  }
  return { type, size: Number(sizeText), length: newline + 1 };
}

/** Fills `target` with `size` bytes of the file from `position`. */
async function readExactly(handle: fs.FileHandle, target: Buffer, size: number, position: number): Promise<void> {
  for (let done = 0; done < size; ) {
    const { bytesRead } = await handle.read(target, done, size - done, position + done);
    if (bytesRead === 0) throw new GitError("git_failed", "git cat-file's output ended early");
    done += bytesRead;
  }
}

interface BlobRequest {
  oid: string;
  maxBytes: number | undefined;
  resolve(data: Buffer): void;
  reject(error: Error): void;
}

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A long-running `git cat-file --batch`: many blobs through one process, answers in request order. */
class CatFile {
  private readonly child;
  private readonly queue: BlobRequest[] = [];
  private header: Buffer = Buffer.alloc(0);
  /** The blob being received: its bytes are copied into one buffer of their final size (no second copy to join pieces). */
  private body: { size: number; received: number; kept: Buffer; keptBytes: number; error?: GitError } | undefined;
  private failure: GitError | undefined;
  private readonly onAbort = () => this.stop(this.op.abortError());

  constructor(private readonly op: OperationHandle) {
    this.child = spawnGit(op, ["cat-file", "--batch"], op.repoDir);
    op.signal.addEventListener("abort", this.onAbort, { once: true });
    if (op.signal.aborted) this.onAbort();
    this.child.stdout.on("data", (chunk: Buffer) => this.consume(chunk));
    this.child.stdin.on("error", () => undefined);
    this.child.stderr.resume();
    this.child.on("error", (e) => this.stop(new GitError("git_failed", `Could not run git cat-file: ${op.redact(e.message)}`)));
    this.child.on("close", () => this.stop(new GitError("git_failed", "git cat-file exited unexpectedly")));
  }

  read(oid: string, maxBytes: number | undefined): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    if (!OID.test(oid)) return Promise.reject(new GitError("git_failed", `Invalid object id ${JSON.stringify(oid)}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ oid, maxBytes, resolve, reject });
      this.child.stdin.write(`${oid}\n`);
    });
  }

  close(): void {
    this.stop(new GitError("aborted", "The Git reader was closed"));
  }

  private stop(error: GitError): void {
    if (this.failure) return;
    this.failure = error;
    this.op.signal.removeEventListener("abort", this.onAbort);
    killGroup(this.child.pid);
    for (const request of this.queue.splice(0)) request.reject(error);
  }

  private consume(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && !this.failure) {
      const request = this.queue[0];
      if (!request) return;
      if (!this.body) {
        const newline = chunk.indexOf(10, offset);
        if (newline < 0) {
          this.header = Buffer.concat([this.header, chunk.subarray(offset)]);
          return;
        }
        const line = Buffer.concat([this.header, chunk.subarray(offset, newline)]).toString("latin1");
        this.header = Buffer.alloc(0);
        offset = newline + 1;
        const [, type, sizeText] = line.split(" ");
        if (type === "missing" || sizeText === undefined) {
          this.queue.shift();
          request.reject(new GitError("git_failed", `Object ${request.oid} is not in the repository`));
          continue;
        }
        const size = Number(sizeText);
        const tooLarge = type === "blob" && size > this.op.limits.maxFileBytes;
        const keep = type === "blob" && !tooLarge ? Math.min(size, request.maxBytes ?? Number.POSITIVE_INFINITY) : 0;
        this.body = { size, received: 0, kept: Buffer.allocUnsafe(keep), keptBytes: 0 };
        if (type !== "blob") this.body.error = new GitError("git_failed", `Object ${request.oid} is a ${type}, not a file`);
        else if (size > this.op.limits.maxFileBytes) {
          this.body.error = new GitError(
            "limit_exceeded",
            `Object ${request.oid} is ${size} bytes, over the limit of ${this.op.limits.maxFileBytes} bytes (maxFileBytes)`,
          );
        }
      }
      const body = this.body;
      // The content is followed by one LF.
      const want = body.size + 1 - body.received;
      const piece = chunk.subarray(offset, offset + want);
      offset += piece.length;
      body.received += piece.length;
      if (!body.error && body.keptBytes < body.kept.length) {
        body.keptBytes += piece.copy(body.kept, body.keptBytes, 0, Math.min(piece.length, body.kept.length - body.keptBytes));
      }
      if (body.received === body.size + 1) {
        this.body = undefined;
        this.queue.shift();
        if (body.error) request.reject(body.error);
        else request.resolve(body.kept);
      }
    }
  }
}
