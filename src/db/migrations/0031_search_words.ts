/**
 * The vocabulary of each space's search index (`search_words`): the words every reader of a
 * published site may see, from which a misspelled query word is corrected (typo tolerance,
 * src/content/search/typos.ts). It is built by the search index job, so every space's index state
 * is forgotten and the job queued: searches keep answering from the existing rows meanwhile (only
 * corrections wait for the vocabulary).
 */
import type { Kysely } from "kysely";
import { newId } from "../../lib/ids.js";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("search_words")
    .addColumn("space_id", "text", (c) => c.notNull())
    .addColumn("word", "text", (c) => c.notNull())
    .addColumn("occurrences", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("search_words_pk", ["space_id", "word"])
    .execute();
  await db.deleteFrom("search_index_state").execute();
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
  await db.schema.dropTable("search_words").ifExists().execute();
}
