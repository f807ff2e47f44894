/**
 * Running Git imports and exports (called by their jobs). Each run records its progress and outcome
 * in the space's Git sync state, which the API shows (space `gitSync`, GET /git/info). A failed
 * import leaves the space's content as it was.
 */

import type { Config } from "../../config.js";
import type { JSONDocument } from "../../content/document/types.js";
import { type GitConflict, reconcileImport, reconcileIncludes } from "../../content/git-sync/conflicts.js";
import { exportContent } from "../../content/git-sync/export-content.js";
import { importContent } from "../../content/git-sync/import-content.js";
import { externalLinks } from "../../content/git-sync/resolve.js";
import { readRepository, repositoryPaths } from "../../content/gitbook-repo/index.js";
import { type ContentConfig, type RepositoryContent, RepositoryFormatError } from "../../content/gitbook-repo/types.js";
import { writeRepository } from "../../content/gitbook-repo/write.js";
import { commitRevision } from "../../content/revision/commit.js";
import { indexPages, type PageNode, type RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision, setRevisionGit } from "../../content/revision/revisions.queries.js";
import { loadContent, loadDocument, loadDocumentJson, saveDocumentsJson } from "../../content/revision/storage.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";
import { getBlob } from "../../content/store/blobs.queries.js";
import { blobHash } from "../../content/store/canonical.js";
import { storeRepoFiles } from "../../content/store/import-files.js";
import type { Db } from "../../db/database.js";
import type { Deps } from "../../deps.js";
import { GitError } from "../../git/errors.js";
import { assertValidRef, commitAndPush, type LocalRepo, unsafePathReason, withFetchedRef } from "../../git/index.js";
import { repoPathFromRoot } from "../../git/paths.js";
import { createRedactor, parseRemoteUrl } from "../../git/url.js";
import { enqueue } from "../../jobs/queue.js";
import { isDeterministicFailure, type JobContext, PermanentJobError } from "../../jobs/registry.js";
import { invalid } from "../../lib/errors.js";
import { parseJsonOrNull } from "../../lib/json.js";
import { seal, unseal } from "../../lib/sealed.js";
import { nowIso } from "../../lib/time.js";
import { WorkerOutOfMemoryError } from "../../workers/pool.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { getUserById } from "../users/users.queries.js";
import { listGitRedirects, redirectPath, redirectsToPages, replaceGitRedirects } from "./git-redirects.queries.js";
import type { GitExportPayload, GitImportPayload, GitSyncJobBase } from "./git-sync.jobs.js";
import { type GitSyncBase, type GitSyncRunValue, repoNameOf, type StoredGitSyncState } from "./git-sync-state.model.js";
import { readGitSyncState, updateGitSyncState } from "./git-sync-state.service.js";

/** The purpose Git credentials are sealed under (lib/sealed.ts). */
export const CREDENTIALS_PURPOSE = "git-credentials";

type RunKey = "lastImport" | "lastExport";

/** What an import or export request carries (the API's body; the web app's form fills the same fields). */
export interface GitRunInput {
  url: string;
  ref: string;
  repoProjectDirectory?: string | undefined;
  timestamp?: string | undefined;
  force?: boolean | undefined;
  repoTreeURL?: string | undefined;
  repoCommitURL?: string | undefined;
}

/** The remotes Git sync may reach (file:// under the operator's root, http(s) to allowed addresses). */
export function remotePolicy(config: Config) {
  return { allowFile: config.gitAllowFileUrls, fileRoot: config.gitFileRoot, allowNetworks: config.fetchAllowNetworks };
}

/** Checks an import or export request and turns it into a job payload (credentials sealed). Bad input is `invalid`. */
export function gitJobBase(deps: Pick<Deps, "config" | "secret">, body: GitRunInput, spaceId: string, actorId: string): GitSyncJobBase {
  let remote: ReturnType<typeof parseRemoteUrl>;
  try {
    remote = parseRemoteUrl(body.url, remotePolicy(deps.config));
    assertValidRef(body.ref, ["heads", "tags"]);
  } catch (error) {
    if (error instanceof GitError) throw invalid(error.message);
    throw error;
  }
  const given = body.repoProjectDirectory ?? "";
  // A directory of the repository, relative to its top ("docs", "./docs/"): never absolute.
  if (given.startsWith("/")) {
    throw invalid(
      `repoProjectDirectory ${JSON.stringify(given)} is refused: it is absolute; give a path relative to the repository's top.`,
    );
  }
  const projectDirectory = given.replace(/^(\.\/)+|\/+$/g, "");
  const reason = projectDirectory ? unsafePathReason(projectDirectory) : undefined;
  if (reason) throw invalid(`repoProjectDirectory ${JSON.stringify(given)} is refused: ${reason}.`);
  const credentials = remote.credentials
    ? seal(deps.secret, CREDENTIALS_PURPOSE, `${remote.credentials.username}:${remote.credentials.password}`)
    : undefined;
  return {
    spaceId,
    remote: remote.url,
    ...(credentials ? { credentials } : {}),
    ref: body.ref,
    projectDirectory,
    ...(body.timestamp ? { timestamp: body.timestamp } : {}),
    force: body.force ?? false,
    ...(body.repoTreeURL ? { repoTreeURL: body.repoTreeURL } : {}),
    ...(body.repoCommitURL ? { repoCommitURL: body.repoCommitURL } : {}),
    actorId,
    requestedAt: nowIso(),
  };
}

