/** Resolves one page's Git sync conflict: keep Git's version, Quire's, or merge them (a side chosen per block). */
import Type from "typebox";
import type { ConflictChoice } from "../../../../content/git-sync/conflicts.js";
import { invalid } from "../../../../lib/errors.js";
import { resolveGitConflict } from "../../../../modules/git-sync/git-conflicts.service.js";
import { requireSyncableSpace } from "../../../../modules/git-sync/git-sync.loader.js";
import { orgHandler } from "../../web.kinds.js";
import { appPath } from "../../web.paths.js";
import { Csrf, Id } from "../../web.schemas.js";
import { requireOrgSpace } from "../../web.steps.js";

/** Block choices arrive as `block.<key>` fields; at most this many are read. */
const MAX_BLOCK_CHOICES = 2000;

const schema = {
  params: Type.Object({ org: Id, space: Id, page: Id }),
  body: Type.Object(
    {
      ...Csrf,
      keep: Type.Enum(["git", "quire", "merge"]),
      revision: Type.Optional(Type.String({ maxLength: 64 })),
    },
    { additionalProperties: Type.String({ maxLength: 10 }), maxProperties: MAX_BLOCK_CHOICES + 4 },
  ),
};

export const gitResolveConflict = orgHandler(schema, async (request, reply, ctx) => {
  await requireOrgSpace(ctx, request.params.space);
  const space = await requireSyncableSpace(ctx.deps.db, ctx.actor, request.params.space);
  const body = request.body as Record<string, string>;
  let choice: ConflictChoice;
  if (request.body.keep === "merge") {
    const blocks: Record<string, "git" | "quire"> = {};
    for (const [field, value] of Object.entries(body)) {
      if (!field.startsWith("block.")) continue;
      if (value !== "git" && value !== "quire") throw invalid(`A block's side is "git" or "quire", got ${JSON.stringify(value)}.`);
      blocks[field.slice("block.".length)] = value;
    }
    choice = { keep: "merge", blocks };
  } else {
    choice = { keep: request.body.keep };
  }
  await ctx.deps.db.transaction().execute((trx) =>
    resolveGitConflict(trx, {
      spaceId: space.id,
      pageId: request.params.page,
      choice,
      actorId: ctx.actor.user.id,
      expectedRevision: request.body.revision,
    }),
  );
  return reply.redirect(`${appPath.space(ctx.org.id, space.id)}/git/conflicts?kept=${request.body.keep}`, 303);
});
