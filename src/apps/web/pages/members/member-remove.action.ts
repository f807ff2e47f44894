/** Removes a member (or leaves) from the members page, as DELETE /v1/orgs/{organizationId}/members/{userId}. */
import Type from "typebox";
import { missing } from "../../../../lib/errors.js";
import { memberNotFound } from "../../../../modules/members/members.policy.js";
import { removeMember } from "../../../../modules/members/members.service.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { Id } from "../../web.schemas.js";
import { membershipPermissions, membersPath } from "./members.steps.js";

const schema = { params: Type.Object({ org: Id, userId: Id }) };

export const removeMemberForm = orgHandler(schema, async (request, reply, ctx) => {
  const { userId } = request.params;
  authorize(membershipPermissions(ctx, userId), "remove", {
    notFound: memberNotFound(userId),
    forbidden: "Only organization admins can remove other members; you can remove yourself.",
  });
  // Thrown inside the transaction: nothing removed rolls back the audit entry with it.
  await ctx.deps.db.transaction().execute(async (trx) => {
    if (!(await removeMember(trx, { orgId: ctx.org.id, userId }))) throw missing(memberNotFound(userId));
  });
  ctx.actor.access.invalidate(ctx.org.id);
  // Who left the organization has nothing more to see there.
  return reply.redirect(userId === ctx.actor.user.id ? "/app" : membersPath(ctx.org.id, "removed"), 303);
});
