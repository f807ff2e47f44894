/**
 * `registerCommentRoutes` under a second prefix, standing in for change requests (which mount the
 * same set with their own resolver): comments of each location stay apart, the resolver's
 * permissions drive the policy, replies may resolve their comment, counters count per location.
 */
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createSpace } from "../../../test/helpers/spaces.factories.js";
import { buildApp } from "../../app.js";
import { actorOf } from "../../http/authenticate.js";
import { Id } from "../../http/schemas.js";
import { openCommentCountsForChangeRequests } from "../change-requests/change-requests.queries.js";
import { openCommentCounts } from "../spaces/space-activity.queries.js";
import { requireLiveSpace } from "../spaces/spaces.loader.js";
import { CHANGE_REQUEST_COMMENT_OPERATION_IDS, registerCommentRoutes } from "./comments.routes.js";

let ctx: TestContext;
let app: FastifyInstance;
const prefix = "/v1/spaces/:spaceId/test-change-requests/:changeRequestId";

beforeAll(async () => {
  ctx = await createTestContext();
  app = await buildApp(ctx.deps);
  app.register(async (scoped) => {
    registerCommentRoutes(scoped, ctx.deps, {
      prefix,
      params: Type.Object({ spaceId: Id, changeRequestId: Id }),
      operationIds: CHANGE_REQUEST_COMMENT_OPERATION_IDS,
      replyResolvesComment: true,
      resolve: async (request) => {
        const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId: string };
        const { space, permissions } = await requireLiveSpace(ctx.db, actorOf(request), spaceId);
        // A "merged" change request in this stand-in takes no new comments.
        const open = !changeRequestId.startsWith("merged");
        return {
          space,
          changeRequestId,
          revision: space.revisionId,
          permissions: { ...permissions, comment: permissions.comment && open },
        };
      },
    });
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await ctx.close();
});

function as(user: TestUser) {
  const send = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${user.token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  return {
    get: (url: string) => send("GET", url),
    post: (url: string, body: unknown) => send("POST", url, body),
    put: (url: string, body: unknown) => send("PUT", url, body),
    delete: (url: string) => send("DELETE", url),
  };
}

describe("registerCommentRoutes under a change-request prefix", () => {
  it("keeps each location's comments apart and marks them with the change request", async () => {
    const { owner, members, org } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const cr = `/v1/spaces/${space.id}/test-change-requests/cr1`;
    const other = `/v1/spaces/${space.id}/test-change-requests/cr2`;
    const spaceBase = `/v1/spaces/${space.id}`;

    const onCr = await as(members.comment).post(`${cr}/comments`, { body: { markdown: "On the change request" } });
    expect(onCr.status).toBe(200);
    expect(onCr.body.target).toEqual({ space: space.id, revision: space.revision, changeRequest: "cr1" });
    expect(onCr.body.urls.location).toBe(`${ctx.urls.base}/v1/spaces/${space.id}/change-requests/cr1/comments/${onCr.body.id}`);
    const onSpace = await as(owner).post(`${spaceBase}/comments`, { body: { markdown: "On the space" } });
    await as(owner).post(`${other}/comments`, { body: { markdown: "On another change request" } });

    expect((await as(owner).get(`${cr}/comments`)).body.items.map((c: { id: string }) => c.id)).toEqual([onCr.body.id]);
    expect((await as(owner).get(`${spaceBase}/comments`)).body.items.map((c: { id: string }) => c.id)).toEqual([onSpace.body.id]);
    expect((await as(owner).get(`${spaceBase}/comments/${onCr.body.id}`)).status).toBe(404);
    const wrong = await as(owner).get(`${other}/comments/${onCr.body.id}`);
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.message).toBe(`No comment with id "${onCr.body.id}" in change request "cr2".`);
    expect((await as(owner).delete(`${spaceBase}/comments/${onCr.body.id}`)).status).toBe(204);
    expect((await as(owner).get(`${cr}/comments/${onCr.body.id}`)).status).toBe(200);

    const reply = await as(owner).post(`${cr}/comments/${onCr.body.id}/replies`, { body: { markdown: "Reply" } });
    expect(reply.body.urls.location).toBe(
      `${ctx.urls.base}/v1/spaces/${space.id}/change-requests/cr1/comments/${onCr.body.id}/replies/${reply.body.id}`,
    );
    expect((await as(owner).get(`${cr}/commenters`)).body.items.map((m: { id: string }) => m.id).sort()).toEqual(
      [owner.id, members.comment.id].sort(),
    );
    expect((await as(owner).get(`${spaceBase}/commenters`)).body.items.map((m: { id: string }) => m.id)).toEqual([owner.id]);

    expect(await openCommentCounts(ctx.db, { spaceIds: [space.id] })).toEqual(new Map([[space.id, 1]]));
    expect(await openCommentCountsForChangeRequests(ctx.db, ["cr1", "cr2", "cr3"])).toEqual(
      new Map([
        ["cr1", 1],
        ["cr2", 1],
        ["cr3", 0],
      ]),
    );
  });

  it("resolves and reopens the comment from a reply update, with the comment permission", async () => {
    const { owner, members, org } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const cr = `/v1/spaces/${space.id}/test-change-requests/cr-resolve`;
    const comment = (await as(owner).post(`${cr}/comments`, { body: { markdown: "Please check" } })).body;
    const reply = (await as(members.comment).post(`${cr}/comments/${comment.id}/replies`, { body: { markdown: "Done" } })).body;
    const url = `${cr}/comments/${comment.id}/replies/${reply.id}`;

    expect((await as(members.read).put(url, { resolved: true })).status).toBe(403);
    const resolving = await as(members.comment).put(url, { resolved: true });
    expect(resolving.status).toBe(200);
    expect(resolving.body.object).toBe("comment-reply");
    expect((await as(owner).get(`${cr}/comments/${comment.id}`)).body).toMatchObject({
      status: "resolved",
      resolvedBy: { id: members.comment.id },
    });
    expect(await openCommentCountsForChangeRequests(ctx.db, ["cr-resolve"])).toEqual(new Map([["cr-resolve", 0]]));
    await as(owner).put(url, { resolved: false });
    expect((await as(owner).get(`${cr}/comments/${comment.id}`)).body.status).toBe("open");
  });

  it("follows the resolver's permissions: reading allowed, posting refused where it may not comment", async () => {
    const { owner, outsider, org } = await createOrgWithRoles(ctx);
    const space = await createSpace(ctx, owner, org.id);
    const merged = `/v1/spaces/${space.id}/test-change-requests/merged-1`;
    const res = await as(owner).post(`${merged}/comments`, { body: { markdown: "Too late" } });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('You may read change request "merged-1" but not comment on it: that needs the comment permission.');
    expect((await as(owner).get(`${merged}/comments`)).status).toBe(200);
    expect((await as(outsider).get(`${merged}/comments`)).status).toBe(404);
  });

  it("declares the change-request operation ids in the API document", async () => {
    const document = app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    for (const id of Object.values(CHANGE_REQUEST_COMMENT_OPERATION_IDS)) expect(ids).toContain(id);
    const replyUpdate = document.paths[
      "/v1/spaces/{spaceId}/test-change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}"
    ]!.put as unknown as {
      requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } };
    };
    expect(Object.keys(replyUpdate.requestBody.content["application/json"].schema.properties)).toContain("resolved");
  });
});
