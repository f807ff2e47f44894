/**
 * A translation reads like its source, no wider: the translated space takes the source's default
 * level and its user and team grants when it is created, and every run (they update that one space,
 * never create another) first checks that nobody reads it who cannot read the source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createCollection, createSpace, createTeam, grant, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";
import { DomainError } from "../../lib/errors.js";
import { loadOrgAccess } from "../../permissions/access.js";
import { requireTranslationSource } from "./translations.loader.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const base = (orgId: string) => `/v1/orgs/${orgId}/translations`;
const enEs = (space: string) => ({ language: "es", source: { space, language: "en" } });

async function scenario(body: Record<string, unknown> = {}) {
  const roles = await createOrgWithRoles(ctx);
  const source = await createSpace(ctx, roles.owner, roles.org.id, { title: "Handbook", ...body });
  const { content } = await commitContent(ctx, source.id, { pages: [{ title: "Welcome", paragraphs: ["The cat is big."] }] });
  return { ...roles, source, page: content.pages[0]?.id as string };
}

async function translate(owner: TestUser, orgId: string, sourceId: string) {
  const res = await ctx.as(owner).post(base(orgId), enEs(sourceId));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; result: { space: string } };
}

async function statusOf(owner: TestUser, orgId: string, id: string) {
  return (await ctx.as(owner).get(`${base(orgId)}/${id}`)).body as {
    status: string;
    failure?: { message: string; at: string };
    result: { space: string; revision: string };
  };
}

describe("a translation of a restricted space", () => {
  it("is read by exactly who reads the source: the same default level, user and team grants", async () => {
    const s = await scenario();
    const { owner, org, members } = s;
    await setDefaultLevel(ctx, owner, { space: s.source.id }, null);
    const team = await createTeam(ctx, org.id, [members.comment]);
    await grant(ctx, owner, { space: s.source.id }, "read", { users: [members.read.id] });
    await grant(ctx, owner, { space: s.source.id }, "edit", { teams: [team.id] });

    const created = await translate(owner, org.id, s.source.id);
    const target = created.result.space;
    expect((await ctx.as(owner).get(`/v1/spaces/${target}`)).body.defaultLevel).toBeNull();
    await ctx.worker.drain();
    expect((await statusOf(owner, org.id, created.id)).status).toBe("completed");

    const page = `/v1/spaces/${target}/content/page/${s.page}`;
    for (const who of ["create", "review", "edit"] as const) {
      expect((await ctx.as(members[who]).get(`/v1/spaces/${target}`)).status, who).toBe(404);
      expect((await ctx.as(members[who]).get(page)).status, who).toBe(404);
    }
    expect((await ctx.as(members.guest).get(page)).status).toBe(404);
    const reader = await ctx.as(members.read).get(page);
    expect(reader.status).toBe(200);
    expect(JSON.stringify(reader.body)).toContain("El gato es grande.");
    expect((await ctx.as(members.comment).get(page)).status).toBe(200);
    expect((await ctx.as(members.admin).get(page)).status).toBe(200);
    // The same levels as on the source, grant by grant.
    const levels = async (spaceId: string) =>
      (
        (await ctx.as(owner).get(`/v1/spaces/${spaceId}/permissions/aggregate?limit=100`)).body.items as {
          user: { id: string };
          permission: string;
        }[]
      )
        .map((i) => `${i.user.id}:${i.permission}`)
        .sort();
    expect(await levels(target)).toEqual(await levels(s.source.id));
  });

  it("in a restricted collection sits next to it and inherits the same", async () => {
    const roles = await createOrgWithRoles(ctx);
    const collection = await createCollection(ctx, roles.owner, roles.org.id, { title: "Private" });
    await setDefaultLevel(ctx, roles.owner, { collection: collection.id }, null);
    await grant(ctx, roles.owner, { collection: collection.id }, "read", { users: [roles.members.edit.id] });
    const source = await createSpace(ctx, roles.owner, roles.org.id, { title: "Inside", parent: collection.id });
    const created = await translate(roles.owner, roles.org.id, source.id);
    const target = (await ctx.as(roles.owner).get(`/v1/spaces/${created.result.space}`)).body;
    expect(target).toMatchObject({ parent: collection.id, defaultLevel: "inherit" });
    expect((await ctx.as(roles.members.read).get(`/v1/spaces/${target.id}`)).status).toBe(404);
    expect((await ctx.as(roles.members.edit).get(`/v1/spaces/${target.id}`)).status).toBe(200);
  });
});

describe("a run", () => {
  it("updates the same space, and writes nothing while someone reads it who cannot read the source", async () => {
    const s = await scenario();
    const { owner, org, members } = s;
    const created = await translate(owner, org.id, s.source.id);
    await ctx.worker.drain();
    const first = await statusOf(owner, org.id, created.id);
    expect(first.status).toBe("completed");

    // The source is restricted after the translation was made; its translation is not (yet).
    await setDefaultLevel(ctx, owner, { space: s.source.id }, null);
    const changed = await commitContent(ctx, s.source.id, { pages: [{ title: "Welcome", paragraphs: ["The dog is small."] }] });
    const newPage = changed.content.pages[0]?.id as string;
    await ctx.worker.drain();
    const refused = await statusOf(owner, org.id, created.id);
    // A failed run shows as completed with its failure (as the API's statuses have no "failed").
    expect(refused.status).toBe("completed");
    expect(refused.result).toEqual(first.result);
    expect(refused.failure?.message).toMatch(
      new RegExp(
        `^The translated space "${created.result.space}" can be read by \\d+ members who cannot read its source "${s.source.id}" \\(users "`,
      ),
    );
    expect(refused.failure?.message).toContain(members.read.id);
    expect(refused.failure?.message).toContain("Give the translated space no wider access than its source");
    // Nothing of the new content reached the translated space, which members.read can still read.
    expect((await ctx.as(members.read).get(`/v1/spaces/${created.result.space}/content/page/${s.page}`)).status).toBe(200);
    const page = `/v1/spaces/${created.result.space}/content/page/${newPage}`;
    expect((await ctx.as(owner).get(page)).status).toBe(404);

    // Restricted like its source, the translation runs again, into the same space.
    await setDefaultLevel(ctx, owner, { space: created.result.space }, null);
    expect((await ctx.as(owner).post(`${base(org.id)}/${created.id}/run`)).status).toBe(204);
    await ctx.worker.drain();
    const done = await statusOf(owner, org.id, created.id);
    expect(done.status).toBe("completed");
    expect(done.failure).toBeUndefined();
    expect(done.result.space).toBe(created.result.space);
    expect(JSON.stringify((await ctx.as(owner).get(page)).body)).toContain("El perro es pequeño.");
    expect((await ctx.as(members.read).get(page)).status).toBe(404);
    expect((await ctx.as(owner).get(base(org.id))).body.count).toBe(1);

    // A grant on the translated space alone opens it wider than the source: the next run refuses.
    await grant(ctx, owner, { space: created.result.space }, "read", { users: [members.guest.id] });
    expect((await ctx.as(owner).post(`${base(org.id)}/${created.id}/run`)).status).toBe(204);
    await ctx.worker.drain();
    const again = await statusOf(owner, org.id, created.id);
    expect(again.failure?.message).toContain(`can be read by 1 member who cannot read its source`);
    expect(again.failure?.message).toContain(members.guest.id);
    expect(again.result).toEqual(done.result);
  });
});

describe("requireTranslationSource", () => {
  it("refuses a source the caller cannot read like one that does not exist", async () => {
    const s = await scenario();
    await setDefaultLevel(ctx, s.owner, { space: s.source.id }, null);
    const refusal = async (user: TestUser, spaceId: string) => {
      try {
        await requireTranslationSource(ctx.db, await loadOrgAccess(ctx.db, user.id, s.org.id), spaceId);
        return undefined;
      } catch (error) {
        return error instanceof DomainError ? `${error.kind}: ${error.message}` : String(error);
      }
    };
    const unknown = await refusal(s.members.create, "nope");
    expect(unknown).toBe('invalid: body.source.space names "nope", which is not a space of this organization.');
    expect(await refusal(s.members.create, s.source.id)).toBe(unknown?.replace("nope", s.source.id));
    expect(await refusal(s.owner, s.source.id)).toBeUndefined();
    await grant(ctx, s.owner, { space: s.source.id }, "read", { users: [s.members.create.id] });
    expect(await refusal(s.members.create, s.source.id)).toBeUndefined();
  });
});
