import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { isUniqueViolation } from "../../db/dialect.js";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { invalid, notAllowed } from "../../lib/errors.js";
import { listOf, paginateRows } from "../../lib/pagination.js";
import { authorize } from "../../permissions/authorize.js";
import { requireCreateDestination } from "../collections/collections.loader.js";
import { OrganizationParams } from "../organizations/organizations.schemas.js";
import { getSpace } from "../spaces/spaces.queries.js";
import { translatorFor } from "./engines.adapter.js";
import { requestTranslationRun } from "./translations.jobs.js";
import {
  requireMemberOrg,
  requireTranslation,
  requireTranslationSource,
  translationNotFound,
  visibleTranslations,
} from "./translations.loader.js";
import { translationPermissions } from "./translations.policy.js";
import { presentTranslation } from "./translations.presenter.js";
import { deleteTranslation, getTranslation, updateInstructions } from "./translations.queries.js";
import { CreateTranslationBody, TranslationParams, TranslationSchema, UpdateTranslationBody } from "./translations.schemas.js";
import { createTranslation, validateNewTranslation } from "./translations.service.js";

const tags = ["translations"];

/** Translations of an organization: a source space kept translated into a space of its own. */
export const translationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;
  const adminOnly = "Only organization admins can create, change, run or delete translations.";

  app.get(
    "/v1/orgs/:organizationId/translations",
    {
      schema: {
        tags,
        operationId: "listTranslations",
        params: OrganizationParams,
        querystring: ListQuery,
        response: { 200: ListOf(TranslationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireMemberOrg(db, actorOf(request), request.params.organizationId);
      const visible = await visibleTranslations(db, loaded);
      const page = paginateRows(
        visible,
        [
          { direction: "asc", value: (t) => t.translation.createdAt },
          { direction: "asc", value: (t) => t.translation.id },
        ],
        request.query,
      );
      return listOf(
        page,
        page.rows.map((t) => presentTranslation(t.translation, t.permissions, urls)),
      );
    },
  );

  app.post(
    "/v1/orgs/:organizationId/translations",
    {
      schema: {
        tags,
        operationId: "createTranslation",
        description:
          "Creates a translation of `source.space` into `language`: a new locked space next to the source, with the source's default level and user and team grants (it reads like the source, no wider), translated by runs. Organization admins only; the caller must be able to read the source (400 as for an unknown space otherwise) and to create content where it is (the organization's top level or its collection). Every run first checks that nobody reads the translated space who cannot read the source, and fails with a message saying who otherwise.",
        params: OrganizationParams,
        body: CreateTranslationBody,
        response: { 201: TranslationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { org, access, admin } = await requireMemberOrg(db, actor, request.params.organizationId);
      if (!admin) throw notAllowed(adminOnly);
      // A translation shows its source's content in a new space next to it: the caller must read
      // the one and may create in the other's place.
      const source = await requireTranslationSource(db, access, request.body.source.space);
      await requireCreateDestination(db, actor, org.id, source.parentId);
      await validateNewTranslation(db, source, request.body, translatorFor(deps.config.translator));
      let translation: Awaited<ReturnType<typeof createTranslation>>;
      try {
        translation = await db
          .transaction()
          .execute((trx) => createTranslation(trx, { orgId: org.id, source, body: request.body, access, actorId: actor.user.id }));
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw invalid(`Space "${source.id}" already has a translation into "${request.body.language}"; run or delete that one.`);
        }
        throw error;
      }
      deps.notifyJobs();
      actor.access.invalidate(org.id);
      const permissions = translationPermissions(await actor.access.forOrg(org.id), source);
      reply.code(201).header("location", urls.api(`/orgs/${org.id}/translations/${translation.id}`));
      return presentTranslation(translation, permissions, urls);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/translations/:translationId",
    {
      schema: {
        tags,
        operationId: "getTranslation",
        params: TranslationParams,
        response: { 200: TranslationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { translation, permissions } = await requireTranslation(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.translationId,
      );
      return presentTranslation(translation, permissions, urls);
    },
  );

  app.put(
    "/v1/orgs/:organizationId/translations/:translationId",
    {
      schema: {
        tags,
        operationId: "updateTranslation",
        params: TranslationParams,
        body: UpdateTranslationBody,
        response: { 200: TranslationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org, translation, permissions } = await requireTranslation(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.translationId,
      );
      authorize(permissions, "edit", { notFound: translationNotFound(translation.id).message, forbidden: adminOnly });
      await updateInstructions(db, translation.id, request.body.instructions);
      const updated = (await getTranslation(db, org.id, translation.id)) ?? translation;
      return presentTranslation(updated, permissions, urls);
    },
  );

  app.delete(
    "/v1/orgs/:organizationId/translations/:translationId",
    {
      schema: {
        tags,
        operationId: "deleteTranslation",
        params: TranslationParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, admin } = await requireMemberOrg(db, actorOf(request), request.params.organizationId);
      // Checked before looking the translation up, so that the answer does not tell whether it exists.
      if (!admin) throw notAllowed(adminOnly);
      await db.transaction().execute((trx) => deleteTranslation(trx, org.id, request.params.translationId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/orgs/:organizationId/translations/:translationId/run",
    {
      schema: {
        tags,
        operationId: "runTranslation",
        params: TranslationParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { translation, permissions } = await requireTranslation(
        db,
        actorOf(request),
        request.params.organizationId,
        request.params.translationId,
      );
      authorize(permissions, "edit", { notFound: translationNotFound(translation.id).message, forbidden: adminOnly });
      const source = await getSpace(db, translation.sourceSpaceId);
      if (!source || source.deletedAt) {
        throw invalid(`The source space "${translation.sourceSpaceId}" is deleted; restore it before running its translation.`);
      }
      await db.transaction().execute((trx) => requestTranslationRun(trx, translation.id, source.revisionId));
      deps.notifyJobs();
      return reply.code(204).send(null);
    },
  );
};
