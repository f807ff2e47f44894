/**
 * Merge and update of change requests, end to end: every change (to the change request and, by
 * merging other change requests, to the primary content) is a real edit through the content API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import {
  createChangeRequest,
  editContent,
  mergeChangeRequest,
  pageKeys,
  pageTexts,
  updateChangeRequest,
} from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Page = { id: string; title: string; path?: string; pages?: Page[] };
const flatten = (pages: Page[]): Page[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      { title: "Home", slug: "home", paragraphs: ["One", "Two", "Three"] },
      { title: "Guides", slug: "guides", paragraphs: ["Intro"], children: [{ title: "Install", slug: "install", paragraphs: ["Steps"] }] },
      { title: "Reference", slug: "reference", paragraphs: ["API"] },
    ],
  });
  const [home, guides, reference] = content.pages;
  const owner = roles.owner;
  const primaryPrefix = `/v1/spaces/${space.id}`;
  const crPrefix = (id: string) => `/v1/spaces/${space.id}/change-requests/${id}`;
  /** A change to the primary content: a change request made, edited and merged at once. */
  const changePrimary = async (changes: unknown[], user: TestUser = owner) => {
    const cr = await createChangeRequest(ctx, user, space.id);
    await editContent(ctx, user, space.id, cr.id, changes);
    expect((await mergeChangeRequest(ctx, user, space.id, cr.id)).result).toBe("merge");
  };
  const primaryRevision = async () => (await ctx.as(owner).get(primaryPrefix)).body.revision as string;
  const get = async (id: string) => (await ctx.as(owner).get(crPrefix(id))).body;
  const markdown = (...paragraphs: string[]) => ({ markdown: `${paragraphs.join("\n\n")}\n` });
  return {
    ...roles,
    space,
    home: home!,
    guides: guides!,
    install: guides!.children[0]!,
    reference: reference!,
    primaryPrefix,
    crPrefix,
    changePrimary,
    primaryRevision,
    get,
    markdown,
  };
}