/** An export pushes to a branch. */
export function assertExportRef(ref: string): void {
  if (!ref.startsWith("refs/heads/")) throw invalid(`An export pushes to a branch: ref must be "refs/heads/<branch>", got "${ref}".`);
}

/** What an import or export request says about where the repository is shown (`gitInfo`, tree URL). */
export interface GitRunRequest {
  repoTreeURL?: string | undefined;
  gitInfo?: { url?: string | undefined; provider?: "github" | "gitlab" | undefined } | undefined;
}

/**
 * Records a requested import or export as pending in the space's sync state (remote, ref, project
 * directory, where the repository is shown) and enqueues its job, in one transaction.
 */
export async function requestGitRun(
  db: Db,
  job: { kind: "git-import"; payload: GitImportPayload } | { kind: "git-export"; payload: GitExportPayload },
  request: GitRunRequest,
): Promise<void> {
  const { payload } = job;
  const key: RunKey = job.kind === "git-import" ? "lastImport" : "lastExport";
  await db.transaction().execute(async (trx) => {
    await updateGitSyncState(trx, payload.spaceId, (state) => ({
      ...state,
      remote: payload.remote,
      ref: payload.ref,
      projectDirectory: payload.projectDirectory,
      repoName: repoNameOf(payload.remote) ?? state.repoName,
      url: request.gitInfo?.url ?? request.repoTreeURL ?? state.url ?? payload.remote,
      ...(request.gitInfo?.provider ? { installationProvider: request.gitInfo.provider } : {}),
      [key]: { status: "pending", requestedAt: payload.requestedAt },
    }));
    await enqueue(trx, job.kind, job.payload);
  });
}

/** The remote URL with its credentials put back (only ever held in memory, for git). */
function remoteWithCredentials(ctx: JobContext, payload: GitSyncJobBase): { url: string; redact: (text: string) => string } {
  if (!payload.credentials) return { url: payload.remote, redact: createRedactor(undefined) };
  const plain = unseal(ctx.secret, CREDENTIALS_PURPOSE, payload.credentials);
  const colon = plain.indexOf(":");
  const credentials = { username: plain.slice(0, colon), password: plain.slice(colon + 1) };
  const url = new URL(payload.remote);
  url.username = encodeURIComponent(credentials.username);
  url.password = encodeURIComponent(credentials.password);
  return { url: url.toString(), redact: createRedactor(credentials) };
}

async function recordRun(
  ctx: JobContext,
  spaceId: string,
  key: RunKey,
  run: Partial<GitSyncRunValue>,
  extra: { lastTimestamp?: string } = {},
) {
  await updateGitSyncState(ctx.db, spaceId, (state) => ({
    ...state,
    ...extra,
    [key]: { ...(state[key] ?? { requestedAt: nowIso() }), ...run } as GitSyncRunValue,
  }));
}

/** A newer import or export was already applied: this one would move the content backwards. */
async function isOutdated(ctx: JobContext, payload: GitSyncJobBase): Promise<boolean> {
  if (!payload.timestamp) return false;
  const state = await readGitSyncState(ctx.db, payload.spaceId);
  return !!state?.lastTimestamp && payload.timestamp < state.lastTimestamp;
}

/**
 * Errors a retry cannot fix (the repository's content, a limit, invalid input, a stack overflow on
 * some page) are recorded as the run's failure and end the job at once; others (network, timeouts,
 * a branch that moved, content changed meanwhile) are retried.
 */
function permanentFailure(error: unknown): boolean {
  if (error instanceof RepositoryFormatError) return true;
  if (error instanceof GitError) return !error.retryable;
  // A page that does not fit in the worker's heap does not fit on the next attempt either.
  if (error instanceof WorkerOutOfMemoryError) return true;
  return isDeterministicFailure(error);
}

/**
 * The space a run works on, once the run is recorded as running; undefined when there is nothing
 * to do (the space is gone, or a newer import or export was applied: recorded as skipped).
 */
