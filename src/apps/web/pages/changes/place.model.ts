/**
 * Where a page goes when it is moved or placed: the `into` and `at` of the content operation's
 * update_page from the forms' choices, and which parents a page may go under. Pure; the content
 * operation checks again when it applies the move.
 */
import { indexPages, type PageLocation, type PageNode, type RevisionContent } from "../../../../content/revision/model.js";
import { invalid, missing } from "../../../../lib/errors.js";
import type { ContentChangeValue } from "../../../../modules/change-request-content/change-request-content.schemas.js";

/** The children of a page of the content (null: its top level); undefined when there is no such page. */
export function childrenOf(content: RevisionContent, parentId: string | null): PageNode[] | undefined {
  if (parentId === null) return content.pages;
  return indexPages(content.pages).get(parentId)?.page.children;
}

/** A move as the forms post it: one step up or down among its siblings, or under a parent (before or after one of its pages). */
export interface MoveForm {
  to: "up" | "down" | "parent";
  parent?: string | undefined;
  before?: string | undefined;
  after?: string | undefined;
}

export function placeOfMove(
  content: RevisionContent,
  locations: ReadonlyMap<string, PageLocation>,
  location: PageLocation,
  form: MoveForm,
): Pick<ContentChangeValue, "into" | "at"> {
  const title = location.page.title || "Untitled page";
  if (form.to !== "parent") {
    const siblings = location.parentId === null ? content.pages : locations.get(location.parentId)!.page.children;
    const at = location.index + (form.to === "up" ? -1 : 1);
    if (at < 0) throw invalid(`“${title}” is already the first page at its level.`);
    if (at >= siblings.length) throw invalid(`“${title}” is already the last page at its level.`);
    return { at };
  }
  const into = form.parent || null;
  const { before, after } = form;
  if (before && after) throw invalid("Place a page either before or after another page, not both.");
  const neighbour = before || after;
  if (!neighbour) return { into };
  // The API's `at` counts the new siblings without the moved page; a sibling named by id stays
  // right if the tree changed since the form was shown.
  const others = (childrenOf(content, into) ?? []).filter((p) => p.id !== location.page.id);
  const index = others.findIndex((p) => p.id === neighbour);
  if (index < 0) {
    const name = locations.get(neighbour)?.page.title;
    throw invalid(`${name ? `“${name}”` : `Page "${neighbour}"`} is not in the chosen place (any more): reload the page and choose again.`);
  }
  return { into, at: before ? index : index + 1 };
}

/** The parent a page would be placed under (undefined: the top level); refused when it cannot have the page under it. */
export function requireNewParent(
  locations: ReadonlyMap<string, PageLocation>,
  location: PageLocation,
  parentId: string | null,
  changeRequestNumber: number,
): PageLocation | undefined {
  if (parentId === null) return undefined;
  const parent = locations.get(parentId);
  if (!parent) throw missing(`No page "${parentId}" in change request #${changeRequestNumber} to place a page under.`);
  if (parent.page.kind === "link") throw invalid(`“${parent.page.title}” is a link: a link cannot have pages under it.`);
  if (parentId === location.page.id || parent.ancestors.some((a) => a.id === location.page.id))
    throw invalid(`“${location.page.title}” cannot go under itself or one of its subpages.`);
  return parent;
}
