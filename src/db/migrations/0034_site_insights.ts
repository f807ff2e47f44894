/**
 * Insights of published sites: what readers do, counted for the people who write. Nothing personal
 * is kept: visitors are a keyed hash of address and user agent under a salt that changes every UTC
 * day (`site_insight_salts`, the only place the salt lives), so a visitor is counted once a day and
 * cannot be followed from one day to the next. Views and searches are counters per day; each Ask
 * question is a row (its text, whether the docs answered, the pages cited). Every row goes with its
 * site; the retention job (modules/insights/insights.jobs.ts) deletes rows older than
 * QUIRE_INSIGHTS_RETENTION_DAYS.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("site_insight_salts")
    .addColumn("day", "text", (c) => c.primaryKey())
    .addColumn("salt", "text", (c) => c.notNull())
    .execute();

  // One counter per site, day, page and source (page, markdown, llms.txt, llms-full.txt, mcp), by
  // browsers or agents. page_id is "" for an address that is no page (llms.txt, the MCP endpoint).
  await db.schema
    .createTable("site_page_views")
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("space_id", "text", (c) => c.notNull())
    .addColumn("page_id", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("agent", "integer", (c) => c.notNull())
    .addColumn("views", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("site_page_views_pk", ["site_id", "day", "space_id", "page_id", "source", "agent"])
    .execute();

  await db.schema
    .createTable("site_visitors")
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("visitor", "text", (c) => c.notNull())
    .addColumn("agent", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("site_visitors_pk", ["site_id", "day", "visitor"])
    .execute();

  await db.schema
    .createTable("site_searches")
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("query", "text", (c) => c.notNull())
    .addColumn("searches", "integer", (c) => c.notNull())
    .addColumn("no_result", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("site_searches_pk", ["site_id", "day", "query"])
    .execute();

  // A question as editors see it: the same words asked again are one question, asked again.
  await db.schema
    .createTable("site_questions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("question", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("asked_at", "text", (c) => c.notNull())
    .addUniqueConstraint("site_questions_key", ["site_id", "key"])
    .execute();
  await db.schema.createIndex("site_questions_asked").on("site_questions").columns(["site_id", "asked_at"]).execute();

  // Each time a question was asked, and what it was answered.
  await db.schema
    .createTable("site_question_answers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("question_id", "text", (c) => c.notNull().references("site_questions.id").onDelete("cascade"))
    .addColumn("raw", "text", (c) => c.notNull())
    .addColumn("answered", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("sources", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("site_question_answers_question")
    .on("site_question_answers")
    .columns(["question_id", "created_at"])
    .execute();
  await db.schema.createIndex("site_question_answers_site").on("site_question_answers").columns(["site_id", "created_at"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "site_question_answers",
    "site_questions",
    "site_searches",
    "site_visitors",
    "site_page_views",
    "site_insight_salts",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
