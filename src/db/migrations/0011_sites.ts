/**
 * Docs sites: a site publishes spaces (site spaces), either as a flat list or grouped into sections,
 * which section groups may group (and groups nest). Order among siblings is a fractional-index key,
 * like collections and spaces. Share links carry a secret key: its SHA-256 finds the link from a
 * URL, and a sealed copy (AES-256-GCM under the instance secret) builds the link's URL again. The
 * visitor-token signing key of a site is sealed the same way. Paths a section or a site space had
 * before are kept in `site_path_redirects`, so that their old URLs keep working.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sites")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    // Unique on the whole instance: the site is served at {QUIRE_PUBLIC_URL}/s/{basename}.
    .addColumn("basename", "text", (c) => c.notNull().unique())
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("published", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("adaptive_content", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("agents_context", "text", (c) => c.notNull())
    .addColumn("proxy", "text")
    .addColumn("default_site_section_id", "text")
    .addColumn("default_site_space_id", "text")
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sites_org").on("sites").columns(["org_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("site_section_groups")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("parent_id", "text")
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("icon", "text")
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("site_section_groups_site").on("site_section_groups").columns(["site_id", "position"]).execute();

  await db.schema
    .createTable("site_sections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("group_id", "text")
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("icon", "text")
    .addColumn("condition", "text")
    .addColumn("default_site_space_id", "text")
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  // Section paths are the first segment of their URLs: unique in the site.
  await db.schema.createIndex("site_sections_path").on("site_sections").columns(["site_id", "path"]).unique().execute();

  await db.schema
    .createTable("site_spaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    // Null at the root of a site without sections.
    .addColumn("section_id", "text", (c) => c.references("site_sections.id").onDelete("cascade"))
    // A purged space leaves the sites that showed it.
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("condition", "text")
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("site_spaces_site").on("site_spaces").columns(["site_id", "section_id", "position"]).execute();
  await db.schema.createIndex("site_spaces_space").on("site_spaces").column("space_id").execute();

  await db.schema
    .createTable("site_share_links")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("key_sealed", "text", (c) => c.notNull())
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("site_share_links_site").on("site_share_links").columns(["site_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("site_adaptive_schemas")
    .addColumn("site_id", "text", (c) => c.primaryKey().references("sites.id").onDelete("cascade"))
    .addColumn("json_schema", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("site_publishing_auth")
    .addColumn("site_id", "text", (c) => c.primaryKey().references("sites.id").onDelete("cascade"))
    .addColumn("backend", "text", (c) => c.notNull())
    .addColumn("private_key_sealed", "text", (c) => c.notNull())
    .addColumn("fallback_url", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("site_path_redirects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    // The old path from the site's root, e.g. "guides" (a section) or "guides/v1" (a site space).
    .addColumn("from_path", "text", (c) => c.notNull())
    // `site-section` or `site-space`: the object now answering for that path.
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("site_path_redirects_path").on("site_path_redirects").columns(["site_id", "from_path"]).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "site_path_redirects",
    "site_publishing_auth",
    "site_adaptive_schemas",
    "site_share_links",
    "site_spaces",
    "site_sections",
    "site_section_groups",
    "sites",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
