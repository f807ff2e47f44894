/**
 * Conversations, conversation issues and issue clusters: the shapes of @gitbook/api@0.146.0
 * (`Conversation`, `ConversationInput`, `ConversationIssue`, `ConversationsIssuesCluster`), plus
 * three fields Quire adds to an issue (`question`, `documentation`) and to a cluster's stats
 * (`documentationGaps`), which the spec's open objects allow.
 */
import Type, { type Static } from "typebox";
import { ListQuery, Order, Timestamp } from "../../http/schemas.js";

const OrgId = Type.String({ minLength: 1, maxLength: 100 });
const ObjectId = Type.String({ minLength: 1, maxLength: 100 });

/** `integration:<integration>:<installation>` or `email` (`ConversationSource`). */
export const SOURCE_PATTERN = "^(?:integration:[^:]+:[^:]+|email)$";
export const ConversationSource = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: SOURCE_PATTERN,
  description: "`integration:<integration>:<installation>` or `email`",
});

export const ConversationsParams = Type.Object({ organizationId: OrgId });
export const ConversationParams = Type.Object({ organizationId: OrgId, conversationId: ObjectId });
export const IssueParams = Type.Object({ organizationId: OrgId, issueId: ObjectId });
export const ClusterParams = Type.Object({ organizationId: OrgId, clusterId: ObjectId });

export const PartRole = Type.Enum(["user", "assistant", "team-member"]);

export const ConversationPart = Type.Object({
  type: Type.Literal("message"),
  role: PartRole,
  body: Type.String({ maxLength: 100_000, description: "Markdown or HTML body of the message." }),
});

export const ConversationMetadata = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 2048, description: "URL of the conversation in its source" })),
  attributes: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 2048 }), { maxProperties: 100 })),
  createdAt: Type.Optional(Type.String({ format: "date-time", description: "When the conversation started" })),
});

export const ConversationInput = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255, description: "The conversation's id in its source" }),
  metadata: Type.Optional(ConversationMetadata),
  subject: Type.Optional(Type.String({ maxLength: 512 })),
  parts: Type.Array(ConversationPart, { maxItems: 1000 }),
});
export type ConversationInputValue = Static<typeof ConversationInput>;

/** Conversations ingested by one request at most. */
export const MAX_CONVERSATIONS_PER_REQUEST = 1000;

export const IngestBody = Type.Union([ConversationInput, Type.Array(ConversationInput, { maxItems: MAX_CONVERSATIONS_PER_REQUEST })]);

export const IngestQuery = Type.Object({
  source: Type.Optional({
    ...ConversationSource,
    description: "Source the conversations come from (Quire extension; default `integration:api:<your user id>`)",
  }),
});

export const ConversationSchema = Type.Object({
  object: Type.Literal("conversation"),
  id: Type.String(),
  subject: Type.Optional(Type.String()),
  createdAt: Timestamp,
  processedAt: Type.Optional(Timestamp),
  source: Type.String(),
  urls: Type.Object({ location: Type.String(), source: Type.Optional(Type.String()) }),
});
export type ConversationResponse = Static<typeof ConversationSchema>;

export const ConversationDetailSchema = Type.Object({
  conversation: ConversationSchema,
  parts: Type.Array(ConversationPart),
  metadata: Type.Object({
    url: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Record(Type.String(), Type.String())),
    createdAt: Type.Optional(Timestamp),
  }),
});

export const DocumentationPage = Type.Object({
  space: Type.String(),
  page: Type.String(),
  title: Type.String(),
  path: Type.String(),
  urls: Type.Object({ app: Type.String() }),
});

export const IssueSchema = Type.Object({
  object: Type.Literal("conversation-issue"),
  id: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  question: Type.String({ description: "The user's question, as asked (Quire extension)" }),
  createdAt: Timestamp,
  ingestedAt: Timestamp,
  conversation: Type.String(),
  cluster: Type.Optional(Type.String()),
  documentation: Type.Object(
    {
      gap: Type.Boolean({ description: "No page of the organization's spaces answers it" }),
      pages: Type.Array(DocumentationPage, { description: "Pages that answer it, among the spaces you may read" }),
    },
    { description: "Quire extension" },
  ),
  urls: Type.Object({ location: Type.String() }),
});
export type IssueResponse = Static<typeof IssueSchema>;

export const IssueWithConversation = Type.Object({ issue: IssueSchema, conversation: ConversationSchema });

export const ClusterSchema = Type.Object({
  object: Type.Literal("issues-cluster"),
  id: Type.String(),
  label: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  icon: Type.String(),
  summary: Type.String(),
  weeklyPulse: Type.Array(Type.Number(), { minItems: 13, maxItems: 13, description: "Issues per week, the current week last" }),
  sources: Type.Record(Type.String(), Type.Number()),
  stats: Type.Object({
    issues: Type.Number(),
    conversations: Type.Number(),
    tasksTotal: Type.Number(),
    tasksBacklog: Type.Number(),
    tasksStarted: Type.Number(),
    tasksCompleted: Type.Number(),
    tasksCancelled: Type.Number(),
    documentationGaps: Type.Number({ description: "Issues no page answers (Quire extension)" }),
  }),
  urls: Type.Object({ location: Type.String(), app: Type.String() }),
});
export type ClusterResponse = Static<typeof ClusterSchema>;

export const ListConversationsQuery = Type.Object({
  ...ListQuery.properties,
  source: Type.Optional(ConversationSource),
});

export const ListIssuesQuery = Type.Object({
  ...ListQuery.properties,
  cluster: Type.Optional(ObjectId),
  conversation: Type.Optional(ObjectId),
});

export const CLUSTER_ORDER_BY = ["updatedAt", "issues", "conversations", "tasksTotal", "tasksBacklog", "tasksStarted"] as const;
export type ClusterOrderBy = (typeof CLUSTER_ORDER_BY)[number];

export const ListClustersQuery = Type.Object({
  ...ListQuery.properties,
  order: Type.Optional(Order),
  orderBy: Type.Optional(Type.Enum([...CLUSTER_ORDER_BY])),
  status: Type.Optional(Type.Enum(["pending", "analysing"], { description: "Only when the organization's analysis is in this state" })),
});
