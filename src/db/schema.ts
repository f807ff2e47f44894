/**
 * Row types of every table, as Kysely sees them (camelCase; the database columns are snake_case
 * through CamelCasePlugin). Timestamps are ISO 8601 strings; booleans are 0/1 integers so that
 * both SQLite and PostgreSQL store them the same way; JSON is stored as text and parsed by the
 * queries that read it.
 */
import type { Generated, Insertable, Selectable, Updateable } from "kysely";

export type Bool = 0 | 1;

export interface UsersTable {
  id: string;
  /** Lower-cased; unique. */
  email: string;
  displayName: string;
  photoUrl: string | null;
  /**
   * 1 when the address is verified for every organization: by an operator (`emailVerifiedVia`
   * `operator`) or a sign-in link (`sign-in-link`). Written only with `emailVerifiedVia` and
   * `emailVouchedBy`, through users.queries' `setEmailVerification` (or `insertUser`).
   */
  emailVerified: Bool;
  /** `operator`, `sign-in-link`, `idp` (an organization's identity provider vouched), or null (nobody). */
  emailVerifiedVia: string | null;
  /** With `idp`: the organization whose provider vouched (the address is verified there only); null when unknown. */
  emailVouchedBy: string | null;
  /** 1 for an account created by an invitation that nobody has used yet. */
  pending: Bool;
  createdAt: string;
  updatedAt: string;
}

