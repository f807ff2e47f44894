import type { ChangeRequestRow, SpaceRow, UserRow } from "../../db/schema.js";
import type { RichDocumentValue } from "../../http/schemas.js";
import type { Urls } from "../../http/urls.js";
import { parseJsonOrNull } from "../../lib/json.js";
import { presentUserOrPlaceholder } from "../users/users.presenter.js";
import type { ChangeRequestResponse, ChangeRequestStatus } from "./change-requests.schemas.js";

export interface ChangeRequestPresentInput {
  /** The creator; undefined when the account no longer exists. */
  createdBy: UserRow | undefined;
  /** The space's current primary revision (decides `outdated`). */
  primaryRevision: string;
  comments?: number;
}

/** The revision a change request is based on: where it last took the primary content from. */
export function baseRevisionOf(changeRequest: Pick<ChangeRequestRow, "revisionMergedAncestor" | "revisionInitial">): string {
  return changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial;
}

/**
 * True when the primary content moved since the change request's base. A merged change request
 * is never outdated: there is nothing left to bring into it.
 */
export function isOutdated(
  changeRequest: Pick<ChangeRequestRow, "status" | "revisionMergedAncestor" | "revisionInitial">,
  primaryRevision: string,
): boolean {
  return changeRequest.status !== "merged" && baseRevisionOf(changeRequest) !== primaryRevision;
}

/** The public shape of a change request (`ChangeRequest`). */
export function presentChangeRequest(
  row: ChangeRequestRow,
  input: ChangeRequestPresentInput,
  urls: Urls,
  orgId: string,
): ChangeRequestResponse {
  const description = parseJsonOrNull<RichDocumentValue>(row.description, "change_requests.description");
  return {
    object: "change-request",
    id: row.id,
    number: row.number,
    status: row.status as ChangeRequestStatus,
    subject: row.subject,
    description: description ?? { object: "document", data: {}, nodes: [] },
    createdBy: presentUserOrPlaceholder(input.createdBy, row.createdBy, urls),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    space: row.spaceId,
    revision: row.revisionId,
    revisionInitial: row.revisionInitial,
    ...(row.revisionMergedAncestor ? { revisionMergedAncestor: row.revisionMergedAncestor } : {}),
    ...(row.revisionMerged ? { revisionMerged: row.revisionMerged } : {}),
    comments: input.comments ?? 0,
    outdated: isOutdated(row, input.primaryRevision),
    ...(row.conversationsIssuesCluster ? { conversationsIssuesCluster: row.conversationsIssuesCluster } : {}),
    urls: {
      location: urls.api(`/spaces/${row.spaceId}/change-requests/${row.id}`),
      app: urls.app(`/o/${orgId}/s/${row.spaceId}/~/changes/${row.number}`),
    },
  };
}

/** One change request, with what `loadChangeRequestsContext` loaded for it. */
export function presentLoadedChangeRequest(
  row: ChangeRequestRow,
  context: Parameters<typeof presentChangeRequests>[1],
  urls: Parameters<typeof presentChangeRequests>[2],
): ChangeRequestResponse {
  return presentChangeRequests([row], context, urls)[0] as ChangeRequestResponse;
}

/** Change requests of any spaces, with what `loadChangeRequestsContext` loaded for them. */
export function presentChangeRequests(
  rows: readonly ChangeRequestRow[],
  context: {
    users: ReadonlyMap<string, UserRow>;
    spaces: ReadonlyMap<string, SpaceRow>;
    comments: ReadonlyMap<string, number>;
  },
  urls: Urls,
): ChangeRequestResponse[] {
  return rows.map((row) => {
    const space = context.spaces.get(row.spaceId);
    return presentChangeRequest(
      row,
      {
        createdBy: context.users.get(row.createdBy),
        primaryRevision: space?.revisionId ?? row.revisionId,
        comments: context.comments.get(row.id) ?? 0,
      },
      urls,
      space?.orgId ?? "",
    );
  });
}
