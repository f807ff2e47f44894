/**
 * Pages in Git sync conflict (see content/git-sync/conflicts.ts): the three versions a person
 * chooses between, and a resolution, which becomes a revision of the space (the next export writes
 * it to the branch, the next import compares with it).
 */
import { type ConflictChoice, type ConflictVersions, mergeConflict, resolvedDocument } from "../../content/git-sync/conflicts.js";
import { slugify } from "../../content/gitbook-repo/text.js";
import type { JSONDocument } from "../../content/merge/types.js";
import { commitRevision } from "../../content/revision/commit.js";
import { indexPages, type PageNode, type RevisionContent } from "../../content/revision/model.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent, loadDocument, saveDocument } from "../../content/revision/storage.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";
import type { Executor } from "../../db/database.js";
import { conflicting, invalid, missing } from "../../lib/errors.js";
import { nowIso } from "../../lib/time.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { readGitSyncState, updateGitSyncState } from "./git-sync-state.service.js";

async function documentOf(db: Executor, hash: string | undefined): Promise<JSONDocument | undefined> {
  return hash ? loadDocument<JSONDocument>(db, hash) : undefined;
}

/** The space's open conflicts, each with its versions (Quire's as the space holds it now). */
export async function loadGitConflicts(
  db: Executor,
  spaceId: string,
): Promise<{ conflicts: ConflictVersions[]; content: RevisionContent; revisionId: string }> {
  const space = await getSpace(db, spaceId);
  if (!space) throw missing(`No space with id "${spaceId}".`);
  const state = await readGitSyncState(db, spaceId);
  const primary = await getSpaceRevision(db, spaceId, space.revisionId);
  const content = await loadContent(db, primary?.treeHash ?? null);
  const pages = indexPages(content.pages);
  const conflicts: ConflictVersions[] = [];
  for (const conflict of state?.conflicts ?? []) {
    if (conflict.target === "include") {
      const include = content.reusableContents.find((r) => r.id === conflict.pageId);
      conflicts.push({
        conflict,
        page: undefined,
        include,
        base: await documentOf(db, conflict.base),
        git: await documentOf(db, conflict.git),
        quire: await documentOf(db, include?.documentHash),
      });
      continue;
    }
    const page = pages.get(conflict.pageId)?.page;
    // A page Git moved: Git's version is its new page's; one a side deleted has no version there.
    const moved = conflict.movedTo ? pages.get(conflict.movedTo.pageId)?.page : undefined;
    conflicts.push({
      conflict,
      page,
      base: await documentOf(db, conflict.base),
      git: await documentOf(db, conflict.git || moved?.documentHash),
      quire: conflict.kind === "deleted-in-quire" ? undefined : await documentOf(db, page?.documentHash),
    });
  }
  return { conflicts, content, revisionId: space.revisionId };
}

/**
 * Resolves one page's conflict: its document becomes Git's, Quire's or their merge, in a new
 * primary revision, and the conflict is closed. `expectedRevision` is the primary revision the
 * person saw: a merge chosen on content that changed since is refused (409), to be looked at again.
 */
