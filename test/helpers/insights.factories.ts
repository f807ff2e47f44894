/** A site's insight events made in bulk, for the tests of reads over many of them. */
import { sql } from "kysely";
import type { Executor } from "../../src/db/database.js";
import { bucketsOf } from "../../src/modules/insights/events.model.js";

/**
 * `count` events of `siteId` at `at`, in one statement (a recursive series, on both databases):
 * page views of 50 paths, one in three by an agent (GPTBot).
 */
export async function seedEvents(db: Executor, siteId: string, count: number, at: Date): Promise<void> {
  const b = bucketsOf(at);
  await sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into site_events (id, site_id, at, hour, day, week, month, hour_of_day, day_of_week, type, visitor, session,
      display_context, url, url_path, browser, device, os, segment, bot)
    select ${`${siteId}-`} || i, ${siteId}, ${b.at}, ${b.hour}, ${b.day}, ${b.week}, ${b.month}, ${b.hourOfDay}, ${b.dayOfWeek},
      'page_view', 'v' || (i % 97), 's' || (i % 211), 'site', 'https://docs.example.com/p' || (i % 50), '/p' || (i % 50),
      'firefox', 'desktop', 'linux', '', case when i % 3 = 0 then 'gptbot' else null end
    from n`.execute(db);
}

/**
 * A reported event of 0.202 (`SiteInsightsEvent`) with every field its type needs and nothing
 * of a visitor: `over` replaces or adds fields at the top level (`type`, `query`, `location`...).
 */
export function reportedEvent(type: string, over: Record<string, unknown> = {}) {
  return {
    type,
    session: { visitorId: "v", sessionId: "s", cookies: {}, userAgent: "curl/8.5.0", language: null, referrer: null },
    location: {
      url: "https://docs.example.com/a",
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: null,
      revision: null,
      page: null,
    },
    ...over,
  };
}
