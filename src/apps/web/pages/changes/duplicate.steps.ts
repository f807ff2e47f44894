/**
 * What duplicating a page asks of the content operation: one insert_page per page of its subtree,
 * the copy right after the original and titled as a copy, each subpage under its parent's copy
 * (linked by the batch's refs). Documents are copied without their block keys: the content
 * operation keeps the keys a document comes with, and gives blocks without one new keys, so the
 * copy's blocks are its own (a comment or a merge on one page never lands on the other).
 */
import { stripKeys } from "../../../../content/document/index.js";
import type { PageLocation, PageNode } from "../../../../content/revision/model.js";
import { loadDocument } from "../../../../content/revision/storage.js";
import type { Executor } from "../../../../db/database.js";
import { invalid } from "../../../../lib/errors.js";
import { type ContentChangeValue, MAX_CHANGES } from "../../../../modules/change-request-content/change-request-content.schemas.js";

const TITLE_MAX = 256;

export function copyOfTitle(title: string): string {
  const suffix = " (copy)";
  return (
    Array.from(title || "Untitled page")
      .slice(0, TITLE_MAX - suffix.length)
      .join("") + suffix
  );
}

export async function duplicateChanges(db: Executor, location: PageLocation): Promise<ContentChangeValue[]> {
  const changes: ContentChangeValue[] = [];
  const visit = async (page: PageNode, into: string | null, top: boolean): Promise<void> => {
    const name = page.title || "Untitled page";
    if (page.kind === "link") {
      throw invalid(`“${name}” is a link (or holds one): links are not duplicated; add the link again where you want it.`);
    }
    if (changes.length >= MAX_CHANGES) {
      throw invalid(`Duplicating copies at most ${MAX_CHANGES} pages at once; duplicate its subpages separately.`);
    }
    const ref = `copy-${changes.length}`;
    const metadata = {
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...(page.icon ? { icon: page.icon } : {}),
      ...(page.description ? { description: page.description } : {}),
      ...(page.hidden ? { hidden: true } : {}),
      ...(page.noIndex ? { noIndex: true } : {}),
      ...(page.noRobotsIndex ? { noRobotsIndex: true } : {}),
      ...(page.condition ? { condition: page.condition } : {}),
    };
    const place = top ? { into, at: location.index + 1 } : { into, slug: page.slug };
    const title = top ? copyOfTitle(page.title) : page.title || "Untitled page";
    if (page.kind === "group") {
      changes.push({ operation: "insert_page", kind: "group", ref, title, ...place, ...metadata });
    } else {
      const stored = page.documentHash ? await loadDocument(db, page.documentHash) : undefined;
      if (page.documentHash && !stored) throw new Error(`Document ${page.documentHash} of page ${page.id} is missing`);
      const document = stripKeys(stored ?? { object: "document", data: {}, nodes: [] }) as NonNullable<
        ContentChangeValue["document"]
      >["document"];
      changes.push({ operation: "insert_page", ref, title, document: { document }, ...place, ...metadata });
    }
    for (const child of page.children) await visit(child, ref, false);
  };
  await visit(location.page, location.parentId, true);
  return changes;
}