async function startRun(ctx: JobContext, payload: GitSyncJobBase, key: RunKey) {
  const space = await getSpace(ctx.db, payload.spaceId);
  if (!space || space.deletedAt) return undefined;
  if (await isOutdated(ctx, payload)) {
    // Recorded only while the run shown is this job's own request: a late job must not replace the
    // status of a newer run (which applied the newer content, or is pending or running).
    await updateGitSyncState(ctx.db, space.id, (state) => {
      const shown = state[key];
      if (shown && shown.requestedAt !== payload.requestedAt) return state;
      return {
        ...state,
        [key]: {
          ...(shown ?? { requestedAt: payload.requestedAt }),
          status: "skipped",
          finishedAt: nowIso(),
          message: "A newer import or export was already applied.",
        },
      };
    });
    ctx.log.info({ spaceId: space.id, timestamp: payload.timestamp }, "git sync skipped: a newer run was already applied");
    return undefined;
  }
  await recordRun(ctx, space.id, key, { status: "running", startedAt: nowIso() });
  return space;
}

/**
 * Records a failed attempt and rethrows: final (the job fails for good) when a retry cannot help or
 * after 5 attempts, else pending (the job retries).
 */
async function recordFailure(
  ctx: JobContext,
  spaceId: string,
  key: RunKey,
  error: unknown,
  redact: (text: string) => string,
): Promise<void> {
  const message = redact(
    error instanceof RangeError
      ? `The content could not be processed: some of it is nested too deep or is too large (${error.message}).`
      : error instanceof Error
        ? error.message
        : String(error),
  );
  // What a remote answered (or why it was not reached) is for the operator, never in the message.
  if (error instanceof GitError && error.detail) {
    ctx.log.warn({ spaceId, code: error.code, detail: redact(error.detail) }, `git ${key === "lastImport" ? "import" : "export"} failed`);
  }
  if (permanentFailure(error) || ctx.attempt >= 5) {
    await recordRun(ctx, spaceId, key, { status: "failed", finishedAt: nowIso(), message });
    // The job fails too, for good: the queue shows it and retries nothing.
    throw new PermanentJobError(message);
  }
  await recordRun(ctx, spaceId, key, { status: "pending", message: `Retrying after: ${message}` });
  throw new Error(message);
}