describe("merging change requests", () => {
  it("merges edits of different blocks of one page cleanly, as a merge revision naming the change request", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id, { subject: "Third paragraph" });
    await s.changePrimary([{ operation: "update_page", page: s.home.id, document: s.markdown("One (primary)", "Two", "Three") }]);
    await editContent(ctx, s.owner, s.space.id, cr.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One", "Two", "Three (change request)") },
    ]);
    const before = await s.primaryRevision();
    expect(await s.get(cr.id)).toMatchObject({ outdated: true, status: "draft" });

    const merged = await mergeChangeRequest(ctx, s.members.review, s.space.id, cr.id);
    expect(merged.result).toBe("merge");
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.home.id)).toEqual(["One (primary)", "Two", "Three (change request)"]);
    const after = await s.get(cr.id);
    expect(after).toMatchObject({ status: "merged", revisionMerged: merged.revision, outdated: false });
    const revision = (await ctx.as(s.owner).get(`${s.primaryPrefix}/content`)).body;
    expect(revision).toMatchObject({
      id: merged.revision,
      type: "merge",
      parents: [before, after.revision],
      mergedFrom: { object: "change-request", id: cr.id, number: cr.number, status: "merged" },
    });
    expect((await ctx.as(s.owner).get(`${s.primaryPrefix}/revisions/${merged.revision}`)).body.mergedFrom.id).toBe(cr.id);
    const jobs = await ctx.db
      .selectFrom("jobs")
      .select(["payload"])
      .where("kind", "=", "search-index-space")
      .where("state", "=", "queued")
      .execute();
    expect(jobs.some((j) => JSON.parse(j.payload).spaceId === s.space.id)).toBe(true);
  });

  it("reports edits of the same block as conflicts, changes nothing, lists both versions, and merges once resolved by editing", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, cr.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One", "Two (change request)", "Three") },
    ]);
    await s.changePrimary([{ operation: "update_page", page: s.home.id, document: s.markdown("One (primary)", "Two (primary)", "Three") }]);
    const primary = await s.primaryRevision();
    const head = (await s.get(cr.id)).revision;

    expect(await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).toEqual({ revision: primary, result: "conflicts" });
    expect(await updateChangeRequest(ctx, s.owner, s.space.id, cr.id)).toEqual({ revision: head, result: "conflicts" });
    expect(await s.primaryRevision()).toBe(primary);
    expect(await s.get(cr.id)).toMatchObject({ revision: head, status: "draft", outdated: true });
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.home.id)).toEqual(["One (primary)", "Two (primary)", "Three"]);

    const secondKey = (await pageKeys(ctx, s.owner, s.primaryPrefix, s.home.id))[1];
    const listed = await ctx.as(s.members.read).get(`${s.crPrefix(cr.id)}/conflicts`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ object: "change-request-conflicts", revision: primary, changeRequestRevision: head, count: 1 });
    const [conflict] = listed.body.items;
    expect(conflict).toMatchObject({
      kind: "block",
      page: { id: s.home.id, title: "Home", path: "home" },
      blockKey: secondKey,
      field: "nodes",
    });
    // Each version is the whole block as that side has it.
    const text = (block: any) => block.nodes.map((n: any) => n.leaves.map((l: any) => l.text).join("")).join("");
    expect([text(conflict.base), text(conflict.primary), text(conflict.changeRequest)]).toEqual([
      "Two",
      "Two (primary)",
      "Two (change request)",
    ]);

    // Resolve: write the paragraph as it should be in the change request.
    await editContent(ctx, s.owner, s.space.id, cr.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One", "Two (resolved)", "Three") },
    ]);
    expect((await ctx.as(s.owner).get(`${s.crPrefix(cr.id)}/conflicts`)).body.count).toBe(0);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("merge");
    // The resolved block is the change request's; the primary's other edit of the page is kept.
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.home.id)).toEqual(["One (primary)", "Two (resolved)", "Three"]);
  });

  it("keeps both a move and an edit of the same page, either way round", async () => {
    const s = await setup();
    const mover = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, mover.id, [{ operation: "update_page", page: s.install.id, into: null, at: 0 }]);
    await s.changePrimary([
      { operation: "update_page", page: s.install.id, title: "Installation", document: s.markdown("Steps, updated") },
    ]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, mover.id)).result).toBe("merge");
    let pages = (await ctx.as(s.owner).get(`${s.primaryPrefix}/content/pages`)).body.pages as Page[];
    expect(pages[0]).toMatchObject({ id: s.install.id, title: "Installation", path: "install" });
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.install.id)).toEqual(["Steps, updated"]);

    const editor = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, editor.id, [{ operation: "update_page", page: s.reference.id, title: "API reference" }]);
    await s.changePrimary([{ operation: "update_page", page: s.reference.id, into: s.guides.id }]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, editor.id)).result).toBe("merge");
    pages = flatten((await ctx.as(s.owner).get(`${s.primaryPrefix}/content/pages`)).body.pages);
    expect(pages.find((p) => p.id === s.reference.id)).toMatchObject({ title: "API reference", path: "guides/reference" });
  });

  it("reports a deletion against an edit, and merges once the change request confirms the deletion", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, cr.id, [{ operation: "delete_page", page: s.reference.id }]);
    await s.changePrimary([{ operation: "update_page", page: s.reference.id, document: s.markdown("API, documented") }]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("conflicts");
    const conflicts = (await ctx.as(s.owner).get(`${s.crPrefix(cr.id)}/conflicts`)).body;
    expect(conflicts.items).toEqual([
      expect.objectContaining({
        kind: "delete-edit",
        page: expect.objectContaining({ id: s.reference.id }),
        message: expect.stringMatching(/deleted by the change request and changed or moved by the primary/),
      }),
    ]);
    expect(conflicts.items[0].changeRequest).toBeUndefined();
    expect(conflicts.items[0].primary).toMatchObject({ id: s.reference.id, title: "Reference" });

    await editContent(ctx, s.owner, s.space.id, cr.id, [{ operation: "delete_page", page: s.reference.id }]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("merge");
    const pages = flatten((await ctx.as(s.owner).get(`${s.primaryPrefix}/content/pages`)).body.pages);
    expect(pages.map((p) => p.id)).not.toContain(s.reference.id);
  });

  it("merges an edit of a page the primary deleted only after the change request drops it too", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, cr.id, [
      { operation: "update_page", page: s.reference.id, document: s.markdown("API v2") },
      { operation: "update_page", page: s.home.id, title: "Start" },
    ]);
    await s.changePrimary([{ operation: "delete_page", page: s.reference.id }]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("conflicts");
    await editContent(ctx, s.owner, s.space.id, cr.id, [{ operation: "delete_page", page: s.reference.id }]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("merge");
    const pages = (await ctx.as(s.owner).get(`${s.primaryPrefix}/content/pages`)).body.pages as Page[];
    expect(pages.map((p) => p.title)).toEqual(["Start", "Guides"]);
  });

  it("merges two change requests one after the other, and both at the same time, losing neither", async () => {
    const s = await setup();
    const first = await createChangeRequest(ctx, s.owner, s.space.id);
    const second = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, first.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One (first)", "Two", "Three") },
    ]);
    await editContent(ctx, s.owner, s.space.id, second.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One", "Two", "Three (second)") },
      { operation: "insert_page", title: "Changelog", document: s.markdown("v2") },
    ]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, first.id)).result).toBe("merge");
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, second.id)).result).toBe("merge");
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.home.id)).toEqual(["One (first)", "Two", "Three (second)"]);

    const crs = await Promise.all([0, 1, 2].map(() => createChangeRequest(ctx, s.owner, s.space.id)));
    await editContent(ctx, s.owner, s.space.id, crs[0]!.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One (A)", "Two", "Three (second)") },
    ]);
    await editContent(ctx, s.owner, s.space.id, crs[1]!.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One (first)", "Two (B)", "Three (second)") },
    ]);
    await editContent(ctx, s.owner, s.space.id, crs[2]!.id, [{ operation: "update_page", page: s.install.id, title: "Setup (C)" }]);
    const results = await Promise.all(crs.map((cr) => ctx.as(s.owner).post(`${s.crPrefix(cr.id)}/merge`)));
    expect(results.map((r) => [r.status, r.body.result])).toEqual([
      [200, "merge"],
      [200, "merge"],
      [200, "merge"],
    ]);
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.home.id)).toEqual(["One (A)", "Two (B)", "Three (second)"]);
    const pages = flatten((await ctx.as(s.owner).get(`${s.primaryPrefix}/content/pages`)).body.pages);
    expect(pages.find((p) => p.id === s.install.id)?.title).toBe("Setup (C)");
    expect(pages.map((p) => p.title)).toContain("Changelog");
    // The merge revisions form one chain: each concurrent merge was recomputed on the one before.
    const revisions = await Promise.all(results.map((r) => ctx.as(s.owner).get(`${s.primaryPrefix}/revisions/${r.body.revision}`)));
    const parents = new Set(revisions.map((r) => r.body.parents[0]));
    expect(revisions.filter((r) => !results.some((other) => other.body.revision === r.body.parents[0]))).toHaveLength(1);
    expect(parents.size).toBe(3);
  });
});

