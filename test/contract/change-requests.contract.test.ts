/**
 * Change requests through GitBook's own client: every operation of @gitbook/api 0.146 that Quire
 * implements, each response validated against the spec. The content edit operation (later API
 * versions) and the conflicts list (a Quire extension) are not in that client: they go through
 * fetch, and their embedded objects are validated against the spec's schemas.
 */
import { ChangeRequestReviewStatus, ChangeRequestStatus } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { commitContent, testFile } from "../helpers/content.factories.js";
import { contractClient, schemaErrors } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("change requests through @gitbook/api", () => {
  it("covers create, list, get, update, content reads, changes, contributors, update from primary and merge", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const reviewer = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Contract Change Requests");
    await addMemberToOrg(ctx, org.id, reviewer, "review");
    const space = await createSpace(ctx, owner, org.id, { title: "Handbook" });
    const file = await testFile(ctx, "logo.png", Buffer.from("89504e47", "hex"), "image/png", { dimensions: { width: 1, height: 1 } });
    const { content } = await commitContent(ctx, space.id, {
      pages: [
        { title: "Home", slug: "home", paragraphs: ["One", "Two"] },
        { title: "Guides", kind: "group", slug: "guides", children: [{ title: "Install", slug: "install", paragraphs: ["Steps"] }] },
      ],
      files: [file],
      variables: { version: "1" },
    });
    const [home, guides] = content.pages;
    const install = guides!.children[0]!;
    const client = contractClient(endpoint, owner.token);
    const content$ = async (prefix: string, changes: unknown[], compat = true) => {
      const res = await fetch(`${endpoint}/v1${prefix}/content${compat ? "" : "?compat=false"}`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
        body: JSON.stringify({ changes }),
      });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };

    const created = await client.spaces.createChangeRequest(space.id, { subject: "Rewrite the home page" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${ctx.urls.base}/v1/spaces/${space.id}/change-requests/${created.data.id}`);
    const cr = created.data;
    expect(cr).toMatchObject({ number: 1, status: "draft", outdated: false });
    const other = (await client.spaces.createChangeRequest(space.id, {})).data;

    // Content edit (later API): Markdown, a JSON document, a move and a file.
    const prefix = `/spaces/${space.id}/change-requests/${cr.id}`;
    const edited = await content$(
      prefix,
      [
        { operation: "update_page", page: home!.id, document: { markdown: "# Home\n\nOne, rewritten\n\nTwo\n" } },
        { operation: "insert_page", ref: "faq", into: guides!.id, document: { markdown: "# FAQ\n\nSee [install](./install.md)." } },
        { operation: "update_page", page: install.id, into: null, title: "Installation" },
        {
          operation: "insert_files",
          files: [{ name: "notes.txt", contentType: "text/plain", base64: Buffer.from("notes").toString("base64") }],
        },
      ],
      false,
    );
    expect(schemaErrors("ChangeRequest", edited.changeRequest)).toEqual([]);
    for (const inserted of edited.insertedFiles) expect(schemaErrors("RevisionFile", inserted)).toEqual([]);
    expect(edited.changes.map((c: { object: string }) => c.object)).toEqual(["updated_page", "created_page", "updated_page"]);
    expect(schemaErrors("ChangeRequest", await content$(prefix, [{ operation: "update_page", page: home!.id, emoji: "1f3e0" }]))).toEqual(
      [],
    );

    expect((await client.spaces.listChangeRequestsForSpace(space.id, { status: ChangeRequestStatus.Draft, limit: 1 })).data).toMatchObject({
      count: 2,
      items: [{ id: other.id }],
    });
    expect((await client.spaces.listChangeRequestsForSpace(space.id)).data.count).toBe(0);
    expect(
      (
        await client.orgs.listChangeRequestsForOrganization(org.id, {
          status: ChangeRequestStatus.Draft,
          creator: owner.id,
          contributor: owner.id,
        })
      ).data.items.map((i) => i.id),
    ).toEqual([cr.id]);
    expect(
      (await client.orgs.listChangeRequestsForOrganization(org.id, { requestedReviewer: reviewer.id, conversationsIssuesCluster: "none" }))
        .data.count,
    ).toBe(0);
    expect((await client.spaces.getChangeRequestById(space.id, String(cr.number))).data.id).toBe(cr.id);
    const updated = await client.spaces.updateChangeRequestById(space.id, cr.id, {
      subject: "Rewrite home",
      status: "open",
      description: {
        object: "document",
        data: {},
        nodes: [
          {
            object: "block",
            type: "paragraph",
            key: "d1",
            nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Why", marks: [] }] }],
          },
        ],
      },
    });
    expect(updated.data).toMatchObject({ subject: "Rewrite home", status: "open" });

    // Content reads mirror the space's.
    const revision = await client.spaces.getRevisionOfChangeRequestById(space.id, cr.id, { metadata: true });
    expect(revision.data.pages.map((p) => p.title)).toEqual(["Home", "Guides", "Installation"]);
    expect((await client.spaces.listPagesInChangeRequest(space.id, cr.id)).data.pages).toHaveLength(3);
    expect((await client.spaces.listFilesInChangeRequestById(space.id, cr.id, { limit: 10 })).data.count).toBe(2);
    expect((await client.spaces.getFileInChangeRequestById(space.id, cr.id, file.id)).data.name).toBe("logo.png");
    expect((await client.spaces.getPageInChangeRequestById(space.id, cr.id, home!.id, { format: "document" })).data.title).toBe("Home");
    expect((await client.spaces.getPageInChangeRequestByPath(space.id, cr.id, "guides/faq")).data.title).toBe("FAQ");
    await expect(client.spaces.getReusableContentInChangeRequestById(space.id, cr.id, "none")).rejects.toMatchObject({ code: 404 });

    const changes = await client.spaces.getChangeRequestChanges(space.id, cr.id, { limit: 3 });
    expect(changes.data.changes.map((c) => c.type)).toEqual(["page_edited", "page_created", "page_edited"]);
    expect(changes.data.more).toBe(2);
    expect((await client.spaces.getContributorsByChangeRequestId(space.id, cr.id)).data.items).toMatchObject([
      { user: { id: owner.id }, count: 2, actionType: "edit" },
    ]);

    // Another change request merged first makes this one outdated; update, then merge.
    await content$(`/spaces/${space.id}/change-requests/${other.id}`, [
      { operation: "update_page", page: home!.id, document: { markdown: "# Home\n\nOne\n\nTwo, elsewhere\n" } },
    ]);
    expect((await client.spaces.mergeChangeRequest(space.id, other.id)).data.result).toBe("merge");
    expect((await client.spaces.getChangeRequestById(space.id, cr.id)).data.outdated).toBe(true);
    const update = await client.spaces.updateChangeRequest(space.id, cr.id);
    expect(update.data.result).toBe("update");
    expect((await client.spaces.getChangeRequestById(space.id, cr.id)).data).toMatchObject({
      outdated: false,
      revision: update.data.revision,
    });
    const merged = await contractClient(endpoint, reviewer.token).spaces.mergeChangeRequest(space.id, cr.id);
    expect(merged.data.result).toBe("merge");
    const primary = await client.spaces.getCurrentRevision(space.id);
    expect(primary.data).toMatchObject({ id: merged.data.revision, type: "merge", mergedFrom: { id: cr.id, status: "merged" } });
    expect((await client.spaces.getRevisionById(space.id, merged.data.revision)).data.type).toBe("merge");
    expect((await client.spaces.getSpaceById(space.id)).data).toMatchObject({
      changeRequests: 2,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
    });
  });

  it("reports conflicts through the client, lists them through fetch, and merges once resolved", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Contract Conflicts");
    const space = await createSpace(ctx, owner, org.id, { title: "Conflicts" });
    const { content } = await commitContent(ctx, space.id, { pages: [{ title: "Home", slug: "home", paragraphs: ["Same"] }] });
    const home = content.pages[0]!;
    const client = contractClient(endpoint, owner.token);
    const post = (path: string, body: unknown) =>
      fetch(`${endpoint}/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const a = (await client.spaces.createChangeRequest(space.id, {})).data;
    const b = (await client.spaces.createChangeRequest(space.id, {})).data;
    for (const [cr, text] of [
      [a, "From A"],
      [b, "From B"],
    ] as const) {
      const res = await post(`/spaces/${space.id}/change-requests/${cr.id}/content`, {
        changes: [{ operation: "update_page", page: home.id, document: { markdown: `${text}\n` } }],
      });
      expect(res.status).toBe(200);
    }
    expect((await client.spaces.mergeChangeRequest(space.id, a.id)).data.result).toBe("merge");
    const primary = (await client.spaces.getSpaceById(space.id)).data.revision;
    expect((await client.spaces.mergeChangeRequest(space.id, b.id)).data).toEqual({ revision: primary, result: "conflicts" });
    expect((await client.spaces.updateChangeRequest(space.id, b.id)).data.result).toBe("conflicts");

    const listed = await fetch(`${endpoint}/v1/spaces/${space.id}/change-requests/${b.id}/conflicts`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    const conflicts = (await listed.json()) as any;
    expect(conflicts).toMatchObject({
      object: "change-request-conflicts",
      revision: primary,
      count: 1,
      items: [{ kind: "block", page: { id: home.id } }],
    });
    expect(schemaErrors("DocumentBlockParagraph", conflicts.items[0].primary)).toEqual([]);
    expect(schemaErrors("DocumentBlockParagraph", conflicts.items[0].changeRequest)).toEqual([]);

    await post(`/spaces/${space.id}/change-requests/${b.id}/content`, {
      changes: [{ operation: "update_page", page: home.id, document: { markdown: "From A and B\n" } }],
    });
    expect((await client.spaces.mergeChangeRequest(space.id, b.id)).data.result).toBe("merge");
    const page = await client.spaces.getPageById(space.id, home.id, { format: "document" });
    expect(JSON.stringify(page.data)).toContain("From A and B");
  });

  it("covers reviews, requested reviewers and merge rules", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const author = await createUser(ctx);
    const reviewer = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Contract Reviews");
    await addMemberToOrg(ctx, org.id, author, "edit");
    await addMemberToOrg(ctx, org.id, reviewer, "review");
    const space = await createSpace(ctx, owner, org.id, { title: "Reviewed" });
    const ownerClient = contractClient(endpoint, owner.token);
    const authorClient = contractClient(endpoint, author.token);
    const reviewerClient = contractClient(endpoint, reviewer.token);
    await ownerClient.spaces.updateSpaceById(space.id, {
      mergeRules: {
        type: "rules",
        rules: [
          { rule: "require_specific_reviewers", users: [reviewer.id] },
          { rule: "custom", expression: "reviews.length > 0" },
        ],
      },
    });
    const cr = (await authorClient.spaces.createChangeRequest(space.id, { subject: "Needs review" })).data;

    const asked = await authorClient.spaces.requestReviewersForChangeRequest(space.id, cr.id, { users: [reviewer.id, owner.id] });
    expect(asked.data.users?.map((r) => (r.kind === "user" ? r.user.id : r.team.id))).toEqual([reviewer.id, owner.id]);
    expect((await ownerClient.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id)).data.count).toBe(2);
    expect((await ownerClient.spaces.removeRequestedReviewerFromChangeRequest(space.id, cr.id, owner.id)).status).toBe(204);

    await expect(ownerClient.spaces.mergeChangeRequest(space.id, cr.id)).rejects.toMatchObject({ code: 403 });
    const review = await reviewerClient.spaces.submitChangeRequestReview(space.id, cr.id, {
      status: ChangeRequestReviewStatus.Approved,
      comment: { markdown: "Ship it" },
    });
    expect(review.status).toBe(201);
    expect(review.data).toMatchObject({ reviewer: { id: reviewer.id }, requestedBy: { id: author.id }, outdated: false });
    const listed = await ownerClient.spaces.getReviewsByChangeRequestId(space.id, cr.id, { outdated: false, format: "markdown" });
    expect(listed.data.items.map((r) => r.id)).toEqual([review.data.id]);
    expect((await ownerClient.spaces.getChangeRequestReviewById(space.id, cr.id, review.data.id)).data.comment?.target.review).toBe(
      review.data.id,
    );
    expect((await ownerClient.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id)).data.count).toBe(0);
    expect((await ownerClient.spaces.mergeChangeRequest(space.id, cr.id)).data.result).toBe("merge");
  });
});
