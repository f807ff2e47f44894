/**
 * The redirects of a space's Git repository (`.gitbook.yaml` `redirects:`), kept by the space's
 * last Git import: an old path (from the space's root) and the page it now leads to. They are the
 * sync's configuration rather than content, so they live beside the revisions, replaced as a whole
 * by each import, and the published site answers an old path with a redirect to that page.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("git_redirects")
    .addColumn("space_id", "text", (c) => c.notNull())
    .addColumn("from_path", "text", (c) => c.notNull())
    .addColumn("page_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("git_redirects_pk", ["space_id", "from_path"])
    .execute();
}
