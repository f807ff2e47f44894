/**
 * Benchmark server process: the real Quire app on a seeded SQLite database, and beside it the
 * baselines measured in the same run: bare Fastify routes returning a fixed object (one space) or
 * list (100 spaces) of the same size as the real responses, and a bare route doing one SQLite
 * primary-key read.
 * Prints the targets as one JSON line on stdout.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import SQLite from "better-sqlite3";
import Fastify from "fastify";
import pino from "pino";
import { buildApp } from "../src/app.js";
import { initOrganization, loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { Urls } from "../src/http/urls.js";
import { importGeneratedRepo } from "./seed.js";

const SPACES = 150;
/** Words of every generated page's first paragraph (test/helpers/generate-repo.ts). */
const LOREM = ["lorem", "ipsum", "dolor", "amet", "consectetur", "adipiscing"];

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-"));
  const config = loadConfig({
    QUIRE_DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    PORT: "0",
    // The limiter runs (its cost is measured) but never refuses the benchmark's load.
    QUIRE_RATE_LIMIT: process.env.QUIRE_RATE_LIMIT ?? "true",
    QUIRE_RATE_LIMIT_TOKEN: "1000000000",
    QUIRE_RATE_LIMIT_ADDRESS: "1000000000",
  });
  const sqlitePath = path.join(dataDir, "quire.db");
  const handle = openDatabase({ sqlitePath });
  await migrateToLatest(handle.db);
  const { organization, token } = await handle.db
    .transaction()
    .execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "bench@bench.test", name: "Bench" }));
  const app = await buildApp({
    config,
    db: handle.db,
    dialect: handle.dialect,
    urls: new Urls("http://localhost:8080"),
    log: pino({ level: "silent" }),
    secret: await loadInstanceSecret(handle.db),
    notifyJobs: () => {},
  });
  const auth = { authorization: `Bearer ${token}` };

  const spaceIds: string[] = [];
  for (let i = 0; i < SPACES; i++) {
    const res = await app.inject({
      method: "POST",
      url: `/v1/orgs/${organization.id}/spaces`,
      headers: auth,
      payload: { title: `Space ${i}` },
    });
    if (res.statusCode !== 201) throw new Error(`seeding failed: ${res.statusCode} ${res.body}`);
    spaceIds.push(res.json().id);
  }
  const spaceId = spaceIds[Math.floor(SPACES / 2)]!;

  // A 1,000-page space, imported through the real Git import, for page reads and search.
  const contentSpace = spaceIds[0]!;
  const owner = await handle.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
  const { repo } = await importGeneratedRepo(
    { db: handle.db, dialect: handle.dialect, config, secret: await loadInstanceSecret(handle.db) },
    { spaceId: contentSpace, actorId: owner.id, pages: 1000, images: 200 },
  );
  repo.cleanup();
  const pages = (await app.inject({ method: "GET", url: `/v1/spaces/${contentSpace}/content/pages`, headers: auth })).json().pages;
  const pageId = pages[3].pages[2].id as string;

  // The 1,000-page space as a published site, and the same bytes of one page (HTML and Markdown)
  // on disk for @fastify/static (the baseline of a warm published page).
  const site = await app.inject({
    method: "POST",
    url: `/v1/orgs/${organization.id}/sites`,
    headers: auth,
    payload: { title: "Bench Docs", spaces: [contentSpace] },
  });
  if (site.statusCode !== 201) throw new Error(`site: ${site.statusCode} ${site.body}`);
  await app.inject({ method: "POST", url: `/v1/orgs/${organization.id}/sites/${site.json().id}/publish`, headers: auth });
  const siteBasename = site.json().basename as string;
  const sitePath = `/s/${siteBasename}/${pages[3].pages[2].path}`;
  const pageHtml = await app.inject({ method: "GET", url: sitePath });
  const pageMd = await app.inject({ method: "GET", url: `${sitePath}.md` });
  if (pageHtml.statusCode !== 200 || pageMd.statusCode !== 200) throw new Error(`site page: ${pageHtml.statusCode} ${pageMd.statusCode}`);
  const staticDir = path.join(dataDir, "static");
  fs.mkdirSync(staticDir);
  fs.writeFileSync(path.join(staticDir, "page.html"), pageHtml.rawPayload);
  fs.writeFileSync(path.join(staticDir, "page.md"), pageMd.rawPayload);

  const real = await app.listen({ port: 0, host: "127.0.0.1" });

  // Baseline 1: the same response bytes from a bare route.
  const sample = (await app.inject({ method: "GET", url: `/v1/spaces/${spaceId}`, headers: auth })).json();
  const bare = Fastify({ logger: false });
  bare.get("/fixed", async () => sample);
  // The same for the list: a fixed page of 100 spaces, as many bytes as the real one.
  const listSample = (await app.inject({ method: "GET", url: `/v1/orgs/${organization.id}/spaces?limit=100`, headers: auth })).json();
  bare.get("/fixed-list", async () => listSample);
  // @fastify/static in the same process as the app, as the target asks.
  await bare.register(fastifyStatic, { root: staticDir, prefix: "/static/" });
  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });

  // Baseline 2: a bare route with one primary-key read from the same SQLite file.
  const sqlite = new SQLite(sqlitePath, { readonly: true });
  const byId = sqlite.prepare("select * from spaces where id = ?");
  const bareDb = Fastify({ logger: false });
  bareDb.get("/row/:id", async (request) => {
    byId.get((request.params as { id: string }).id);
    return sample;
  });
  const bareDbUrl = await bareDb.listen({ port: 0, host: "127.0.0.1" });

  const targets = [
    { name: "bare route (fixed object)", url: `${bareUrl}/fixed`, headers: {} },
    { name: "bare route + 1 SQLite PK read", url: `${bareDbUrl}/row/${spaceId}`, headers: {} },
    { name: "GET /v1/spaces/{id}", url: `${real}/v1/spaces/${spaceId}`, headers: auth, baseline: "bare route (fixed object)" },
    { name: "bare route (fixed list of 100 spaces)", url: `${bareUrl}/fixed-list`, headers: {} },
    {
      name: "GET /v1/orgs/{org}/spaces?limit=100",
      url: `${real}/v1/orgs/${organization.id}/spaces?limit=100`,
      headers: auth,
      baseline: "bare route (fixed list of 100 spaces)",
    },
    {
      name: "GET page (1,000-page space)",
      url: `${real}/v1/spaces/${contentSpace}/content/page/${pageId}`,
      headers: auth,
      baseline: "bare route (fixed object)",
    },
    {
      name: "search, selective (1,000 pages)",
      url: `${real}/v1/spaces/${contentSpace}/search?query=topic%204.3`,
      headers: auth,
      baseline: "bare route (fixed object)",
    },
    {
      name: "search, every page matches",
      url: `${real}/v1/spaces/${contentSpace}/search?query=lorem`,
      headers: auth,
      baseline: "bare route (fixed object)",
    },
    { name: "@fastify/static, published page HTML bytes", url: `${bareUrl}/static/page.html`, headers: {} },
    {
      name: "published page HTML, warm",
      url: `${real}${sitePath}`,
      headers: {},
      baseline: "@fastify/static, published page HTML bytes",
    },
    { name: "@fastify/static, published page .md bytes", url: `${bareUrl}/static/page.md`, headers: {} },
    {
      name: "published page .md, warm",
      url: `${real}${sitePath}.md`,
      headers: {},
      baseline: "@fastify/static, published page .md bytes",
    },
    {
      // Lorem's words are in every page: each request asks them in another order, which no kept answer holds.
      name: "search, every page matches, new query each time",
      url: `${real}/v1/spaces/${contentSpace}/search?query=`,
      headers: auth,
      baseline: "bare route (fixed object)",
      shuffledWords: LOREM,
    },
    {
      name: "site search, selective (1,000 pages)",
      url: `${real}/s/${siteBasename}/~quire/search?q=topic%204.3`,
      headers: {},
      baseline: "bare route (fixed object)",
    },
    {
      name: "site search, every page matches",
      url: `${real}/s/${siteBasename}/~quire/search?q=lorem`,
      headers: {},
      baseline: "bare route (fixed object)",
    },
    {
      name: "site search, every page matches, new query each time",
      url: `${real}/s/${siteBasename}/~quire/search?q=`,
      headers: {},
      baseline: "bare route (fixed object)",
      shuffledWords: LOREM,
    },
    {
      name: "search, selective, 1 connection (latency)",
      url: `${real}/v1/spaces/${contentSpace}/search?query=topic%204.3`,
      headers: auth,
      connections: 1,
    },
    {
      name: "search, every page matches, 1 connection",
      url: `${real}/v1/spaces/${contentSpace}/search?query=lorem`,
      headers: auth,
      connections: 1,
    },
  ];
  process.stdout.write(`${JSON.stringify({ targets, responseBytes: JSON.stringify(sample).length })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
