/**
 * What change requests share with the rest of the API: comments, links, PDF export and templates
 * under the change request, and the counters they feed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPdf } from "../../../test/fixtures/pdf/pdf-reader.js";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent } from "../../../test/helpers/change-requests.factories.js";
import { contractClient } from "../../../test/helpers/contract.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  await ctx.as(roles.owner).post(`/v1/spaces/${space.id}/content/template`, { id: "faq" });
  const cr = await createChangeRequest(ctx, roles.owner, space.id, { subject: "Add a guide" });
  await editContent(ctx, roles.owner, space.id, cr.id, [
    { operation: "insert_page", document: { markdown: "# Guide\n\nSee the [FAQ](README.md) and [the site](https://example.com/docs).\n" } },
  ]);
  return { ...roles, space, cr };
}

describe("comments on change requests", () => {
  it("keeps them apart from the space's, and counts open ones on the change request", async () => {
    const { owner, members, space, cr } = await setup();
    const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    const posted = await ctx.as(members.comment).post(`${prefix}/comments`, { body: { markdown: "Looks good" } });
    expect(posted.status).toBe(200);
    expect(posted.body.target).toMatchObject({ changeRequest: cr.id });
    expect((await ctx.as(owner).get(`${prefix}/comments`)).body.count).toBe(1);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/comments`)).body.count).toBe(0);
    expect((await ctx.as(owner).get(prefix)).body.comments).toBe(1);
    const contributors = (await ctx.as(owner).get(`${prefix}/contributors`)).body.items;
    expect(
      contributors.map((c: { user: { id: string }; actionType: string; count: number }) => [c.user.id, c.actionType, c.count]),
    ).toContainEqual([members.comment.id, "comment", 1]);
    // A reply on a change request can resolve its comment.
    const reply = await ctx.as(owner).post(`${prefix}/comments/${posted.body.id}/replies`, { body: { markdown: "Thanks" } });
    const resolving = await ctx.as(owner).put(`${prefix}/comments/${posted.body.id}/replies/${reply.body.id}`, { resolved: true });
    expect(resolving.status).toBe(200);
    expect(resolving.body).toMatchObject({ object: "comment-reply", id: reply.body.id });
    expect((await ctx.as(owner).get(`${prefix}/comments/${posted.body.id}`)).body.status).toBe("resolved");
    expect((await ctx.as(owner).get(prefix)).body.comments).toBe(0);
    expect((await ctx.as(members.read).post(`${prefix}/comments`, { body: { markdown: "x" } })).status).toBe(403);
  });

  it("counts open comments and change requests on the space", async () => {
    const { owner, space } = await setup();
    await ctx.as(owner).post(`/v1/spaces/${space.id}/comments`, { body: { markdown: "On the space" } });
    const seen = (await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body;
    expect(seen).toMatchObject({ comments: 1, changeRequests: 1, changeRequestsDraft: 1, changeRequestsOpen: 0 });
  });
});

describe("links, PDF and templates of change requests", () => {
  it("lists the change request's links and backlinks", async () => {
    const { owner, space, cr } = await setup();
    const links = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/links`);
    expect(links.status).toBe(200);
    expect(links.body.stats).toEqual({ total: 2, broken: { total: 0 } });
    const pages = (await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`)).body.pages;
    const faq = pages.find((p: { title: string }) => p.title === "FAQ");
    const backlinks = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${faq.id}/backlinks`);
    expect(backlinks.body.items.map((l: { page: { title: string } }) => l.page.title)).toEqual(["Guide"]);
    // The primary content does not have the guide yet.
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/links`)).body.stats.total).toBe(0);
    // Deleting the FAQ in the change request breaks the guide's link to it there.
    await editContent(ctx, owner, space.id, cr.id, [{ operation: "delete_page", page: faq.id }]);
    const after = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/links`);
    expect(after.body.stats).toEqual({ total: 2, broken: { total: 1 } });
  });

  it("exports the change request's content as a PDF", async () => {
    const { owner, space, cr } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`);
    const url = new URL(res.body.url);
    const pdf = await ctx.anonymous.get(url.pathname);
    const text = (await readPdf(pdf.raw)).text;
    expect(text).toContain("Change request #1: Add a guide");
    expect(text).toContain("See the");
  });

  it("applies templates to a change request, and creates one from a template", async () => {
    const { owner, space, cr } = await setup();
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/content/template`, { id: "changelog", changeRequestId: cr.id })).status).toBe(
      204,
    );
    const titles = (await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`)).body.pages.map(
      (p: { title: string }) => p.title,
    );
    expect(titles).toEqual(["FAQ", "Guide", "Changelog"]);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages.map((p: { title: string }) => p.title)).toEqual(["FAQ"]);

    const fromTemplate = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/change-requests`, { subject: "Start", template: { id: "getting-started" } });
    expect(fromTemplate.status).toBe(201);
    const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests/${fromTemplate.body.id}/content`)).body;
    expect(content.pages.map((p: { title: string }) => p.title)).toEqual(["FAQ", "Welcome", "Getting started"]);
    const bad = await ctx.as(owner).post(`/v1/spaces/${space.id}/change-requests`, { template: { id: "nope" } });
    expect(bad.status).toBe(400);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/change-requests?status=draft`)).body.count).toBe(2);
  });

  it("validates through @gitbook/api", async () => {
    const { owner, space, cr } = await setup();
    const client = contractClient(await ctx.listen(), owner.token);
    expect((await client.spaces.listChangeRequestLinks(space.id, cr.id)).data.stats.total).toBe(2);
    expect((await client.spaces.getChangeRequestPdf(space.id, cr.id)).data.url).toMatch(/\/pdf\//);
    const comment = await client.spaces.postCommentInChangeRequest(space.id, cr.id, { body: { markdown: "Nice" } } as never);
    expect((await client.spaces.listCommentsInChangeRequest(space.id, cr.id)).data.items[0]!.id).toBe(comment.data.id);
  });
});
