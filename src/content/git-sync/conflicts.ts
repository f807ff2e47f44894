/**
 * Git sync without losing either side. GitBook's Git Sync is "last sync wins"; Quire compares each
 * page with what Git held at the last sync (the base) instead: a page only Git changed takes Git's
 * version, a page only Quire changed keeps Quire's, and a page both changed (differently) keeps
 * Quire's for now and becomes a conflict that a person resolves (keep Git's, keep Quire's, or a
 * three-way merge of the blocks on the base).
 */
import { mergeDocuments } from "../merge/document.js";
import type { JSONDocument, MergeConflict } from "../merge/types.js";
import { indexPages, type PageNode, type ReusableContentEntry } from "../revision/model.js";
import { canonicalJson } from "../store/canonical.js";

/** A page (or an include) edited on both sides since the last sync, as recorded in the space's sync state. */
export interface GitConflict {
  /** The page's id, or the reusable content's when `target` is "include". */
  pageId: string;
  /** The page's (or include's) file, relative to the content root. */
  path: string;
  title: string;
  /** Document hashes: what Git held at the last sync, Git's version now, Quire's version when found. */
  base: string;
  git: string;
  quire: string;
  /** The commit Git's version comes from. */
  commit: string;
  /** Which run found it. */
  direction: "import" | "export";
  detectedAt: string;
  /**
   * What each side did (absent: both edited the page). `deleted-in-git`: Git deleted the page's file
   * (or moved it: `movedTo`) and Quire edited the page; `git` is then "" (the base's document when
   * Git moved the file unchanged). `deleted-in-quire`: Quire
   * deleted the page and Git edited its file; `quire` is then "".
   */
  kind?: "deleted-in-git" | "deleted-in-quire";
  /** Git moved the page's file: the page Git's file is now (its id and path). */
  movedTo?: { pageId: string; path: string };
  /** What is in conflict: a page (absent) or a reusable content, a file under `.gitbook/includes` that pages include. */
  target?: "include";
}

/** One conflict with its three documents and Quire's page now (undefined: deleted in Quire since). */
export interface ConflictVersions {
  conflict: GitConflict;
  base: JSONDocument | undefined;
  git: JSONDocument | undefined;
  quire: JSONDocument | undefined;
  page: PageNode | undefined;
  /** The reusable content in conflict as the space holds it now (a conflict whose `target` is "include"). */
  include?: ReusableContentEntry | undefined;
}

export interface SyncDocuments {
  load(hash: string): Promise<JSONDocument | undefined>;
}

/** Block keys are identities, not content: two documents that differ only by them say the same thing. */
function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "key") out[k] = withoutKeys(v);
    return out;
  }
  return value;
}

/** Compares documents by content; hashes that differ only by block keys are the same text. */
export function documentComparer(documents: SyncDocuments) {
  const cache = new Map<string, string>();
  const text = async (hash: string | undefined) => {
    if (!hash) return "";
    let found = cache.get(hash);
    if (found === undefined) {
      const document = await documents.load(hash);
      found = document ? canonicalJson(withoutKeys(document.nodes)) : "";
      cache.set(hash, found);
    }
    return found;
  };
  return async (a: string | undefined, b: string | undefined): Promise<boolean> => a === b || (await text(a)) === (await text(b));
}

export interface ReconcileInput {
  /** The import's content: Git's version of every page. */
  git: PageNode[];
  /** The space's primary content now: Quire's version. */
  quire: PageNode[];
  /** What Git held at the last sync (the sync state's base revision). */
  base: PageNode[];
  /** Conflicts still open: their base stands for the page's, and they are found again until resolved. */
  open: readonly GitConflict[];
  commit: string;
  now: string;
  /** Which run compares (an export compares a branch that moved since the last sync). */
  direction?: "import" | "export";
}

export interface ReconcileResult {
  /** Git's tree, with Quire's version of each page that only Quire changed or that is in conflict. */
  pages: PageNode[];
  conflicts: GitConflict[];
  /** Pages whose Quire version was kept because only Quire changed them (the next export writes them). */
  keptFromQuire: string[];
  /** Pages only Git changed since the base, whose Git version differs from Quire's (an import applies them). */
  fromGit: string[];
}

/** A conflict this run found: its commit and direction, and when it was first seen (an open one keeps its date). */
function conflictFound(
  input: Pick<ReconcileInput, "commit" | "now" | "direction">,
  open: GitConflict | undefined,
  found: Omit<GitConflict, "commit" | "direction" | "detectedAt">,
): GitConflict {
  return { ...found, commit: input.commit, direction: input.direction ?? "import", detectedAt: open?.detectedAt ?? input.now };
}

