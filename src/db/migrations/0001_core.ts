/**
 * Core schema: identity, organizations, teams, collections, spaces, access grants, revisions,
 * jobs. Frozen: later changes go in new numbered files.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("photo_url", "text")
    .addColumn("email_verified", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("pending", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("label", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_tokens_user").on("api_tokens").column("user_id").execute();

  await db.schema
    .createTable("organizations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("email_domains", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("hostname", "text", (c) => c.unique())
    .addColumn("type", "text", (c) => c.notNull().defaultTo("business"))
    .addColumn("use_case", "text")
    .addColumn("community_type", "text")
    .addColumn("default_role", "text")
    .addColumn("default_content", "text")
    .addColumn("logo_url", "text")
    .addColumn("sso", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("ai", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("invite_links", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("merge_rules", "text", (c) => c.notNull())
    .addColumn("agent_instructions", "text")
    .addColumn("agent_instructions_updated_at", "text")
    .addColumn("agent_instructions_updated_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("members")
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text")
    .addColumn("sso", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("joined_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text")
    .addPrimaryKeyConstraint("members_pk", ["org_id", "user_id"])
    .execute();
  await db.schema.createIndex("members_user").on("members").column("user_id").execute();
  await db.schema.createIndex("members_joined").on("members").columns(["org_id", "joined_at", "user_id"]).execute();

  await db.schema
    .createTable("teams")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("teams_org").on("teams").columns(["org_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("team_members")
    .addColumn("team_id", "text", (c) => c.notNull().references("teams.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull().defaultTo("member"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("team_members_pk", ["team_id", "user_id"])
    .execute();
  await db.schema.createIndex("team_members_user").on("team_members").column("user_id").execute();

  await db.schema
    .createTable("collections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("parent_id", "text", (c) => c.references("collections.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("default_level", "text")
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("collections_org").on("collections").columns(["org_id", "created_at", "id"]).execute();
  await db.schema.createIndex("collections_parent").on("collections").columns(["parent_id", "position"]).execute();

  await db.schema
    .createTable("spaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("parent_id", "text", (c) => c.references("collections.id").onDelete("set null"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("emoji", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("icon_url", "text")
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("edit_mode", "text", (c) => c.notNull())
    .addColumn("default_level", "text")
    .addColumn("language", "text")
    .addColumn("merge_rules", "text", (c) => c.notNull())
    .addColumn("revision_id", "text", (c) => c.notNull())
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("git_sync", "text")
    .addColumn("visitor_auth", "text")
    .addColumn("created_by", "text")
    .addColumn("deleted_at", "text")
    .addColumn("deleted_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("spaces_org").on("spaces").columns(["org_id", "created_at", "id"]).execute();
  await db.schema.createIndex("spaces_parent").on("spaces").columns(["parent_id", "position"]).execute();
  await db.schema.createIndex("spaces_deleted").on("spaces").column("deleted_at").execute();

  await db.schema
    .createTable("grants")
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("principal_type", "text", (c) => c.notNull())
    .addColumn("principal_id", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("grants_pk", ["target_id", "principal_type", "principal_id"])
    .execute();
  await db.schema.createIndex("grants_principal").on("grants").columns(["principal_id", "org_id"]).execute();

  await db.schema
    .createTable("link_invites")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text")
    .addColumn("role", "text")
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("link_invites_org").on("link_invites").columns(["org_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("revisions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("parents", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("tree_hash", "text")
    .addColumn("git", "text")
    .addColumn("merged_from", "text")
    .addColumn("created_by", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("revisions_space").on("revisions").columns(["space_id", "created_at"]).execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("dedupe_key", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("run_at", "text", (c) => c.notNull())
    .addColumn("locked_by", "text")
    .addColumn("locked_until", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_ready").on("jobs").columns(["state", "run_at"]).execute();
  // One live (queued or running) job per dedupe key; finished jobs keep their key for history.
  await db.schema
    .createIndex("jobs_dedupe_live")
    .on("jobs")
    .column("dedupe_key")
    .unique()
    .where(sql<boolean>`dedupe_key is not null and state in ('queued', 'running')`)
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "settings",
    "jobs",
    "revisions",
    "link_invites",
    "grants",
    "spaces",
    "collections",
    "team_members",
    "teams",
    "members",
    "organizations",
    "api_tokens",
    "users",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
