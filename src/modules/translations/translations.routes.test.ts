/**
 * Translations end to end: the six operations, runs by the worker with Apertium for real (en → es,
 * installed by .ci/run), and runs started by a merge and by a Git import of the source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { commitFiles, createBareRepo } from "../../../test/helpers/git.js";
import { createCollection, createOrgWithSpace, createSpace, grant } from "../../../test/helpers/spaces.factories.js";
import { LANGUAGES } from "../spaces/spaces.schemas.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
});
afterAll(() => ctx.close());

const base = (orgId: string) => `/v1/orgs/${orgId}/translations`;

/** What the tests read of documents and translations (the contract tests check the full shapes). */
interface DocNode {
  key?: string;
  leaves?: Array<{ text: string; marks?: Array<{ type: string }> }>;
  nodes?: DocNode[];
}
interface Listed {
  id: string;
  title: string;
  permissions: { view: boolean; edit: boolean };
}
const idsOf = (items: Listed[]) => items.map((t) => t.id);

/** An organization with every role, a source space with two pages in English, and another organization. */
async function scenario() {
  const roles = await createOrgWithSpace(ctx, { title: "Handbook", emoji: "📘" });
  const { revisionId, content } = await commitContent(ctx, roles.space.id, {
    pages: [
      { title: "Welcome", paragraphs: ["The cat is big.", "Read the guide"] },
      { title: "Install", paragraphs: ["The dog is small."] },
    ],
  });
  const [welcome, install] = content.pages;
  if (!welcome || !install) throw new Error("the content has two pages");
  const other = await createOrgWithSpace(ctx, { title: "Theirs" });
  return { ...roles, source: roles.space, sourceRevision: revisionId, welcome, install, other };
}

