/**
 * A site's own redirects (GitBook's site redirects, 0.202): a source path from the site's root,
 * optionally ending in a wildcard, and a destination (a page, site space or section of the site, or
 * an external URL, as JSON). A source has at most one live and one draft redirect; drafts are not
 * served until published. Deleted with their site.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("site_redirects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("draft", "integer", (c) => c.notNull())
    .addColumn("capture_wildcard", "integer", (c) => c.notNull())
    .addColumn("permanent", "integer", (c) => c.notNull())
    .addColumn("destination", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text")
    .execute();
  await db.schema.createIndex("site_redirects_source").on("site_redirects").columns(["site_id", "source", "draft"]).unique().execute();
}
