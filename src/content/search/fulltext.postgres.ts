import { sql } from "kysely";
import { tooLarge } from "../../lib/errors.js";
import type { FullTextIndex, QueryTerm, SearchQuery, SearchSectionInput } from "./fulltext.js";
import { audiencesOf, sectionRow } from "./fulltext.js";

interface Row {
  rowId: number;
  spaceId: string;
  pageId: string;
  sectionKey: string;
  score: number;
  conditions: string | null;
}

/** A search statement still running after this long is stopped (a 413 for the caller). */
export const SEARCH_STATEMENT_TIMEOUT_MS = 5000;

const term = (t: QueryTerm) => {
  const own = `${t.word}${t.prefix ? ":*" : ""}`;
  return t.alternatives?.length ? `(${[own, ...t.alternatives].join(" | ")})` : own;
};

/** tsquery of the words that must appear (every one of them). */
function includeQuery(query: SearchQuery): string {
  return query.include.map(term).join(" & ");
}

/** tsquery of the whole query: the words that must appear, and none of the excluded ones. */
function fullQuery(query: SearchQuery): string {
  return [includeQuery(query), ...query.exclude.map((t) => `!${term(t)}`)].join(" & ");
}

export const postgresFullText: FullTextIndex = {
  async addSections(db, spaceId, sections) {
    for (let i = 0; i < sections.length; i += 100) {
      await db
        .insertInto("searchSections")
        .values(sections.slice(i, i + 100).map((s: SearchSectionInput) => sectionRow(spaceId, s)))
        .execute();
    }
  },

  async removeSpace(db, spaceId) {
    await db.deleteFrom("searchSections").where("spaceId", "=", spaceId).execute();
  },

  async search(db, spaceIds, query, limit, who) {
    if (query.include.length === 0 || spaceIds.length === 0) return [];
    const spaces = sql.join(spaceIds.map((id) => sql`${id}`));
    const audiences = sql.join(audiencesOf(who).map((a) => sql`${a}`));
    // English stop words leave a tsquery empty: a query of stop words alone, with exclusions,
    // would otherwise be "not these words" and match nearly every row.
    const statement = sql<Row>`
      select s.id as row_id, s.space_id, s.page_id, s.section_key, s.conditions, ts_rank_cd(s.tsv, qi) as score
      from search_sections s, to_tsquery('english', ${includeQuery(query)}) qi, to_tsquery('english', ${fullQuery(query)}) q
      where numnode(qi) > 0 and s.tsv @@ q and s.space_id in (${spaces}) and s.audience in (${audiences})
      order by score desc, s.id
      limit ${limit}`;
    let rows: Row[];
    try {
      // The statement runs in the database, not on this thread, but it holds a connection and
      // the server's CPU: it is stopped past its time (in a caller's transaction, that one's own limits apply).
      rows = db.isTransaction
        ? (await statement.execute(db)).rows
        : await db.transaction().execute(async (trx) => {
            await sql.raw(`set local statement_timeout = ${SEARCH_STATEMENT_TIMEOUT_MS}`).execute(trx);
            return (await statement.execute(trx)).rows;
          });
    } catch (error) {
      if ((error as { code?: unknown }).code === "57014") {
        throw tooLarge(
          `The search took longer than ${SEARCH_STATEMENT_TIMEOUT_MS / 1000} s and was stopped: search for more specific words, or fewer prefixes (word*).`,
        );
      }
      throw error;
    }
    return rows.map((r) => ({
      rowId: Number(r.rowId),
      spaceId: r.spaceId,
      pageId: r.pageId,
      sectionKey: r.sectionKey,
      score: Number(r.score),
      conditions: r.conditions,
    }));
  },
};
