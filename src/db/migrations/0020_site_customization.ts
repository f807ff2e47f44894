/**
 * Site customization (GitBook's `SiteCustomizationSettings`): a site's settings, and a site space's
 * overrides of them, as JSON text. Null is "never set": the site shows Quire's defaults, and a site
 * space shows its site's.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("sites").addColumn("customization", "text").execute();
  await db.schema.alterTable("site_spaces").addColumn("customization", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("site_spaces").dropColumn("customization").execute();
  await db.schema.alterTable("sites").dropColumn("customization").execute();
}
