/** Seeding shared by the benchmarks: a space imported from a generated GitBook repository. */
import path from "node:path";
import { fileURLToPath } from "node:url";
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
      // The bench imports a repository of its own choosing: its directory is the file:// root.
      config: {
        ...deps.config,
        gitAllowFileUrls: true,
        gitFileRoot: input.url.startsWith("file:") ? path.dirname(fileURLToPath(input.url)) : deps.config.gitFileRoot,
      },
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

/**
 * A Quire app in process on a fresh SQLite database in a temporary directory, with one organization
 * and its owner's token. `env` adds settings over the bench defaults (rate limiting off).
 */
export async function benchApp(options: {
  tmpPrefix: string;
  env?: Record<string, string>;
  publicUrl?: string;
  /** A data directory kept after close: a second run over it reopens its database and organization (bench.json) instead of starting afresh. */
  keepDir?: string;
}) {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const { buildApp } = await import("../src/app.js");
  const { initOrganization, loadInstanceSecret } = await import("../src/bootstrap.js");
  const { loadConfig } = await import("../src/config.js");
  const { openDatabase } = await import("../src/db/database.js");
  const { migrateToLatest } = await import("../src/db/migrate.js");
  const dataDir = options.keepDir ?? fs.mkdtempSync(path.join(os.tmpdir(), options.tmpPrefix));
  fs.mkdirSync(dataDir, { recursive: true });
  const statePath = path.join(dataDir, "bench.json");
  const kept = options.keepDir && fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, "utf8")) : undefined;
  const config = loadConfig({ QUIRE_DATA_DIR: dataDir, LOG_LEVEL: "silent", PORT: "0", QUIRE_RATE_LIMIT: "false", ...options.env });
  const handle = openDatabase({ sqlitePath: path.join(dataDir, "quire.db") });
  await migrateToLatest(handle.db);
  const { organization, token, user } =
    (kept as { organization: { id: string }; token: string; user: { id: string } } | undefined) ??
    (await handle.db
      .transaction()
      .execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "bench@bench.test", name: "Bench" })));
  if (options.keepDir && !kept) fs.writeFileSync(statePath, JSON.stringify({ organization, token, user }));
  const secret = await loadInstanceSecret(handle.db);
  const app = await buildApp({
    config,
    db: handle.db,
    dialect: handle.dialect,
    urls: new Urls(options.publicUrl ?? "http://localhost:8080"),
    log: pino({ level: "silent" }),
    secret,
    notifyJobs: () => {},
  });
  const close = async () => {
    await app.close();
    await handle.destroy();
    if (!options.keepDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return {
    app,
    handle,
    db: handle.db,
    config,
    dataDir,
    /** What a kept data directory holds besides the organization (a previous run's `remember`). */
    kept: kept as Record<string, unknown> | undefined,
    remember: (values: Record<string, unknown>) =>
      options.keepDir && fs.writeFileSync(statePath, JSON.stringify({ ...(kept ?? { organization, token, user }), ...values })),
    secret,
    organization,
    token,
    user,
    auth: { authorization: `Bearer ${token}` },
    close,
  };
}

/**
 * A published site over a space imported from a generated GitBook repository (through the real Git
 * import), in a `benchApp`.
 */
export async function publishedBenchSite(options: { pages: number; images: number; tmpPrefix: string }) {
  const bench = await benchApp({ tmpPrefix: options.tmpPrefix });
  const { app, handle, config, secret, organization, auth } = bench;
  const space = await app.inject({ method: "POST", url: `/v1/orgs/${organization.id}/spaces`, headers: auth, payload: { title: "Docs" } });
  const spaceId = space.json().id as string;
  const { repo } = await importGeneratedRepo(
    { db: handle.db, dialect: handle.dialect, config, secret },
    { spaceId, actorId: bench.user.id, pages: options.pages, images: options.images },
  );
  repo.cleanup();
  const site = await app.inject({
    method: "POST",
    url: `/v1/orgs/${organization.id}/sites`,
    headers: auth,
    payload: { title: "Bench Docs", spaces: [spaceId] },
  });
  const { id: siteId, basename } = site.json() as { id: string; basename: string };
  await app.inject({ method: "POST", url: `/v1/orgs/${organization.id}/sites/${siteId}/publish`, headers: auth });
  return { ...bench, spaceId, siteId, basename, root: `/s/${basename}` };
}
