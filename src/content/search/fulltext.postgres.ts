import { sql } from "kysely";
import { type FullTextIndex, type SearchRow, type SearchSectionInput, toSearchHit } from "./fulltext.js";

interface Row extends SearchRow {
  score: number;
}

/** tsquery: every word must appear; the last one may be a prefix (search as you type). */
function tsQuery(terms: string[]): string {
  return terms.map((t, i) => `${t}${i === terms.length - 1 ? ":*" : ""}`).join(" & ");
}

export const postgresFullText: FullTextIndex = {
  async replaceSpace(db, spaceId, sections) {
    await this.removeSpace(db, spaceId);
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
    // Rank and cut first; ts_headline re-parses the text, so it runs only on the rows returned.
    const result = await sql<Row>`
      select m.space_id, m.page_id, m.section_key, m.position, m.path, m.anchor, m.ancestors, m.page_title, m.section_title,
        ts_headline('english', m.body, m.q, 'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "') as snippet,
        m.score
      from (
        select s.*, q, ts_rank_cd(s.tsv, q) as score
        from search_sections s, to_tsquery('english', ${tsQuery(terms)}) q
        where s.tsv @@ q and s.space_id in (${spaces})
        order by score desc, s.id
        limit ${limit}
      ) m
      order by m.score desc, m.id`.execute(db);
    return result.rows.map((r) => toSearchHit(r, Number(r.score)));
  },
};
