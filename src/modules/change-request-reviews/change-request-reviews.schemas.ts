/**
 * Reviews and requested reviewers of a change request: `ChangeRequestReview`,
 * `ChangeRequestRequestedReviewer` and the bodies of their operations (@gitbook/api 0.146).
 */
import Type, { type Static } from "typebox";
import { Id, ListQuery, RichDocument, Timestamp, UserSchema } from "../../http/schemas.js";
import { ChangeRequestParams, ChangeRequestSubject } from "../change-requests/change-requests.schemas.js";
import { BodyInput, CommentSchema, Format } from "../comments/comments.schemas.js";

export const REVIEW_STATUSES = ["approved", "changes-requested"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const ReviewSchema = Type.Object({
  object: Type.Literal("change-request-review"),
  id: Type.String(),
  revision: Type.String({ description: "The change request's revision the review was made against" }),
  reviewer: UserSchema,
  requestedBy: Type.Optional(UserSchema),
  status: Type.Enum([...REVIEW_STATUSES]),
  outdated: Type.Boolean({ description: "Superseded by a newer review or review request for the same reviewer" }),
  comment: Type.Optional(CommentSchema),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  urls: Type.Object({ location: Type.String() }),
});
export type ReviewResponse = Static<typeof ReviewSchema>;

export const SubmitReviewBody = Type.Object({
  status: Type.Enum([...REVIEW_STATUSES]),
  comment: Type.Optional(BodyInput),
});
export type SubmitReviewValue = Static<typeof SubmitReviewBody>;

export const ReviewParams = Type.Object({ ...ChangeRequestParams.properties, reviewId: Id });

export const ListReviewsQuery = Type.Object({
  ...ListQuery.properties,
  format: Type.Optional(Format),
  outdated: Type.Optional(Type.Boolean({ description: "Only outdated reviews (true) or only current ones (false)" })),
});
export type ListReviewsQueryValue = Static<typeof ListReviewsQuery>;

export const RequestedReviewerSchema = Type.Object({
  object: Type.Literal("change-request-requested-reviewer"),
  revision: Type.String({ description: "The change request's revision when the review was requested" }),
  requestedBy: UserSchema,
  createdAt: Timestamp,
  kind: Type.Literal("user"),
  user: UserSchema,
});
export type RequestedReviewerResponse = Static<typeof RequestedReviewerSchema>;

export const MAX_REVIEWERS_PER_REQUEST = 50;

export const RequestReviewersBody = Type.Object({
  users: Type.Array(Id, { minItems: 1, maxItems: MAX_REVIEWERS_PER_REQUEST, description: "Ids of the users asked to review" }),
  subject: Type.Optional(ChangeRequestSubject),
  description: Type.Optional(RichDocument),
});
export type RequestReviewersValue = Static<typeof RequestReviewersBody>;

export const RequestReviewersResponse = Type.Object({ users: Type.Array(RequestedReviewerSchema) });

export const RequestedReviewerParams = Type.Object({ ...ChangeRequestParams.properties, userId: Id });
