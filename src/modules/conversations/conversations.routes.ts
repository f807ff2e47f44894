/**
 * Support conversations of an organization: ingest (one or many), list and read conversations, the
 * issues the analysis found in them, and the clusters that group those issues.
 */
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError } from "fastify";
import type { Deps } from "../../deps.js";
import { actorOf } from "../../http/authenticate.js";
import { formatValidationError } from "../../http/error-handler.js";
import { errorResponses, ListOf, NoContent } from "../../http/schemas.js";
import { invalid, missing } from "../../lib/errors.js";
import { lazily } from "../../lib/lazy.js";
import { listOf } from "../../lib/pagination.js";
import { nowIso } from "../../lib/time.js";
import { loadConversations, readableSpaceIds } from "./conversations.loader.js";
import {
  presentCluster,
  presentConversation,
  presentConversationDetail,
  presentIssue,
  presentIssueWithConversation,
} from "./conversations.presenter.js";
import {
  conversationsByIds,
  getAnalysisState,
  getCluster,
  getConversation,
  getIssue,
  listClusters,
  listConversations,
  listIssues,
} from "./conversations.queries.js";
import {
  ClusterParams,
  ClusterSchema,
  ConversationDetailSchema,
  ConversationInput,
  type ConversationInputValue,
  ConversationParams,
  ConversationSchema,
  ConversationsParams,
  IngestBody,
  IngestQuery,
  IssueParams,
  IssueWithConversation,
  ListClustersQuery,
  ListConversationsQuery,
  ListIssuesQuery,
  MAX_CONVERSATIONS_PER_REQUEST,
} from "./conversations.schemas.js";
import { ingestConversations } from "./conversations.service.js";

const tags = ["conversations"];

/** TypeBox's value checker (some 300 modules beside TypeBox's types): loaded by the first ingest body refused. */
const typeboxValue = lazily(() => import("typebox/value"));

/**
 * The first thing wrong in an ingest body, named precisely: the body is one conversation or an
 * array of them, and a schema union would otherwise report the branch the caller did not mean.
 */
async function ingestBodyError(body: unknown): Promise<string> {
  const items = Array.isArray(body) ? body : [body];
  if (!Array.isArray(body) && (typeof body !== "object" || body === null)) {
    return "The request body must be a conversation object or an array of conversation objects.";
  }
  if (items.length > MAX_CONVERSATIONS_PER_REQUEST) {
    return `The request body must have at most ${MAX_CONVERSATIONS_PER_REQUEST} conversations; send more in several requests.`;
  }
  const { Value } = await typeboxValue();
  for (const [index, item] of items.entries()) {
    const [first] = [...Value.Errors(ConversationInput, item)];
    if (!first) continue;
    const prefix = Array.isArray(body) ? `/${index}` : "";
    const params = first.params as Record<string, unknown>;
    const missingProperty = Array.isArray(params.requiredProperties) ? params.requiredProperties[0] : undefined;
    return formatValidationError(
      [
        {
          keyword: first.keyword,
          instancePath: `${prefix}${first.instancePath}`,
          message: first.message,
          params: missingProperty !== undefined ? { ...params, missingProperty } : params,
        },
      ],
      "body",
    );
  }
  return "The request body must be a conversation object or an array of conversation objects.";
}