export async function runGitImport(ctx: JobContext, payload: GitImportPayload): Promise<void> {
  const space = await startRun(ctx, payload, "lastImport");
  if (!space) return;
  const { url, redact } = remoteWithCredentials(ctx, payload);
  try {
    const options = { ...remotePolicy(ctx.config), signal: ctx.signal, limits: ctx.config.gitLimits };
    await withFetchedRef(url, payload.ref, options, async (repo) => {
      const primary = await getSpaceRevision(ctx.db, space.id, space.revisionId);
      const primaryGit = parseJsonOrNull<{ oid: string; ref?: string }>(primary?.git ?? null, "revisions.git");
      const known = await readGitSyncState(ctx.db, space.id);
      // After an export that kept some of Git's files (pages in conflict, or changed only in Git), the
      // commit it made holds content the space does not: importing it is not a no-op.
      const branchAhead = !!known?.conflicts?.length || !!known?.branchAhead;
      if (!payload.force && !branchAhead && primaryGit?.oid === repo.commit.oid && primaryGit.ref === payload.ref) {
        await recordRun(ctx, space.id, "lastImport", {
          status: "skipped",
          finishedAt: nowIso(),
          commit: repo.commit.oid,
          message: "This commit is already the space's content (pass force to import it again).",
        });
        return;
      }
      const entries = await repo.listTree(payload.projectDirectory);
      const repository = await readRepository(entries, repo, {
        projectDirectory: payload.projectDirectory,
        limits: { ...ctx.config.gitLimits, maxPageBytes: ctx.config.importMaxPageBytes },
        // Images are measured as their files are stored (storeRepoFiles), each read once.
        measureImages: false,
      });
      const previous = await loadContent(ctx.db, primary?.treeHash ?? null);
      const target = { remote: payload.remote, ref: payload.ref, projectDirectory: payload.projectDirectory };
      // A page Quire deleted since the last sync keeps its id (the base's) when Git still has it,
      // so that Git's edit of it is found as a conflict rather than read as a new page.
      const syncBase = !payload.standalone && sameTarget(known?.base, target) ? known.base : undefined;
      const baseRow = syncBase ? await getSpaceRevision(ctx.db, space.id, syncBase.revision) : undefined;
      const identities = baseRow
        ? withBaseIdentities(previous, await loadContent(ctx.db, baseRow.treeHash), known?.conflicts ?? [])
        : previous;
      const imported = await importContent(
        repository,
        identities,
        {
          readBlob: async (oid) => (await repo.readBlobs([oid]))[0]!,
          // Files first, read once each and outside the transaction: stored by content, they are
          // harmless if the import then fails, and the transaction does not wait on Git.
          storeFiles: (files) => storeRepoFiles(ctx.db, repo, files),
          storeDocuments: (documents) => saveDocumentsJson(ctx.db, documents),
          loadDocumentJson: (hash) => loadDocumentJson(ctx.db, hash),
          blobHash,
        },
        nowIso(),
        { repoTreeURL: payload.repoTreeURL },
      );
      const redirects = redirectsToPages(repository.redirects, imported.content.pages);
      const warnings = [...imported.warnings, ...redirects.unresolved];
      const state = await readGitSyncState(ctx.db, space.id);
      // Pages edited in Quire since the last sync are not overwritten: see content/git-sync/conflicts.ts.
      const reconciled = payload.standalone
        ? undefined
        : await reconcileWithQuire(ctx, space, state, target, {
            git: imported.content,
            quire: previous,
            commit: repo.commit.oid,
          });
      const gitMeta = {
        oid: repo.commit.oid,
        message: repo.commit.message,
        createdByService: false,
        ref: payload.ref,
        url: payload.repoCommitURL ? `${payload.repoCommitURL}${repo.commit.oid}` : repo.url,
      };
      const revision = await ctx.db.transaction().execute(async (trx) => {
        // When Quire's side of some pages is kept, Git's own content is a revision of its own (off
        // the primary line): it is the base the next sync compares both sides with.
        const gitRevision = reconciled?.changed
          ? await commitRevision(trx, {
              spaceId: space.id,
              parents: [space.revisionId],
              type: "edits",
              content: imported.content,
              git: gitMeta,
              createdBy: payload.actorId,
            })
          : undefined;
        const created = await commitRevision(trx, {
          spaceId: space.id,
          parents: gitRevision ? [space.revisionId, gitRevision.id] : [space.revisionId],
          type: gitRevision ? "merge" : "edits",
          content: reconciled?.content ?? imported.content,
          git: gitMeta,
          createdBy: payload.actorId,
          ...(payload.standalone ? {} : { movePrimaryFrom: space.revisionId }),
        });
        if (!payload.standalone) {
          await requestSearchIndex(trx, space.id);
          await replaceGitRedirects(trx, space.id, redirects.kept);
        }
        await updateGitSyncState(trx, space.id, (state) => ({
          ...state,
          ...(payload.timestamp && !payload.standalone ? { lastTimestamp: payload.timestamp } : {}),
          ...(payload.standalone ? {} : { contentRoot: repository.root }),
          // Kept for exports, which compare the branch's files with links to the same addresses.
          ...(payload.standalone ? {} : payload.repoTreeURL ? { repoTreeURL: payload.repoTreeURL } : { repoTreeURL: undefined }),
          ...(payload.standalone
            ? {}
            : {
                base: { revision: gitRevision?.id ?? created.id, commit: repo.commit.oid, ...target },
                conflicts: reconciled?.conflicts ?? [],
                branchAhead: undefined,
              }),
          lastImport: {
            ...(state.lastImport ?? { requestedAt: payload.requestedAt }),
            status: "succeeded",
            finishedAt: nowIso(),
            commit: repo.commit.oid,
            revision: created.id,
            ...(reconciled?.message ? { message: reconciled.message } : { message: undefined }),
            ...(warnings.length ? { warnings: keptWarnings(warnings).map(redact) } : {}),
          },
        }));
        return created;
      });
      ctx.notifyJobs();
      ctx.log.info(
        { spaceId: space.id, revision: revision.id, commit: repo.commit.oid, files: imported.content.files.length },
        "git import done",
      );
    });
  } catch (error) {
    await recordFailure(ctx, space.id, "lastImport", error, redact);
  }
}

/**
 * `quire` with, for identities only, the base's pages Quire deleted since (at the end of the top
 * level, without children): an import of Git's tree then gives Git's file of such a page the
 * page's own id, and the comparison with the base finds Quire's deletion (deleted-in-quire).
 */
function withBaseIdentities(quire: RevisionContent, base: RevisionContent, open: readonly GitConflict[]): RevisionContent {
  const inQuire = indexPages(quire.pages);
  const paths = new Set([...inQuire.values()].flatMap(({ page }) => (page.git?.path ? [page.git.path] : [])));
  const deleted: PageNode[] = [];
  const add = (page: PageNode) => {
    if (page.kind !== "document" || !page.git?.path || inQuire.has(page.id) || paths.has(page.git.path)) return;
    paths.add(page.git.path);
    deleted.push({ ...page, children: [] });
  };
  for (const { page } of indexPages(base.pages).values()) add(page);
  // Found by an export, whose base (Quire's content) no longer has the page: the conflict names it.
  const now = nowIso();
  for (const c of open)
    if (c.kind === "deleted-in-quire" && c.path)
      add({
        id: c.pageId,
        kind: "document",
        title: c.title,
        slug: "",
        git: { oid: "", path: c.path },
        createdAt: now,
        updatedAt: now,
        children: [],
      });
  return deleted.length === 0 ? quire : { ...quire, pages: [...quire.pages, ...deleted] };
}