async function createTranslation(user: TestUser, orgId: string, body: Record<string, unknown>) {
  const res = await ctx.as(user).post(base(orgId), body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const enEs = (space: string) => ({ language: "es", source: { space, language: "en" } });

/** Texts of each top-level block of a page, read through the API. */
async function texts(user: TestUser, spaceId: string, pageId: string): Promise<string[]> {
  const res = await ctx.as(user).get(`/v1/spaces/${spaceId}/content/page/${pageId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const text = (node: DocNode): string => (node.leaves ? node.leaves.map((l) => l.text).join("") : (node.nodes ?? []).map(text).join(""));
  return ((res.body.document?.nodes ?? []) as DocNode[]).map(text);
}

async function pageOf(user: TestUser, spaceId: string, pageId: string) {
  const res = await ctx.as(user).get(`/v1/spaces/${spaceId}/content/page/${pageId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function revisionCount(spaceId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom("revisions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("spaceId", "=", spaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("authentication", () => {
  it("answers 401 without a token on all six operations", async () => {
    const { org } = await scenario();
    const t = `${base(org.id)}/abc`;
    const answers = await Promise.all([
      ctx.anonymous.get(base(org.id)),
      ctx.anonymous.post(base(org.id), enEs("x")),
      ctx.anonymous.get(t),
      ctx.anonymous.put(t, { instructions: { object: "document", data: {}, nodes: [] } }),
      ctx.anonymous.delete(t),
      ctx.anonymous.post(`${t}/run`),
    ]);
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
  });
});

describe("POST /v1/orgs/{organizationId}/translations", () => {
  it("creates the target space next to the source, answers 201 with Location, and the worker translates it with Apertium", async () => {
    const s = await scenario();
    const created = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    expect(created).toEqual({
      object: "translation",
      id: expect.any(String),
      status: "pending",
      source: { space: s.source.id, language: "en" },
      language: "es",
      instructions: { object: "document", data: {}, nodes: [] },
      result: { space: expect.any(String), revision: expect.any(String) },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      stats: { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 },
      permissions: { view: true, edit: true },
      urls: { location: `http://quire.test/v1/orgs/${s.org.id}/translations/${created.id}` },
    });
    const target = (await ctx.as(s.owner).get(`/v1/spaces/${created.result.space}`)).body;
    expect(target).toMatchObject({
      title: "Handbook (es)",
      emoji: "📘",
      language: "es",
      editMode: "locked",
      revision: created.result.revision,
    });

    expect(await ctx.worker.drain()).toBeGreaterThan(0);
    const done = (await ctx.as(s.owner).get(`${base(s.org.id)}/${created.id}`)).body;
    expect(done.status).toBe("completed");
    expect(done.stats).toMatchObject({ runs: 1, totalPages: 2, latestPages: 2, latestWords: 13, totalWords: 13 });
    expect(done.result.revision).not.toBe(created.result.revision);
    expect((await ctx.as(s.owner).get(`/v1/spaces/${created.result.space}`)).body.revision).toBe(done.result.revision);

    // Same page ids and block keys, translated text.
    const [source, translated] = [
      await pageOf(s.owner, s.source.id, s.welcome.id),
      await pageOf(s.owner, created.result.space, s.welcome.id),
    ];
    expect(translated.title).toBe("Bienvenido");
    expect(translated.document.nodes.map((n: DocNode) => n.key)).toEqual(source.document.nodes.map((n: DocNode) => n.key));
    expect(await texts(s.owner, created.result.space, s.welcome.id)).toEqual(["El gato es grande.", "Leído la guía"]);
    expect(await texts(s.owner, created.result.space, s.install.id)).toEqual(["El perro es pequeño."]);
    expect((await pageOf(s.owner, created.result.space, s.install.id)).title).toBe("Instala");
  });

  it("keeps the given instructions, and places the target in the source's collection", async () => {
    const s = await scenario();
    const collection = await createCollection(ctx, s.owner, s.org.id, { title: "Manuals" });
    const inside = await createSpace(ctx, s.owner, s.org.id, { title: "Inside", parent: collection.id });
    const instructions = { object: "document", data: {}, nodes: [{ object: "block", type: "paragraph", nodes: [] }] };
    const created = await createTranslation(s.owner, s.org.id, { ...enEs(inside.id), instructions });
    expect(created.instructions).toEqual(instructions);
    expect((await ctx.as(s.owner).get(`/v1/spaces/${created.result.space}`)).body).toMatchObject({
      parent: collection.id,
      title: "Inside (es)",
    });
  });

  it("answers precise 400s and creates nothing", async () => {
    const s = await scenario();
    const post = (body: unknown) => ctx.as(s.owner).post(base(s.org.id), body);
    const cases: Array<[unknown, string]> = [
      [{ source: { space: s.source.id, language: "en" } }, "body.language is required."],
      [{ language: "es" }, "body.source is required."],
      [
        { language: "klingon", source: { space: s.source.id, language: "en" } },
        `body.language must be one of: ${LANGUAGES.map((l) => `"${l}"`).join(", ")}.`,
      ],
      [{ language: "es", source: { space: s.source.id } }, "body.source.language is required."],
      [
        { language: "es", source: { space: "nope", language: "en" } },
        'body.source.space names "nope", which is not a space of this organization.',
      ],
      [enEs(s.other.space.id), `body.source.space names "${s.other.space.id}", which is not a space of this organization.`],
      [
        { language: "en", source: { space: s.source.id, language: "en" } },
        'body.language must differ from body.source.language (both are "en").',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    const notInstalled = await post({ language: "ja", source: { space: s.source.id, language: "en" } });
    expect(notInstalled.status).toBe(400);
    expect(notInstalled.body.error.message).toMatch(
      /^The language pair en → ja is not installed for apertium\. Installed pairs: (.+, )?en → es(, .+)?\. Install the pair's Debian package \(for example apt-get install apertium-eng-spa\)/,
    );
    expect((await ctx.as(s.owner).get(base(s.org.id))).body.count).toBe(0);

    const first = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    const again = await post(enEs(s.source.id));
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe(
      `Space "${s.source.id}" already has a translation into "es" (translation "${first.id}"); run or delete that one.`,
    );

    await ctx.as(s.owner).delete(`/v1/spaces/${s.source.id}`);
    const deleted = await post({ language: "es", source: { space: s.source.id, language: "en" } });
    expect(deleted.status).toBe(400);
  });

  it("is for organization admins: 403 for other members, 404 for outsiders and another organization", async () => {
    const s = await scenario();
    for (const role of ["create", "edit", "read"] as const) {
      const res = await ctx.as(s.members[role]).post(base(s.org.id), enEs(s.source.id));
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe("Only organization admins can create, change, run or delete translations.");
    }
    expect((await ctx.as(s.outsider).post(base(s.org.id), enEs(s.source.id))).status).toBe(404);
    expect((await ctx.as(s.owner).post(base(s.other.org.id), enEs(s.other.space.id))).status).toBe(404);
    expect((await ctx.as(s.members.admin).post(base(s.org.id), enEs(s.source.id))).status).toBe(201);
  });
});

describe("GET /v1/orgs/{organizationId}/translations and /{translationId}", () => {
  it("lists the translations the caller may see, oldest first, with permissions for admin, editor and reader", async () => {
    const s = await scenario();
    const hidden = await createSpace(ctx, s.owner, s.org.id, { title: "Secret" });
    await ctx.as(s.owner).patch(`/v1/spaces/${hidden.id}`, { defaultLevel: null });
    const first = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    const second = await createTranslation(s.owner, s.org.id, enEs(hidden.id));

    const asOwner = await ctx.as(s.owner).get(base(s.org.id));
    expect(asOwner.status).toBe(200);
    expect(asOwner.body.count).toBe(2);
    expect((asOwner.body.items as Listed[]).map((t) => [t.id, t.permissions])).toEqual([
      [first.id, { view: true, edit: true }],
      [second.id, { view: true, edit: true }],
    ]);
    for (const role of ["edit", "read"] as const) {
      const res = await ctx.as(s.members[role]).get(base(s.org.id));
      expect(res.body.count).toBe(1);
      expect((res.body.items as Listed[]).map((t) => [t.id, t.permissions])).toEqual([[first.id, { view: true, edit: false }]]);
      expect((await ctx.as(s.members[role]).get(`${base(s.org.id)}/${first.id}`)).body.permissions).toEqual({ view: true, edit: false });
      expect((await ctx.as(s.members[role]).get(`${base(s.org.id)}/${second.id}`)).status).toBe(404);
    }
    // A guest sees none until granted the source space.
    expect((await ctx.as(s.members.guest).get(base(s.org.id))).body).toEqual({ items: [], count: 0 });
    await grant(ctx, s.owner, { space: hidden.id }, "read", { users: [s.members.guest.id] });
    expect(idsOf((await ctx.as(s.members.guest).get(base(s.org.id))).body.items)).toEqual([second.id]);

    const paged = await ctx.as(s.owner).get(`${base(s.org.id)}?limit=1`);
    expect(idsOf(paged.body.items)).toEqual([first.id]);
    const next = await ctx.as(s.owner).get(`${base(s.org.id)}?limit=1&page=${paged.body.next.page}`);
    expect(idsOf(next.body.items)).toEqual([second.id]);
    expect(next.body.next).toBeUndefined();
  });

  it("answers 404 for an outsider, an unknown id and another organization's translation", async () => {
    const s = await scenario();
    const mine = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    const theirs = await createTranslation(s.other.owner, s.other.org.id, enEs(s.other.space.id));
    expect((await ctx.as(s.outsider).get(base(s.org.id))).status).toBe(404);
    expect((await ctx.as(s.outsider).get(`${base(s.org.id)}/${mine.id}`)).status).toBe(404);
    const unknown = await ctx.as(s.owner).get(`${base(s.org.id)}/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('No translation with id "nope".');
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}/${theirs.id}`)).status).toBe(404);
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}?limit=0`)).status).toBe(400);
  });
});

describe("PUT /v1/orgs/{organizationId}/translations/{translationId}", () => {
  it("replaces the instructions (admins only)", async () => {
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    const instructions = {
      object: "document",
      data: {},
      nodes: [
        { object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Formal tone.", marks: [] }] }] },
      ],
    };
    const res = await ctx.as(s.owner).put(`${base(s.org.id)}/${t.id}`, { instructions });
    expect(res.status).toBe(200);
    expect(res.body.instructions).toEqual(instructions);
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body.instructions).toEqual(instructions);

    const missing = await ctx.as(s.owner).put(`${base(s.org.id)}/${t.id}`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("body.instructions is required.");
    const wrong = await ctx.as(s.owner).put(`${base(s.org.id)}/${t.id}`, { instructions: { object: "page", nodes: [] } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toBe('body.instructions.object must be "document".');

    const reader = await ctx.as(s.members.read).put(`${base(s.org.id)}/${t.id}`, { instructions });
    expect(reader.status).toBe(403);
    expect((await ctx.as(s.outsider).put(`${base(s.org.id)}/${t.id}`, { instructions })).status).toBe(404);
    expect((await ctx.as(s.other.owner).put(`${base(s.other.org.id)}/${t.id}`, { instructions })).status).toBe(404);
  });
});

describe("DELETE /v1/orgs/{organizationId}/translations/{translationId}", () => {
  it("deletes the translation (204, also when it did not exist) and keeps the translated space", async () => {
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    expect((await ctx.as(s.members.edit).delete(`${base(s.org.id)}/${t.id}`)).status).toBe(403);
    expect((await ctx.as(s.outsider).delete(`${base(s.org.id)}/${t.id}`)).status).toBe(404);
    expect((await ctx.as(s.other.owner).delete(`${base(s.other.org.id)}/${t.id}`)).status).toBe(204);
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).status).toBe(200);

    const res = await ctx.as(s.owner).delete(`${base(s.org.id)}/${t.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).status).toBe(404);
    expect((await ctx.as(s.owner).delete(`${base(s.org.id)}/${t.id}`)).status).toBe(204);
    expect((await ctx.as(s.owner).get(`/v1/spaces/${t.result.space}`)).status).toBe(200);
    // Its queued run finds nothing to do.
    await ctx.worker.drain();
    expect(await revisionCount(t.result.space)).toBe(1);
  });
});

describe("POST /v1/orgs/{organizationId}/translations/{translationId}/run", () => {
  it("re-runs (204) and translates nothing when nothing changed", async () => {
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    await ctx.worker.drain();
    const before = (await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body;
    const res = await ctx.as(s.owner).post(`${base(s.org.id)}/${t.id}/run`);
    expect(res.status).toBe(204);
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body.status).toBe("pending");
    await ctx.worker.drain();
    const after = (await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body;
    expect(after).toMatchObject({ status: "completed", result: before.result });
    expect(after.stats).toMatchObject({ runs: 2, latestPages: 0, latestWords: 0, totalPages: 2, totalWords: 13 });
    expect(await revisionCount(t.result.space)).toBe(2);
  });

  it("is for admins; 404 for outsiders, unknown and other organizations' translations", async () => {
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    const reader = await ctx.as(s.members.read).post(`${base(s.org.id)}/${t.id}/run`);
    expect(reader.status).toBe(403);
    expect((await ctx.as(s.outsider).post(`${base(s.org.id)}/${t.id}/run`)).status).toBe(404);
    const unknown = await ctx.as(s.owner).post(`${base(s.org.id)}/nope/run`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('No translation with id "nope".');
    expect((await ctx.as(s.other.owner).post(`${base(s.other.org.id)}/${t.id}/run`)).status).toBe(404);
  });
});

describe("runs started by changes to the source", () => {
  it("a merge re-translates only the pages it changed, in one new revision of the target", async () => {
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    await ctx.worker.drain();
    const first = (await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body;
    const installBefore = await pageOf(s.owner, t.result.space, s.install.id);

    const cr = await createChangeRequest(ctx, s.owner, s.source.id);
    await editContent(ctx, s.owner, s.source.id, cr.id, [
      {
        operation: "update_page",
        page: s.welcome.id,
        document: { markdown: "The red house is big.\n\n`npm install` then Run the command\n" },
      },
    ]);
    await mergeChangeRequest(ctx, s.owner, s.source.id, cr.id);
    expect((await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body.status).toBe("pending");
    const revisionsBefore = await revisionCount(t.result.space);
    await ctx.worker.drain();

    const second = (await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body;
    expect(second.status).toBe("completed");
    expect(second.stats).toMatchObject({ runs: 2, latestPages: 1, totalPages: 2, latestWords: 10 });
    expect(second.stats.totalWords).toBe(first.stats.totalWords + 10);
    expect(await revisionCount(t.result.space)).toBe(revisionsBefore + 1);
    expect(await texts(s.owner, t.result.space, s.welcome.id)).toEqual([
      "La casa roja es grande.",
      "npm install entonces Corrido la orden",
    ]);
    const block = (await pageOf(s.owner, t.result.space, s.welcome.id)).document.nodes[1] as DocNode;
    const leaves = (block.nodes ?? []).flatMap((n) => n.leaves ?? []);
    expect(leaves.filter((l) => l.marks?.some((m) => m.type === "code")).map((l) => l.text)).toEqual(["npm install"]);
    // The page the merge did not touch is the same document as before (not translated again).
    const installAfter = await pageOf(s.owner, t.result.space, s.install.id);
    expect(installAfter.documentId).toBe(installBefore.documentId);
  });

  it("a Git import of the source starts a run", async () => {
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    await ctx.worker.drain();
    const repo = createBareRepo({ "README.md": "# Welcome\n\nThe cat is big.\n", "guide.md": "# Guide\n\nThe dog is small.\n" });
    try {
      const res = await ctx.as(s.owner).post(`/v1/spaces/${s.source.id}/git/import`, { url: repo.url, ref: "refs/heads/main" });
      expect(res.status).toBe(204);
      await ctx.worker.drain(); // the import, then the run it queued
      const after = (await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body;
      expect(after.status).toBe("completed");
      expect(after.stats.runs).toBe(2);
      const pages = (await ctx.as(s.owner).get(`/v1/spaces/${t.result.space}/content`)).body.pages;
      expect((pages as Listed[]).map((p) => p.title)).toEqual(["Bienvenido", "Guía"]);
      commitFiles(repo.dir, { "guide.md": "# Guide\n\nThe red house is big.\n" });
      await ctx.as(s.owner).post(`/v1/spaces/${s.source.id}/git/import`, { url: repo.url, ref: "refs/heads/main" });
      await ctx.worker.drain();
      const third = (await ctx.as(s.owner).get(`${base(s.org.id)}/${t.id}`)).body;
      expect(third.stats).toMatchObject({ runs: 3, latestPages: 1 });
    } finally {
      repo.cleanup();
    }
  });
});

describe("another organization", () => {
  it("cannot use a member's own organization id to reach a translation", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const s = await scenario();
    const t = await createTranslation(s.owner, s.org.id, enEs(s.source.id));
    expect((await ctx.as(owner).get(`${base(org.id)}/${t.id}`)).status).toBe(404);
    expect((await ctx.as(owner).post(`${base(org.id)}/${t.id}/run`)).status).toBe(404);
  });
});
