/**
 * Request and response schemas of change requests (`ChangeRequest`, its creation, update, list and
 * contributors in @gitbook/api 0.146). Merge, reviews and content edits have their own modules.
 */
import Type, { type Static } from "typebox";
import { Id, ListQuery, RichDocument, Timestamp, UserSchema } from "../../http/schemas.js";

export const CHANGE_REQUEST_STATUSES = ["draft", "open", "archived", "merged"] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** Statuses whose content may still change (edits, updates, merge). */
export const WRITABLE_STATUSES: readonly ChangeRequestStatus[] = ["draft", "open"];

export const ChangeRequestStatusSchema = Type.Enum([...CHANGE_REQUEST_STATUSES]);

export const ChangeRequestSubject = Type.String({ maxLength: 100, description: "Subject of the change request" });

/** `ChangeRequest`. */
export const ChangeRequestSchema = Type.Object({
  object: Type.Literal("change-request"),
  id: Type.String(),
  number: Type.Number({ description: "Counts up from 1 within the space" }),
  status: ChangeRequestStatusSchema,
  subject: Type.String(),
  description: Type.Optional(RichDocument),
  createdBy: UserSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  space: Type.String(),
  revision: Type.String({ description: "Head revision of the change request" }),
  revisionInitial: Type.String({ description: "The primary revision it was created from" }),
  revisionMergedAncestor: Type.Optional(Type.String({ description: "The primary revision it was last updated from" })),
  revisionMerged: Type.Optional(Type.String({ description: "Once merged, the merge revision of the primary content" })),
  comments: Type.Number(),
  outdated: Type.Boolean({ description: "True when the primary content changed since the change request was created or last updated" }),
  conversationsIssuesCluster: Type.Optional(Type.String()),
  urls: Type.Object({ app: Type.String(), location: Type.String() }),
});
export type ChangeRequestResponse = Static<typeof ChangeRequestSchema>;

export const ChangeRequestParams = Type.Object({
  spaceId: Id,
  changeRequestId: Type.String({ minLength: 1, maxLength: 100, description: "The change request's id or its number in the space" }),
});

export const ListChangeRequestsQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(ChangeRequestStatusSchema),
  creator: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only change requests created by this user" })),
  contributor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only change requests this user contributed to" })),
  requestedReviewer: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Only change requests where this user's review is requested" }),
  ),
  conversationsIssuesCluster: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type ListChangeRequestsQueryValue = Static<typeof ListChangeRequestsQuery>;

/** Where a template's content references point (accepted for GitBook compatibility). */
const TemplateInput = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  params: Type.Optional(
    Type.Object({ contentRefs: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))) }),
  ),
});

export const CreateChangeRequestBody = Type.Object(
  {
    subject: Type.Optional(ChangeRequestSubject),
    template: Type.Optional(TemplateInput),
    agentTaskId: Type.Optional(Type.String({ maxLength: 100, description: "Accepted and ignored: Quire has no agent tasks" })),
    conversationsIssuesCluster: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: true },
);

export const UpdateChangeRequestBody = Type.Object({
  subject: Type.Optional(ChangeRequestSubject),
  status: Type.Optional(Type.Enum(["draft", "open", "archived"])),
  description: Type.Optional(RichDocument),
});
export type UpdateChangeRequestValue = Static<typeof UpdateChangeRequestBody>;

/** `ChangeRequestUserContributor`. */
export const ContributorSchema = Type.Object({
  updatedAt: Timestamp,
  count: Type.Integer(),
  user: UserSchema,
  actionType: Type.Enum(["edit", "comment"]),
});