/** A sync's target repository (the base of a sync is only valid for the same one). */
interface SyncTarget {
  remote: string;
  ref: string;
  projectDirectory: string;
}

function sameTarget(base: GitSyncBase | undefined, target: SyncTarget): base is GitSyncBase {
  return !!base && base.remote === target.remote && base.ref === target.ref && base.projectDirectory === target.projectDirectory;
}

/** Pages in conflict, named for a person: the first ten titles and paths. */
function conflictList(conflicts: readonly GitConflict[]): string {
  const named = conflicts.slice(0, 10).map((c) => `"${c.title}" (${c.path})`);
  return `${named.join(", ")}${conflicts.length > 10 ? `, and ${conflicts.length - 10} more` : ""}`;
}

/** What an import or export says when pages are in conflict. */
export function conflictMessage(conflicts: readonly GitConflict[], direction: "import" | "export"): string | undefined {
  if (conflicts.length === 0) return undefined;
  const kept = direction === "import" ? "Quire's version is kept in the space" : "Git's file is left as it is in the branch";
  return `${conflicts.length} page(s) were edited both in Git and in Quire since the last sync, and were not synced: ${conflictList(conflicts)}. ${kept}, and nothing of either side is lost: open the space in the web app (Git sync, Resolve conflicts) and keep Git's version, Quire's, or a merge of the two for each page. The rest of the ${direction} was applied.`;
}

/**
 * Git's content compared page by page with Quire's and with the last sync's base. Undefined when
 * there is nothing to compare: no base for this repository, or no edit in Quire since and no conflict open.
 */
async function reconcileWithQuire(
  ctx: JobContext,
  space: { id: string; revisionId: string },
  state: StoredGitSyncState | null,
  target: SyncTarget,
  input: { git: RevisionContent; quire: RevisionContent; commit: string },
): Promise<{ content: RevisionContent; changed: boolean; conflicts: GitConflict[]; message?: string } | undefined> {
  const base = state?.base;
  if (!sameTarget(base, target)) return undefined;
  const open = state?.conflicts ?? [];
  if (base.revision === space.revisionId && open.length === 0) return undefined;
  const baseRow = await getSpaceRevision(ctx.db, space.id, base.revision);
  if (!baseRow) return undefined;
  const baseContent = await loadContent(ctx.db, baseRow.treeHash);
  const documents = { load: (hash: string) => loadDocument<JSONDocument>(ctx.db, hash) };
  const now = nowIso();
  const result = await reconcileImport(
    { git: input.git.pages, quire: input.quire.pages, base: baseContent.pages, open, commit: input.commit, now },
    documents,
  );
  const includes = await reconcileIncludes(
    {
      git: input.git.reusableContents,
      quire: input.quire.reusableContents,
      base: baseContent.reusableContents,
      open,
      commit: input.commit,
      now,
    },
    documents,
  );
  const conflicts = [...result.conflicts, ...includes.conflicts];
  const changed = conflicts.length > 0 || result.keptFromQuire.length > 0 || includes.keptFromQuire.length > 0;
  const message = conflictMessage(conflicts, "import");
  return {
    content: { ...input.git, pages: result.pages, reusableContents: includes.reusableContents },
    changed,
    conflicts,
    ...(message ? { message } : {}),
  };
}

/**
 * What Git changed in a branch that moved since the last sync, compared page by page with the base
 * and with Quire's content: the pages whose file the export keeps (changed only in Git, or on both
 * sides), and the conflicts (the ones still open included, found again).
 */
interface RemoteChanges {
  /** Pages whose branch file the export keeps. */
  keep: string[];
  conflicts: GitConflict[];
  /**
   * Pages Git added since the last sync (not in Quire, not in the base), and pages Quire deleted
   * that Git edited (in conflict), with their parent in Git's tree.
   */
  added: { page: PageNode; parentId: string | null; index: number }[];
  /** Pages (ids) Git deleted or moved since the last sync that Quire still has: not written back. */
  deletedInGit: Set<string>;
  /** Repository paths of the pages, includes and files of the base (what Quire knew at the last sync). */
  known: Set<string>;
  /** Repository paths of the pages, includes and files Git's content reads now. */
  gitPaths: Set<string>;
}

/**
 * What an export writes: `content` without the pages whose file Git deleted (the pages under one
 * take its place), and with the pages Git added put where Git has them (under the same parent when
 * Quire has it, else at the top).
 */
