/**
 * SQLite: rebuilds the full-text index with prefix indexes for 1- to 3-character prefixes. The
 * last word of a query matches as a prefix (search as you type), and without these indexes a short
 * prefix ("3*", "to*") makes FTS5 walk every matching term on every use: ranking and snippets took
 * several times longer. PostgreSQL's GIN index answers prefix queries as they are: nothing to do.
 */
import { type Kysely, sql } from "kysely";
import { dialectOf } from "../database.js";

const TOKENIZE = "porter unicode61 remove_diacritics 2";

async function recreate(db: Kysely<any>, prefix: string): Promise<void> {
  await sql`drop table if exists search_fts`.execute(db);
  await sql
    .raw(`create virtual table search_fts using fts5(
      page_title, section_title, body,
      content='search_sections', content_rowid='id',
      ${prefix}tokenize='${TOKENIZE}')`)
    .execute(db);
  // An external-content table rebuilds its index from the content table.
  await sql`insert into search_fts(search_fts) values('rebuild')`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "postgres") return;
  await recreate(db, "prefix='1 2 3', ");
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "postgres") return;
  await recreate(db, "");
}