export const conversationRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db, urls } = deps;

  app.post(
    "/v1/orgs/:organizationId/conversations",
    {
      attachValidation: true,
      schema: {
        tags,
        operationId: "ingestConversation",
        summary: "Ingest conversations",
        description:
          "One conversation or an array of them. Personal data (emails, phone numbers, payment card numbers) and secrets are redacted before anything is stored. " +
          "An id already ingested from the same source is replaced. The analysis into issues and clusters follows as a job.",
        params: ConversationsParams,
        querystring: IngestQuery,
        body: IngestBody,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      if (request.validationError) {
        if ((request.validationError as FastifyError).validationContext !== "body") throw request.validationError;
        throw invalid(await ingestBodyError(request.body));
      }
      const { org } = await loadConversations(db, actor, request.params.organizationId, "ingest");
      const body = request.body as ConversationInputValue | ConversationInputValue[];
      const conversations = Array.isArray(body) ? body : [body];
      const source = request.query.source ?? `integration:api:${actor.user.id}`;
      await db.transaction().execute((trx) => ingestConversations(trx, { orgId: org.id, source, conversations, now: nowIso() }));
      deps.notifyJobs();
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/conversations",
    {
      schema: {
        tags,
        operationId: "listConversations",
        summary: "List conversations, newest first",
        params: ConversationsParams,
        querystring: ListConversationsQuery,
        response: { 200: ListOf(ConversationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org } = await loadConversations(db, actorOf(request), request.params.organizationId, "view");
      const page = await listConversations(db, org.id, request.query);
      return listOf(
        page,
        page.rows.map((row) => presentConversation(row, urls)),
      );
    },
  );

  app.get(
    "/v1/orgs/:organizationId/conversations/:conversationId",
    {
      schema: {
        tags,
        operationId: "getConversationById",
        summary: "Get a conversation with its (redacted) messages",
        params: ConversationParams,
        response: { 200: ConversationDetailSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org } = await loadConversations(db, actorOf(request), request.params.organizationId, "view");
      const row = await getConversation(db, org.id, request.params.conversationId);
      if (!row) throw missing(`No conversation with id "${request.params.conversationId}" in this organization.`);
      return presentConversationDetail(row, urls);
    },
  );

  app.get(
    "/v1/orgs/:organizationId/conversations-issues",
    {
      schema: {
        tags,
        operationId: "listConversationsIssues",
        summary: "List the issues found in conversations",
        params: ConversationsParams,
        querystring: ListIssuesQuery,
        response: { 200: ListOf(IssueWithConversation), ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await loadConversations(db, actorOf(request), request.params.organizationId, "view");
      const { cluster, conversation } = request.query;
      if (cluster !== undefined && !(await getCluster(db, org.id, cluster))) {
        throw invalid(`query parameter "cluster" names "${cluster}", which is not a cluster of this organization.`);
      }
      if (conversation !== undefined && !(await getConversation(db, org.id, conversation))) {
        throw invalid(`query parameter "conversation" names "${conversation}", which is not a conversation of this organization.`);
      }
      const page = await listIssues(db, org.id, request.query);
      const [conversations, readable] = await Promise.all([
        conversationsByIds(
          db,
          org.id,
          page.rows.map((r) => r.conversationId),
        ),
        readableSpaceIds(db, access),
      ]);
      return listOf(
        page,
        page.rows.flatMap((row) => {
          // Issues go with their conversation (a foreign key): one whose conversation is gone is not shown.
          const conversation = conversations.get(row.conversationId);
          return conversation ? [presentIssueWithConversation(row, conversation, readable, urls)] : [];
        }),
      );
    },
  );

  app.get(
    "/v1/orgs/:organizationId/conversations-issues/:issueId",
    {
      schema: {
        tags,
        operationId: "getConversationIssueById",
        summary: "Get an issue with its conversation",
        params: IssueParams,
        response: { 200: IssueWithConversation, ...errorResponses },
      },
    },
    async (request) => {
      const { org, access } = await loadConversations(db, actorOf(request), request.params.organizationId, "view");
      const issue = await getIssue(db, org.id, request.params.issueId);
      if (!issue) throw missing(`No conversation issue with id "${request.params.issueId}" in this organization.`);
      const [conversation, readable] = await Promise.all([getConversation(db, org.id, issue.conversationId), readableSpaceIds(db, access)]);
      if (!conversation) throw missing(`No conversation issue with id "${request.params.issueId}" in this organization.`);
      return { issue: presentIssue(issue, readable, urls), conversation: presentConversation(conversation, urls) };
    },
  );

  app.get(
    "/v1/orgs/:organizationId/conversations-clusters",
    {
      schema: {
        tags,
        operationId: "listConversationsIssuesClusters",
        summary: "List the clusters of related issues",
        params: ConversationsParams,
        querystring: ListClustersQuery,
        response: { 200: ListOf(ClusterSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { org } = await loadConversations(db, actorOf(request), request.params.organizationId, "view");
      const { status, order = "desc", orderBy = "updatedAt", page: cursor, limit } = request.query;
      if (status !== undefined) {
        // Clusters are rewritten whole by each analysis: they are all `pending` while conversations
        // wait for one, all `analysing` while it runs, and none otherwise.
        const state = await getAnalysisState(db, org.id);
        const now = !state
          ? undefined
          : state.startedAt !== null
            ? "analysing"
            : state.analysedUpTo === null || state.requestedAt > state.analysedUpTo
              ? "pending"
              : undefined;
        if (now !== status) return { items: [], count: 0 };
      }
      const page = await listClusters(db, org.id, { order, orderBy, page: cursor, limit });
      return listOf(
        page,
        page.rows.map((row) => presentCluster(row, urls)),
      );
    },
  );

  app.get(
    "/v1/orgs/:organizationId/conversations-clusters/:clusterId",
    {
      schema: {
        tags,
        operationId: "getConversationsIssuesCluster",
        summary: "Get a cluster of related issues",
        params: ClusterParams,
        response: { 200: ClusterSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { org } = await loadConversations(db, actorOf(request), request.params.organizationId, "view");
      const cluster = await getCluster(db, org.id, request.params.clusterId);
      if (!cluster) throw missing(`No conversations issues cluster with id "${request.params.clusterId}" in this organization.`);
      return presentCluster(cluster, urls);
    },
  );
};