/**
 * Git's pages, each compared with the base and with Quire's version of the same page (by id).
 * Only a page's document and title are compared: the tree's shape and the other settings follow Git.
 */
/** What a page or an include holds that the three-way comparison reads. */
interface Side {
  documentHash?: string | undefined;
  title: string;
  git?: { oid: string } | undefined;
}

/**
 * What Git and Quire each did to one page or include since the base (or, for one still in
 * conflict, since that conflict's base), and whether Git's version is the one to take: Quire did
 * not change it, or both made the same change. A blob Git left as it was is not read.
 */
async function compareSides(
  same: ReturnType<typeof documentComparer>,
  git: Side,
  ours: Side,
  before: Side | undefined,
  open: GitConflict | undefined,
): Promise<{ baseHash: string | undefined; gitChanged: boolean; quireChanged: boolean; takeGit: boolean }> {
  const baseHash = open ? open.base : before?.documentHash;
  const baseTitle = open ? open.title : (before?.title ?? ours.title);
  const gitUnchangedBlob = !open && !!before?.git?.oid && before.git.oid === git.git?.oid;
  const gitChanged = !gitUnchangedBlob && !(await same(git.documentHash, baseHash));
  const quireChanged = !(await same(ours.documentHash, baseHash)) || (!open && ours.title !== baseTitle);
  const takeGit = !quireChanged || (gitChanged && (await same(git.documentHash, ours.documentHash)) && git.title === ours.title);
  return { baseHash, gitChanged, quireChanged, takeGit };
}

export async function reconcileImport(input: ReconcileInput, documents: SyncDocuments): Promise<ReconcileResult> {
  const same = documentComparer(documents);
  const quire = indexPages(input.quire);
  const base = indexPages(input.base);
  const openByPage = new Map(input.open.filter((c) => c.target !== "include").map((c) => [c.pageId, c]));
  const conflicts: GitConflict[] = [];
  const keptFromQuire: string[] = [];
  const fromGit: string[] = [];

  const visit = async (pages: PageNode[]): Promise<PageNode[]> => {
    const out: PageNode[] = [];
    for (const page of pages) {
      const children = await visit(page.children);
      const ours = quire.get(page.id)?.page;
      const before = base.get(page.id)?.page;
      const open = openByPage.get(page.id);
      // (An open conflict is found again even when the base has no page: an export that found it made
      // Quire's content, without the page, the base.)
      if (page.kind === "document" && !ours && (open?.kind === "deleted-in-quire" || (!open && before?.kind === "document"))) {
        // Deleted in Quire since the base: Git's page comes back (as before), and when Git edited it
        // that is a conflict, so that the deletion is a person's choice and Git's edit is not lost.
        const baseHash = open ? open.base : before?.documentHash;
        const gitUnchangedBlob = !open && !!before?.git?.oid && before.git.oid === page.git?.oid;
        if (open || (!gitUnchangedBlob && !(await same(page.documentHash, baseHash))))
          conflicts.push(
            conflictFound(input, open, {
              pageId: page.id,
              path: page.git?.path ?? open?.path ?? "",
              title: page.title,
              base: baseHash ?? "",
              git: page.documentHash ?? "",
              quire: "",
              kind: "deleted-in-quire",
            }),
          );
        out.push({ ...page, children });
        continue;
      }
      if (page.kind !== "document" || !ours || ours.kind !== "document" || (!before && !open)) {
        out.push({ ...page, children });
        continue;
      }
      const { baseHash, gitChanged, quireChanged, takeGit } = await compareSides(same, page, ours, before, open);
      if (takeGit) {
        if (gitChanged && !quireChanged) fromGit.push(page.id);
        out.push({ ...page, children });
        continue;
      }
      const quireVersion: PageNode = { ...page, title: ours.title, documentHash: ours.documentHash, updatedAt: ours.updatedAt, children };
      if (!ours.documentHash) delete quireVersion.documentHash;
      out.push(quireVersion);
      if (!gitChanged) {
        keptFromQuire.push(page.id);
        continue;
      }
      conflicts.push(
        conflictFound(input, open, {
          pageId: page.id,
          path: page.git?.path ?? open?.path ?? "",
          title: ours.title,
          base: baseHash ?? "",
          git: page.documentHash ?? "",
          quire: ours.documentHash ?? "",
        }),
      );
    }
    return out;
  };
  const pages = await visit(input.git);
  await keepDeletedInGit(pages, input, { quire, base, openByPage, same, conflicts });
  return { pages, conflicts, keptFromQuire, fromGit };
}

