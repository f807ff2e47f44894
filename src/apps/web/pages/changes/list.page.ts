/** The change requests of a space, with the API's filters; editors may create one. */
import Type from "typebox";
import { loadChangeRequestsContext } from "../../../../modules/change-requests/change-requests.loader.js";
import { listChangeRequests } from "../../../../modules/change-requests/change-requests.queries.js";
import { CHANGE_REQUEST_STATUSES, type ChangeRequestStatus } from "../../../../modules/change-requests/change-requests.schemas.js";
import { orgHandler } from "../../web.kinds.js";
import { Id, SpaceParams } from "../../web.schemas.js";
import { requireOrgSpace, sendOrgPage } from "../../web.steps.js";
import { crumbTrail } from "./changes.views.js";
import { listPage } from "./list.views.js";

const schema = {
  params: SpaceParams,
  querystring: Type.Object({
    status: Type.Optional(Type.Enum([...CHANGE_REQUEST_STATUSES])),
    creator: Type.Optional(Id),
    contributor: Type.Optional(Id),
    requestedReviewer: Type.Optional(Id),
    page: Type.Optional(Type.String({ maxLength: 500 })),
  }),
};

export const changesListPage = orgHandler(schema, async (request, reply, ctx) => {
  const { db } = ctx.deps;
  const loaded = await requireOrgSpace(ctx, request.params.space, { live: true });
  const { creator, contributor, requestedReviewer } = request.query;
  const status = (request.query.status ?? "open") as ChangeRequestStatus;
  const listed = await listChangeRequests(
    db,
    { scope: "space", spaceIds: [loaded.space.id], status, creator, contributor, requestedReviewer },
    { page: request.query.page, limit: 50 },
  );
  const context = await loadChangeRequestsContext(db, listed.rows);
  const org = { id: ctx.org.id, title: ctx.org.title };
  const space = { id: loaded.space.id, title: loaded.space.title };
  const body = listPage({
    org,
    space,
    status,
    mine: { id: ctx.actor.user.id },
    rows: listed.rows.map((row) => ({
      row,
      author: context.users.get(row.createdBy)?.displayName ?? "a former member",
      comments: context.comments.get(row.id) ?? 0,
    })),
    next: listed.next?.page,
    query: { status: request.query.status, creator, contributor, requestedReviewer },
    mayCreate: loaded.permissions.edit,
    csrf: ctx.csrf(),
  });
  return sendOrgPage(reply, ctx, { title: "Change requests", body, crumbs: crumbTrail(org, space), wide: true });
});
