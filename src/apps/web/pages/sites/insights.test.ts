/**
 * A site's Insights page when its reads of the events cannot be made (over the time limit, or too
 * many at once): each list says why in its section, and the rest of the page is shown.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { seedEvents } from "../../../../../test/helpers/insights.factories.js";
import { createSite } from "../../../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";
import { configureInsightsReadLimit } from "../../../../modules/insights/bounded-reads.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe("a site's Insights page over the time limit", () => {
  it("says in each section of the events that it was not read, and shows the others", async () => {
    const base = await createOrgWithSpace(ctx, { title: "Guide" });
    const site = await createSite(ctx, base.owner, base.org.id, { title: "Docs", spaces: [base.space.id] });
    // PostgreSQL's statement_timeout of 1 ms, on 200,000 events; SQLite's limit of 0, on 2,000.
    const postgres = ctx.dialect === "postgres";
    await seedEvents(ctx.db, site.id, postgres ? 200_000 : 2_000, new Date(Date.now() - 3_600_000));
    const owner = await WebClient.signedIn(ctx, base.owner);
    const page = `/app/o/${base.org.id}/sites/${site.id}/insights`;

    const whole = await owner.get(page);
    expect(whole.status).toBe(200);
    expect(whole.text).toContain("GPTBot (OpenAI)");
    expect(whole.text).toContain("<code>/p0</code>");
    expect(whole.text).not.toContain("Not shown:");

    configureInsightsReadLimit(postgres ? 1 : 0);
    try {
      const late = await owner.get(page);
      expect(late.status).toBe(200);
      const notShown = late.text.match(/Not shown: The aggregation took longer than[^<]*narrow the range/g) ?? [];
      // Agents by name, addresses that found no page, sites readers came from.
      expect(notShown).toHaveLength(3);
      expect(late.text).not.toContain("GPTBot (OpenAI)");
      expect(late.text).toContain("Views over time");
      expect(late.text).toContain("Page feedback");
    } finally {
      configureInsightsReadLimit(10_000);
    }
  });
});
