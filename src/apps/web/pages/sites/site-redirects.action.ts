/** A site's redirects from its page's forms: add, edit, delete, paste a list; for members who may edit the site (the API's rules and 403). */
import Type from "typebox";
import type { Executor } from "../../../../db/database.js";
import { conflicting, invalid, missing } from "../../../../lib/errors.js";
import { deleteSiteRedirectRow, findSiteRedirectBySource, getSiteRedirect } from "../../../../modules/sites/redirects.queries.js";
import type { BulkItem } from "../../../../modules/sites/redirects.schemas.js";
import { bulkUpsertRedirects } from "../../../../modules/sites/redirects.service.js";
import { inSiteTransaction, requireSite } from "../../../../modules/sites/sites.loader.js";
import { allow } from "../../../../modules/sites/sites.policy.js";
import type { SiteModel } from "../../../../modules/sites/structure.model.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Csrf, Id } from "../../web.schemas.js";
import { itemFromForm, itemsFromPaste, PasteForm, RedirectForm } from "./redirects-form.model.js";

const EDIT_MESSAGE = "Only members with the create role, or the edit level on this site, can change its redirects.";
const Params = Type.Object({ org: Id, site: Id });
const OneParams = Type.Object({ org: Id, site: Id, redirect: Id });

/** Applies the items in one transaction; any refused item refuses them all, naming the first few. */
async function applyAll(trx: Executor, model: SiteModel, items: BulkItem[]): Promise<number> {
  const results = await bulkUpsertRedirects(trx, model, items);
  const refused = results.filter((r) => r.status === "error");
  if (refused.length > 0) {
    const named = refused.slice(0, 5).map((r) => `${r.source}: ${"error" in r ? r.error : "refused"}`);
    throw invalid(
      `Nothing was saved: ${refused.length} of ${items.length} redirects cannot apply. ${named.join(" ")}${refused.length > 5 ? " …" : ""}`,
    );
  }
  return results.length;
}

const back = (org: string, site: string, saved: string) => `${appPath.site(org, site)}?saved=${saved}#redirects`;

async function editableSite(ctx: Parameters<Parameters<typeof orgHandler>[1]>[2], siteId: string) {
  const { site, permissions } = await requireSite(ctx.deps.db, ctx.actor, ctx.org.id, siteId);
  allow(permissions.edit, EDIT_MESSAGE);
  return site;
}

export const addSiteRedirect = orgHandler({ params: Params, body: RedirectForm }, async (request, reply, ctx) => {
  const site = await editableSite(ctx, request.params.site);
  await inSiteTransaction(ctx.deps.db, site, (trx, model) => applyAll(trx, model, [itemFromForm(model, request.body)]));
  return reply.redirect(back(ctx.org.id, site.id, "redirect-added"), 303);
});

export const pasteSiteRedirects = orgHandler({ params: Params, body: PasteForm }, async (request, reply, ctx) => {
  const site = await editableSite(ctx, request.params.site);
  await inSiteTransaction(ctx.deps.db, site, (trx, model) => applyAll(trx, model, itemsFromPaste(model, request.body.lines)));
  return reply.redirect(back(ctx.org.id, site.id, "redirects-pasted"), 303);
});

export const editSiteRedirect = orgHandler({ params: OneParams, body: RedirectForm }, async (request, reply, ctx) => {
  const site = await editableSite(ctx, request.params.site);
  const id = request.params.redirect;
  await inSiteTransaction(ctx.deps.db, site, async (trx, model) => {
    const current = await getSiteRedirect(trx, site.id, id);
    if (!current || current.draft === 1) throw missing(`No redirect with id "${id}" on this site.`);
    const item = itemFromForm(model, request.body);
    const items: BulkItem[] = [item];
    if (item.source !== current.source) {
      if (await findSiteRedirectBySource(trx, site.id, item.source, false)) {
        throw conflicting(`This site already has a redirect of "${item.source}": change that one instead.`);
      }
      items.unshift({ source: current.source, destination: null });
    }
    await applyAll(trx, model, items);
  });
  return reply.redirect(back(ctx.org.id, site.id, "redirect-saved"), 303);
});

export const deleteSiteRedirect = orgHandler({ params: OneParams, body: Type.Object({ ...Csrf }) }, async (request, reply, ctx) => {
  const site = await editableSite(ctx, request.params.site);
  const id = request.params.redirect;
  const deleted = await inSiteTransaction(ctx.deps.db, site, (trx) => deleteSiteRedirectRow(trx, site.id, id));
  if (!deleted) throw missing(`No redirect with id "${id}" on this site: it may have been deleted already.`);
  return reply.redirect(back(ctx.org.id, site.id, "redirect-deleted"), 303);
});
