/**
 * Search rows gain who may find them (`audience`: everyone, members, or published sites' readers
 * under `conditions`, a JSON array of expressions that must all hold for the reader). Rows indexed
 * before held the text of conditional blocks for everyone, so the index is emptied and every live
 * space queued to be indexed again (the search index job), rather than left to answer with text
 * readers may not see.
 *
 * SQLite: the full-text index also gets the row's space id as a column, so that a search matches
 * within its spaces in the index (FTS5 walked the matches of every space, then dropped the others).
 */
import { type Kysely, sql } from "kysely";
import { newId } from "../../lib/ids.js";
import { dialectOf } from "../database.js";

const TOKENIZE = "porter unicode61 remove_diacritics 2";

async function recreateFts(db: Kysely<any>, columns: string): Promise<void> {
  await sql`drop table if exists search_fts`.execute(db);
  await sql
    .raw(`create virtual table search_fts using fts5(
      ${columns},
      content='search_sections', content_rowid='id',
      prefix='1 2 3', tokenize='${TOKENIZE}')`)
    .execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "sqlite") await recreateFts(db, "page_title, section_title, body, space_id");
  await db.deleteFrom("search_sections").execute();
  await db.deleteFrom("search_index_state").execute();
  await db.schema
    .alterTable("search_sections")
    .addColumn("audience", "text", (c) => c.notNull().defaultTo("everyone"))
    .execute();
  await db.schema.alterTable("search_sections").addColumn("conditions", "text").execute();
  const spaces = await db.selectFrom("spaces").select("id").where("deleted_at", "is", null).execute();
  const now = new Date().toISOString();
  for (const { id } of spaces) {
    await db
      .insertInto("jobs")
      .values({
        id: newId(),
        kind: "search-index-space",
        payload: JSON.stringify({ spaceId: id }),
        state: "queued",
        dedupe_key: `search-index:${id}`,
        attempts: 0,
        max_attempts: 5,
        run_at: now,
        locked_by: null,
        locked_until: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  // Readers' and members' rows of the same section would both be found: the index is emptied and
  // built again by the next change of each space.
  if (dialectOf(db) === "sqlite") await recreateFts(db, "page_title, section_title, body");
  await db.deleteFrom("search_sections").execute();
  await db.deleteFrom("search_index_state").execute();
  await db.schema.alterTable("search_sections").dropColumn("conditions").execute();
  await db.schema.alterTable("search_sections").dropColumn("audience").execute();
}
