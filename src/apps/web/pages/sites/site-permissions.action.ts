/** Who has access to a site, from its page's forms: a member's or a team's level set or removed, as the API's PATCH does (its rules, 403 and 404). */
import Type from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { siteGrantsPolicy } from "../../../../modules/content-permissions/content-permissions.policy.js";
import { assertPrincipalsInOrganization, setGrants } from "../../../../modules/content-permissions/content-permissions.service.js";
import { getMembersByEmails } from "../../../../modules/members/members.queries.js";
import { requireSite } from "../../../../modules/sites/sites.loader.js";
import { authorize } from "../../../../permissions/authorize.js";
import { isRole, type Role } from "../../../../permissions/roles.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Csrf, Id } from "../../web.schemas.js";

const Params = Type.Object({ org: Id, site: Id });
const RoleField = Type.String({ maxLength: 20 });
const UserForm = Type.Object({
  ...Csrf,
  userId: Type.Optional(Id),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  role: RoleField,
});
const TeamForm = Type.Object({ ...Csrf, teamId: Id, role: RoleField });

/** The level a form chose: null removes the grant. */
function roleOf(value: string): Role | null {
  if (value === "") return null;
  if (!isRole(value)) throw invalid(`"${value.slice(0, 20)}" is not a level: choose admin, create, review, edit, comment or read.`);
  return value;
}

type Ctx = Parameters<Parameters<typeof orgHandler>[1]>[2];

async function setSiteGrant(ctx: Ctx, siteId: string, principal: { users: string[]; teams: string[] }, role: Role | null) {
  const { db } = ctx.deps;
  const loaded = await requireSite(db, ctx.actor, ctx.org.id, siteId);
  authorize(siteGrantsPolicy(loaded.access, loaded.permissions), "manage", {
    notFound: `No site with id "${siteId}" in this organization.`,
    forbidden:
      "Only organization admins, the site's creator and members with the admin level on this site can change who has access to it.",
  });
  const { site } = loaded;
  // Removing is allowed for an id that is no longer a member or team (its grant may linger).
  if (role !== null) await assertPrincipalsInOrganization(db, site.orgId, principal);
  await db.transaction().execute((trx) => setGrants(trx, { target: { type: "site", id: site.id, orgId: site.orgId }, role, ...principal }));
  ctx.actor.access.invalidate(site.orgId);
  return site;
}

export const setSiteUserPermission = orgHandler({ params: Params, body: UserForm }, async (request, reply, ctx) => {
  const { userId, email } = request.body;
  let id = userId;
  if (!id) {
    const address = email?.trim() ?? "";
    if (address === "") throw invalid("Give the member's email address.");
    const [member] = await getMembersByEmails(ctx.deps.db, ctx.org.id, [address]);
    if (!member) throw invalid(`No member of this organization has the address "${address.slice(0, 320)}": invite them first.`);
    id = member.user.id;
  }
  const site = await setSiteGrant(ctx, request.params.site, { users: [id], teams: [] }, roleOf(request.body.role));
  return reply.redirect(`${appPath.site(ctx.org.id, site.id)}?saved=access#access`, 303);
});

export const setSiteTeamPermission = orgHandler({ params: Params, body: TeamForm }, async (request, reply, ctx) => {
  const site = await setSiteGrant(ctx, request.params.site, { users: [], teams: [request.body.teamId] }, roleOf(request.body.role));
  return reply.redirect(`${appPath.site(ctx.org.id, site.id)}?saved=access#access`, 303);
});
