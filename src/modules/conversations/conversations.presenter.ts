/** Conversations, issues and clusters as the API returns them (pure: everything is loaded before). */
import type { ConversationClusterRow, ConversationIssueRow, ConversationRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import type { ClusterResponse, ConversationResponse, IssueResponse } from "./conversations.schemas.js";

/** A page that answers an issue, as the analysis stored it. */
export interface StoredDocumentationPage {
  spaceId: string;
  pageId: string;
  title: string;
  path: string;
}

export interface StoredPart {
  type: "message";
  role: "user" | "assistant" | "team-member";
  body: string;
}

export function presentConversation(row: ConversationRow, urls: Urls): ConversationResponse {
  return {
    object: "conversation",
    id: row.id,
    ...(row.subject !== null ? { subject: row.subject } : {}),
    createdAt: row.createdAt,
    ...(row.processedAt !== null ? { processedAt: row.processedAt } : {}),
    source: row.source,
    urls: {
      location: urls.api(`/orgs/${row.orgId}/conversations/${row.id}`),
      ...(row.metadataUrl && isAbsoluteUrl(row.metadataUrl) ? { source: row.metadataUrl } : {}),
    },
  };
}

function isAbsoluteUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

export function presentConversationDetail(row: ConversationRow, urls: Urls) {
  const attributes = JSON.parse(row.metadataAttributes) as Record<string, string>;
  return {
    conversation: presentConversation(row, urls),
    parts: JSON.parse(row.parts) as StoredPart[],
    metadata: {
      ...(row.metadataUrl !== null ? { url: row.metadataUrl } : {}),
      attributes,
      createdAt: row.createdAt,
    },
  };
}

/** An issue; its documentation pages only from the spaces the caller may read. */
export function presentIssue(row: ConversationIssueRow, readableSpaces: ReadonlySet<string>, urls: Urls): IssueResponse {
  const pages = JSON.parse(row.documentation) as StoredDocumentationPage[];
  return {
    object: "conversation-issue",
    id: row.id,
    title: row.title,
    summary: row.summary,
    question: row.question,
    createdAt: row.createdAt,
    ingestedAt: row.ingestedAt,
    conversation: row.conversationId,
    ...(row.clusterId !== null ? { cluster: row.clusterId } : {}),
    documentation: {
      gap: pages.length === 0,
      pages: pages
        .filter((p) => readableSpaces.has(p.spaceId))
        .map((p) => ({
          space: p.spaceId,
          page: p.pageId,
          title: p.title,
          path: p.path,
          urls: { app: urls.app(`/o/${row.orgId}/s/${p.spaceId}/p/${p.pageId}`) },
        })),
    },
    urls: { location: urls.api(`/orgs/${row.orgId}/conversations-issues/${row.id}`) },
  };
}

export function presentIssueWithConversation(
  row: ConversationIssueRow,
  conversation: ConversationRow,
  readableSpaces: ReadonlySet<string>,
  urls: Urls,
) {
  return { issue: presentIssue(row, readableSpaces, urls), conversation: presentConversation(conversation, urls) };
}

export function presentCluster(row: ConversationClusterRow, urls: Urls): ClusterResponse {
  return {
    object: "issues-cluster",
    id: row.id,
    label: row.label,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    icon: row.icon,
    summary: row.summary,
    weeklyPulse: JSON.parse(row.weeklyPulse) as number[],
    sources: JSON.parse(row.sources) as Record<string, number>,
    stats: {
      issues: Number(row.issues),
      conversations: Number(row.conversations),
      tasksTotal: 0,
      tasksBacklog: 0,
      tasksStarted: 0,
      tasksCompleted: 0,
      tasksCancelled: 0,
      documentationGaps: Number(row.documentationGaps),
    },
    urls: {
      location: urls.api(`/orgs/${row.orgId}/conversations-clusters/${row.id}`),
      app: urls.app(`/o/${row.orgId}/agent/topics/${row.id}`),
    },
  };
}
