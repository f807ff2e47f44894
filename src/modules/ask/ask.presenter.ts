import type { AskAnswer } from "../../content/ask/engines.js";

/**
 * An answer as GitBook's `SearchAIAnswer`: its text (Markdown, or the JSON document made from it),
 * follow-up questions, and one source per cited section (in citation order, so that the answer's
 * [n] are the n-th source), each with the revision its text was indexed from.
 */
export function presentAnswer(
  answer: AskAnswer,
  body: { markdown: string } | { document: unknown },
  revisions: ReadonlyMap<string, string>,
) {
  return {
    answer: body,
    followupQuestions: answer.followupQuestions,
    sources: answer.sources.map((source) => ({
      type: "page" as const,
      page: source.pageId,
      revision: revisions.get(source.spaceId) ?? "",
      space: source.spaceId,
      sections: [source.sectionKey || source.pageId],
      reason: source.sectionTitle ? `Answers from "${source.sectionTitle}"` : `Answers from "${source.pageTitle}"`,
    })),
  };
}

/** Questions a reader may start with: the docs' headings written as questions, then one per page. */
export function recommendedQuestions(sources: { questions: string[]; pageTitles: string[] }, limit: number): string[] {
  const out = new Set<string>();
  for (const question of sources.questions) if (out.size < limit) out.add(question.trim());
  for (const title of sources.pageTitles) {
    if (out.size >= limit) break;
    if (title.trim()) out.add(`What does the documentation say about ${title.trim()}?`);
  }
  return [...out];
}
