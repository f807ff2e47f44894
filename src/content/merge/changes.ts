/**
 * Semantic changes between two revisions' content (`GET .../changes`): which pages, files,
 * variables and reusable contents a change request creates, edits, moves or deletes. Only trees are
 * compared; no document is loaded (a changed `documentHash` is a `document` attribute change).
 */
import { indexPages, type PageLocation, type PageMeta, type RevisionContent } from "../revision/model.js";
import { commonSubsequence } from "./sequence.js";
import type { ChangeAttribute, ChangedPage, SemanticChange } from "./types.js";
import { jsonEqual } from "./values.js";

/** Page fields that are bookkeeping, not an edit someone made. */
const PAGE_IGNORED = new Set(["id", "children", "createdAt", "updatedAt", "git"]);

function changedPage(location: PageLocation): ChangedPage {
  return { id: location.page.id, type: location.page.kind, title: location.page.title, path: location.path };
}

function attributes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  ignored: Set<string>,
  rename: Record<string, string> = {},
): Record<string, ChangeAttribute> {
  const out: Record<string, ChangeAttribute> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (ignored.has(field) || jsonEqual(before[field], after[field])) continue;
    const change: ChangeAttribute = {};
    if (before[field] !== undefined) change.before = before[field];
    if (after[field] !== undefined) change.after = after[field];
    out[rename[field] ?? field] = change;
  }
  return out;
}

/** What `after` changes relative to `before`, pages in `after`'s reading order, then deletions. */
export function semanticChanges(before: RevisionContent, after: RevisionContent): SemanticChange[] {
  const changes: SemanticChange[] = [];
  const was = indexPages(before.pages);
  const now = indexPages(after.pages);

  // Pages that kept their parent but left the longest run of unchanged sibling order were moved.
  const reordered = new Set<string>();
  const siblings = (index: Map<string, PageLocation>) => {
    const lists = new Map<string | null, string[]>();
    for (const [id, location] of index) {
      const list = lists.get(location.parentId);
      if (list) list.push(id);
      else lists.set(location.parentId, [id]);
    }
    return lists;
  };
  const listsBefore = siblings(was);
  for (const [parent, list] of siblings(now)) {
    const stayed = list.filter((id) => was.get(id)?.parentId === parent);
    const kept = commonSubsequence(
      (listsBefore.get(parent) ?? []).filter((id) => now.get(id)?.parentId === parent),
      stayed,
    );
    for (const id of stayed) if (!kept.has(id)) reordered.add(id);
  }

  for (const [id, location] of now) {
    const previous = was.get(id);
    if (!previous) {
      changes.push({ type: "page_created", page: changedPage(location) });
      continue;
    }
    const edited = attributes(meta(previous.page), meta(location.page), PAGE_IGNORED, { documentHash: "document" });
    if (Object.keys(edited).length > 0) changes.push({ type: "page_edited", page: changedPage(location), attributes: edited });
    if (previous.parentId !== location.parentId || reordered.has(id)) {
      const parent: { before?: ChangedPage; after?: ChangedPage } = {};
      if (previous.parentId !== null) parent.before = changedPage(was.get(previous.parentId)!);
      if (location.parentId !== null) parent.after = changedPage(now.get(location.parentId)!);
      changes.push({ type: "page_moved", page: changedPage(location), parent });
    }
  }
  for (const [id, location] of was) if (!now.has(id)) changes.push({ type: "page_deleted", page: changedPage(location) });

  const filesBefore = new Map(before.files.map((file) => [file.id, file]));
  const filesAfter = new Map(after.files.map((file) => [file.id, file]));
  for (const file of after.files) {
    const summary = { id: file.id, name: file.name, contentType: file.contentType };
    const previous = filesBefore.get(file.id);
    if (!previous) changes.push({ type: "file_created", file: summary });
    else {
      const edited = attributes({ ...previous }, { ...file }, new Set(["id", "git"]));
      if (Object.keys(edited).length > 0) changes.push({ type: "file_edited", file: summary, attributes: edited });
    }
  }
  for (const file of before.files) {
    if (!filesAfter.has(file.id))
      changes.push({ type: "file_deleted", file: { id: file.id, name: file.name, contentType: file.contentType } });
  }

  const variables: Record<string, ChangeAttribute<string>> = {};
  for (const name of new Set([...Object.keys(before.variables), ...Object.keys(after.variables)])) {
    const [old, value] = [
      Object.hasOwn(before.variables, name) ? before.variables[name] : undefined,
      Object.hasOwn(after.variables, name) ? after.variables[name] : undefined,
    ];
    if (old === value) continue;
    const change: ChangeAttribute<string> = {};
    if (old !== undefined) change.before = old;
    if (value !== undefined) change.after = value;
    variables[name] = change;
  }
  if (Object.keys(variables).length > 0) changes.push({ type: "variables_edited", variables });

  const reusableBefore = new Map(before.reusableContents.map((entry) => [entry.id, entry]));
  const reusableAfter = new Map(after.reusableContents.map((entry) => [entry.id, entry]));
  const summary = (entry: { id: string; title: string; documentHash?: string }) =>
    entry.documentHash === undefined
      ? { id: entry.id, title: entry.title }
      : { id: entry.id, title: entry.title, document: entry.documentHash };
  for (const entry of after.reusableContents) {
    const previous = reusableBefore.get(entry.id);
    if (!previous) changes.push({ type: "reusable_content_created", reusableContent: summary(entry) });
    else {
      const edited = attributes({ ...previous }, { ...entry }, new Set(["id", "git"]), { documentHash: "document" });
      if (Object.keys(edited).length > 0)
        changes.push({ type: "reusable_content_edited", reusableContent: summary(entry), attributes: edited });
    }
  }
  for (const entry of before.reusableContents) {
    if (!reusableAfter.has(entry.id)) changes.push({ type: "reusable_content_deleted", reusableContent: summary(entry) });
  }
  return changes;
}

function meta(page: PageMeta): Record<string, unknown> {
  return page as unknown as Record<string, unknown>;
}
