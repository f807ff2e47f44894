/** An organization's members: everyone but guests reads the list (as the API); admins manage it. */
import Type from "typebox";
import { GUEST_FORBIDDEN } from "../../../../modules/members/members.policy.js";
import { listMembers } from "../../../../modules/members/members.queries.js";
import { organizationPermissions } from "../../../../modules/organizations/organizations.policy.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { OrgParams } from "../../web.schemas.js";
import { orgCrumb, sendOrgPage } from "../../web.steps.js";
import { MEMBER_NOTICES } from "./members.steps.js";
import { membersBody } from "./members.views.js";

const schema = {
  params: OrgParams,
  querystring: Type.Object({
    search: Type.Optional(Type.String({ maxLength: 256 })),
    page: Type.Optional(Type.String({ maxLength: 1000 })),
    done: Type.Optional(Type.String({ maxLength: 40 })),
  }),
};

export const membersPage = orgHandler(schema, async (request, reply, ctx) => {
  const { org } = ctx;
  const permissions = organizationPermissions(ctx.access);
  authorize(permissions, "listMembers", { notFound: `No organization with id "${org.id}".`, forbidden: GUEST_FORBIDDEN });
  const search = request.query.search?.trim() ?? "";
  const page = await listMembers(ctx.deps.db, ctx.deps.dialect, org.id, {
    order: "asc",
    sort: "joinedAt",
    limit: 100,
    ...(search ? { search } : {}),
    ...(request.query.page ? { page: request.query.page } : {}),
  });
  const body = membersBody({
    org: { id: org.id, title: org.title, defaultRole: org.defaultRole },
    members: page.rows.map((m) => ({
      userId: m.userId,
      displayName: m.user.displayName,
      email: m.user.email,
      role: m.role,
      joinedAt: m.joinedAt,
      pending: Boolean(m.user.pending),
    })),
    actorId: ctx.actor.user.id,
    admin: permissions.admin,
    search,
    next: page.next?.page,
    notice: request.query.done ? MEMBER_NOTICES[request.query.done] : undefined,
    csrf: ctx.csrf(),
  });
  return sendOrgPage(reply, ctx, { title: `Members of ${org.title}`, body, crumbs: [orgCrumb(ctx), { label: "Members" }], wide: true });
});