describe("updating change requests from the primary content", () => {
  it("brings primary changes in, moves the base, and is a no-op when up to date", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, cr.id, [
      { operation: "update_page", page: s.home.id, document: s.markdown("One", "Two", "Three (change request)") },
    ]);
    await s.changePrimary([
      { operation: "update_page", page: s.home.id, document: s.markdown("One (primary)", "Two", "Three") },
      { operation: "insert_page", title: "News", document: s.markdown("Fresh") },
    ]);
    const primary = await s.primaryRevision();
    expect(await s.get(cr.id)).toMatchObject({ outdated: true });
    const updated = await updateChangeRequest(ctx, s.members.edit, s.space.id, cr.id);
    expect(updated.result).toBe("update");
    const after = await s.get(cr.id);
    expect(after).toMatchObject({ revision: updated.revision, revisionMergedAncestor: primary, outdated: false });
    const prefix = s.crPrefix(cr.id);
    expect(await pageTexts(ctx, s.owner, prefix, s.home.id)).toEqual(["One (primary)", "Two", "Three (change request)"]);
    expect((await ctx.as(s.owner).get(`${prefix}/content`)).body).toMatchObject({ type: "update", parents: [expect.any(String), primary] });
    expect(await updateChangeRequest(ctx, s.owner, s.space.id, cr.id)).toEqual({ revision: updated.revision, result: "update" });
    // What the change request changes is now relative to its new base.
    const changes = (await ctx.as(s.owner).get(`${prefix}/changes`)).body;
    expect(changes.changes).toEqual([
      expect.objectContaining({
        type: "page_edited",
        page: expect.objectContaining({ id: s.home.id }),
        attributes: { document: expect.any(Object) },
      }),
    ]);
    expect((await mergeChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("merge");
    expect(await pageTexts(ctx, s.owner, s.primaryPrefix, s.home.id)).toEqual(["One (primary)", "Two", "Three (change request)"]);
  });

  it("after conflicts, updates once the page in conflict is edited", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, cr.id, [{ operation: "update_page", page: s.home.id, title: "Welcome (change request)" }]);
    await s.changePrimary([{ operation: "update_page", page: s.home.id, title: "Welcome (primary)", description: "Kept" }]);
    expect((await updateChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("conflicts");
    const listed = (await ctx.as(s.owner).get(`${s.crPrefix(cr.id)}/conflicts`)).body.items;
    expect(listed).toEqual([
      expect.objectContaining({
        kind: "page",
        field: "title",
        base: "Home",
        primary: "Welcome (primary)",
        changeRequest: "Welcome (change request)",
      }),
    ]);
    await editContent(ctx, s.owner, s.space.id, cr.id, [{ operation: "update_page", page: s.home.id, title: "Welcome" }]);
    expect((await updateChangeRequest(ctx, s.owner, s.space.id, cr.id)).result).toBe("update");
    const page = (await ctx.as(s.owner).get(`${s.crPrefix(cr.id)}/content/page/${s.home.id}`)).body;
    expect(page).toMatchObject({ title: "Welcome", description: "Kept" });
  });
});

