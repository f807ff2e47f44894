/**
 * Support conversations ingested from outside (redacted before they are stored), the issues the
 * analysis finds in them, the clusters that group those issues, and one analysis state row per
 * organization. Issues and clusters are written only by the analysis job, all in one transaction.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("conversations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("external_id", "text", (c) => c.notNull())
    .addColumn("subject", "text")
    .addColumn("parts", "text", (c) => c.notNull())
    .addColumn("metadata_url", "text")
    .addColumn("metadata_attributes", "text", (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("ingested_at", "text", (c) => c.notNull())
    .addColumn("processed_at", "text")
    .execute();
  await db.schema.createIndex("conversations_external").on("conversations").columns(["org_id", "source", "external_id"]).unique().execute();
  await db.schema.createIndex("conversations_list").on("conversations").columns(["org_id", "created_at", "id"]).execute();

  await db.schema
    .createTable("conversation_clusters")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("icon", "text", (c) => c.notNull())
    .addColumn("keywords", "text", (c) => c.notNull())
    .addColumn("sources", "text", (c) => c.notNull())
    .addColumn("weekly_pulse", "text", (c) => c.notNull())
    .addColumn("issues", "integer", (c) => c.notNull())
    .addColumn("conversations", "integer", (c) => c.notNull())
    .addColumn("documentation_gaps", "integer", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("conversation_clusters_list").on("conversation_clusters").columns(["org_id", "updated_at", "id"]).execute();

  await db.schema
    .createTable("conversation_issues")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
    .addColumn("conversation_id", "text", (c) => c.notNull().references("conversations.id").onDelete("cascade"))
    .addColumn("cluster_id", "text", (c) => c.references("conversation_clusters.id").onDelete("set null"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("question", "text", (c) => c.notNull())
    .addColumn("documentation", "text", (c) => c.notNull())
    .addColumn("conversation_created_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("ingested_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("conversation_issues_list")
    .on("conversation_issues")
    .columns(["org_id", "conversation_created_at", "conversation_id", "position"])
    .execute();
  await db.schema.createIndex("conversation_issues_cluster").on("conversation_issues").columns(["cluster_id"]).execute();
  await db.schema.createIndex("conversation_issues_conversation").on("conversation_issues").columns(["conversation_id"]).execute();

  await db.schema
    .createTable("conversation_analysis")
    .addColumn("org_id", "text", (c) => c.primaryKey().references("organizations.id").onDelete("cascade"))
    .addColumn("requested_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("analysed_up_to", "text")
    .addColumn("analysed_at", "text")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("conversation_analysis").ifExists().execute();
  await db.schema.dropTable("conversation_issues").ifExists().execute();
  await db.schema.dropTable("conversation_clusters").ifExists().execute();
  await db.schema.dropTable("conversations").ifExists().execute();
}
