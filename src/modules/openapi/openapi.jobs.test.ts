/**
 * The processing job when its worker dies: a real `quire worker` process is killed (SIGKILL) while
 * it fetches a spec; nothing of the run is written, and once the job's lease expires another worker
 * runs it from the start. A job whose workers keep dying is marked failed on the spec.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { realSpecs, type SpecServer, startSpecServer } from "../../../test/helpers/spec-server.js";
import { MAX_ATTEMPTS } from "./openapi.jobs.js";

let ctx: TestContext;
let server: SpecServer;
beforeAll(async () => {
  ctx = await createTestContext({ config: { fetchAllowNetworks: ["127.0.0.0/8"], openapiFetchTimeoutMs: 5000 } });
  server = await startSpecServer();
});
afterAll(async () => {
  await server.close();
  await ctx.close();
});

/** `quire worker` in its own process, on the test's database. */
function startWorkerProcess(): { child: ChildProcess; exit: Promise<unknown>; output: () => string } {
  const { databaseUrl, sqlitePath } = ctx.database.location;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "worker"], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    env: {
      ...process.env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { QUIRE_DATA_DIR: path.dirname(sqlitePath ?? "") }),
      QUIRE_FETCH_ALLOW_NETWORKS: "127.0.0.0/8",
      QUIRE_OPENAPI_FETCH_TIMEOUT_MS: "600000",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return { child, exit: new Promise((resolve) => child.on("exit", resolve)), output: () => output };
}

function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(what())), ms))]);
}

async function processingJobs(specId: string) {
  return ctx.db.selectFrom("jobs").selectAll().where("kind", "=", "openapi-process").where("payload", "like", `%${specId}%`).execute();
}

async function specRow(orgId: string, slug: string) {
  return ctx.db.selectFrom("openapiSpecs").selectAll().where("orgId", "=", orgId).where("slug", "=", slug).executeTakeFirstOrThrow();
}

describe("openapi-process when the worker dies", () => {
  it("writes nothing from a killed run; another worker runs the job again after the lease and completes it", {
    timeout: 120_000,
  }, async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const slug = "crash-test";
    expect((await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { text: realSpecs.uspto30Json() } })).status).toBe(201);
    await ctx.worker.drain();
    const before = await specRow(org.id, slug);
    expect(before.processingState).toBe("complete");
    expect(before.lastVersionId).not.toBeNull();

    // The new source hangs: the worker process is killed while it waits for the document.
    server.set("/crash/openapi.json", { hang: true });
    const put = await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { url: `${server.base}/crash/openapi.json` } });
    expect(put.status).toBe(200);
    const requested = server.nextRequest("/crash/openapi.json");
    const worker = startWorkerProcess();
    await within(requested, 90_000, () => `the worker process never fetched the document:\n${worker.output()}`);
    const [running] = await processingJobs(before.id).then((jobs) => jobs.filter((j) => j.state === "running"));
    expect(running?.lockedBy).toMatch(/:\d+:/);
    expect((await specRow(org.id, slug)).processingState).toBe("progress");
    worker.child.kill("SIGKILL");
    await worker.exit;

    // Nothing half-written: the previous version is still the spec's, no new version exists.
    const afterCrash = await specRow(org.id, slug);
    expect(afterCrash).toMatchObject({ processingState: "progress", lastVersionId: before.lastVersionId, lastProcessErrorCode: null });
    const versions = await ctx.db.selectFrom("openapiSpecVersions").select("id").where("specId", "=", before.id).execute();
    expect(versions.map((v) => v.id)).toEqual([before.lastVersionId]);
    // Until its lease expires the job belongs to the dead worker: no one else takes it.
    expect(await ctx.worker.drain()).toBe(0);

    // The lease expires (15 minutes; moved to the past here), and a live worker runs the job again.
    server.set("/crash/openapi.json", realSpecs.trainTravel31Json());
    await ctx.db
      .updateTable("jobs")
      .set({ lockedUntil: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", running?.id ?? "")
      .execute();
    expect(await ctx.worker.drain()).toBe(1);
    const done = await specRow(org.id, slug);
    expect(done).toMatchObject({ processingState: "complete", lastProcessErrorCode: null, lastProcessedErrors: null });
    expect(done.lastVersionId).not.toBe(before.lastVersionId);
    const [job] = await processingJobs(before.id).then((jobs) => jobs.filter((j) => j.id === running?.id));
    expect(job).toMatchObject({ state: "succeeded", attempts: 2 });
    const spec = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/latest/content`);
    expect(spec.body.filesystem["openapi.json"].specification.info.title).toBe("Train Travel API");
  });

  it("fails visibly when its workers keep dying, keeping the last version", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const slug = "keeps-dying";
    await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { text: realSpecs.uspto30Json() } });
    await ctx.worker.drain();
    const before = await specRow(org.id, slug);
    await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { text: realSpecs.trainTravel31Json() } });
    // As left by MAX_ATTEMPTS workers that each claimed the job, marked the spec in progress, then died.
    const [queued] = await processingJobs(before.id).then((jobs) => jobs.filter((j) => j.state === "queued"));
    await ctx.db
      .updateTable("jobs")
      .set({ state: "running", attempts: MAX_ATTEMPTS, lockedBy: "dead-worker", lockedUntil: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", queued?.id ?? "")
      .execute();
    await ctx.db.updateTable("openapiSpecs").set({ processingState: "progress" }).where("id", "=", before.id).execute();

    expect(await ctx.worker.drain()).toBe(1);
    const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}`);
    expect(res.body).toMatchObject({
      processingState: "complete",
      lastVersion: before.lastVersionId,
      lastProcessedErrors: [
        {
          message: `The spec could not be processed: processing was interrupted ${MAX_ATTEMPTS} times (the worker stopped while processing it).`,
          code: "JOB_FAILED",
        },
      ],
    });
    const versions = await ctx.db.selectFrom("openapiSpecVersions").select("id").where("specId", "=", before.id).execute();
    expect(versions).toHaveLength(1);
  });

  it("drops the result of a run whose source was replaced meanwhile; the newer source's job records its own", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const slug = "superseded";
    server.set("/slow-old.json", { body: realSpecs.uspto30Json(), delayMs: 1500 });
    await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { url: `${server.base}/slow-old.json` } });
    const requested = server.nextRequest("/slow-old.json");
    const draining = ctx.worker.drain();
    await requested;
    // While the old source is being fetched, a PUT gives the spec a new source (and a job of its own).
    await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { text: realSpecs.trainTravel31Json() } });
    await draining;
    await ctx.worker.drain();
    const spec = await specRow(org.id, slug);
    const versions = await ctx.db.selectFrom("openapiSpecVersions").select(["id", "document"]).where("specId", "=", spec.id).execute();
    expect(versions).toHaveLength(1);
    expect(JSON.parse(versions[0]?.document ?? "{}").info.title).toBe("Train Travel API");
    expect(spec).toMatchObject({ processingState: "complete", sourceGeneration: 2, lastVersionId: versions[0]?.id });
  });
});