describe("merge and update permissions, counters and outdated", () => {
  it("needs the review level for a merge and the edit level for an update, on a live space", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.members.edit, s.space.id);
    await ctx.as(s.members.edit).patch(s.crPrefix(cr.id), { status: "open" });
    expect(await s.get(cr.id)).toMatchObject({ status: "open" });
    const byEditor = await ctx.as(s.members.edit).post(`${s.crPrefix(cr.id)}/merge`);
    expect(byEditor.status).toBe(403);
    expect(byEditor.body.error.message).toBe(
      `Only members with the review level or higher on space "${s.space.id}" can merge its change requests.`,
    );
    expect((await ctx.as(s.members.comment).post(`${s.crPrefix(cr.id)}/update`)).status).toBe(403);
    expect((await ctx.as(s.outsider).post(`${s.crPrefix(cr.id)}/merge`)).status).toBe(404);
    expect((await ctx.anonymous.post(`${s.crPrefix(cr.id)}/merge`)).status).toBe(401);
    await ctx.as(s.owner).patch(s.primaryPrefix, { editMode: "locked" });
    const locked = await ctx.as(s.members.review).post(`${s.crPrefix(cr.id)}/merge`);
    expect(locked.status).toBe(403);
    expect(locked.body.error.message).toMatch(/is locked \(editMode "locked"\), so you cannot merge its change requests/);
    expect((await ctx.as(s.members.edit).post(`${s.crPrefix(cr.id)}/update`)).status).toBe(403);
    await ctx.as(s.owner).patch(s.primaryPrefix, { editMode: "live" });
    expect((await mergeChangeRequest(ctx, s.members.review, s.space.id, cr.id)).result).toBe("merge");
  });

  it("keeps the space's counters and each change request's outdated flag true through edits, merges and updates", async () => {
    const s = await setup();
    const counters = async () => {
      const { changeRequests, changeRequestsOpen, changeRequestsDraft } = (await ctx.as(s.owner).get(s.primaryPrefix)).body;
      return [changeRequests, changeRequestsOpen, changeRequestsDraft];
    };
    const a = await createChangeRequest(ctx, s.owner, s.space.id);
    const b = await createChangeRequest(ctx, s.owner, s.space.id);
    await ctx.as(s.owner).patch(s.crPrefix(b.id), { status: "open" });
    expect(await counters()).toEqual([2, 1, 1]);
    await editContent(ctx, s.owner, s.space.id, a.id, [{ operation: "update_page", page: s.home.id, title: "A" }]);
    expect([(await s.get(a.id)).outdated, (await s.get(b.id)).outdated]).toEqual([false, false]);
    await mergeChangeRequest(ctx, s.owner, s.space.id, a.id);
    expect(await counters()).toEqual([2, 1, 0]);
    expect([(await s.get(a.id)).outdated, (await s.get(b.id)).outdated]).toEqual([false, true]);
    const list = (await ctx.as(s.owner).get(`/v1/orgs/${s.org.id}/spaces`)).body.items.find((i: { id: string }) => i.id === s.space.id);
    expect([list.changeRequests, list.changeRequestsOpen, list.changeRequestsDraft]).toEqual([2, 1, 0]);
    await updateChangeRequest(ctx, s.owner, s.space.id, b.id);
    expect((await s.get(b.id)).outdated).toBe(false);
    await ctx.as(s.owner).patch(s.crPrefix(b.id), { status: "archived" });
    expect(await counters()).toEqual([2, 0, 0]);
  });
});

