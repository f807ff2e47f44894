/**
 * Translation runs that go wrong: a crash inside the run's transaction, a worker stopped while the
 * engine is translating, a worker that died holding the job, and an engine that fails on every
 * attempt. In each case the target space has the revision of a whole run or none, never part of
 * one, and the translation says what happened. The engine here is a LibreTranslate-compatible
 * HTTP server on loopback that can be told to fail or hang.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, paragraphDoc, testFile } from "../../../test/helpers/content.factories.js";
import { type FakeLibreTranslate, startFakeLibreTranslate } from "../../../test/helpers/libretranslate.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { jobDefinitions } from "../../app.js";
import { commitRevision } from "../../content/revision/commit.js";
import type { RevisionContent } from "../../content/revision/model.js";
import { onPrimaryContentChange } from "../../content/revision/primary-hooks.js";
import { loadContent, loadDocument, saveDocument } from "../../content/revision/storage.js";
import { claimNextJob } from "../../jobs/queue.js";
import { Worker } from "../../jobs/worker.js";

let ctx: TestContext;
let service: FakeLibreTranslate;
beforeAll(async () => {
  service = await startFakeLibreTranslate();
  ctx = await createTestContext({
    config: {
      translator: { engine: "libretranslate", libreTranslateUrl: service.url, libreTranslateApiKey: undefined, timeoutMs: 10_000 },
    },
  });
});
afterAll(async () => {
  await ctx.close();
  await service.close();
});

function healthy() {
  service.failFrom = undefined;
  service.hang = false;
}

/** A source space with two pages and its translation into Spanish, whose first run is queued (not run). */
async function scenario() {
  healthy();
  const s = await createOrgWithSpace(ctx, { title: "Guide" });
  await commitContent(ctx, s.space.id, {
    pages: [
      { title: "Welcome", paragraphs: ["Hello there.", "Second paragraph."] },
      { title: "Usage", paragraphs: ["Use it well."] },
    ],
  });
  const res = await ctx
    .as(s.owner)
    .post(`/v1/orgs/${s.org.id}/translations`, { language: "es", source: { space: s.space.id, language: "en" } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const translation = res.body as { id: string; result: { space: string; revision: string } };
  return { ...s, translation, target: translation.result.space };
}

const get = async (s: Awaited<ReturnType<typeof scenario>>) =>
  (await ctx.as(s.owner).get(`/v1/orgs/${s.org.id}/translations/${s.translation.id}`)).body;

async function revisions(spaceId: string) {
  return ctx.db.selectFrom("revisions").select("id").where("spaceId", "=", spaceId).execute();
}

async function items(translationId: string) {
  return ctx.db.selectFrom("translationItems").select("itemId").where("translationId", "=", translationId).execute();
}

async function runJob(translationId: string) {
  return ctx.db
    .selectFrom("jobs")
    .selectAll()
    .where("kind", "=", "translation-run")
    .where("dedupeKey", "like", `translation-run:${translationId}:%`)
    .orderBy("createdAt", "desc")
    .executeTakeFirstOrThrow();
}

/** Makes a job waiting for its retry due now (instead of after its backoff). */
async function dueNow(jobId: string) {
  await ctx.db
    .updateTable("jobs")
    .set({ runAt: new Date(Date.now() - 1000).toISOString() })
    .where("id", "=", jobId)
    .execute();
}

async function documentCount() {
  const row = await ctx.db
    .selectFrom("contentObjects")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("translation runs that go wrong", () => {
  it("a crash inside the run's transaction leaves nothing written; the retry writes exactly one revision", async () => {
    const s = await scenario();
    const before = await revisions(s.target);
    const objectsBefore = await documentCount();
    const remove = onPrimaryContentChange(async (_trx, change) => {
      if (change.spaceId === s.target) throw new Error("simulated crash after the revision was inserted");
    });
    try {
      await ctx.worker.drain();
    } finally {
      remove();
    }
    expect(await revisions(s.target)).toEqual(before);
    expect(await documentCount()).toBe(objectsBefore);
    expect(await items(s.translation.id)).toEqual([]);
    const failed = await get(s);
    expect(failed).toMatchObject({ status: "pending", stats: { runs: 0, totalWords: 0 }, result: s.translation.result });
    const job = await runJob(s.translation.id);
    expect(job).toMatchObject({ state: "queued", attempts: 1, lastError: "simulated crash after the revision was inserted" });

    await dueNow(job.id);
    await ctx.worker.drain();
    const after = await revisions(s.target);
    expect(after).toHaveLength(before.length + 1);
    expect(await items(s.translation.id)).toHaveLength(2);
    const done = await get(s);
    expect(done).toMatchObject({ status: "completed", stats: { runs: 1, latestPages: 2, latestWords: 9 } });
    expect(after.filter((r) => !before.some((b) => b.id === r.id)).map((r) => r.id)).toEqual([done.result.revision]);
  });

  it("a worker stopped while the engine is translating leaves nothing; the job runs again and completes", async () => {
    const s = await scenario();
    await ctx.worker.drain();
    // Queue a second run after a change, then stop the worker while the engine holds the request.
    await commitContent(ctx, s.space.id, { pages: [{ title: "Welcome", paragraphs: ["Changed text."] }] });
    const before = await revisions(s.target);
    const runsBefore = (await get(s)).stats.runs;
    service.failFrom = service.requests.length + 1;
    service.hang = true;
    const arrived = service.waitForRequests(service.requests.length + 1);
    const worker = new Worker(
      { db: ctx.db, dialect: ctx.dialect, config: ctx.config, urls: ctx.urls, log: ctx.deps.log, secret: ctx.deps.secret },
      jobDefinitions,
    );
    worker.start();
    await arrived;
    expect((await get(s)).status).toBe("running");
    await worker.stop(0);

    expect(await revisions(s.target)).toEqual(before);
    const stopped = await get(s);
    expect(stopped).toMatchObject({ status: "pending", stats: { runs: runsBefore } });
    const job = await runJob(s.translation.id);
    expect(job.state).toBe("queued");
    expect(job.lastError).toMatch(/^Could not reach LibreTranslate at .*aborted/);

    healthy();
    await dueNow(job.id);
    await ctx.worker.drain();
    expect(await revisions(s.target)).toHaveLength(before.length + 1);
    const done = await get(s);
    expect(done).toMatchObject({ status: "completed", stats: { runs: runsBefore + 1, latestPages: 1 } });
    const pages = (await ctx.as(s.owner).get(`/v1/spaces/${s.target}/content`)).body.pages;
    expect(pages.map((p: { title: string }) => p.title)).toEqual(["[es] Welcome"]);
  });

  it("a job whose worker died is taken over once its lease expires, and completes with one revision", async () => {
    const s = await scenario();
    await ctx.worker.drain(); // the first run
    await commitContent(ctx, s.space.id, { pages: [{ title: "Welcome", paragraphs: ["New text."] }] });
    const before = await revisions(s.target);
    // A worker claims the run, marks it running, and dies (its process is gone: nothing else happens).
    const claimed = await claimNextJob(ctx.db, ctx.dialect, "dead-worker", ["translation-run"], 60_000);
    if (!claimed) throw new Error("the run was queued");
    expect(JSON.parse(claimed.payload)).toMatchObject({ translationId: s.translation.id });
    await ctx.db.updateTable("translations").set({ status: "running" }).where("id", "=", s.translation.id).execute();
    await ctx.worker.drain(); // other jobs (the source's search index); the run is still leased
    expect(await revisions(s.target)).toEqual(before);
    expect((await get(s)).status).toBe("running");
    await ctx.db
      .updateTable("jobs")
      .set({ lockedUntil: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", claimed.id)
      .execute();
    await ctx.worker.drain();
    expect(await revisions(s.target)).toHaveLength(before.length + 1);
    expect(await get(s)).toMatchObject({ status: "completed", stats: { runs: 2, latestPages: 1 } });
    expect((await ctx.db.selectFrom("jobs").select("state").where("id", "=", claimed.id).executeTakeFirstOrThrow()).state).toBe(
      "succeeded",
    );
  });

  it("an engine failing on every attempt shows the failure on the translation; a later run clears it", async () => {
    const s = await scenario();
    service.failFrom = 1;
    const job = await runJob(s.translation.id);
    // The last attempt (earlier ones were retried the same way).
    await ctx.db.updateTable("jobs").set({ attempts: 4 }).where("id", "=", job.id).execute();
    await dueNow(job.id);
    await ctx.worker.drain();
    const failed = await get(s);
    expect(failed).toMatchObject({
      status: "completed",
      stats: { runs: 0 },
      failure: { message: "LibreTranslate answered 500: Translation engine crashed", at: expect.any(String) },
    });
    expect(await revisions(s.target)).toHaveLength(1);

    healthy();
    expect((await ctx.as(s.owner).post(`/v1/orgs/${s.org.id}/translations/${s.translation.id}/run`)).status).toBe(204);
    await ctx.worker.drain();
    const done = await get(s);
    expect(done.failure).toBeUndefined();
    expect(done).toMatchObject({ status: "completed", stats: { runs: 1, latestPages: 2 } });
    expect(await revisions(s.target)).toHaveLength(2);
  });
});

describe("runs started by changes", () => {
  it("several changes in a row are translated by one run; the runs they queued after it have nothing to do", async () => {
    const s = await scenario();
    await ctx.worker.drain();
    const before = await revisions(s.target);
    await commitContent(ctx, s.space.id, { pages: [{ title: "Welcome", paragraphs: ["First change."] }] });
    await commitContent(ctx, s.space.id, { pages: [{ title: "Welcome", paragraphs: ["Second change."] }] });
    const queued = await ctx.db
      .selectFrom("jobs")
      .select("id")
      .where("state", "=", "queued")
      .where("dedupeKey", "like", `translation-run:${s.translation.id}:%`)
      .execute();
    expect(queued).toHaveLength(2);
    await ctx.worker.drain();
    expect(await revisions(s.target)).toHaveLength(before.length + 1);
    expect(await get(s)).toMatchObject({ status: "completed", stats: { runs: 2, latestPages: 1 } });
    const pages = (await ctx.as(s.owner).get(`/v1/spaces/${s.target}/content`)).body.pages as Array<{ id: string }>;
    const page = (await ctx.as(s.owner).get(`/v1/spaces/${s.target}/content/page/${pages[0]?.id}`)).body;
    expect(page.document.nodes[0].nodes[0].leaves[0].text).toBe("[es] Second change.");
  });
});

describe("what a run writes", () => {
  it("keeps the tree, page ids, slugs, files and variables, and translates titles, descriptions, labels, groups, links and reusable contents", async () => {
    healthy();
    const s = await createOrgWithSpace(ctx, { title: "Structured" });
    const space = await ctx.db.selectFrom("spaces").selectAll().where("id", "=", s.space.id).executeTakeFirstOrThrow();
    const file = await testFile(ctx, "logo.png", Buffer.from("not really a png"), "image/png");
    const now = new Date().toISOString();
    const footer = await saveDocument(ctx.db, paragraphDoc(["Thanks for reading."]));
    const setup = await saveDocument(ctx.db, paragraphDoc(["Install it."]));
    const content: RevisionContent = {
      pages: [
        {
          id: "group1",
          kind: "group",
          title: "Guides",
          slug: "guides",
          createdAt: now,
          updatedAt: now,
          children: [
            {
              id: "setup1",
              kind: "document",
              title: "Setup",
              slug: "setup",
              description: "How to set up",
              label: "Set up",
              documentHash: setup,
              createdAt: now,
              updatedAt: now,
              children: [],
            },
          ],
        },
        {
          id: "link1",
          kind: "link",
          title: "Website",
          slug: "website",
          href: "https://example.com",
          target: { kind: "url", url: "https://example.com" },
          createdAt: now,
          updatedAt: now,
          children: [],
        },
      ],
      files: [file],
      reusableContents: [{ id: "rc1", title: "Footer", documentHash: footer }],
      variables: { product: "Quire" },
    };
    await ctx.db.transaction().execute((trx) =>
      commitRevision(trx, {
        spaceId: space.id,
        parents: [space.revisionId],
        type: "edits",
        content,
        createdBy: null,
        movePrimaryFrom: space.revisionId,
      }),
    );
    const res = await ctx
      .as(s.owner)
      .post(`/v1/orgs/${s.org.id}/translations`, { language: "es", source: { space: s.space.id, language: "en" } });
    expect(res.status).toBe(201);
    await ctx.worker.drain();

    const target = await ctx.db.selectFrom("spaces").selectAll().where("id", "=", res.body.result.space).executeTakeFirstOrThrow();
    const revision = await ctx.db.selectFrom("revisions").selectAll().where("id", "=", target.revisionId).executeTakeFirstOrThrow();
    const translated = await loadContent(ctx.db, revision.treeHash);
    const [group, link] = translated.pages;
    expect(group).toMatchObject({ id: "group1", kind: "group", title: "[es] Guides", slug: "guides" });
    expect(group?.children[0]).toMatchObject({
      id: "setup1",
      title: "[es] Setup",
      slug: "setup",
      description: "[es] How to set up",
      label: "[es] Set up",
    });
    expect(link).toMatchObject({
      id: "link1",
      title: "[es] Website",
      href: "https://example.com",
      target: { kind: "url", url: "https://example.com" },
    });
    expect(translated.files).toEqual([file]);
    expect(translated.variables).toEqual({ product: "Quire" });
    const [reusable] = translated.reusableContents;
    expect(reusable).toMatchObject({ id: "rc1", title: "[es] Footer" });
    const footerDoc = await loadDocument<{ nodes: Array<{ nodes: Array<{ leaves: Array<{ text: string }> }> }> }>(
      ctx.db,
      reusable?.documentHash ?? "",
    );
    expect(footerDoc?.nodes[0]?.nodes[0]?.leaves[0]?.text).toBe("[es] Thanks for reading.");
    const setupDoc = await loadDocument<{ nodes: Array<{ nodes: Array<{ leaves: Array<{ text: string }> }> }> }>(
      ctx.db,
      group?.children[0]?.documentHash ?? "",
    );
    expect(setupDoc?.nodes[0]?.nodes[0]?.leaves[0]?.text).toBe("[es] Install it.");
    // Three pages (the group, its page, the link); the reusable content's words count too.
    const body = (await ctx.as(s.owner).get(`/v1/orgs/${s.org.id}/translations/${res.body.id}`)).body;
    expect(body.stats).toMatchObject({ latestPages: 3, totalPages: 3, latestWords: 15 });
  });
});
