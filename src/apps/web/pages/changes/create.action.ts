/** Creates a change request in the space, for members who may edit it (the API's rule and 403). */
import Type from "typebox";
import { refuseWrite } from "../../../../modules/change-requests/change-requests.policy.js";
import { createChangeRequest } from "../../../../modules/change-requests/change-requests.service.js";
import { orgHandler } from "../../web.kinds.js";
import { SpaceParams } from "../../web.schemas.js";
import { requireOrgSpace } from "../../web.steps.js";

const schema = { params: SpaceParams, body: Type.Object({ subject: Type.Optional(Type.String({ maxLength: 100 })) }) };

export const createChangeRequestForm = orgHandler(schema, async (request, reply, ctx) => {
  const loaded = await requireOrgSpace(ctx, request.params.space, { live: true });
  refuseWrite(loaded, loaded.permissions.edit, "edit", "create change requests in it");
  const subject = request.body.subject?.trim() || undefined;
  const row = await ctx.deps.db
    .transaction()
    .execute((trx) => createChangeRequest(trx, { space: loaded.space, actorId: ctx.actor.user.id, subject }));
  return reply.redirect(`/app/o/${loaded.space.orgId}/s/${loaded.space.id}/~/changes/${row.number}?done=created`, 303);
});
