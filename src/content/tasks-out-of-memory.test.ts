/**
 * A worker thread that runs out of its heap (QUIRE_WORKER_HEAP_MB) fails the one task it ran, never
 * the process: piscina rejects the task (ERR_WORKER_OUT_OF_MEMORY) and starts another thread. Each
 * caller turns that into an outcome a person can act on, naming the setting: a failed import that
 * wrote nothing, a 413 for an API request (Markdown, a PDF), a failed search index job that is not
 * retried. The cap here (16 MB) is far below any real setting, so that a page of a few hundred KB
 * reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../test/helpers/app.js";
import { createChangeRequest } from "../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../test/helpers/content.factories.js";
import { createBareRepo } from "../../test/helpers/git.js";
import { createOrgWithSpace } from "../../test/helpers/spaces.factories.js";
import { DomainError } from "../lib/errors.js";
import { closeWorkerThreads, configureWorkerHeap, WorkerOutOfMemoryError } from "../workers/pool.js";
import { runInWorker } from "./run-in-worker.js";

const TINY_HEAP_MB = 16;

let ctx: TestContext;
let endpoint: string;
beforeAll(async () => {
  ctx = await createTestContext({ config: { gitAllowFileUrls: true } });
  endpoint = await ctx.listen();
});
afterAll(async () => {
  await useHeap(undefined);
  await ctx.close();
});

/** Caps the threads' heap at `mb` for the tasks that follow (a new pool takes the setting). */
async function useHeap(mb: number | undefined): Promise<void> {
  configureWorkerHeap(mb);
  await closeWorkerThreads();
}

/** About `bytes` of ordinary Markdown: headings, paragraphs with marks and links, lists, tables. */
function largeMarkdown(bytes: number, title = "A very large page"): string {
  const section = (i: number) =>
    `## Section ${i}\n\nSome *emphasis*, **bold** and \`code\` with a [link](https://example.com/${i}).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two\n  * nested item\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`;
  let text = `# ${title}\n\n`;
  for (let i = 0; text.length < bytes; i++) text += section(i);
  return text;
}

async function healthy(): Promise<number> {
  return (await fetch(`${endpoint}/healthz`)).status;
}