export interface ReconcileIncludesInput extends Pick<ReconcileInput, "open" | "commit" | "now" | "direction"> {
  git: ReusableContentEntry[];
  quire: ReusableContentEntry[];
  base: ReusableContentEntry[];
}

/**
 * Git's includes (reusable contents), each compared with the base and with Quire's version (by id,
 * which an import keeps by path), as pages are: only Git changed it, Git's; only Quire, Quire's
 * (kept); both, differently, Quire's is kept and it is a conflict (`target: "include"`).
 * An include one side deleted follows Git, as before.
 */
export async function reconcileIncludes(
  input: ReconcileIncludesInput,
  documents: SyncDocuments,
): Promise<{ reusableContents: ReusableContentEntry[]; conflicts: GitConflict[]; keptFromQuire: string[]; fromGit: string[] }> {
  const same = documentComparer(documents);
  const quire = new Map(input.quire.map((r) => [r.id, r]));
  const base = new Map(input.base.map((r) => [r.id, r]));
  const openById = new Map(input.open.filter((c) => c.target === "include").map((c) => [c.pageId, c]));
  const conflicts: GitConflict[] = [];
  const keptFromQuire: string[] = [];
  const fromGit: string[] = [];
  const reusableContents: ReusableContentEntry[] = [];
  for (const include of input.git) {
    const ours = quire.get(include.id);
    const before = base.get(include.id);
    const open = openById.get(include.id);
    if (!ours || (!before && !open)) {
      reusableContents.push(include);
      continue;
    }
    const { baseHash, gitChanged, quireChanged, takeGit } = await compareSides(same, include, ours, before, open);
    if (takeGit) {
      if (gitChanged && !quireChanged) fromGit.push(include.id);
      reusableContents.push(include);
      continue;
    }
    const quireVersion: ReusableContentEntry = { ...include, title: ours.title, documentHash: ours.documentHash as string };
    if (!ours.documentHash) delete quireVersion.documentHash;
    reusableContents.push(quireVersion);
    if (!gitChanged) {
      keptFromQuire.push(include.id);
      continue;
    }
    conflicts.push(
      conflictFound(input, open, {
        pageId: include.id,
        path: include.git?.path ?? open?.path ?? "",
        title: ours.title,
        base: baseHash ?? "",
        git: include.documentHash ?? "",
        quire: ours.documentHash ?? "",
        target: "include",
      }),
    );
  }
  return { reusableContents, conflicts, keptFromQuire, fromGit };
}

/**
 * Pages Git deleted (or moved elsewhere: a new path is a new page) since the base that Quire edited
 * since: Quire's page stays in the tree, where Quire has it (under the same parent when Git's tree
 * has it, else at the top level), and is a conflict, until a person chooses to delete it (Git's
 * side) or keep it. A page Git moved is named by its new page, found by the base's text.
 */
async function keepDeletedInGit(
  pages: PageNode[],
  input: ReconcileInput,
  found: {
    quire: ReturnType<typeof indexPages>;
    base: ReturnType<typeof indexPages>;
    openByPage: Map<string, GitConflict>;
    same: ReturnType<typeof documentComparer>;
    conflicts: GitConflict[];
  },
): Promise<void> {
  const inGit = indexPages(pages);
  const added = [...inGit.values()].map((l) => l.page).filter((p) => p.kind === "document" && !found.base.has(p.id));
  const keptIds = new Set<string>();
  for (const [id, location] of found.quire) {
    const ours = location.page;
    if (inGit.has(id) || ours.kind !== "document") continue;
    // Under a page kept just before (pre-order), it is already back with it.
    const underKept = location.ancestors.some((a) => keptIds.has(a.id));
    const before = found.base.get(id)?.page;
    const open = found.openByPage.get(id);
    if (!before?.git?.path && open?.kind !== "deleted-in-git") continue;
    const baseHash = open ? open.base : before?.documentHash;
    const quireChanged = !(await found.same(ours.documentHash, baseHash)) || (!open && ours.title !== before?.title);
    if (!open && !quireChanged) continue;
    let movedTo = open?.movedTo;
    // Git's version of a page it moved: its new file holds the base's text (that is how the move is
    // recognised), so Git's version is the base itself, keys included - the conflict then shows
    // that Git changed no block, and a merge is Quire's edit, whether or not the page Git moved is
    // in the space yet (an export finds the move before the import brings that page).
    let movedText = open?.movedTo ? open.git : "";
    if (!movedTo && baseHash) {
      for (const candidate of added)
        if (candidate.git?.path && (await found.same(candidate.documentHash, baseHash))) {
          movedTo = { pageId: candidate.id, path: candidate.git.path };
          movedText = baseHash;
          break;
        }
    }
    if (!underKept) {
      // Quire's page, without the pages under it that Git's tree still has (they stay where Git put them).
      const kept: PageNode = { ...ours, children: ours.children.filter((c) => !inGit.has(c.id)) };
      const parent = location.parentId ? inGit.get(location.parentId)?.page : undefined;
      if (parent) parent.children = [...parent.children, kept];
      else pages.push(kept);
      keptIds.add(id);
    }
    found.conflicts.push(
      conflictFound(input, open, {
        pageId: id,
        path: open?.path ?? before?.git?.path ?? "",
        title: ours.title,
        base: baseHash ?? "",
        git: movedText,
        quire: ours.documentHash ?? "",
        kind: "deleted-in-git",
        ...(movedTo ? { movedTo } : {}),
      }),
    );
  }
}

