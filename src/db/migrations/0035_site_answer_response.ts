/**
 * What Ask answered each time a question was asked of a published site, as the reader read it (the
 * answer's Markdown, with its citations): GitBook 0.202's getSiteQuestionAnswerById shows it to the
 * site's editors. Null for answers recorded before this column existed.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("site_question_answers").addColumn("response", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("site_question_answers").dropColumn("response").execute();
}
