/** A site: its structure and published address, its redirects and who has access; for its editors, its customization and page feedback and the forms that change them. */
import Type from "typebox";
import { html } from "../../../../content/html/safe-html.js";
import { siteGrantsPolicy } from "../../../../modules/content-permissions/content-permissions.policy.js";
import { parseCustomization } from "../../../../modules/sites/customization.model.js";
import { loadSpacesForSite, requireSiteWithModel } from "../../../../modules/sites/sites.loader.js";
import { sitePermissions } from "../../../../modules/sites/sites.policy.js";
import { atLeast } from "../../../../permissions/roles.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { customizationPanel } from "./customization.views.js";
import { loadFeedback } from "./feedback.steps.js";
import { feedbackPanel } from "./feedback.views.js";
import { siteBody } from "./site.views.js";
import { loadShownRedirects, loadSiteGrants } from "./site-access.steps.js";
import { accessPanel, redirectsPanel } from "./site-access.views.js";

const SAVED_REDIRECTS: Record<string, string> = {
  "redirect-added": "Redirect saved.",
  "redirect-saved": "Redirect saved.",
  "redirect-deleted": "Redirect deleted.",
  "redirects-pasted": "Redirects saved.",
};

const schema = {
  params: Type.Object({ org: Id, site: Id }),
  querystring: Type.Object({ saved: Type.Optional(Type.String({ maxLength: 50 })) }),
};

export const sitePage = orgHandler(schema, async (request, reply, ctx) => {
  const { db, urls } = ctx.deps;
  const org = ctx.org.id;
  const { site, model, access, permissions } = await requireSiteWithModel(db, ctx.actor, org, request.params.site);
  const spaces = await loadSpacesForSite(
    db,
    access,
    model.siteSpaces.map((s) => s.spaceId),
  );
  const canRead = (spaceId: string) => atLeast(spaces.get(spaceId)?.level, "read");
  const canEdit = sitePermissions(access, site).edit;
  const settings = parseCustomization(site.customization);
  const grantsPolicy = siteGrantsPolicy(access, permissions);
  const saved = request.query.saved;
  const panels = html`${canEdit ? html`<p><a class="button" href="${appPath.site(org, site.id)}/insights">Insights</a> <span class="muted small">views, searches, questions and agents' reads of the published site</span></p>` : ""}${customizationPanel(
    {
      site,
      action: canEdit ? `${appPath.site(org, site.id)}/customization` : undefined,
      settings,
      customized: site.customization !== null,
      saved: request.query.saved === "customization",
      csrf: ctx.csrf(),
    },
  )}
      ${canEdit ? feedbackPanel(settings.feedback.enabled === true, await loadFeedback(db, site.id, model.siteSpaces, canRead)) : ""}
      ${redirectsPanel({
        redirects: await loadShownRedirects(db, model),
        action: canEdit ? `${appPath.site(org, site.id)}/redirects` : undefined,
        saved: saved ? SAVED_REDIRECTS[saved] : undefined,
        csrf: ctx.csrf(),
      })}
      ${accessPanel({
        grants: grantsPolicy.list ? await loadSiteGrants(db, ctx.deps.dialect, site) : undefined,
        action: grantsPolicy.manage ? `${appPath.site(org, site.id)}/permissions` : undefined,
        saved: saved === "access",
        csrf: ctx.csrf(),
      })}`;
  const body = siteBody({ org, site, model, address: (...segments) => urls.site(site.basename, ...segments), canRead, panels });
  return sendOrgPage(reply, ctx, {
    title: site.title,
    body,
    crumbs: [orgCrumb(ctx), { label: "Sites", href: `${appPath.org(org)}#sites` }, { label: site.title }],
  });
});
