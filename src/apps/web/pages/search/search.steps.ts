/**
 * Finding pages from the app: the search service over the primary content of the spaces of the
 * organization the member may read (as the API's organization search), best pages first, each
 * named so that pages sharing a title are told apart by their space and ancestors.
 */
import { checkQuestion } from "../../../../content/ask/analysis.js";
import { askEngineOf } from "../../../../content/ask/engines.js";
import { retrieve } from "../../../../content/ask/retrieve.js";
import { fullTextIndex } from "../../../../content/search/engine.js";
import { searchPages } from "../../../../content/search/search.service.js";
import { pageLabels, pageTrail } from "../../page-labels.model.js";
import { appPath } from "../../web.paths.js";
import type { OrgContext } from "../../web.steps.js";
import { readableSpaces } from "../org/org.steps.js";
import type { AskedAnswer, FoundPage } from "./search.views.js";

export async function findPages(ctx: OrgContext, query: string, limit: number): Promise<FoundPage[]> {
  const { db, dialect } = ctx.deps;
  if (!query.trim()) return [];
  const spaces = await readableSpaces(db, ctx.access, { orgId: ctx.org.id });
  if (spaces.length === 0) return [];
  const titles = new Map(spaces.map((s) => [s.id, s.title]));
  const found = await searchPages(
    fullTextIndex(dialect),
    db,
    spaces.map((s) => s.id),
    query,
    { limit },
  );
  const listed = found.results.map((r) => ({ id: r.pageId, title: r.title, ancestors: r.ancestors, space: titles.get(r.spaceId) ?? "" }));
  const labels = pageLabels(listed);
  return found.results.map((r, i) => ({
    id: r.pageId,
    title: r.title || "Untitled page",
    label: labels.get(r.pageId) ?? r.title,
    trail: pageTrail(listed[i]!),
    space: { id: r.spaceId, title: titles.get(r.spaceId) ?? "" },
    url: appPath.page(ctx.org.id, r.spaceId, r.pageId),
    snippet: r.sections[0]?.body ?? "",
  }));
}

/**
 * An answer from the docs the member may read (the API's askInOrganization), with its sources as
 * pages of the app. Throws `invalid` (400) for a question Ask refuses (too long, no words).
 */
export async function askDocs(ctx: OrgContext, question: string): Promise<AskedAnswer> {
  const { db, dialect, config } = ctx.deps;
  const asked = checkQuestion(question, "the question");
  const spaces = await readableSpaces(db, ctx.access, { orgId: ctx.org.id });
  const retrieval = await retrieve(
    fullTextIndex(dialect),
    db,
    spaces.map((s) => s.id),
    asked,
    "members",
  );
  const answer = await askEngineOf(config.ask).answer(asked, retrieval);
  const titles = new Map(spaces.map((s) => [s.id, s.title]));
  return {
    answered: answer.answered,
    text: answer.markdown,
    sources: answer.sources.map((source, i) => ({
      number: i + 1,
      title:
        source.sectionTitle && source.sectionTitle !== source.pageTitle ? `${source.pageTitle} › ${source.sectionTitle}` : source.pageTitle,
      space: titles.get(source.spaceId) ?? "",
      url: `${appPath.page(ctx.org.id, source.spaceId, source.pageId)}${source.anchor ? `#${encodeURIComponent(source.anchor)}` : ""}`,
    })),
  };
}