export interface ApiTokensTable {
  id: string;
  userId: string;
  /** SHA-256 hex of the token; the token itself is never stored. */
  tokenHash: string;
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface OrganizationsTable {
  id: string;
  title: string;
  /** JSON array of lower-cased domains. */
  emailDomains: string;
  hostname: string | null;
  type: string;
  useCase: string | null;
  communityType: string | null;
  /** Role given to members who join by email domain or invite without a role; null = guest. */
  defaultRole: string | null;
  /** JSON `{type:"site", site}` or null. */
  defaultContent: string | null;
  logoUrl: string | null;
  sso: Bool;
  ai: Bool;
  inviteLinks: Bool;
  /** JSON merge rules (`{type:"rules", rules}` or `{type:"none"}`). */
  mergeRules: string;
  /** JSON rich document, or null when never set. */
  agentInstructions: string | null;
  agentInstructionsUpdatedAt: string | null;
  agentInstructionsUpdatedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MembersTable {
  orgId: string;
  userId: string;
  /** Organization role; null = guest (no access to content unless granted). */
  role: string | null;
  sso: Bool;
  disabled: Bool;
  joinedAt: string;
  lastSeenAt: string | null;
}

/**
 * An email invitation held back: the invited address's account was vouched for by another
 * organization's identity provider, so the invitation waits until the address is verified for
 * every organization (`quire users verify`), and is dropped when it expires.
 */
export interface HeldInvitationsTable {
  orgId: string;
  userId: string;
  role: string | null;
  sso: Bool;
  createdAt: string;
  expiresAt: string;
}

export interface TeamsTable {
  id: string;
  orgId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
}

export interface TeamMembersTable {
  teamId: string;
  userId: string;
  /** `owner` or `member`. */
  role: string;
  createdAt: string;
}

export interface CollectionsTable {
  id: string;
  orgId: string;
  parentId: string | null;
  title: string;
  description: string | null;
  /** A role level, `inherit`, or null (no default access). */
  defaultLevel: string | null;
  /** Fractional index among the siblings (collections and spaces) of the same parent. */
  position: string;
  createdAt: string;
  updatedAt: string;
}

export interface SpacesTable {
  id: string;
  orgId: string;
  parentId: string | null;
  title: string;
  emoji: string;
  iconUrl: string | null;
  visibility: string;
  editMode: string;
  defaultLevel: string | null;
  language: string | null;
  /** JSON merge rules (`inherit`, `rules` or `none`). */
  mergeRules: string;
  /** Id of the primary (active) revision. */
  revisionId: string;
  position: string;
  /** JSON Git sync state, or null when never synchronised. */
  gitSync: string | null;
  /** JSON visitor authentication settings, or null. */
  visitorAuth: string | null;
  createdBy: string | null;
  deletedAt: string | null;
  deletedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface GrantsTable {
  orgId: string;
  /** `space` or `collection`. */
  targetType: string;
  targetId: string;
  /** `user` or `team`. */
  principalType: string;
  principalId: string;
  role: string;
  createdAt: string;
}

export interface LinkInvitesTable {
  id: string;
  orgId: string;
  /** `organization`, `space` or `collection`. */
  targetType: string;
  targetId: string | null;
  /** Organization role (null = guest) for organization invites, content level otherwise. */
  role: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface RevisionsTable {
  id: string;
  spaceId: string;
  /** JSON array of parent revision ids. */
  parents: string;
  /** `edits`, `merge`, `update`, `rollback` or `computed`. */
  type: string;
  /** Hash of the revision's root tree object; null for the empty revision. */
  treeHash: string | null;
  /** JSON Git commit metadata, or null. */
  git: string | null;
  mergedFrom: string | null;
  createdBy: string | null;
  createdAt: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  /** JSON payload. */
  payload: string;
  /** `queued`, `running`, `succeeded` or `failed`. */
  state: string;
  /** At most one queued or running job per key. */
  dedupeKey: string | null;
  attempts: number;
  maxAttempts: number;
  runAt: string;
  lockedBy: string | null;
  lockedUntil: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContentObjectsTable {
  /** SHA-256 (hex) of `kind` and the canonical JSON of the object. */
  hash: string;
  /** `document`, `pages`, `files`, `reusable-contents` or `root`. */
  kind: string;
  /** Canonical JSON. */
  data: string;
  createdAt: string;
}

export interface ContentBlobsTable {
  /** SHA-256 (hex) of the bytes. */
  hash: string;
  size: number;
  data: Buffer;
  createdAt: string;
}

/** An image blob at one width, in WebP (migration 0035); width 0 marks the source as done. */
export interface ImageVariantsTable {
  sourceHash: string;
  width: number;
  height: number;
  contentType: string;
  size: number;
  /** Null when the source is served for this width (the WebP was not smaller), and for the width-0 marker. */
  data: Buffer | null;
  /** Why the source could not be derived (on the width-0 marker only). */
  error: string | null;
  createdAt: string;
}

export interface SearchSectionsTable {
  id: Generated<number>;
  spaceId: string;
  pageId: string;
  /** Key of the heading block that starts the section; "" for the text before the first heading. */
  sectionKey: string;
  position: number;
  path: string;
  anchor: string;
  /** JSON array of `{title}` of the page's ancestors. */
  ancestors: string;
  pageTitle: string;
  sectionTitle: string;
  body: string;
  /** Who may find the row: "everyone", "members" or "readers" (of published sites, under `conditions`). */
  audience: string;
  /** Readers' rows: JSON array of the conditions that must all hold for the reader; null for the others. */
  conditions: string | null;
}

/**
 * The words readers of a published site may all see in a space's indexed text (see
 * src/content/search/typos.ts): the vocabulary a misspelled query word is corrected from.
 */
export interface SearchWordsTable {
  spaceId: string;
  word: string;
  /** How many times the word occurs in that text (the commoner of two corrections ranks first). */
  occurrences: number;
}

export interface SearchIndexStateTable {
  spaceId: string;
  /** The revision the space's search rows were built from. */
  revisionId: string;
  indexedAt: string;
}

export interface CommentsTable {
  id: string;
  spaceId: string;
  /** Null for a comment on the space itself; the change request's id otherwise (no foreign key). */
  changeRequestId: string | null;
  /** The revision the target was found in when the comment was posted (`target.revision`). */
  revisionId: string;
  pageId: string | null;
  /** Key of the block the comment is attached to, in the page's document. */
  nodeKey: string | null;
  /** JSON `{record, definition}` when the comment is on a cell of a table block. */
  tableCell: string | null;
  /** JSON document. */
  body: string;
  /** `open` or `resolved`. */
  status: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  postedBy: string;
  postedAt: string;
  editedAt: string | null;
  /** The review this comment was submitted with, if any. */
  reviewId: string | null;
}

/** The text an inline comment (the block editor's) was made on: see migration 0033. */
export interface CommentAnchorsTable {
  commentId: string;
  /** The words selected when the comment was made. */
  quote: string;
  /** Base64 Yjs relative positions in the page's collaboration document. */
  start: string;
  end: string;
}

export interface CommentRepliesTable {
  id: string;
  commentId: string;
  /** JSON document. */
  body: string;
  postedBy: string;
  postedAt: string;
  editedAt: string | null;
}

/** One user's reaction with one emoji to a comment. */
export interface CommentReactionsTable {
  commentId: string;
  userId: string;
  emoji: string;
  reactedAt: string;
}

/** One user's reaction with one emoji to a reply. */
export interface CommentReplyReactionsTable {
  replyId: string;
  userId: string;
  emoji: string;
  reactedAt: string;
}

export interface PdfExportsTable {
  /** What was rendered: space, revision, page and options (see pdf.service.ts). */
  key: string;
  spaceId: string;
  blobHash: string;
  createdAt: string;
}

/** Counts of the rate limiter's database store (src/http/rate-limit.ts). */
export interface RateLimitsTable {
  key: string;
  hits: number;
  /** End of the key's window, in milliseconds since the epoch (PostgreSQL returns bigint as text). */
  resetAt: number | string;
}

export interface ChangeRequestsTable {
  id: string;
  spaceId: string;
  /** Counts up from 1 within the space. */
  number: number;
  /** `draft`, `open`, `archived` or `merged`. */
  status: string;
  subject: string;
  /** JSON rich document, or null when never set. */
  description: string | null;
  createdBy: string;
  /** Head revision of the change request. */
  revisionId: string;
  /** The primary revision it was created from. */
  revisionInitial: string;
  /** The primary revision it was last updated from (null until the first update). */
  revisionMergedAncestor: string | null;
  /** Once merged, the merge revision of the primary content. */
  revisionMerged: string | null;
  conversationsIssuesCluster: string | null;
  /** The primary revision against which conflicts were last reported to a caller. */
  conflictsRevision: string | null;
  mergedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ChangeRequestContributorsTable {
  changeRequestId: string;
  userId: string;
  /** `edit` or `comment`. */
  actionType: string;
  count: number;
  updatedAt: string;
}

export interface ChangeRequestRequestedReviewersTable {
  changeRequestId: string;
  userId: string;
  requestedBy: string;
  /** The change request's revision when the review was requested. */
  revision: string;
  createdAt: string;
}

export interface ChangeRequestReviewsTable {
  id: string;
  changeRequestId: string;
  reviewerId: string;
  /** Who had requested this reviewer's review, when one was pending. */
  requestedBy: string | null;
  /** The change request's head revision the review was made against. */
  revision: string;
  /** `approved` or `changes-requested`. */
  status: string;
  /** 1 once the reviewer submitted a newer review or was asked again. */
  outdated: number;
  commentId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ChangeRequestResolutionsTable {
  changeRequestId: string;
  pageId: string;
  /** The primary revision whose version of the page the caller resolved the conflict against. */
  primaryRevision: string;
  /** JSON PageMeta: the page's merge base from now on (see change-request-merge/resolutions.model.ts). */
  base: string;
  createdBy: string;
  createdAt: string;
}

export interface OpenApiSpecsTable {
  id: string;
  orgId: string;
  /** Unique within the organization. */
  slug: string;
  /** Where the document is fetched from; null for a document given as text. */
  sourceUrl: string | null;
  /** The document as uploaded; null for a URL source. */
  sourceText: string | null;
  /** Bumped by every change of the source; a job records its result only for the current one. */
  sourceGeneration: number;
  /** `private` or `public`. */
  visibility: string;
  /** `pending`, `progress` or `complete`. */
  processingState: string;
  lastVersionId: string | null;
  lastProcessedAt: string | null;
  /** When a URL source was last fetched (successfully or not): the re-fetch schedule counts from it. */
  lastFetchedAt: string | null;
  /** `FETCH_TIMEOUT`, `FETCH_ERROR` or `PARSE_ERROR` when the last processing failed. */
  lastProcessErrorCode: string | null;
  /** JSON array of `{message, code?}` from the last processing, or null. */
  lastProcessedErrors: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface OpenApiSpecVersionsTable {
  id: string;
  specId: string;
  /** SHA-256 of `document`: a new version is recorded only when it differs from the last one. */
  contentHash: string;
  /** The processed document: JSON, every external `$ref` bundled in. */
  document: string;
  createdAt: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface TranslationsTable {
  id: string;
  orgId: string;
  sourceSpaceId: string;
  sourceLanguage: string;
  /** Target language (`TranslationLanguage`). */
  language: string;
  /** The space that holds the translated copy (created with the translation). */
  targetSpaceId: string;
  /** JSON document (`instructions`). */
  instructions: string;
  /** `pending`, `running` or `completed`. */
  status: string;
  /** The target revision written by the latest run (at first: the target space's first revision). */
  resultRevisionId: string;
  /** The source revision the latest run translated. */
  sourceRevisionId: string | null;
  /** Bumped by every committed run: a run commits only if no other run committed since it started. */
  runVersion: number;
  runs: number;
  totalWords: number;
  totalPages: number;
  totalDurationMs: number;
  latestDurationMs: number;
  latestPages: number;
  latestWords: number;
  /** JSON `{message, at}` when the latest run failed for good, else null. */
  failure: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TranslationItemsTable {
  translationId: string;
  /** A source page id, or `rc:` + a reusable content id. */
  itemId: string;
  /** Hash of what was translated (source text, languages, engine): unchanged means nothing to do. */
  sourceFingerprint: string;
  /** JSON of the translated title, description and document hash. */
  translated: string;
}

export interface ConversationsTable {
  id: string;
  orgId: string;
  /** `integration:<integration>:<installation>` or `email`; ids are unique per organization and source. */
  source: string;
  /** The id the source gave the conversation. */
  externalId: string;
  subject: string | null;
  /** JSON array of `{type, role, body}`, redacted. */
  parts: string;
  metadataUrl: string | null;
  /** JSON map of string to string, redacted. */
  metadataAttributes: string;
  /** SHA-256 of the stored (redacted) content: a re-ingest with the same content changes nothing. */
  contentHash: string;
  createdAt: string;
  ingestedAt: string;
  /** When the analysis last included this content; null until then. */
  processedAt: string | null;
}

export interface ConversationIssuesTable {
  id: string;
  orgId: string;
  conversationId: string;
  clusterId: string | null;
  /** Order of the issue within its conversation. */
  position: number;
  title: string;
  summary: string;
  question: string;
  /** JSON array of the pages that answer it `{spaceId, pageId, title, path}`; empty: a documentation gap. */
  documentation: string;
  conversationCreatedAt: string;
  createdAt: string;
  ingestedAt: string;
}

export interface ConversationClustersTable {
  id: string;
  orgId: string;
  label: string;
  summary: string;
  icon: string;
  /** JSON array of the cluster's most weighted words. */
  keywords: string;
  /** JSON map of source to number of issues. */
  sources: string;
  /** JSON array of 13 weekly issue counts, oldest first, the current week last. */
  weeklyPulse: string;
  issues: number;
  conversations: number;
  documentationGaps: number;
  /** Hash of the cluster's issue ids: `updatedAt` moves only when it changes. */
  fingerprint: string;
  createdAt: string;
  updatedAt: string;
}

export interface ConversationAnalysisTable {
  orgId: string;
  /** Last ingest that asked for an analysis. */
  requestedAt: string;
  /** Start of the analysis running now (null when none runs). */
  startedAt: string | null;
  /** The `requestedAt` the last written analysis covered. */
  analysedUpTo: string | null;
  analysedAt: string | null;
}

export interface SitesTable {
  id: string;
  orgId: string;
  type: string;
  title: string;
  /** Unique on the instance: the site is served at `{QUIRE_PUBLIC_URL}/s/{basename}`. */
  basename: string;
  visibility: string;
  published: Bool;
  adaptiveContent: Bool;
  agentsContext: string;
  /** Proxy origin (`host/path`), or null. */
  proxy: string | null;
  /** The home section; null (or a removed one) means the first section in order. */
  defaultSiteSectionId: string | null;
  /** The default site space at the root of a site without sections; null means the first. */
  defaultSiteSpaceId: string | null;
  /** SiteCustomizationSettings as JSON; null: never set (Quire's defaults). */
  customization: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SiteSectionGroupsTable {
  id: string;
  siteId: string;
  /** Parent group, or null at the site's root. */
  parentId: string | null;
  title: string;
  icon: string | null;
  /** Fractional index among the sections and groups of the same parent. */
  position: string;
  createdAt: string;
}

export interface SiteSectionsTable {
  id: string;
  siteId: string;
  /** Containing group, or null at the site's root. */
  groupId: string | null;
  title: string;
  description: string | null;
  path: string;
  icon: string | null;
  condition: string | null;
  /** The section's default variant; null (or a removed one) means the first. */
  defaultSiteSpaceId: string | null;
  position: string;
  createdAt: string;
}

export interface SiteSpacesTable {
  id: string;
  siteId: string;
  /** Null at the root of a site without sections. */
  sectionId: string | null;
  spaceId: string;
  path: string;
  condition: string | null;
  position: string;
  /** The site space's overrides of its site's customization, as JSON (the PATCH body's shape); null: none. */
  customization: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SiteShareLinksTable {
  id: string;
  siteId: string;
  name: string;
  active: Bool;
  /** SHA-256 hex of the secret key, to find the link from a URL. */
  keyHash: string;
  /** JSON Sealed secret key (purpose "site-share-link"), to build the link's URL. */
  keySealed: string;
  createdBy: string | null;
  createdAt: string;
}

export interface SiteAdaptiveSchemasTable {
  siteId: string;
  /** JSON Schema (draft-07) of the visitor claims, as text. */
  jsonSchema: string;
  updatedAt: string;
}

export interface SitePublishingAuthTable {
  siteId: string;
  /** `custom` or `integration`. */
  backend: string;
  /** JSON Sealed signing key of visitor tokens (purpose "site-visitor-key"). */
  privateKeySealed: string;
  fallbackUrl: string | null;
  /** An OIDC provider of the site's organization that visitors sign in with (migration 0026); null: the fallback URL. */
  oidcProviderId: Generated<string | null>;
  updatedAt: string;
}

/** `.gitbook.yaml` redirects of a space's last Git import (migration 0017; deleted with their space since 0018). */
export interface GitRedirectsTable {
  spaceId: string;
  /** Old path from the space's root, without a leading slash ("old/quickstart"). */
  fromPath: string;
  pageId: string;
}

/** A site's own redirects (migration 0029; deleted with their site). */
export interface SiteRedirectsTable {
  id: string;
  siteId: string;
  /** From the site's root, with a leading slash, as given ("/old/guide", "/blog/*"). */
  source: string;
  draft: number;
  captureWildcard: number;
  permanent: number;
  /** The `SiteRedirectDestination`, as JSON. */
  destination: string;
  createdAt: string;
  updatedAt: string | null;
}
export type SiteRedirectRow = Selectable<SiteRedirectsTable>;

/** "Was this page helpful?" answers (migration 0022): one per reader, page and UTC day. */
/** The Yjs state of a change request page edited live (src/modules/collab). */
export interface CollabDocumentsTable {
  /** `change-requests/<changeRequestId>/pages/<pageId>` */
  name: string;
  changeRequestId: string;
  pageId: string;
  /** Yjs update holding the whole state (Y.encodeStateAsUpdate). */
  state: Buffer;
  /** The page document the state was last written as (null: never written). */
  documentHash: string | null;
  updatedAt: string;
}

/** The salt of a UTC day's visitor hashes (migration 0034): visitors cannot be followed across days. */
export interface SiteInsightSaltsTable {
  day: string;
  salt: string;
}

/** Where a published site's view came from. */
export type SiteViewSource = "page" | "markdown" | "llms.txt" | "llms-full.txt" | "mcp";

export interface SitePageViewsTable {
  siteId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** "" for an address that is no page (llms.txt, the MCP endpoint). */
  spaceId: string;
  pageId: string;
  source: SiteViewSource;
  /** 1 when an agent read it (every source but `page`, and pages read by a known agent's user agent). */
  agent: number;
  views: number;
}

export interface SiteVisitorsTable {
  siteId: string;
  day: string;
  /** Keyed hash of address and user agent under the day's salt. */
  visitor: string;
  agent: number;
}

/**
 * One insight event of a published site (migration 0037): a read Quire served or an event a client
 * reported. Times and buckets are UTC; visitor and session are hashes under the day's salt.
 */
export interface SiteEventsTable {
  id: string;
  siteId: string;
  at: string;
  /** "YYYY-MM-DDTHH". */
  hour: string;
  day: string;
  /** The Monday of the event's week, YYYY-MM-DD. */
  week: string;
  /** "YYYY-MM". */
  month: string;
  hourOfDay: number;
  /** 1 (Monday) to 7 (Sunday). */
  dayOfWeek: number;
  type: string;
  visitor: string;
  session: string;
  displayContext: string;
  /** Without query or fragment. */
  url: string;
  urlPath: string;
  browser: string;
  device: string;
  os: string;
  /** 1 when the visitor brought claims, 0 when not; null when unknown. */
  authenticated: number | null;
  /** The kept claims (the site's adaptive categories) as canonical JSON; "{}" for none. */
  segment: string;
  siteSection: string | null;
  siteSpace: string | null;
  siteShareKey: string | null;
  spaceId: string | null;
  /** null on a page view: no page answered (a 404). */
  pageId: string | null;
  notFoundType: string | null;
  referrer: string | null;
  referrerDomain: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  language: string | null;
  bot: string | null;
  searchQuery: string | null;
  searchResult: string | null;
  feedbackRating: string | null;
  feedbackComment: string | null;
  /** The link's target, a ContentRef as JSON with sorted keys. */
  linkTarget: string | null;
  linkKind: string | null;
  linkDomain: string | null;
  linkPosition: string | null;
  apiPath: string | null;
  apiMethod: string | null;
  llmsVariant: string | null;
  markdownSource: string | null;
  adDomain: string | null;
  adPlacement: string | null;
  trademarkPlacement: string | null;
  askRating: number | null;
}

/** A claim of the visitor of an event, kept when the site's adaptive schema makes it a category. */
export interface SiteEventClaimsTable {
  eventId: string;
  siteId: string;
  /** The claim's path, "plan" or "unsigned.team". */
  property: string;
  /** Its value as text ("true", "pro"; an array of values as their JSON). */
  value: string;
}

export interface SiteSearchesTable {
  siteId: string;
  day: string;
  /** The words searched, lowercased, spaces collapsed. */
  query: string;
  searches: number;
  /** How many of those searches found nothing. */
  noResult: number;
}

export interface SiteQuestionsTable {
  id: string;
  siteId: string;
  /** The question's words, lowercased, punctuation aside: the same key is the same question. */
  key: string;
  /** The question as first asked. */
  question: string;
  type: "exploring" | "how-to" | "troubleshooting" | "reference" | "unknown";
  createdAt: string;
  /** The last time it was asked. */
  askedAt: string;
}

export interface SiteQuestionAnswersTable {
  id: string;
  siteId: string;
  questionId: string;
  /** The question as asked this time. */
  raw: string;
  answered: "yes" | "partially" | "no";
  /** `site`: the site's Ask box; `api`: an agent (MCP, a page's `.md?ask=`). */
  channel: "site" | "api";
  /** JSON: the pages cited, [{ spaceId, pageId, title }]. */
  sources: string;
  /** The answer's Markdown as the reader read it (at most MAX_RESPONSE_CHARS); null before 0035. */
  response: string | null;
  createdAt: string;
}

export interface PageFeedbackTable {
  siteId: string;
  spaceId: string;
  pageId: string;
  /** Hash of the reader's feedback cookie. */
  voter: string;
  /** UTC day of the answer, YYYY-MM-DD. */
  day: string;
  rating: "good" | "ok" | "bad";
  /** Keyed hash of the client address (IPv6 by /64), for the limit per address. */
  address: string;
  createdAt: string;
}

export interface SitePathRedirectsTable {
  id: string;
  siteId: string;
  /** Old path from the site's root ("guides", "guides/v1"). */
  fromPath: string;
  /** `site-section` or `site-space`. */
  targetType: string;
  targetId: string;
  createdAt: string;
}

export interface Database {
  users: UsersTable;
  apiTokens: ApiTokensTable;
  organizations: OrganizationsTable;
  members: MembersTable;
  heldInvitations: HeldInvitationsTable;
  teams: TeamsTable;
  teamMembers: TeamMembersTable;
  collections: CollectionsTable;
  spaces: SpacesTable;
  grants: GrantsTable;
  linkInvites: LinkInvitesTable;
  revisions: RevisionsTable;
  jobs: JobsTable;
  settings: SettingsTable;
  contentObjects: ContentObjectsTable;
  contentBlobs: ContentBlobsTable;
  imageVariants: ImageVariantsTable;
  searchSections: SearchSectionsTable;
  searchIndexState: SearchIndexStateTable;
  searchWords: SearchWordsTable;
  pdfExports: PdfExportsTable;
  comments: CommentsTable;
  commentReplies: CommentRepliesTable;
  commentAnchors: CommentAnchorsTable;
  commentReactions: CommentReactionsTable;
  commentReplyReactions: CommentReplyReactionsTable;
  changeRequests: ChangeRequestsTable;
  changeRequestContributors: ChangeRequestContributorsTable;
  changeRequestRequestedReviewers: ChangeRequestRequestedReviewersTable;
  changeRequestResolutions: ChangeRequestResolutionsTable;
  changeRequestReviews: ChangeRequestReviewsTable;
  translations: TranslationsTable;
  translationItems: TranslationItemsTable;
  openapiSpecs: OpenApiSpecsTable;
  openapiSpecVersions: OpenApiSpecVersionsTable;
  conversations: ConversationsTable;
  conversationIssues: ConversationIssuesTable;
  conversationClusters: ConversationClustersTable;
  conversationAnalysis: ConversationAnalysisTable;
  rateLimits: RateLimitsTable;
  samlProviders: SamlProvidersTable;
  oidcProviders: OidcProvidersTable;
  oidcLogins: OidcLoginsTable;
  scimTokens: ScimTokensTable;
  auditEvents: AuditEventsTable;
  scimExternalIds: ScimExternalIdsTable;
  samlRequests: SamlRequestsTable;
  samlAssertions: SamlAssertionsTable;
  webSessions: WebSessionsTable;
  loginLinks: LoginLinksTable;
  sites: SitesTable;
  siteSectionGroups: SiteSectionGroupsTable;
  siteSections: SiteSectionsTable;
  siteSpaces: SiteSpacesTable;
  siteShareLinks: SiteShareLinksTable;
  siteAdaptiveSchemas: SiteAdaptiveSchemasTable;
  sitePublishingAuth: SitePublishingAuthTable;
  sitePathRedirects: SitePathRedirectsTable;
  gitRedirects: GitRedirectsTable;
  siteRedirects: SiteRedirectsTable;
  pageFeedback: PageFeedbackTable;
  siteInsightSalts: SiteInsightSaltsTable;
  sitePageViews: SitePageViewsTable;
  siteVisitors: SiteVisitorsTable;
  siteSearches: SiteSearchesTable;
  siteQuestions: SiteQuestionsTable;
  siteQuestionAnswers: SiteQuestionAnswersTable;
  siteEvents: SiteEventsTable;
  siteEventClaims: SiteEventClaimsTable;
  collabDocuments: CollabDocumentsTable;
}

export interface SamlProvidersTable {
  id: string;
  orgId: string;
  /** Shown on the sign-in page. */
  label: string;
  /** The identity provider's entity ID (the Issuer of its responses); "" until set. */
  entityId: string;
  /** The identity provider's single sign-on URL; null until set. */
  ssoUrl: string | null;
  /** PEM of the identity provider's signing certificate; "" until set. */
  certificate: string;
  defaultTeamId: string | null;
  /** Role of members created at their first sign-in; null = guest. */
  defaultRole: string | null;
  /** PKCS#8 PEM of this service's key for this provider (decrypts assertions); never sent out. */
  spPrivateKey: string;
  /** PEM of this service's self-signed certificate for that key, published in the SP metadata. */
  spCertificate: string;
  /** 1: an assertion that is not encrypted to spCertificate is refused; 0: both are accepted. */
  requireEncryptedAssertions: number;
  /** The identity provider's single logout URL (HTTP-Redirect binding); null: no single logout. */
  sloUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An organization's OpenID Connect provider (migration 0026). */
export interface OidcProvidersTable {
  id: string;
  orgId: string;
  /** Shown on the sign-in button. */
  label: string;
  /** The issuer URL; its `/.well-known/openid-configuration` is read at each sign-in. */
  issuer: string;
  clientId: string;
  /** JSON Sealed client secret (purpose "oidc-client-secret"); null: a public client (PKCE only). Never returned. */
  clientSecretSealed: string | null;
  /** Space-separated scopes asked for; always includes `openid`. */
  scopes: string;
  /** The claim that holds the email address (default `email`). */
  emailClaim: string;
  /** The claim that holds the display name (default `name`). */
  nameClaim: string;
  /** Role of members created at their first sign-in; null = guest. */
  defaultRole: string | null;
  defaultTeamId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A sign-in under way: what the callback that answers it must check, used once. */
export interface OidcLoginsTable {
  /** SHA-256 of the `state` sent to the provider. */
  stateHash: string;
  providerId: string;
  nonce: string;
  codeVerifier: string;
  /** A published site's visitor sign-in: the site; null: a member's sign-in to the web app. */
  siteId: string | null;
  /** Where to go afterwards: a path of the web app, or the page of the site (from its root). */
  next: string;
  createdAt: string;
  expiresAt: string;
}

/** A SCIM token of an organization (migration 0027): the token chooses the organization. */
export interface ScimTokensTable {
  id: string;
  orgId: string;
  label: string;
  /** SHA-256 hex of the token. */
  tokenHash: string;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The identity provider's `externalId` of a member (`User`) or team (`Group`) of an organization. */
export interface ScimExternalIdsTable {
  orgId: string;
  /** `User` or `Group`. */
  resourceType: string;
  /** The user id or team id. */
  resourceId: string;
  externalId: string;
}

/** An AuthnRequest or LogoutRequest this service sent; an answer must be to one of its kind that has not expired. */
export interface SamlRequestsTable {
  id: string;
  providerId: string;
  /** `authn` (an AuthnRequest) or `logout` (a LogoutRequest). */
  kind: Generated<string>;
  createdAt: string;
  expiresAt: string;
}

/** An assertion already used to sign in; the primary key refuses its second use. */
export interface SamlAssertionsTable {
  providerId: string;
  assertionId: string;
  usedAt: string;
  /** Kept until the assertion itself expires; later it would be refused by its time window anyway. */
  expiresAt: string;
}

export interface WebSessionsTable {
  /** SHA-256 of the session id: the database never holds a usable cookie. */
  idHash: string;
  userId: string | null;
  /** JSON of the session's values. */
  data: string;
  expiresAt: string;
  /** For a session signed in with SAML: the provider, NameID and SessionIndex of the assertion (what an IdP's LogoutRequest names). */
  samlProviderId: string | null;
  samlNameId: string | null;
  samlSessionIndex: string | null;
}

export interface LoginLinksTable {
  /** SHA-256 of the link's token. */
  tokenHash: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

export type UserRow = Selectable<UsersTable>;
export type OrganizationRow = Selectable<OrganizationsTable>;
export type SamlProviderRow = Selectable<SamlProvidersTable>;
export type OidcProviderRow = Selectable<OidcProvidersTable>;
export type ScimTokenRow = Selectable<ScimTokensTable>;
export type MemberRow = Selectable<MembersTable>;
export type TeamRow = Selectable<TeamsTable>;
export type CollectionRow = Selectable<CollectionsTable>;
export type SpaceRow = Selectable<SpacesTable>;
export type GrantRow = Selectable<GrantsTable>;
export type LinkInviteRow = Selectable<LinkInvitesTable>;
export type RevisionRow = Selectable<RevisionsTable>;
export type JobRow = Selectable<JobsTable>;
export type CommentRow = Selectable<CommentsTable>;
export type CommentReplyRow = Selectable<CommentRepliesTable>;
export type CommentAnchorRow = Selectable<CommentAnchorsTable>;
export type ChangeRequestRow = Selectable<ChangeRequestsTable>;
export type ChangeRequestReviewRow = Selectable<ChangeRequestReviewsTable>;
export type OpenApiSpecRow = Selectable<OpenApiSpecsTable>;
export type OpenApiSpecVersionRow = Selectable<OpenApiSpecVersionsTable>;
export type RequestedReviewerRow = Selectable<ChangeRequestRequestedReviewersTable>;
export type TranslationRow = Selectable<TranslationsTable>;
export type ConversationRow = Selectable<ConversationsTable>;
export type ConversationIssueRow = Selectable<ConversationIssuesTable>;
export type ConversationClusterRow = Selectable<ConversationClustersTable>;
export type SiteRow = Selectable<SitesTable>;
export type SiteSectionGroupRow = Selectable<SiteSectionGroupsTable>;
export type SiteSectionRow = Selectable<SiteSectionsTable>;
export type SiteSpaceRow = Selectable<SiteSpacesTable>;
export type SiteShareLinkRow = Selectable<SiteShareLinksTable>;
export type NewSpace = Insertable<SpacesTable>;
export type SpaceUpdate = Updateable<SpacesTable>;
// Generated is re-exported for tables that later gain auto-increment columns.
export type { Generated };

/** One recorded change or sign-in (src/db/audit.ts). Never updated; only the retention job deletes. */
export interface AuditEventsTable {
  id: string;
  orgId: string | null;
  occurredAt: string;
  action: string;
  /** GitBook's AuditEvent.source: ui (web app, sign-ins), api, integration (SCIM), script (command line). */
  source: string;
  /** user, integration (a SCIM token), system (the command line, an identity provider's failed sign-in). */
  actorType: string;
  actorId: string;
  actorLabel: string | null;
  /** The API token the request was made with (its id, never its value). */
  tokenId: string | null;
  targetType: string;
  targetId: string;
  targetLabel: string | null;
  address: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** JSON: the allow-listed details (fields changed, with secrets replaced). */
  payload: string;
}
