/**
 * Merge rules enforced on POST .../merge: the space's own rules or its organization's, each rule
 * kind through real reviews and edits, bypass, and a blocked merge changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { addMemberToOrg, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import { createSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Roles = Awaited<ReturnType<typeof createOrgWithRoles>>;

/** A space with `rules` (a list, or made from the members), and a change request by the edit member. */
async function setup(rulesOf: unknown[] | ((roles: Roles) => unknown[]) | undefined) {
  const roles = await createOrgWithRoles(ctx);
  const second = await createUser(ctx, { displayName: "Second Reviewer" });
  await addMemberToOrg(ctx, roles.org.id, second, "review");
  const space = await createSpace(ctx, roles.owner, roles.org.id, { title: "Docs" });
  const rules = typeof rulesOf === "function" ? rulesOf(roles) : rulesOf;
  if (rules) {
    const patched = await ctx.as(roles.owner).patch(`/v1/spaces/${space.id}`, { mergeRules: { type: "rules", rules } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }
  const cr = await createChangeRequest(ctx, roles.members.edit, space.id, { subject: "Add a guide" });
  await editContent(ctx, roles.members.edit, space.id, cr.id, [
    { operation: "insert_page", document: { markdown: "# Guide\n\nHello.\n" } },
  ]);
  const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  return { ...roles, second, space, cr, prefix };
}

async function tryMerge(user: TestUser, prefix: string) {
  return ctx.as(user).post(`${prefix}/merge`);
}

async function review(user: TestUser, prefix: string, status: "approved" | "changes-requested") {
  const res = await ctx.as(user).post(`${prefix}/reviews`, { status });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

describe("merge rules on POST .../merge", () => {
  it("blocks with a 403 naming every failing rule, and changes nothing", async () => {
    const { members, space, cr, prefix } = await setup([
      { rule: "require_at_least_one_review" },
      { rule: "require_change_request_description" },
    ]);
    const primary = (await ctx.as(members.read).get(`/v1/spaces/${space.id}`)).body.revision;
    const blocked = await tryMerge(members.review, prefix);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.message).toBe(
      `Change request #${cr.number} cannot be merged under the space's merge rules: rule 1 (require_at_least_one_review): it has no review yet; rule 2 (require_change_request_description): it has no description.`,
    );
    expect((await ctx.as(members.read).get(`/v1/spaces/${space.id}`)).body.revision).toBe(primary);
    expect((await ctx.as(members.read).get(prefix)).body.status).toBe("draft");

    await ctx.as(members.edit).patch(prefix, {
      description: {
        object: "document",
        data: {},
        nodes: [
          {
            object: "block",
            type: "paragraph",
            nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Adds a guide.", marks: [] }] }],
          },
        ],
      },
    });
    await review(members.review, prefix, "approved");
    expect((await tryMerge(members.review, prefix)).body.result).toBe("merge");
  });

  it("applies the organization's rules to spaces that inherit them, not to spaces with none", async () => {
    const { owner, org, members, second, space, cr, prefix } = await setup(undefined);
    const orgRules = await ctx.as(owner).patch(`/v1/orgs/${org.id}`, {
      mergeRules: { type: "rules", rules: [{ rule: "require_specific_reviewers", users: [members.review.id, second.id] }] },
    });
    expect(orgRules.status).toBe(200);
    await review(members.review, prefix, "approved");
    const blocked = await tryMerge(owner, prefix);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.message).toBe(
      `Change request #${cr.number} cannot be merged under the organization's merge rules: rule 1 (require_specific_reviewers): it needs an approving review from Second Reviewer (${second.id}).`,
    );
    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { mergeRules: { type: "none" } });
    expect((await tryMerge(owner, prefix)).body.result).toBe("merge");
  });

  it("lets the users of an allow_bypass rule merge anyway", async () => {
    const { owner, members, prefix } = await setup(({ members }) => [
      { rule: "require_at_least_one_review" },
      { rule: "allow_bypass", users: [members.admin.id] },
    ]);
    expect((await tryMerge(owner, prefix)).status).toBe(403);
    expect((await tryMerge(members.admin, prefix)).body.result).toBe("merge");
  });

  it("requires the change request to be up to date, and every current review approved", async () => {
    const { owner, members, second, space, prefix } = await setup([
      { rule: "require_up_to_date_change_request" },
      { rule: "require_all_reviews_approved" },
    ]);
    // The primary content moves on: another change request is merged first.
    const other = await createChangeRequest(ctx, owner, space.id);
    await editContent(ctx, owner, space.id, other.id, [{ operation: "insert_page", document: { markdown: "# Other\n" } }]);
    await mergeChangeRequest(ctx, owner, space.id, other.id);
    await review(members.review, prefix, "changes-requested");
    await review(second, prefix, "approved");
    const blocked = await tryMerge(owner, prefix);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.message).toMatch(
      /rule 1 \(require_up_to_date_change_request\): .*; rule 2 \(require_all_reviews_approved\): changes are requested by Member review/,
    );

    expect((await ctx.as(owner).post(`${prefix}/update`)).body.result).toBe("update");
    // The reviewer's new review replaces their request for changes.
    await review(members.review, prefix, "approved");
    expect((await tryMerge(owner, prefix)).body.result).toBe("merge");
  });

  it("evaluates custom expressions over current reviews only", async () => {
    const { owner, members, second, prefix } = await setup([
      { rule: "custom", expression: 'reviews.filter(r => r.status === "approved").length >= 2 && actor.id !== changeRequest.createdBy.id' },
    ]);
    await review(members.review, prefix, "approved");
    expect((await tryMerge(owner, prefix)).body.error.message).toMatch(/rule 1 \(custom\): `reviews\.filter.*` is not true\.$/);
    await review(second, prefix, "approved");
    // Asking the first reviewer again makes their approval outdated: it no longer counts.
    await ctx.as(members.edit).post(`${prefix}/requested-reviewers`, { users: [members.review.id] });
    expect((await tryMerge(owner, prefix)).status).toBe(403);
    await review(members.review, prefix, "approved");
    expect((await tryMerge(owner, prefix)).body.result).toBe("merge");
  });
});