function withBranchChanges(content: RevisionContent, added: RemoteChanges["added"], deleted: ReadonlySet<string>): RevisionContent {
  if (added.length === 0 && deleted.size === 0) return content;
  const clone = (pages: PageNode[]): PageNode[] =>
    pages.flatMap((p) => (deleted.has(p.id) ? clone(p.children) : [{ ...p, children: clone(p.children) }]));
  const pages = clone(content.pages);
  const byId = indexPages(pages);
  for (const { page, parentId, index } of added) {
    const parent = parentId ? byId.get(parentId)?.page : undefined;
    const siblings = parent ? parent.children : pages;
    siblings.splice(Math.min(index, siblings.length), 0, page);
  }
  return { ...content, pages };
}

async function remoteChanges(
  ctx: JobContext,
  branch: LocalRepo,
  payload: GitExportPayload,
  input: { content: RevisionContent; syncBase: GitSyncBase; open: readonly GitConflict[]; repoTreeURL: string | undefined },
): Promise<RemoteChanges | undefined> {
  const baseRow = await getSpaceRevision(ctx.db, payload.spaceId, input.syncBase.revision);
  if (!baseRow) return undefined;
  const entries = await branch.listTree(payload.projectDirectory);
  const repository = await readRepository(entries, branch, {
    projectDirectory: payload.projectDirectory,
    limits: { ...ctx.config.gitLimits, maxPageBytes: ctx.config.importMaxPageBytes },
    measureImages: false,
  });
  const baseContent = await loadContent(ctx.db, baseRow.treeHash);
  // Git's version of each page, converted as an import converts it (ids kept by path).
  const imported = await importContent(
    repository,
    withBaseIdentities(input.content, baseContent, input.open),
    {
      readBlob: async (oid) => (await branch.readBlobs([oid]))[0]!,
      storeFiles: (files) => storeRepoFiles(ctx.db, branch, files),
      storeDocuments: (documents) => saveDocumentsJson(ctx.db, documents),
      loadDocumentJson: (hash) => loadDocumentJson(ctx.db, hash),
      blobHash,
    },
    nowIso(),
    { repoTreeURL: input.repoTreeURL },
  );
  const documents = { load: (hash: string) => loadDocument<JSONDocument>(ctx.db, hash) };
  const compared = { open: input.open, commit: branch.commit.oid, now: nowIso(), direction: "export" as const };
  const result = await reconcileImport(
    { git: imported.content.pages, quire: input.content.pages, base: baseContent.pages, ...compared },
    documents,
  );
  const includes = await reconcileIncludes(
    { git: imported.content.reusableContents, quire: input.content.reusableContents, base: baseContent.reusableContents, ...compared },
    documents,
  );
  const quire = indexPages(input.content.pages);
  const base = indexPages(baseContent.pages);
  const inGit = indexPages(imported.content.pages);
  const added: RemoteChanges["added"] = [];
  // Pages Quire deleted and Git edited (in conflict): Git's page stays in the branch, where Git has
  // it, with its file, until a person chooses (as an import brings it back into the space).
  const restored = new Set<string>();
  for (const conflict of result.conflicts) {
    const location = conflict.kind === "deleted-in-quire" && !quire.has(conflict.pageId) ? inGit.get(conflict.pageId) : undefined;
    if (!location || location.ancestors.some((a) => restored.has(a.id))) continue;
    restored.add(conflict.pageId);
    const page = { ...location.page, children: location.page.children.filter((c) => !quire.has(c.id)) };
    added.push({ page, parentId: location.parentId, index: location.index });
  }
  const walk = (pages: PageNode[], parentId: string | null) => {
    pages.forEach((page, index) => {
      if (restored.has(page.id)) return;
      // A new page brings its children with it; only the top of each new subtree is placed.
      if (!quire.has(page.id) && !base.has(page.id)) added.push({ page, parentId, index });
      else walk(page.children, page.id);
    });
  };
  walk(imported.content.pages, null);
  // Pages Git deleted (or moved) since the last sync that Quire still has: the export does not
  // write them back (the branch keeps Git's deletion). Those Quire edited are conflicts
  // (deleted-in-git, Quire's page kept in the space); the others the next import deletes.
  const deletedInGit = new Set<string>();
  for (const [id, { page }] of quire)
    if (page.kind === "document" && page.git?.path && base.has(id) && !inGit.has(id)) deletedInGit.add(id);
  const addedIds: string[] = [];
  const collect = (pages: PageNode[]) => {
    for (const p of pages) {
      addedIds.push(p.id);
      collect(p.children);
    }
  };
  collect(added.map((a) => a.page));
  const pathsOf = (content: RevisionContent) => {
    const out = new Set<string>();
    const add = (path: string | undefined) => {
      const full = path === undefined ? undefined : repoPathFromRoot(repository.root, path);
      if (full) out.add(full);
    };
    for (const { page } of indexPages(content.pages).values()) add(page.git?.path);
    for (const file of content.files) add(file.git?.path);
    for (const include of content.reusableContents) add(include.git?.path);
    return out;
  };
  const conflicts = [...result.conflicts, ...includes.conflicts];
  return {
    keep: [...result.fromGit, ...includes.fromGit, ...conflicts.map((c) => c.pageId), ...addedIds],
    conflicts,
    added,
    deletedInGit,
    known: pathsOf(baseContent),
    gitPaths: pathsOf(imported.content),
  };
}

