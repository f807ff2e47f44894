/** Reviews of a change request and the people asked for one. */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { notFound } from "../../http/errors.js";
import { ErrorBody, errorResponses, ListOf, ListQuery, NoContent } from "../../http/schemas.js";
import { listOf } from "../../lib/pagination.js";
import { requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { ChangeRequestParams } from "../change-requests/change-requests.schemas.js";
import { FormatQuery } from "../comments/comments.schemas.js";
import { loadRequestedReviewerUsers, loadReviewsContext } from "./change-request-reviews.loader.js";
import { presentRequestedReviewers, presentReviews } from "./change-request-reviews.presenter.js";
import { getReview, listRequestedReviewers, listReviews } from "./change-request-reviews.queries.js";
import {
  ListReviewsQuery,
  RequestedReviewerParams,
  RequestedReviewerSchema,
  RequestReviewersBody,
  RequestReviewersResponse,
  ReviewParams,
  ReviewSchema,
  SubmitReviewBody,
} from "./change-request-reviews.schemas.js";
import { prepareReview, requestReviewers, submitReview, withdrawReviewRequest } from "./change-request-reviews.service.js";

const reviewTags = ["change-requests-reviews"];
const reviewerTags = ["change-request-reviewers"];

export const reviewRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;
  const reviewsPath = "/v1/spaces/:spaceId/change-requests/:changeRequestId/reviews";
  const reviewersPath = "/v1/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers";

  app.get(
    reviewsPath,
    {
      schema: {
        tags: reviewTags,
        operationId: "getReviewsByChangeRequestId",
        description: "Reviews of the change request, newest first; `outdated` keeps only outdated (true) or current (false) ones.",
        params: ChangeRequestParams,
        querystring: ListReviewsQuery,
        response: { 200: ListOf(ReviewSchema), ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      const page = await listReviews(db, loaded.changeRequest.id, request.query);
      const items = presentReviews(await loadReviewsContext(db, loaded, page.rows), urls, {
        loaded,
        actor,
        rows: page.rows,
        format: request.query.format ?? "document",
      });
      return listOf(page, items);
    },
  );

  app.post(
    reviewsPath,
    {
      schema: {
        tags: reviewTags,
        operationId: "submitChangeRequestReview",
        description:
          "Approves the change request or requests changes, with an optional comment. Needs the review level on the space; the creator cannot review their own change request. The reviewer's earlier review becomes outdated.",
        params: ChangeRequestParams,
        querystring: FormatQuery,
        body: SubmitReviewBody,
        response: { 201: ReviewSchema, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      const prepared = await prepareReview({ loaded, actor, body: request.body });
      const row = await db.transaction().execute((trx) => submitReview(trx, prepared));
      const [review] = presentReviews(await loadReviewsContext(db, loaded, [row]), urls, {
        loaded,
        actor,
        rows: [row],
        format: request.query.format ?? "document",
      });
      reply.code(201).header("location", review!.urls.location);
      return review!;
    },
  );

  app.get(
    `${reviewsPath}/:reviewId`,
    {
      schema: {
        tags: reviewTags,
        operationId: "getChangeRequestReviewById",
        params: ReviewParams,
        querystring: FormatQuery,
        response: { 200: ReviewSchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      const row = await getReview(db, loaded.changeRequest.id, request.params.reviewId);
      if (!row) throw notFound(`No review "${request.params.reviewId}" of change request #${loaded.changeRequest.number}.`);
      const [review] = presentReviews(await loadReviewsContext(db, loaded, [row]), urls, {
        loaded,
        actor,
        rows: [row],
        format: request.query.format ?? "document",
      });
      return review!;
    },
  );

  app.get(
    reviewersPath,
    {
      schema: {
        tags: reviewerTags,
        operationId: "getRequestedReviewersByChangeRequestId",
        description: "Pending review requests, oldest first (a review answers its request).",
        params: ChangeRequestParams,
        querystring: ListQuery,
        response: { 200: ListOf(RequestedReviewerSchema), ...errorResponses },
      },
    },
    async (request) => {
      const loaded = await requireChangeRequest(db, actorOf(request), request.params.spaceId, request.params.changeRequestId);
      const page = await listRequestedReviewers(db, loaded.changeRequest.id, request.query);
      const items = presentRequestedReviewers(await loadRequestedReviewerUsers(db, page.rows), urls, page.rows);
      return listOf(page, items);
    },
  );

  app.post(
    reviewersPath,
    {
      schema: {
        tags: reviewerTags,
        operationId: "requestReviewersForChangeRequest",
        description:
          "Asks organization members with the review level on the space to review; a draft becomes open. Optionally sets the subject and description. Needs what changing the change request needs (its creator or the review level).",
        params: ChangeRequestParams,
        body: RequestReviewersBody,
        response: { 200: RequestReviewersResponse, 409: ErrorBody, ...errorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      const rows = await db.transaction().execute((trx) => requestReviewers(trx, { loaded, actor, body: request.body }));
      return { users: presentRequestedReviewers(await loadRequestedReviewerUsers(db, rows), urls, rows) };
    },
  );

  app.delete(
    `${reviewersPath}/:userId`,
    {
      schema: {
        tags: reviewerTags,
        operationId: "removeRequestedReviewerFromChangeRequest",
        description:
          "Withdraws a review request; 204 also when there was none (like every DELETE here). The reviewer may decline their own.",
        params: RequestedReviewerParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const loaded = await requireChangeRequest(db, actor, request.params.spaceId, request.params.changeRequestId);
      await withdrawReviewRequest(db, { loaded, actor, userId: request.params.userId });
      return reply.code(204).send(null);
    },
  );
};
