/** What a change request changes, page by page, as its page shows it (the block diff comes from diff.model.ts). Pure. */
import type { JSONDocument } from "../../../../content/document/types.js";
import type { SemanticChange } from "../../../../content/merge/types.js";
import { indexPages, type RevisionContent } from "../../../../content/revision/model.js";

export interface PageChangeView {
  pageId: string;
  title: string;
  path: string;
  kinds: ("added" | "removed" | "moved" | "renamed" | "edited")[];
  /** Field changes other than the document (title before/after, slug ...). */
  fields: { name: string; before?: unknown; after?: unknown }[];
  /** The page's document before and after (the hashes to load them, then the documents). */
  beforeHash?: string | undefined;
  afterHash?: string | undefined;
  before?: JSONDocument | undefined;
  after?: JSONDocument | undefined;
  /** The page exists in the change request (comments and edits can target it). */
  inHead: boolean;
  isDocument: boolean;
}

/** What a change other than a page's says, in a line. */
function otherChange(change: SemanticChange): string | undefined {
  switch (change.type) {
    case "file_created":
      return `File “${change.file.name}” added`;
    case "file_deleted":
      return `File “${change.file.name}” removed`;
    case "file_edited":
      return `File “${change.file.name}” changed`;
    case "variables_edited":
      return `Variables changed: ${Object.keys(change.variables).join(", ")}`;
    case "reusable_content_created":
      return `Reusable content “${change.reusableContent.title}” added`;
    case "reusable_content_edited":
      return `Reusable content “${change.reusableContent.title}” changed`;
    case "reusable_content_deleted":
      return `Reusable content “${change.reusableContent.title}” removed`;
    default:
      return undefined;
  }
}

/** What a page change adds to the page's view. */
function applyPageChange(view: PageChangeView, change: SemanticChange): void {
  if (change.type === "page_created") view.kinds.push("added");
  else if (change.type === "page_deleted") view.kinds.push("removed");
  else if (change.type === "page_moved") {
    view.kinds.push("moved");
    view.fields.push({
      name: "place",
      before: change.parent.before ? `under “${change.parent.before.title}”` : "at the top level",
      after: change.parent.after ? `under “${change.parent.after.title}”` : "at the top level",
    });
  } else if (change.type === "page_edited") {
    for (const [name, value] of Object.entries(change.attributes)) {
      if (name === "document") {
        if (!view.kinds.includes("edited")) view.kinds.push("edited");
        continue;
      }
      if ((name === "title" || name === "slug") && !view.kinds.includes("renamed")) view.kinds.push("renamed");
      else if (name !== "title" && name !== "slug" && !view.kinds.includes("edited")) view.kinds.push("edited");
      view.fields.push({ name, before: value.before, after: value.after });
    }
  }
}

/**
 * The pages a change request changes (between its base, `before`, and its head, `after`), each
 * with the hashes of its documents on both sides; other changes (files, variables, reusable
 * content) as lines.
 */
export function pageChangeViews(
  changes: readonly SemanticChange[],
  before: RevisionContent,
  after: RevisionContent,
): { pages: PageChangeView[]; other: string[] } {
  const was = indexPages(before.pages);
  const now = indexPages(after.pages);
  const byPage = new Map<string, PageChangeView>();
  const other: string[] = [];
  for (const change of changes) {
    if (!("page" in change)) {
      const line = otherChange(change);
      if (line) other.push(line);
      continue;
    }
    const { id, title, path } = change.page;
    let view = byPage.get(id);
    if (!view) {
      const location = now.get(id) ?? was.get(id);
      view = {
        pageId: id,
        title,
        path,
        kinds: [],
        fields: [],
        inHead: now.has(id),
        isDocument: (location?.page.kind ?? "document") === "document",
      };
      byPage.set(id, view);
    }
    applyPageChange(view, change);
  }
  const pages = [...byPage.values()];
  for (const view of pages) {
    view.beforeHash = was.get(view.pageId)?.page.documentHash ?? undefined;
    view.afterHash = now.get(view.pageId)?.page.documentHash ?? undefined;
  }
  return { pages, other };
}

/** The pages' documents, once loaded by their hashes. */
export function withDocuments(pages: PageChangeView[], documents: ReadonlyMap<string, unknown>): PageChangeView[] {
  for (const view of pages) {
    view.before = view.beforeHash ? (documents.get(view.beforeHash) as JSONDocument | undefined) : undefined;
    view.after = view.afterHash ? (documents.get(view.afterHash) as JSONDocument | undefined) : undefined;
  }
  return pages;
}