describe("a worker thread out of its heap", () => {
  it("fails the task with an error naming QUIRE_WORKER_HEAP_MB, and the next task runs on a new thread", async () => {
    await useHeap(TINY_HEAP_MB);
    try {
      const error = await runInWorker("convertMarkdown", { markdown: largeMarkdown(300_000) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkerOutOfMemoryError);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe("too-large");
      expect((error as Error).message).toContain(`QUIRE_WORKER_HEAP_MB=${TINY_HEAP_MB}`);
      const small = await runInWorker("convertMarkdown", { markdown: "# Small\n\nFits.\n" });
      expect(small.title).toBe("Small");
    } finally {
      await useHeap(undefined);
    }
  }, 120_000);

  it("fails an import whose page does not fit, writes no revision, and a later import succeeds", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Import" });
    const before = await ctx.db.selectFrom("spaces").select("revisionId").where("id", "=", space.id).executeTakeFirstOrThrow();
    const large = createBareRepo({
      "README.md": largeMarkdown(300_000),
      "SUMMARY.md": "* [Home](README.md)\n* [Other](other.md)\n",
      "other.md": "# Other\n\nBack [home](README.md).\n",
    });
    const small = createBareRepo({
      "README.md": "# Home\n\nA small page.\n",
      "SUMMARY.md": "* [Home](README.md)\n* [Other](other.md)\n",
      "other.md": "# Other\n\nBack [home](README.md).\n",
    });
    await useHeap(TINY_HEAP_MB);
    try {
      const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url: large.url, ref: "refs/heads/main" });
      expect(res.status).toBe(204);
      await ctx.worker.drain();

      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastImport.status, JSON.stringify(info.lastImport)).toBe("failed");
      expect(info.lastImport.message).toContain("Converting Markdown pages ran out of memory");
      expect(info.lastImport.message).toContain(`QUIRE_WORKER_HEAP_MB=${TINY_HEAP_MB}`);
      // Failed for good at the first attempt (a retry would run out of memory again), nothing left running.
      const jobs = await ctx.db
        .selectFrom("jobs")
        .select(["kind", "state", "attempts"])
        .where("kind", "=", "git-import")
        .where("payload", "like", `%${space.id}%`)
        .execute();
      expect(jobs).toEqual([{ kind: "git-import", state: "failed", attempts: 1 }]);
      expect(await ctx.db.selectFrom("jobs").select("id").where("state", "=", "running").execute()).toEqual([]);
      // Nothing of the import is the space's content.
      const after = await ctx.db.selectFrom("spaces").select("revisionId").where("id", "=", space.id).executeTakeFirstOrThrow();
      expect(after.revisionId).toBe(before.revisionId);
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages).toEqual([]);
      expect(await healthy()).toBe(200);

      // The same cap, a repository whose pages fit: the thread was replaced and the import succeeds.
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url: small.url, ref: "refs/heads/main" });
      await ctx.worker.drain();
      const next = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(next.lastImport, JSON.stringify(next.lastImport)).toMatchObject({ status: "succeeded" });
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
      expect(content.pages.map((p: { title: string }) => p.title)).toEqual(["Home", "Other"]);
    } finally {
      await useHeap(undefined);
      large.cleanup();
      small.cleanup();
    }
  }, 180_000);

  it("answers 413 naming the setting to Markdown sent to the content API, and keeps the page as it was", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "API" });
    const { content } = await commitContent(ctx, space.id, { pages: [{ title: "Home", paragraphs: ["As it was."] }] });
    const home = content.pages[0]!;
    const cr = await createChangeRequest(ctx, owner, space.id, { subject: "Large edit" });
    const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
    await useHeap(TINY_HEAP_MB);
    try {
      const res = await ctx.as(owner).post(`${prefix}/content?compat=false`, {
        changes: [{ operation: "update_page", page: home.id, document: { markdown: largeMarkdown(300_000) } }],
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(413);
      expect(res.body.error.code).toBe(413);
      expect(res.body.error.message).toContain("Converting the Markdown ran out of memory");
      expect(res.body.error.message).toContain(`QUIRE_WORKER_HEAP_MB=${TINY_HEAP_MB}`);
      expect(await healthy()).toBe(200);
      const page = (await ctx.as(owner).get(`${prefix}/content/page/${home.id}`)).body;
      expect(JSON.stringify(page.document)).toContain("As it was.");
    } finally {
      await useHeap(undefined);
    }
  }, 120_000);

  it("answers 413 naming the setting to a PDF export, caches nothing, and renders once the heap allows it", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Handbook" });
    await commitContent(ctx, space.id, { pages: [{ title: "Welcome", paragraphs: ["First words of the handbook."] }] });
    const url = new URL((await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf`)).body.url);
    const path = `${url.pathname}${url.search}`;
    await useHeap(TINY_HEAP_MB);
    try {
      const res = await ctx.anonymous.get(path);
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(413);
      expect(res.body.error.message).toContain("Rendering the PDF ran out of memory");
      expect(res.body.error.message).toContain(`QUIRE_WORKER_HEAP_MB=${TINY_HEAP_MB}`);
      expect(await ctx.db.selectFrom("pdfExports").select("key").where("spaceId", "=", space.id).execute()).toEqual([]);
      expect(await healthy()).toBe(200);
    } finally {
      await useHeap(undefined);
    }
    const pdf = await ctx.anonymous.get(path);
    expect(pdf.status).toBe(200);
    expect(pdf.raw.subarray(0, 5).toString()).toBe("%PDF-");
  }, 120_000);

  it("fails the search index job at once, keeping the index it had", async () => {
    const { space } = await createOrgWithSpace(ctx, { title: "Search" });
    // Indexed with the thread uncapped first; then the space changes and indexing it again runs out of memory.
    await commitContent(ctx, space.id, { pages: [{ title: "Before", paragraphs: ["Indexed before the cap."] }] });
    await ctx.worker.drain();
    const indexed = await ctx.db
      .selectFrom("searchIndexState")
      .select("revisionId")
      .where("spaceId", "=", space.id)
      .executeTakeFirstOrThrow();
    await useHeap(TINY_HEAP_MB);
    try {
      // ~5 MB of document JSON: parsing it alone needs more than the cap.
      const paragraphs = Array.from({ length: 50_000 }, (_, i) => `Paragraph ${i}, with more words to fill the line up to a usual length.`);
      const { revisionId } = await commitContent(ctx, space.id, { pages: [{ title: "Large", paragraphs }] });
      await ctx.worker.drain();
      const job = await ctx.db
        .selectFrom("jobs")
        .select(["state", "attempts", "lastError"])
        .where("kind", "=", "search-index-space")
        .where("payload", "like", `%${space.id}%`)
        .where("state", "!=", "succeeded")
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ state: "failed", attempts: 1 });
      expect(job.lastError).toContain("Extracting the searchable text of pages ran out of memory");
      expect(job.lastError).toContain(`QUIRE_WORKER_HEAP_MB=${TINY_HEAP_MB}`);
      // The job's transaction rolled back: the index is still the one of the earlier revision.
      const state = await ctx.db
        .selectFrom("searchIndexState")
        .select("revisionId")
        .where("spaceId", "=", space.id)
        .executeTakeFirstOrThrow();
      expect(state.revisionId).toBe(indexed.revisionId);
      expect(state.revisionId).not.toBe(revisionId);
      expect(await healthy()).toBe(200);
    } finally {
      await useHeap(undefined);
    }
  }, 180_000);
});