interface BranchLayout {
  /** Repository paths Quire manages in the branch (from its last content): rewritten or deleted. */
  managed: string[];
  /** Repository paths of everything else: never overwritten. */
  others: string[];
  /** The same, relative to the content root (those inside it). */
  taken: string[];
  /** The branch's `.gitbook.yaml` settings (root, structure), kept by the export. */
  config?: ContentConfig;
  /** The branch's `.gitbook.yaml` redirects (old path -> file relative to the root). */
  redirects?: Record<string, string>;
  /** The Markdown of the branch's pages and includes, by path relative to the root. */
  sources?: Map<string, string>;
  /** Repository path of the branch's content root. */
  root?: string;
  /** Repository paths of the files its pages link to that are not imported (RepositoryContent.externalFiles). */
  externalFiles?: string[];
}

/** The paths of a fetched branch, the ones Quire manages there, and its content settings. */
async function branchLayout(base: LocalRepo, projectDirectory: string, maxPageBytes: number): Promise<BranchLayout> {
  const entries = await base.listTree(projectDirectory);
  let managed: string[] = [];
  let root = projectDirectory;
  let config: ContentConfig | undefined;
  let redirects: Record<string, string> | undefined;
  const sources = new Map<string, string>();
  let externalFiles: string[] = [];
  try {
    // The same page size limit as imports: a page an import leaves out is not Quire's to rewrite.
    const previous = await readRepository(entries, base, { projectDirectory, limits: { maxPageBytes }, measureImages: false });
    managed = repositoryPaths(previous);
    root = previous.root;
    config = previous.config;
    redirects = previous.redirects;
    externalFiles = previous.externalFiles;
    const walk = (pages: RepositoryContent["pages"]) => {
      for (const page of pages) {
        if (page.kind === "document" && page.oid !== null) sources.set(page.path, page.source);
        if (page.kind !== "link") walk(page.children);
      }
    };
    walk(previous.pages);
    for (const include of previous.reusableContents) sources.set(include.path, include.source);
  } catch (error) {
    // A branch that is not GitBook content yet: Quire manages nothing there.
    if (!(error instanceof RepositoryFormatError)) throw error;
  }
  const strip = (path: string) => (root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : root ? undefined : path);
  const managedSet = new Set(managed);
  const others = entries.filter((e) => !managedSet.has(e.path)).map((e) => e.path);
  return {
    managed,
    others,
    taken: others.flatMap((path) => strip(path) ?? []),
    ...(config ? { config } : {}),
    ...(redirects ? { redirects } : {}),
    ...(config ? { sources, root, externalFiles } : {}),
  };
}

