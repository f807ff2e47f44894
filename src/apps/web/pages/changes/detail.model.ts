/**
 * What a change request's page shows, as one view: shaped from what its handler loaded
 * (detail.steps.ts) with comments.model.ts and page-changes.model.ts; its conflicts as the merge
 * family presents them, and its description as Markdown. Pure.
 */
import { documentText } from "../../../../content/document/plain-text.js";
import type { JSONDocument } from "../../../../content/document/types.js";
import { markdownFromDocument } from "../../../../content/markdown/index.js";
import type { MergeConflict } from "../../../../content/merge/types.js";
import type { RevisionContent } from "../../../../content/revision/model.js";
import type { ChangeRequestReviewRow, ChangeRequestRow, RequestedReviewerRow, UserRow } from "../../../../db/schema.js";
import { presentConflict } from "../../../../modules/change-request-merge/change-request-merge.presenter.js";
import type { ContentView, Named } from "./changes.views.js";
import type { CommentView } from "./comments.model.js";
import type { PageChangeView } from "./page-changes.model.js";

export interface ConflictView {
  message: string;
  kind: string;
  pageTitle?: string | undefined;
  field?: string | undefined;
  base?: unknown;
  primary?: unknown;
  changeRequest?: unknown;
}

export interface DetailView {
  org: Named;
  space: Named;
  changeRequest: ChangeRequestRow;
  description: JSONDocument | undefined;
  /** The description as Markdown, for its edit form. */
  descriptionMarkdown: string;
  users: ReadonlyMap<string, UserRow>;
  actorId: string;
  outdated: boolean;
  writable: boolean;
  /** The space's editMode is "locked": no content writes or merges. */
  locked: boolean;
  may: { editContent: boolean; update: boolean; merge: boolean; review: boolean; comment: boolean };
  requested: RequestedReviewerRow[];
  /** The requested reviewers whose request the member may withdraw (or decline, their own). */
  withdrawable: ReadonlySet<string>;
  reviews: ChangeRequestReviewRow[];
  candidates: UserRow[];
  /** Why merging is refused now (merge rules, locked space ...); undefined when it is allowed. */
  mergeBlocked?: string | undefined;
  conflicts: ConflictView[];
  pages: PageChangeView[];
  otherChanges: string[];
  comments: CommentView[];
  headPages: { id: string; title: string; path: string }[];
  notice?: string | undefined;
  /** Renders documents of this change request. */
  content: ContentView;
  csrf: string;
}

/** The conflicts as the merge family presents them, with their versions' documents. */
export function conflictViews(
  conflicts: readonly MergeConflict[],
  contents: { base: RevisionContent; primary: RevisionContent; changeRequest: RevisionContent },
  documents: ReadonlyMap<string, unknown>,
): ConflictView[] {
  return conflicts.map((conflict) => {
    const presented = presentConflict(conflict, contents, documents);
    return {
      message: presented.message,
      kind: presented.kind,
      pageTitle: presented.page?.title,
      field: presented.field,
      base: presented.base,
      primary: presented.primary,
      changeRequest: presented.changeRequest,
    };
  });
}

/** A conflict's version when it is a document or a block (what the content renderer is given). */
export function asDocument(value: unknown): JSONDocument | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const node = value as { object?: string };
  if (node.object === "document") return value as JSONDocument;
  if (node.object === "block") return { object: "document", data: {}, nodes: [value] } as JSONDocument;
  return undefined;
}

/**
 * A change request's description as Markdown for its edit form. Descriptions set through the API
 * are only loosely checked documents; one the Markdown writer cannot read is offered as its text.
 */
export function descriptionMarkdown(document: JSONDocument): string {
  try {
    return markdownFromDocument(document).trim();
  } catch {
    return documentText(document).trim();
  }
}
