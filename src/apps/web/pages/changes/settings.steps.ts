/** The settings page of a page of a change request, as shown, or shown again with what is wrong (400). */
import type { FastifyReply } from "fastify";
import { slugify } from "../../../../content/gitbook-repo/text.js";
import type { RevisionView } from "../../../../modules/content/content.loader.js";
import { type ChangeRequestContext, sendOrgPage } from "../../web.steps.js";
import { addressOf, requireLocation } from "./changes.steps.js";
import { crumbTrail } from "./changes.views.js";
import type { PageSettingsForm, SettingsProblem } from "./settings.model.js";
import { settingsPage } from "./settings.views.js";

export async function sendSettingsPage(
  reply: FastifyReply,
  ctx: ChangeRequestContext,
  view: RevisionView,
  pageId: string,
  form: PageSettingsForm,
  problem?: SettingsProblem,
) {
  const { loaded, org } = ctx;
  const location = requireLocation(view, ctx, pageId);
  const parentPath = location.parentId === null ? "" : view.locations().get(location.parentId)!.path;
  const slug = form.slug.trim() || slugify(form.title);
  const space = { id: loaded.space.id, title: loaded.space.title };
  const body = settingsPage({
    org,
    space,
    changeRequest: loaded.changeRequest,
    page: { id: pageId, title: location.page.title, kind: location.page.kind },
    form,
    parentPath,
    address: await addressOf(ctx, parentPath ? `${parentPath}/${slug}` : slug),
    ...(problem ? { problem } : {}),
    csrf: ctx.csrf(),
  });
  const name = location.page.title || "Untitled page";
  return sendOrgPage(reply, ctx, {
    status: problem ? 400 : 200,
    title: `Settings of ${name}`,
    body,
    crumbs: crumbTrail(org, space, loaded.changeRequest, `Settings of “${name}”`),
    wide: true,
  });
}
