/** Changes a member's role from the members page, as PATCH /v1/orgs/{organizationId}/members/{userId}: admins only, never the last admin away. */
import Type from "typebox";
import { memberNotFound } from "../../../../modules/members/members.policy.js";
import { changeMemberRole } from "../../../../modules/members/members.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { membershipPermissions, membersPath } from "./members.steps.js";
import { ROLE_CHOICES } from "./members.views.js";

const schema = { params: Type.Object({ org: Id, userId: Id }), body: Type.Object({ role: Type.Enum([...ROLE_CHOICES]) }) };

export const changeRoleForm = orgHandler(schema, async (request, reply, ctx) => {
  const { userId } = request.params;
  authorize(membershipPermissions(ctx, userId), "update", {
    notFound: memberNotFound(userId),
    forbidden: "Only organization admins can change a member's role.",
  });
  const role = request.body.role === "guest" ? null : request.body.role;
  await ctx.deps.db.transaction().execute((trx) => changeMemberRole(trx, { orgId: ctx.org.id, userId, role }));
  ctx.actor.access.invalidate(ctx.org.id);
  return reply.redirect(membersPath(ctx.org.id, "role"), 303);
});
