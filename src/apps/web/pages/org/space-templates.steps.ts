/**
 * Built-in templates a new space can start from (besides a copy of another space's pages): their
 * pages made by the content operation itself, as the API's insert_page would make them (Markdown
 * read with GitBook's syntax, links between the pages resolved), ready to be a space's first content.
 */
import { emptyContent } from "../../../../content/revision/model.js";
import { loadDocumentJson } from "../../../../content/revision/storage.js";
import type { Executor } from "../../../../db/database.js";
import { nowIso } from "../../../../lib/time.js";
import type { ContentChangeValue } from "../../../../modules/change-request-content/change-request-content.schemas.js";
import { type ApplyInput, applyContentChanges } from "../../../../modules/change-request-content/content-changes.model.js";
import { documentLoader } from "../../../../modules/change-request-merge/change-request-merge.service.js";
import type { StartContent } from "../../../../modules/spaces/spaces.service.js";
import { samplePageChanges } from "../../../../sample.js";

export interface SpaceTemplate {
  id: string;
  title: string;
  description: string;
}

export const SPACE_TEMPLATES: readonly SpaceTemplate[] = [
  {
    id: "getting-started",
    title: "Getting started",
    description: "Sample pages showing how to write, review and publish, and every kind of block",
  },
];

export function spaceTemplate(id: string): SpaceTemplate | undefined {
  return SPACE_TEMPLATES.find((t) => t.id === id);
}

/** The content of a built-in template (`id` from SPACE_TEMPLATES). */
export async function templateContent(db: Executor, id: string): Promise<StartContent> {
  if (id !== "getting-started") throw new Error(`No built-in template "${id}"`);
  const { changes } = samplePageChanges();
  const applied = await applyContentChanges({
    content: emptyContent(),
    changes: changes as ContentChangeValue[],
    files: new Map(),
    now: nowIso(),
    loadDocument: documentLoader(db) as ApplyInput["loadDocument"],
    loadDocumentJson: async (hash) => {
      const json = await loadDocumentJson(db, hash);
      if (json === undefined) throw new Error(`Document ${hash} is missing`);
      return json;
    },
    loadRevision: async () => emptyContent(),
    pageLocation: (pageId) => `/pages/${pageId}`,
  });
  return { content: applied.content, documents: applied.documents };
}
