/**
 * Creates a space from the organization page, as POST /v1/orgs/{organizationId}/spaces does (the
 * same check of where the member may create), blank, starting with the content of a space of
 * the organization the member may read (a template), or with a built-in template's sample pages.
 */
import Type from "typebox";
import { invalid } from "../../../../lib/errors.js";
import { requireCreateDestination } from "../../../../modules/collections/collections.loader.js";
import { createSpace } from "../../../../modules/spaces/spaces.service.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { ContentTitle, OrgParams } from "../../web.schemas.js";
import { requireOrgSpace } from "../../web.steps.js";
import { spaceTemplate, templateContent } from "./space-templates.steps.js";

const schema = {
  params: OrgParams,
  body: Type.Object({
    title: ContentTitle,
    parent: Type.Optional(Type.String({ maxLength: 100 })),
    template: Type.Optional(Type.String({ maxLength: 100 })),
  }),
};

export const createSpaceForm = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const title = request.body.title.trim();
  if (!title) throw invalid("A new space needs a title.");
  const { access } = await requireCreateDestination(db, ctx.actor, ctx.org.id, request.body.parent || null);
  // A built-in template (sample pages), or a space: reading it is enough to start from its content (as duplicating it through the API).
  const chosen = request.body.template || undefined;
  const builtIn = chosen ? spaceTemplate(chosen) : undefined;
  const startContent = builtIn ? await templateContent(db, builtIn.id) : undefined;
  const template = chosen && !builtIn ? (await requireOrgSpace(ctx, chosen, { live: true })).space : undefined;
  const space = await db.transaction().execute((trx) =>
    createSpace(trx, {
      orgId: ctx.org.id,
      parentId: request.body.parent || null,
      title,
      contentOf: template,
      startContent,
      access,
      actorId: ctx.actor.user.id,
    }),
  );
  ctx.actor.access.invalidate(ctx.org.id);
  return reply.redirect(appPath.space(ctx.org.id, space.id), 303);
});
