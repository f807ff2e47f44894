/** A Git import or export requested from the space page: the API's permission and request checks, then the job. */
import type { FastifyReply } from "fastify";
import Type from "typebox";
import { requireSyncableSpace } from "../../../../modules/git-sync/git-sync.loader.js";
import { assertExportRef, gitJobBase, requestGitRun } from "../../../../modules/git-sync/git-sync.service.js";
import { appPath } from "../../web.paths.js";
import { Csrf } from "../../web.schemas.js";
import { type OrgContext, requireOrgSpace } from "../../web.steps.js";

export const GitForm = Type.Object({
  ...Csrf,
  url: Type.String({ minLength: 1, maxLength: 4096 }),
  ref: Type.String({ minLength: 1, maxLength: 255 }),
  repoProjectDirectory: Type.Optional(Type.String({ maxLength: 1024 })),
});

export async function startGitRun(
  reply: FastifyReply,
  ctx: OrgContext,
  spaceId: string,
  form: { url: string; ref: string; repoProjectDirectory?: string | undefined; commitMessage?: string },
  kind: "import" | "export",
): Promise<FastifyReply> {
  const { db } = ctx.deps;
  await requireOrgSpace(ctx, spaceId);
  const space = await requireSyncableSpace(db, ctx.actor, spaceId);
  const body = { url: form.url.trim(), ref: form.ref.trim(), repoProjectDirectory: form.repoProjectDirectory?.trim() };
  const base = gitJobBase(ctx.deps, body, space.id, ctx.actor.user.id);
  if (kind === "import") {
    await requestGitRun(db, { kind: "git-import", payload: { ...base, standalone: false } }, {});
  } else {
    assertExportRef(base.ref);
    await requestGitRun(db, { kind: "git-export", payload: { ...base, commitMessage: form.commitMessage ?? "" } }, {});
  }
  ctx.deps.notifyJobs();
  return reply.redirect(`${appPath.space(ctx.org.id, space.id)}?git=${kind}#git`, 303);
}
