/**
 * Page history from revisions: what changed between a revision and its first parent (the primary
 * line), page by page, and the revisions of the primary line that changed one page. Pure: the
 * trees come from the `pagesOf` the caller gives (spaces.steps.ts loads them, cached per tree).
 */
import type { PageLocation } from "../../../../content/revision/model.js";
import { parseJson } from "../../../../lib/json.js";

export type PageChangeKind = "added" | "removed" | "edited" | "renamed" | "moved" | "details";

export interface PageChange {
  pageId: string;
  title: string;
  path: string;
  kinds: PageChangeKind[];
}

/** Metadata shown to readers other than title, path and body (dates and Git bookkeeping are not changes). */
function detailsOf(location: PageLocation): string {
  const { emoji, icon, description, hidden, layout, cover, condition, variables, href, target, kind } = location.page;
  return JSON.stringify([kind, emoji, icon, description, hidden, layout, cover, condition, variables, href, target]);
}

function kindsOf(before: PageLocation | undefined, after: PageLocation | undefined): PageChangeKind[] {
  if (!before) return after ? ["added"] : [];
  if (!after) return ["removed"];
  const kinds: PageChangeKind[] = [];
  if (before.page.title !== after.page.title) kinds.push("renamed");
  if (before.path !== after.path || before.parentId !== after.parentId) kinds.push("moved");
  if ((before.page.documentHash ?? "") !== (after.page.documentHash ?? "")) kinds.push("edited");
  if (detailsOf(before) !== detailsOf(after)) kinds.push("details");
  return kinds;
}

/** Every page that differs between two trees, in the reading order of `after` (removed pages last). */
export function diffPages(before: ReadonlyMap<string, PageLocation>, after: ReadonlyMap<string, PageLocation>): PageChange[] {
  const changes: PageChange[] = [];
  for (const [id, location] of after) {
    const kinds = kindsOf(before.get(id), location);
    if (kinds.length > 0) changes.push({ pageId: id, title: location.page.title, path: location.path, kinds });
  }
  for (const [id, location] of before) {
    if (!after.has(id)) changes.push({ pageId: id, title: location.page.title, path: location.path, kinds: ["removed"] });
  }
  return changes;
}

export interface HistoryRevision {
  id: string;
  type: string;
  createdAt: string;
  createdBy: string | null;
  mergedFrom: string | null;
}

export interface PageHistoryEntry {
  revision: HistoryRevision;
  kinds: PageChangeKind[];
  /** The page's title after that revision (before it, for a removal). */
  title: string;
}

/** How far back the history walks: each step loads one revision's tree (cached by hash). */
export const HISTORY_DEPTH = 100;

/** The pages of a revision's tree by id. */
export type PagesOfTree = (treeHash: string | null) => Promise<ReadonlyMap<string, PageLocation>>;

/** A revision as the walk needs it: its parents (JSON) and tree. */
export interface WalkedRevision extends HistoryRevision {
  parents: string;
  treeHash: string | null;
}

/**
 * The revisions of the primary line (first parents from `headId`, among `recent`: the space's
 * newest revisions) that changed the page, newest first, looking at most HISTORY_DEPTH revisions
 * back. `more` is true when older ones were not looked at.
 */
export async function pageHistory(
  recent: readonly WalkedRevision[],
  headId: string,
  pageId: string,
  pagesOf: PagesOfTree,
): Promise<{ entries: PageHistoryEntry[]; more: boolean }> {
  const byId = new Map(recent.map((r) => [r.id, r]));
  const entries: PageHistoryEntry[] = [];
  let current = byId.get(headId);
  for (let steps = 0; current && steps < HISTORY_DEPTH; steps++) {
    const parentId = parseJson<string[]>(current.parents, "revisions.parents")[0];
    const parent = parentId ? byId.get(parentId) : undefined;
    if (parentId && !parent) return { entries, more: true };
    const after = (await pagesOf(current.treeHash)).get(pageId);
    const before = parent ? (await pagesOf(parent.treeHash)).get(pageId) : undefined;
    const kinds = kindsOf(before, after);
    if (kinds.length > 0) {
      const { id, type, createdAt, createdBy, mergedFrom } = current;
      entries.push({ revision: { id, type, createdAt, createdBy, mergedFrom }, kinds, title: (after ?? before)?.page.title ?? "" });
    }
    current = parent;
  }
  return { entries, more: current !== undefined };
}