export async function runGitExport(ctx: JobContext, payload: GitExportPayload): Promise<void> {
  const space = await startRun(ctx, payload, "lastExport");
  if (!space) return;
  const { url, redact } = remoteWithCredentials(ctx, payload);
  const actor = await getUserById(ctx.db, payload.actorId);
  const revisionId = space.revisionId;
  try {
    const primary = await getSpaceRevision(ctx.db, space.id, revisionId);
    const content = await loadContent(ctx.db, primary?.treeHash ?? null);
    const redirects = await listGitRedirects(ctx.db, space.id);
    const state = await readGitSyncState(ctx.db, space.id);
    const repoTreeURL = payload.repoTreeURL ?? state?.repoTreeURL;
    const target = { remote: payload.remote, ref: payload.ref, projectDirectory: payload.projectDirectory };
    // A page in conflict keeps Git's file in the branch until a person resolves it (web app).
    const syncBase = sameTarget(state?.base, target) ? state?.base : undefined;
    const open = syncBase ? (state?.conflicts ?? []) : [];
    let moved: RemoteChanges | undefined;
    const result = await commitAndPush({
      url,
      ref: payload.ref,
      message: payload.commitMessage,
      author: { name: actor?.displayName ?? "Quire", email: actor?.email ?? "quire@localhost" },
      ...remotePolicy(ctx.config),
      signal: ctx.signal,
      limits: ctx.config.gitLimits,
      prepare: async (base) => {
        const layout: BranchLayout = base
          ? await branchLayout(base, payload.projectDirectory, ctx.config.importMaxPageBytes)
          : { managed: [], others: [], taken: [] };
        // The branch moved since the last sync: what Git changed there is not overwritten. Also read
        // when the last export kept some of Git's files (branchAhead: the base revision does not hold
        // them, and writing it would overwrite them), and when a page Quire deleted is in conflict
        // (Git's page is kept where Git has it).
        const inQuire = indexPages(content.pages);
        const restoring = open.some((c) => c.kind === "deleted-in-quire" && !inQuire.has(c.pageId));
        if (base && layout.config && syncBase && (base.commit.oid !== syncBase.commit || restoring || state?.branchAhead)) {
          moved = await remoteChanges(ctx, base, payload, { content, syncBase, open, repoTreeURL });
        }
        const keepBranch = new Set([...(moved?.keep ?? []), ...open.map((c) => c.pageId)]);
        // A page Git deleted, in conflict, is not written back: the branch keeps Git's side.
        const deletedInGit = new Set([
          ...(moved?.deletedInGit ?? []),
          ...(moved?.conflicts ?? open).filter((c) => c.kind === "deleted-in-git").map((c) => c.pageId),
        ]);
        const writable = await exportContent(
          withBranchChanges(content, moved?.added ?? [], deletedInGit),
          { loadDocument: (hash) => loadDocument<JSONDocument>(ctx.db, hash), loadBlob: (hash) => getBlob(ctx.db, hash) },
          {
            taken: layout.taken,
            redirects,
            ...(layout.sources && layout.config ? { branch: { sources: layout.sources, readme: layout.config.readme } } : {}),
            ...(layout.root !== undefined ? { root: layout.root } : {}),
            ...(layout.root !== undefined && layout.externalFiles
              ? { external: externalLinks(layout.root, layout.externalFiles, repoTreeURL) }
              : {}),
            ...(keepBranch.size > 0 ? { keepBranch } : {}),
          },
        );
        // The content goes back under the branch's own root and structure, which .gitbook.yaml keeps
        // saying (it is rewritten when there is a redirect or a setting that is not the default).
        if (layout.config) writable.config = layout.config;
        // The space's redirects win over the branch's for the same old path (a page Quire knows is
        // gone drops its redirect); the branch's others stay while their target does.
        const ownPaths = new Set(redirects.map((r) => r.fromPath));
        const branchRedirects = Object.fromEntries(
          Object.entries(layout.redirects ?? {}).filter(([from]) => !ownPaths.has(redirectPath(from))),
        );
        const files = writeRepository(writable, {
          projectDirectory: payload.projectDirectory,
          previousPaths: layout.others,
          branchRedirects,
        });
        // A branch that moved may hold pages and files Git added since the last sync: Quire never
        // knew them, so they are not Quire's to delete.
        const deletions = layout.managed.filter(
          (path) => !files.has(path) && (!moved || moved.known.has(path) || !moved.gitPaths.has(path)),
        );
        return { files, deletions };
      },
    });
    await ctx.db.transaction().execute(async (trx) => {
      if (result.committed) {
        await setRevisionGit(trx, revisionId, {
          oid: result.commit,
          message: payload.commitMessage,
          createdByService: true,
          ref: payload.ref,
        });
      }
      await updateGitSyncState(trx, space.id, (state) => ({
        ...state,
        ...(payload.timestamp ? { lastTimestamp: payload.timestamp } : {}),
        // The branch now holds this revision, but for the pages whose file was kept: those in conflict
        // (whose base the conflict keeps) and those only Git changed (the next import applies them).
        ...(result.commit ? { base: { revision: revisionId, commit: result.commit, ...target } } : {}),
        ...(moved ? { conflicts: moved.conflicts } : {}),
        ...(result.commit ? { branchAhead: (moved?.keep.length ?? 0) > 0 || undefined } : {}),
        lastExport: {
          ...(state.lastExport ?? { requestedAt: payload.requestedAt }),
          status: result.committed ? "succeeded" : "skipped",
          finishedAt: nowIso(),
          ...(result.commit ? { commit: result.commit } : {}),
          revision: revisionId,
          message: result.committed
            ? conflictMessage(moved?.conflicts ?? open, "export")
            : (conflictMessage(moved?.conflicts ?? open, "export") ?? "Nothing changed since the last export: no commit was made."),
        },
      }));
    });
  } catch (error) {
    await recordFailure(ctx, space.id, "lastExport", error, redact);
  }
}

/** Warnings kept in an import's state: the first ones, the repository's own first. */
export const MAX_IMPORT_WARNINGS = 100;

/** The first warnings, and when there are more, a last one that says how many were left out. */
export function keptWarnings(warnings: readonly string[]): string[] {
  if (warnings.length <= MAX_IMPORT_WARNINGS) return [...warnings];
  const kept = warnings.slice(0, MAX_IMPORT_WARNINGS - 1);
  return [...kept, `${warnings.length - kept.length} more warnings not shown (${warnings.length} in all)`];
}
