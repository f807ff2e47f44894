/**
 * A published site's insight events, one row each (GitBook 0.202's trackEventsInSiteById and
 * aggregateSiteEvents): the reads Quire serves itself and the events a client reports. Nothing
 * personal is kept: visitor and session are keyed hashes under the day's salt (as site_visitors),
 * URLs and referrers lose their query and fragment, and claims are kept only where the site's
 * adaptive schema makes them categories (booleans and enumerated strings), one row per claim in
 * site_event_claims. The retention job deletes events with the other insights.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  let table = db.schema
    .createTable("site_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    // The time and the buckets an aggregation groups by, computed once at ingest (UTC) so that both
    // databases group by plain columns: hour "YYYY-MM-DDTHH", day, week (its Monday), month "YYYY-MM".
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("hour", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("week", "text", (c) => c.notNull())
    .addColumn("month", "text", (c) => c.notNull())
    .addColumn("hour_of_day", "integer", (c) => c.notNull())
    .addColumn("day_of_week", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("visitor", "text", (c) => c.notNull())
    .addColumn("session", "text", (c) => c.notNull())
    .addColumn("display_context", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("url_path", "text", (c) => c.notNull())
    .addColumn("browser", "text", (c) => c.notNull())
    .addColumn("device", "text", (c) => c.notNull())
    .addColumn("os", "text", (c) => c.notNull())
    .addColumn("authenticated", "integer")
    // The kept claims of the visitor as canonical JSON ("{}": none), what listSiteVisitorSegments groups by.
    .addColumn("segment", "text", (c) => c.notNull());
  for (const column of [
    "site_section",
    "site_space",
    "site_share_key",
    "space_id",
    "page_id",
    "not_found_type",
    "referrer",
    "referrer_domain",
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_term",
    "utm_content",
    "language",
    "bot",
    "search_query",
    "search_result",
    "feedback_rating",
    "feedback_comment",
    "link_target",
    "link_kind",
    "link_domain",
    "link_position",
    "api_path",
    "api_method",
    "llms_variant",
    "markdown_source",
    "ad_domain",
    "ad_placement",
    "trademark_placement",
  ]) {
    table = table.addColumn(column, "text");
  }
  await table.addColumn("ask_rating", "integer").execute();
  // Every aggregation reads one site over a time range; most filter by type too (page views, searches).
  await db.schema.createIndex("site_events_site_at").on("site_events").columns(["site_id", "at"]).execute();
  await db.schema.createIndex("site_events_site_type_at").on("site_events").columns(["site_id", "type", "at"]).execute();
  // The retention job deletes by day across sites.
  await db.schema.createIndex("site_events_day").on("site_events").column("day").execute();
  await db.schema.createIndex("site_events_site_segment").on("site_events").columns(["site_id", "segment"]).execute();

  await db.schema
    .createTable("site_event_claims")
    .addColumn("event_id", "text", (c) => c.notNull().references("site_events.id").onDelete("cascade"))
    .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
    .addColumn("property", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("site_event_claims_pk", ["event_id", "property"])
    .execute();
  await db.schema.createIndex("site_event_claims_site").on("site_event_claims").columns(["site_id", "property", "value"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("site_event_claims").ifExists().execute();
  await db.schema.dropTable("site_events").ifExists().execute();
}
