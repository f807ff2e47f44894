/** Page feedback of published sites ("Was this page helpful?"): answers written by readers, counted for editors. */
import { sql } from "kysely";
import type { Executor } from "../../db/database.js";
import type { PageFeedbackTable } from "../../db/schema.js";

export type FeedbackRating = PageFeedbackTable["rating"];
export const FEEDBACK_RATINGS: readonly FeedbackRating[] = ["good", "ok", "bad"];

/** Stores an answer; the same reader's earlier answer on this page the same day is replaced (it counts once). */
export async function recordFeedback(db: Executor, row: PageFeedbackTable): Promise<void> {
  await db
    .insertInto("pageFeedback")
    .values(row)
    .onConflict((oc) =>
      oc.columns(["siteId", "pageId", "voter", "day"]).doUpdateSet({ rating: row.rating, address: row.address, createdAt: row.createdAt }),
    )
    .execute();
}

/** Answers from one address to a site since a time (for the limit per address). */
export async function feedbackFromAddressSince(db: Executor, siteId: string, address: string, since: string): Promise<number> {
  const row = await db
    .selectFrom("pageFeedback")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("siteId", "=", siteId)
    .where("address", "=", address)
    .where("createdAt", ">=", since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export interface PageFeedbackCount {
  spaceId: string;
  pageId: string;
  good: number;
  ok: number;
  bad: number;
}

/** Counts of answers by page of a site, since a day (YYYY-MM-DD), pages with the most answers first. */
export async function feedbackCounts(db: Executor, siteId: string, sinceDay: string, limit = 50): Promise<PageFeedbackCount[]> {
  const count = (rating: FeedbackRating) => sql<number | string>`sum(case when rating = ${rating} then 1 else 0 end)`;
  const rows = await db
    .selectFrom("pageFeedback")
    .select(["spaceId", "pageId"])
    .select([count("good").as("good"), count("ok").as("ok"), count("bad").as("bad")])
    .select((eb) => eb.fn.countAll<number | string>().as("total"))
    .where("siteId", "=", siteId)
    .where("day", ">=", sinceDay)
    .groupBy(["spaceId", "pageId"])
    .orderBy("total", "desc")
    .orderBy("pageId")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ spaceId: r.spaceId, pageId: r.pageId, good: Number(r.good), ok: Number(r.ok), bad: Number(r.bad) }));
}
