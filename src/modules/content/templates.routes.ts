/** POST /v1/spaces/{spaceId}/content/template: adds a built-in template's pages to the content. */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import Type from "typebox";
import type { ContentRef } from "../../content/document/types.js";
import { commitRevision, PrimaryMoved } from "../../content/revision/commit.js";
import { getSpaceRevision } from "../../content/revision/revisions.queries.js";
import { loadContent, saveDocumentsJson } from "../../content/revision/storage.js";
import { requestSearchIndex } from "../../content/search/search-index.jobs.js";
import { storeImportedBlobs } from "../../content/store/blobs.queries.js";
import { appendContent, listTemplates, TemplateError, templateContent } from "../../content/templates/templates.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { badRequest, conflict } from "../../http/errors.js";
import { errorResponses, NoContent } from "../../http/schemas.js";
import { nowIso } from "../../lib/time.js";
import { authorize } from "../../permissions/authorize.js";
import { requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { appendToChangeRequest } from "../change-requests/change-requests.service.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { SpaceContentParams } from "./content.schemas.js";

const ContentRefSchema = Type.Record(Type.String(), Type.Unknown(), { description: "A content reference: {kind, ...}" });

export const ApplyTemplateBody = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 100,
    description: `A built-in template: ${listTemplates()
      .map((t) => t.id)
      .join(", ")}`,
  }),
  params: Type.Optional(Type.Object({ contentRefs: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), ContentRefSchema)) })),
  changeRequestId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

export const templateRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;

  app.post(
    "/v1/spaces/:spaceId/content/template",
    {
      schema: {
        tags: ["content"],
        operationId: "applyTemplateToSpace",
        description:
          "Adds the pages of a built-in template at the end of the space's content (or of the change request `changeRequestId`), as one new revision.",
        params: SpaceContentParams,
        body: ApplyTemplateBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { space, permissions } = await requireLiveSpace(db, actor, request.params.spaceId);
      authorize(permissions, "edit", {
        notFound: `No space with id "${space.id}".`,
        forbidden:
          space.editMode === "locked"
            ? "The space is locked: unlock it before adding content."
            : "Only members who can edit the space can apply a template.",
      });
      let imported: Awaited<ReturnType<typeof templateContent>>;
      try {
        imported = await templateContent(
          request.body.id,
          (request.body.params?.contentRefs ?? {}) as unknown as Record<string, ContentRef>,
          nowIso(),
        );
      } catch (error) {
        if (error instanceof TemplateError) throw badRequest(error.message);
        throw error;
      }
      if (request.body.changeRequestId) {
        const loaded = await requireChangeRequest(db, actor, space.id, request.body.changeRequestId);
        await appendToChangeRequest(db, { spaceId: space.id, changeRequestId: loaded.changeRequest.id, actorId: actor.user.id, imported });
        return reply.code(204).send(null);
      }
      // The template is appended to the content this request saw; if another write moved the
      // primary meanwhile, the caller is told to try again rather than overwriting it.
      await db
        .transaction()
        .execute(async (trx) => {
          const current = await getSpaceRevision(trx, space.id, space.revisionId);
          const content = await loadContent(trx, current?.treeHash ?? null);
          await storeImportedBlobs(trx, imported.blobs);
          await saveDocumentsJson(trx, imported.documents);
          await commitRevision(trx, {
            spaceId: space.id,
            parents: [space.revisionId],
            type: "edits",
            content: appendContent(content, imported.content),
            createdBy: actor.user.id,
            movePrimaryFrom: space.revisionId,
          });
          await requestSearchIndex(trx, space.id);
        })
        .catch((error: unknown) => {
          throw error instanceof PrimaryMoved ? conflict(error.message) : error;
        });
      deps.notifyJobs();
      return reply.code(204).send(null);
    },
  );
};
