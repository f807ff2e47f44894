import { sql } from "kysely";
import type { FullTextIndex, SearchSectionInput } from "./fulltext.js";

interface Row {
  rowId: number;
  spaceId: string;
  pageId: string;
  score: number;
}

/** tsquery: every word must appear; the last one may be a prefix (search as you type). */
function tsQuery(terms: string[]): string {
  return terms.map((t, i) => `${t}${i === terms.length - 1 ? ":*" : ""}`).join(" & ");
}

export const postgresFullText: FullTextIndex = {
  async addSections(db, spaceId, sections) {
    for (let i = 0; i < sections.length; i += 100) {
      await db
        .insertInto("searchSections")
        .values(sections.slice(i, i + 100).map((s: SearchSectionInput) => ({ spaceId, ...s, ancestors: JSON.stringify(s.ancestors) })))
        .execute();
    }
  },

  async removeSpace(db, spaceId) {
    await db.deleteFrom("searchSections").where("spaceId", "=", spaceId).execute();
  },

  async search(db, spaceIds, terms, limit) {
    if (terms.length === 0 || spaceIds.length === 0) return [];
    const spaces = sql.join(spaceIds.map((id) => sql`${id}`));
    const result = await sql<Row>`
      select s.id as row_id, s.space_id, s.page_id, ts_rank_cd(s.tsv, q) as score
      from search_sections s, to_tsquery('english', ${tsQuery(terms)}) q
      where s.tsv @@ q and s.space_id in (${spaces})
      order by score desc, s.id
      limit ${limit}`.execute(db);
    return result.rows.map((r) => ({ rowId: Number(r.rowId), spaceId: r.spaceId, pageId: r.pageId, score: Number(r.score) }));
  },

  async snippets(db, rowIds, terms) {
    if (rowIds.length === 0 || terms.length === 0) return new Map();
    const rows = sql.join(rowIds.map((id) => sql`${id}`));
    const result = await sql<{ id: number; snippet: string }>`
      select s.id, ts_headline('english', s.body, q, 'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "') as snippet
      from search_sections s, to_tsquery('english', ${tsQuery(terms)}) q
      where s.id in (${rows})`.execute(db);
    return new Map(result.rows.map((r) => [Number(r.id), r.snippet]));
  },
};