export async function resolveGitConflict(
  trx: Executor,
  input: { spaceId: string; pageId: string; choice: ConflictChoice; actorId: string; expectedRevision?: string | undefined },
): Promise<{ revisionId: string; remaining: number }> {
  const state = await updateGitSyncState(trx, input.spaceId, (s) => s); // locks the space row first
  const conflict = state?.conflicts?.find((c) => c.pageId === input.pageId);
  if (!conflict) throw missing("This page has no Git conflict to resolve (it may have been resolved already, or by the last sync).");
  const space = await getSpace(trx, input.spaceId);
  if (!space) throw missing(`No space with id "${input.spaceId}".`);
  if (input.expectedRevision && input.expectedRevision !== space.revisionId) {
    throw conflicting("The space changed since this conflict was shown: look at it again and choose again.");
  }
  const primary = await getSpaceRevision(trx, space.id, space.revisionId);
  const content = await loadContent(trx, primary?.treeHash ?? null);
  const index = indexPages(content.pages);
  const location = index.get(conflict.pageId);
  let revisionId = space.revisionId;
  const commit = async (pages: PageNode[], reusableContents = content.reusableContents) => {
    const created = await commitRevision(trx, {
      spaceId: space.id,
      parents: [space.revisionId],
      type: "edits",
      content: { ...content, pages, reusableContents },
      createdBy: input.actorId,
      movePrimaryFrom: space.revisionId,
    });
    await requestSearchIndex(trx, space.id);
    return created.id;
  };
  const without = (pages: PageNode[], id: string): PageNode[] =>
    pages.filter((p) => p.id !== id).map((p) => ({ ...p, children: without(p.children, id) }));
  const withDocument = (pages: PageNode[], id: string, hash: string): PageNode[] =>
    pages.map((p) =>
      p.id === id ? { ...p, documentHash: hash, updatedAt: nowIso() } : { ...p, children: withDocument(p.children, id, hash) },
    );
  const moved = conflict.movedTo ? index.get(conflict.movedTo.pageId)?.page : undefined;
  /** The page's document as chosen (Git's, Quire's or their merge over the base), saved: its hash. */
  const chosenPage = async (gitHash: string | undefined, quireHash: string | undefined): Promise<string> => {
    const document = resolvedDocument(input.choice, {
      base: await documentOf(trx, conflict.base),
      git: await documentOf(trx, gitHash),
      quire: await documentOf(trx, quireHash),
    });
    if (!document) {
      throw invalid(
        "The two versions of this page cannot be merged block by block (their blocks have no common keys): keep Git's or Quire's.",
      );
    }
    return saveDocument(trx, document);
  };
  const include = conflict.target === "include" ? content.reusableContents.find((r) => r.id === conflict.pageId) : undefined;
  if (include) {
    // A reusable content: its document becomes the side chosen (or the merge), as a page's does.
    const document = resolvedDocument(input.choice, {
      base: await documentOf(trx, conflict.base),
      git: await documentOf(trx, conflict.git),
      quire: await documentOf(trx, include.documentHash),
    });
    if (!document) {
      throw invalid(
        "The two versions of this reusable content cannot be merged block by block (their blocks have no common keys): keep Git's or Quire's.",
      );
    }
    const hash = await saveDocument(trx, document);
    if (hash !== include.documentHash) {
      const reusableContents = content.reusableContents.map((r) => (r.id === include.id ? { ...r, documentHash: hash } : r));
      revisionId = await commit(content.pages, reusableContents);
    }
  } else if (conflict.kind === "deleted-in-quire" && !location && input.choice.keep === "git") {
    // Quire deleted the page and an export found Git's edit (the page is not back in the space
    // yet): keeping Git's version brings it back, at the end of the top level, with its file.
    const now = nowIso();
    const name =
      conflict.path
        .replace(/\.md$/i, "")
        .split("/")
        .filter((part) => !/^readme$/i.test(part))
        .pop() ?? conflict.title;
    const restored: PageNode = {
      id: conflict.pageId,
      kind: "document",
      title: conflict.title,
      slug: slugify(name || conflict.title),
      ...(conflict.git ? { documentHash: conflict.git } : {}),
      ...(conflict.path ? { git: { oid: "", path: conflict.path } } : {}),
      createdAt: now,
      updatedAt: now,
      children: [],
    };
    revisionId = await commit([...content.pages, restored]);
  } else if (conflict.kind && location) {
    // One side deleted (or Git moved) the page: the choice keeps it or deletes it.
    const deletes = conflict.kind === "deleted-in-git" ? input.choice.keep === "git" : input.choice.keep === "quire";
    if (input.choice.keep === "merge" && !(conflict.kind === "deleted-in-git" && conflict.movedTo)) {
      throw invalid(
        conflict.kind === "deleted-in-git"
          ? "Git deleted this page: keep Git's version (the page is deleted) or Quire's (the page is kept)."
          : "Quire deleted this page: keep Git's version (the page is kept) or Quire's (the page is deleted).",
      );
    }
    if (deletes) revisionId = await commit(without(content.pages, conflict.pageId));
    else if (conflict.kind === "deleted-in-git" && moved && moved.kind === "document") {
      // Git moved the page: Quire's text (or the merge) goes to the page where Git's file is now.
      const hash = await chosenPage(moved.documentHash, location.page.documentHash);
      revisionId = await commit(withDocument(without(content.pages, conflict.pageId), moved.id, hash));
    } else if (conflict.kind === "deleted-in-git" && conflict.movedTo && !moved && location.page.kind === "document") {
      // An export found Git's move (the moved page comes into the space with the next import):
      // Quire's page takes the text chosen and the file Git moved it to, so the next export writes
      // it there and the next import finds it as this same page.
      const hash = await chosenPage(conflict.git, location.page.documentHash);
      const path = conflict.movedTo.path;
      const movedHere = (pages: PageNode[]): PageNode[] =>
        pages.map((p) =>
          p.id === conflict.pageId
            ? { ...p, documentHash: hash, git: { oid: "", path }, updatedAt: nowIso() }
            : { ...p, children: movedHere(p.children) },
        );
      revisionId = await commit(movedHere(content.pages));
    }
  } else if (location && location.page.kind === "document") {
    const hash = await chosenPage(conflict.git, location.page.documentHash);
    if (hash !== location.page.documentHash) revisionId = await commit(withDocument(content.pages, conflict.pageId, hash));
  }
  // A page deleted in Quire since has nothing left to resolve: its conflict is closed all the same.
  const after = await updateGitSyncState(trx, space.id, (s) => {
    const conflicts = (s.conflicts ?? []).filter((c) => c.pageId !== conflict.pageId);
    const resolved = conflicts.length === 0 ? "Every Git conflict is resolved: the next export writes the chosen versions." : undefined;
    const run = conflict.direction === "import" ? "lastImport" : "lastExport";
    return {
      ...s,
      conflicts,
      ...(resolved && s[run] ? { [run]: { ...s[run], message: resolved } } : {}),
    };
  });
  return { revisionId, remaining: after?.conflicts?.length ?? 0 };
}

/** The merge preview of one conflict (its merged document and the blocks both sides changed). */
export function previewMerge(versions: ConflictVersions, blocks: Readonly<Record<string, "git" | "quire">> = {}) {
  return mergeConflict(versions.base, versions.quire, versions.git, blocks);
}