describe("GET .../changes", () => {
  it("lists what the change request changes, page by page, with a limit", async () => {
    const s = await setup();
    const cr = await createChangeRequest(ctx, s.owner, s.space.id);
    await editContent(ctx, s.owner, s.space.id, cr.id, [
      { operation: "insert_page", title: "New", document: s.markdown("new") },
      { operation: "update_page", page: s.home.id, title: "Start" },
      { operation: "update_page", page: s.install.id, into: null },
      { operation: "delete_page", page: s.reference.id },
      { operation: "insert_files", files: [{ name: "a.txt", contentType: "text/plain", base64: Buffer.from("hi").toString("base64") }] },
    ]);
    const all = (await ctx.as(s.members.read).get(`${s.crPrefix(cr.id)}/changes?limit=100`)).body;
    expect(all.changes.map((c: { type: string }) => c.type)).toEqual([
      "page_edited",
      "page_created",
      "page_moved",
      "page_deleted",
      "file_created",
    ]);
    expect(all.changes[0]).toMatchObject({
      page: { id: s.home.id, title: "Start", type: "document", path: "home" },
      attributes: { title: { before: "Home", after: "Start" } },
    });
    expect(all.changes[2]).toMatchObject({ page: { id: s.install.id, path: "install" }, parent: { before: { id: s.guides.id } } });
    expect(all.changes[4].file).toMatchObject({
      name: "a.txt",
      contentType: "text/plain",
      downloadURL: expect.stringContaining("/files/"),
    });
    expect(all.more).toBeUndefined();
    const limited = (await ctx.as(s.owner).get(`${s.crPrefix(cr.id)}/changes?limit=2`)).body;
    expect(limited).toMatchObject({ changes: [{ type: "page_edited" }, { type: "page_created" }], more: 3 });
    expect((await ctx.as(s.owner).get(`${s.crPrefix(cr.id)}/changes`)).body.changes).toHaveLength(5);
    expect((await ctx.as(s.outsider).get(`${s.crPrefix(cr.id)}/changes`)).status).toBe(404);
  });
});
