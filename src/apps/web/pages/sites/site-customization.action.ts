/** Saves a site's customization from its form, for members who may edit the site (the API's rules and 403). */
import Type from "typebox";
import { notAllowed } from "../../../../lib/errors.js";
import { parseCustomization } from "../../../../modules/sites/customization.model.js";
import { requireSiteWithModel } from "../../../../modules/sites/sites.loader.js";
import { setSiteCustomization } from "../../../../modules/sites/sites.queries.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Id } from "../../web.schemas.js";
import { CustomizationForm, customizationFromForm } from "./customization.model.js";

const schema = { params: Type.Object({ org: Id, site: Id }), body: CustomizationForm };

export const saveSiteCustomization = orgHandler(schema, async (request, reply, ctx) => {
  const { site, permissions } = await requireSiteWithModel(ctx.deps.db, ctx.actor, ctx.org.id, request.params.site);
  if (!permissions.edit)
    throw notAllowed("Only members with the create role, or the edit level on this site, can read or change a site's customization.");
  const settings = customizationFromForm(parseCustomization(site.customization), request.body);
  await setSiteCustomization(ctx.deps.db, site.id, JSON.stringify(settings));
  return reply.redirect(`${appPath.site(ctx.org.id, site.id)}?saved=customization#customization`, 303);
});
