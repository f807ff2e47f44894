/** Seeding shared by the benchmarks: a space imported from a generated GitBook repository. */
import pino from "pino";
import { jobDefinitions } from "../src/app.js";
import type { Config } from "../src/config.js";
import type { Db, DialectName } from "../src/db/database.js";
import { Urls } from "../src/http/urls.js";
import { enqueue } from "../src/jobs/queue.js";
import { Worker } from "../src/jobs/worker.js";
import { generateRepo } from "../test/helpers/generate-repo.js";
import { createBareRepo } from "../test/helpers/git.js";

export interface ImportOutcome {
  ms: number;
  /** The import's record in the space's `gitSync` (status, revision, warnings...). */
  lastImport: { status: string; revision?: string; warnings?: unknown[]; error?: string };
}

/** Imports `url` (file:// allowed) into the space through the real git-import job; throws if it fails. */
export async function importRepo(
  deps: { db: Db; dialect: DialectName; config: Config; secret: string },
  input: { spaceId: string; actorId: string; url: string; ref?: string; projectDirectory?: string },
): Promise<ImportOutcome> {
  const worker = new Worker(
    {
      ...deps,
      config: { ...deps.config, gitAllowFileUrls: true },
      urls: new Urls("http://localhost:8080"),
      log: pino({ level: "silent" }),
    },
    jobDefinitions,
  );
  const started = performance.now();
  await enqueue(deps.db, "git-import", {
    spaceId: input.spaceId,
    remote: input.url,
    ref: input.ref ?? "refs/heads/main",
    projectDirectory: input.projectDirectory ?? "",
    force: true,
    standalone: false,
    actorId: input.actorId,
    requestedAt: new Date().toISOString(),
  });
  await worker.drain();
  const ms = performance.now() - started;
  const space = await deps.db.selectFrom("spaces").select("gitSync").where("id", "=", input.spaceId).executeTakeFirstOrThrow();
  const state = JSON.parse(space.gitSync ?? "{}");
  if (state.lastImport?.status !== "succeeded") throw new Error(`import failed: ${JSON.stringify(state.lastImport)}`);
  return { ms, lastImport: state.lastImport };
}

/** Imports a generated repository of `pages` pages and `images` images into the space. */
export async function importGeneratedRepo(
  deps: { db: Db; dialect: DialectName; config: Config; secret: string },
  input: { spaceId: string; actorId: string; pages: number; images: number },
): Promise<{ ms: number; repo: { cleanup(): void } }> {
  const repo = createBareRepo(generateRepo({ pages: input.pages, images: input.images }));
  const { ms } = await importRepo(deps, { spaceId: input.spaceId, actorId: input.actorId, url: repo.url });
  return { ms, repo };
}