/** How a person resolved a conflict. `blocks` picks a side for each block both sides changed (merge only; Quire's when absent). */
export type ConflictChoice = { keep: "git" } | { keep: "quire" } | { keep: "merge"; blocks?: Readonly<Record<string, "git" | "quire">> };

const EMPTY: JSONDocument = { object: "document", data: {}, nodes: [] };

/** The blocks `document` holds (through keyed child lists), by key. */
function blocksByKey(document: JSONDocument): Map<string, object> {
  const out = new Map<string, object>();
  const walk = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const node of list as Record<string, unknown>[]) {
      if (typeof node?.key === "string") out.set(node.key, node);
      walk(node?.nodes);
      walk(node?.fragments);
    }
  };
  walk(document.nodes);
  return out;
}

/** `document` with the block of `key` replaced by `block` (removed when absent), wherever it is. */
function replaceBlock(document: JSONDocument, key: string, block: object | undefined): JSONDocument {
  const rewrite = (list: readonly object[]): object[] =>
    list.flatMap((node) => {
      const record = node as Record<string, unknown>;
      if (record.key === key) return block ? [block] : [];
      const copy: Record<string, unknown> = { ...record };
      for (const field of ["nodes", "fragments"]) if (Array.isArray(copy[field])) copy[field] = rewrite(copy[field] as object[]);
      return [copy];
    });
  return { ...document, nodes: rewrite(document.nodes) };
}

export interface MergePreview {
  document: JSONDocument;
  /** Block conflicts (ours = Quire, theirs = Git), each resolved by `blocks` or else Quire's. */
  conflicts: MergeConflict[];
}

/**
 * The three-way merge of Quire's and Git's versions on the base, block by block. A block both sides
 * changed takes the side `blocks` names (Quire's by default). Undefined when the blocks cannot be
 * aligned by key (a document without keys): the caller offers keeping one side whole.
 */
export function mergeConflict(
  base: JSONDocument | undefined,
  quire: JSONDocument | undefined,
  git: JSONDocument | undefined,
  blocks: Readonly<Record<string, "git" | "quire">> = {},
): MergePreview | undefined {
  const first = mergeDocuments(base ?? EMPTY, quire ?? EMPTY, git ?? EMPTY, {});
  if (!first) return undefined;
  const chosenGit = first.conflicts.filter((c) => c.blockKey && blocks[c.blockKey] === "git");
  if (chosenGit.length === 0) return first;
  // Git's side of a chosen block is put in Quire's version too: the two then agree on it.
  const gitBlocks = blocksByKey(git ?? EMPTY);
  let ours = quire ?? EMPTY;
  for (const conflict of chosenGit) ours = replaceBlock(ours, conflict.blockKey as string, gitBlocks.get(conflict.blockKey as string));
  const second = mergeDocuments(base ?? EMPTY, ours, git ?? EMPTY, {});
  return second ? { document: second.document, conflicts: first.conflicts } : first;
}

/** The document a resolution gives. Undefined: a merge that cannot align the blocks. */
export function resolvedDocument(
  choice: ConflictChoice,
  versions: { base?: JSONDocument | undefined; quire?: JSONDocument | undefined; git?: JSONDocument | undefined },
): JSONDocument | undefined {
  if (choice.keep === "git") return versions.git ?? EMPTY;
  if (choice.keep === "quire") return versions.quire ?? EMPTY;
  return mergeConflict(versions.base, versions.quire, versions.git, choice.blocks)?.document;
}
