/** An organization: the spaces, collections, sites, OpenAPI specs and conversation topics the member may see. */

import { canCreateIn } from "../../../../modules/collections/collections.policy.js";
import { conversationsPermissions } from "../../../../modules/conversations/conversations.policy.js";
import { listClusters } from "../../../../modules/conversations/conversations.queries.js";
import { loadSpecsOrg } from "../../../../modules/openapi/openapi.loader.js";
import { listSpecs } from "../../../../modules/openapi/openapi.queries.js";
import { listSites } from "../../../../modules/sites/sites.queries.js";
import { orgHandler } from "../../web.kinds.js";
import { OrgParams } from "../../web.schemas.js";
import { sendOrgPage } from "../../web.steps.js";
import { readableSpaces, viewableCollections } from "./org.steps.js";
import { orgBody } from "./org.views.js";
import { SPACE_TEMPLATES } from "./space-templates.steps.js";

export const orgPage = orgHandler({ params: OrgParams }, async (_request, reply, ctx) => {
  const { db, dialect } = ctx.deps;
  const { org, access } = ctx;
  const collections = await viewableCollections(db, access, org.id);
  const spaces = (await readableSpaces(db, access, { orgId: org.id })).sort((a, b) => a.title.localeCompare(b.title));
  // Guests see the sites granted to them; members with a role see every one.
  const sites = (
    await listSites(db, dialect, org.id, { limit: 100, only: access.membership?.role ? undefined : [...access.grants.keys()] })
  ).rows;
  const specs = (await loadSpecsOrg(db, ctx.actor, org.id)).permissions.view ? (await listSpecs(db, org.id, { limit: 100 })).rows : [];
  const topics = conversationsPermissions(access).view
    ? (await listClusters(db, org.id, { orderBy: "updatedAt", order: "desc", limit: 20 })).rows
    : [];
  const places = [
    ...(canCreateIn(access, null) ? [{ id: null, title: "" }] : []),
    ...collections.filter((c) => canCreateIn(access, c)).map((c) => ({ id: c.id, title: c.title })),
  ];
  const create = { places, csrf: places.length > 0 ? ctx.csrf() : "", templates: SPACE_TEMPLATES };
  const body = orgBody({ org, role: access.membership?.role ?? null, spaces, collections, sites, specs, topics, create });
  return sendOrgPage(reply, ctx, { title: org.title, body, crumbs: [{ label: org.title }], wide: true });
});
