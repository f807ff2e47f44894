import { sql } from "kysely";
import type { Executor } from "../../db/database.js";
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

/** Sections written per statement, and their text in characters at most. */
const SECTIONS_PER_STATEMENT = 100;
const CHARS_PER_STATEMENT = 256 * 1024;

function* chunksOf(sections: readonly SearchSectionInput[]): Generator<SearchSectionInput[]> {
  let chunk: SearchSectionInput[] = [];
  let chars = 0;
  for (const section of sections) {
    const size = section.body.length + section.pageTitle.length + section.sectionTitle.length;
    if (chunk.length > 0 && (chunk.length >= SECTIONS_PER_STATEMENT || chars + size > CHARS_PER_STATEMENT)) {
      yield chunk;
      chunk = [];
      chars = 0;
    }
    chunk.push(section);
    chars += size;
  }
  if (chunk.length > 0) yield chunk;
}

async function maxSectionId(db: Executor): Promise<number> {
  const row = await sql<{ id: number | null }>`select max(id) as id from search_sections`.execute(db);
  return row.rows[0]?.id ?? 0;
}

export const sqliteFullText: FullTextIndex = {
  // SQLite runs on the thread that answers requests, and FTS5 tokenizes inside one statement: the
  // index is written (and emptied) in chunks of sections, so a large space never holds the thread
  // for the whole of its text at once.
  async addSections(db, spaceId, sections) {
    for (const chunk of chunksOf(sections)) {
      const before = await maxSectionId(db);
      await db
        .insertInto("searchSections")
        .values(chunk.map((s: SearchSectionInput) => ({ spaceId, ...s, ancestors: JSON.stringify(s.ancestors) })))
        .execute();
      await sql`insert into search_fts(rowid, page_title, section_title, body)
        select id, page_title, section_title, body from search_sections where space_id = ${spaceId} and id > ${before}`.execute(db);
    }
  },

  async removeSpace(db, spaceId) {
    // External-content FTS5 tables are told which rows go away, with their old values.
    for (;;) {
      const ids = await db
        .selectFrom("searchSections")
        .select("id")
        .where("spaceId", "=", spaceId)
        .orderBy("id")
        .limit(SECTIONS_PER_STATEMENT)
        .execute();
      if (ids.length === 0) return;
      const last = (ids.at(-1) as { id: number }).id;
      await sql`insert into search_fts(search_fts, rowid, page_title, section_title, body)
        select 'delete', id, page_title, section_title, body from search_sections where space_id = ${spaceId} and id <= ${last}`.execute(
        db,
      );
      await db.deleteFrom("searchSections").where("spaceId", "=", spaceId).where("id", "<=", last).execute();
    }
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
