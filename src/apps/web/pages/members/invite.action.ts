/**
 * Invites people by email from the members page, as POST /v1/orgs/{organizationId}/invites does:
 * organization admins only, every address checked before anyone is added, all or none.
 */
import Type from "typebox";
import { isUniqueViolation } from "../../../../db/dialect.js";
import { conflicting, invalid } from "../../../../lib/errors.js";
import { isInvitableEmail } from "../../../../modules/invites/invites.policy.js";
import { inviteUsers } from "../../../../modules/invites/invites.service.js";
import { organizationPermissions } from "../../../../modules/organizations/organizations.policy.js";
import { normalizeEmail } from "../../../../modules/users/users.queries.js";
import { authorize } from "../../../../permissions/authorize.js";
import { orgHandler } from "../../web.kinds.js";
import { OrgParams } from "../../web.schemas.js";
import { membersPath } from "./members.steps.js";
import { ROLE_CHOICES } from "./members.views.js";

const MAX_INVITES = 100;

const schema = {
  params: OrgParams,
  body: Type.Object({ emails: Type.String({ maxLength: 20_000 }), role: Type.Enum([...ROLE_CHOICES]) }),
};

export const inviteForm = orgHandler(schema, async (request, reply, ctx) => {
  authorize(organizationPermissions(ctx.access), "admin", {
    notFound: `No organization with id "${ctx.org.id}".`,
    forbidden: "Only organization admins can invite people.",
  });
  const emails = [
    ...new Set(
      request.body.emails
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map(normalizeEmail),
    ),
  ];
  if (emails.length === 0) throw invalid("Type at least one email address to invite.");
  if (emails.length > MAX_INVITES) throw invalid(`Invite at most ${MAX_INVITES} people at once (you typed ${emails.length} addresses).`);
  const wrong = emails.filter((e) => !isInvitableEmail(e));
  if (wrong.length > 0)
    throw invalid(`Not an email address: ${wrong.slice(0, 5).join(", ")}. Nobody was invited; correct it and try again.`);
  const role = request.body.role === "guest" ? null : request.body.role;
  try {
    const result = await ctx.deps.db
      .transaction()
      .execute((trx) => inviteUsers(trx, { orgId: ctx.org.id, invites: emails.map((email) => ({ email, role })), sso: false }));
    ctx.actor.access.invalidate(ctx.org.id);
    return reply.redirect(membersPath(ctx.org.id, result.invited > 0 ? "invited" : "already-members"), 303);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflicting("Another request created one of these accounts at the same time; invite again.");
    throw error;
  }
});
