import { sql } from "kysely";
import type { Executor } from "../../db/database.js";
import type { FullTextIndex, QueryTerm, SearchQuery, SearchSectionInput } from "./fulltext.js";
import { audiencesOf, sectionRow } from "./fulltext.js";

interface Row {
  rowId: number;
  spaceId: string;
  pageId: string;
  sectionKey: string;
  rank: number;
  conditions: string | null;
}

const term = (t: QueryTerm) => {
  const own = `"${t.word}"${t.prefix ? "*" : ""}`;
  return t.alternatives?.length ? `(${[own, ...t.alternatives.map((a) => `"${a}"`)].join(" OR ")})` : own;
};

/**
 * FTS5 query: in one of the spaces (their ids are words of the `space_id` column, so FTS5 walks
 * only their rows, not every space's), every included word must appear in the text, no excluded
 * one may. Words and ids are letters and digits only, so quoting them keeps them words.
 */
function matchExpression(spaceIds: readonly string[], query: SearchQuery): string {
  const spaces = `space_id : (${spaceIds.map((id) => `"${id.replace(/[^\p{L}\p{N}]/gu, " ")}"`).join(" OR ")})`;
  const include = `(${query.include.map(term).join(" AND ")})`;
  const text = query.exclude.length === 0 ? include : `${include} NOT (${query.exclude.map(term).join(" OR ")})`;
  return `${spaces} AND {page_title section_title body} : (${text})`;
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
        .values(chunk.map((s: SearchSectionInput) => sectionRow(spaceId, s)))
        .execute();
      await sql`insert into search_fts(rowid, page_title, section_title, body, space_id)
        select id, page_title, section_title, body, space_id from search_sections where space_id = ${spaceId} and id > ${before}`.execute(
        db,
      );
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
      await sql`insert into search_fts(search_fts, rowid, page_title, section_title, body, space_id)
        select 'delete', id, page_title, section_title, body, space_id from search_sections where space_id = ${spaceId} and id <= ${last}`.execute(
        db,
      );
      await db.deleteFrom("searchSections").where("spaceId", "=", spaceId).where("id", "<=", last).execute();
    }
  },

  async search(db, spaceIds, query, limit, who) {
    if (query.include.length === 0 || spaceIds.length === 0) return [];
    const spaces = sql.join(spaceIds.map((id) => sql`${id}`));
    const audiences = sql.join(audiencesOf(who).map((a) => sql`${a}`));
    const result = await sql<Row>`
      select s.id as row_id, s.space_id, s.page_id, s.section_key, s.conditions, bm25(search_fts, 10.0, 4.0, 1.0, 0.0) as rank
      from search_fts join search_sections s on s.id = search_fts.rowid
      where search_fts match ${matchExpression(spaceIds, query)} and s.space_id in (${spaces}) and s.audience in (${audiences})
      order by rank
      limit ${limit}`.execute(db);
    // bm25 is lower-is-better; flipped so both engines rank higher-is-better.
    return result.rows.map((r) => ({
      rowId: Number(r.rowId),
      spaceId: r.spaceId,
      pageId: r.pageId,
      sectionKey: r.sectionKey,
      score: -r.rank,
      conditions: r.conditions,
    }));
  },
};
