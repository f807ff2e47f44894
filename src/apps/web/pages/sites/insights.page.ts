/**
 * A site's Insights, for its editors and admins (as the API's getSiteInsights, and aggregateSiteEvents
 * for agents by name, broken addresses and referrers): the days chosen, 30 by default.
 */
import Type from "typebox";
import { loadEventInsights, loadInsights, requireSiteInsights } from "../../../../modules/insights/insights.loader.js";
import { presentInsights } from "../../../../modules/insights/insights.presenter.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { INSIGHT_DAYS, insightsBody } from "./insights.views.js";

const schema = {
  params: Type.Object({ org: Id, site: Id }),
  querystring: Type.Object({ days: Type.Optional(Type.String({ maxLength: 10 })) }),
};

export const siteInsightsPage = orgHandler(schema, async (request, reply, ctx) => {
  const { db, config } = ctx.deps;
  const org = ctx.org.id;
  const loaded = await requireSiteInsights(db, ctx.actor, org, request.params.site);
  // An unknown period is the default one: the select only offers those of INSIGHT_DAYS.
  const asked = Number(request.query.days);
  const days = (INSIGHT_DAYS as readonly number[]).includes(asked) ? asked : 30;
  const insights = presentInsights(await loadInsights(db, loaded, days));
  // The hosts the site is served under: a referral from them is a reader moving between its pages.
  const ownHosts = [new URL(config.publicUrl).hostname, ...(ctx.org.hostname ? [ctx.org.hostname] : [])];
  const events = await loadEventInsights(db, loaded, insights.from, ownHosts);
  const base = `${appPath.site(org, loaded.site.id)}/insights`;
  const body = insightsBody({
    siteTitle: loaded.site.title,
    base,
    days,
    insights,
    retentionDays: config.insights.retentionDays,
    enabled: config.insights.enabled,
    events,
  });
  return sendOrgPage(reply, ctx, {
    title: `Insights: ${loaded.site.title}`,
    body,
    crumbs: [
      orgCrumb(ctx),
      { label: "Sites", href: `${appPath.org(org)}#sites` },
      { label: loaded.site.title, href: appPath.site(org, loaded.site.id) },
      { label: "Insights" },
    ],
    wide: true,
  });
});
