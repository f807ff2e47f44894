import { sql } from "kysely";
import type { FullTextIndex, SearchSectionInput } from "./fulltext.js";

interface Row {
  rowId: number;
  spaceId: string;
  pageId: string;
  rank: number;
}

/** FTS5 query: every word must appear; the last one may be a prefix (search as you type). */
function matchExpression(terms: string[]): string {
  return terms.map((t, i) => `"${t}"${i === terms.length - 1 ? "*" : ""}`).join(" ");
}

export const sqliteFullText: FullTextIndex = {
  async replaceSpace(db, spaceId, sections) {
    await this.removeSpace(db, spaceId);
    for (let i = 0; i < sections.length; i += 100) {
      await db
        .insertInto("searchSections")
        .values(sections.slice(i, i + 100).map((s: SearchSectionInput) => ({ spaceId, ...s, ancestors: JSON.stringify(s.ancestors) })))
        .execute();
    }
    await sql`insert into search_fts(rowid, page_title, section_title, body)
      select id, page_title, section_title, body from search_sections where space_id = ${spaceId}`.execute(db);
  },

  async removeSpace(db, spaceId) {
    // External-content FTS5 tables are told which rows go away, with their old values.
    await sql`insert into search_fts(search_fts, rowid, page_title, section_title, body)
      select 'delete', id, page_title, section_title, body from search_sections where space_id = ${spaceId}`.execute(db);
    await db.deleteFrom("searchSections").where("spaceId", "=", spaceId).execute();
  },

  async search(db, spaceIds, terms, limit) {
    if (terms.length === 0 || spaceIds.length === 0) return [];
    const spaces = sql.join(spaceIds.map((id) => sql`${id}`));
    const result = await sql<Row>`
      select s.id as row_id, s.space_id, s.page_id, bm25(search_fts, 10.0, 4.0, 1.0) as rank
      from search_fts join search_sections s on s.id = search_fts.rowid
      where search_fts match ${matchExpression(terms)} and s.space_id in (${spaces})
      order by rank
      limit ${limit}`.execute(db);
    // bm25 is lower-is-better; flipped so both engines rank higher-is-better.
    return result.rows.map((r) => ({ rowId: Number(r.rowId), spaceId: r.spaceId, pageId: r.pageId, score: -r.rank }));
  },

  async snippets(db, rowIds, terms) {
    if (rowIds.length === 0 || terms.length === 0) return new Map();
    // better-sqlite3 binds numbers as REAL, and FTS5 then ignores a rowid constraint altogether.
    const rows = sql.join(rowIds.map((id) => sql`cast(${id} as integer)`));
    const result = await sql<{ rowid: number; snippet: string }>`
      select rowid, snippet(search_fts, 2, '', '', '…', 24) as snippet
      from search_fts where search_fts match ${matchExpression(terms)} and rowid in (${rows})`.execute(db);
    return new Map(result.rows.map((r) => [Number(r.rowid), r.snippet]));
  },
};
