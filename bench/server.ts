/**
 * Benchmark server process: the real Quire app on a seeded SQLite database, and beside it the
 * baselines measured in the same run: bare Fastify routes returning a fixed object (one space) or
 * list (100 spaces) of the same size as the real responses, and a bare route doing one SQLite
 * primary-key read. Raw servers of ~30 lines each (no framework work but routing) give the floor
 * of a few real routes: the API token lookup and the space's primary-key read (GET space, on SQLite
 * and, when BENCH_POSTGRES_URL names a server, on PostgreSQL), the stored text of a page's document
 * (GET page document), and the full-text statements of a published site's search.
 * Prints the targets as one JSON line on stdout.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import SQLite from "better-sqlite3";
import Fastify from "fastify";
import pg from "pg";
import pino from "pino";
import { buildApp } from "../src/app.js";
import { initOrganization, loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { indexPages } from "../src/content/revision/model.js";
import { loadContent } from "../src/content/revision/storage.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { Urls } from "../src/http/urls.js";
import { scratchPostgres } from "./scratch-postgres.js";
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
    QUIRE_RATE_LIMIT_READER: "1000000000",
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
  // Raw SQLite: what GET space must do at least (the token's user by its hash, the space by its id).
  const userByToken = sqlite.prepare(
    "select u.* from api_tokens t join users u on u.id = t.user_id where t.token_hash = ? and t.revoked_at is null",
  );
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  bareDb.get("/space/:id", async (request, reply) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
    if (!bearer || !userByToken.get(sha256(bearer))) return reply.code(401).send({ error: { code: 401, message: "no" } });
    const row = byId.get((request.params as { id: string }).id);
    return row ? sample : reply.code(404).send({ error: { code: 404, message: "no" } });
  });
  // Raw SQLite: a page's document as stored, sent as it is (the token checked as above).
  const objectByHash = sqlite.prepare("select data from content_objects where hash = ?");
  bareDb.get("/document/:hash", async (request, reply) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
    if (!bearer || !userByToken.get(sha256(bearer))) return reply.code(401).send({ error: { code: 401, message: "no" } });
    const row = objectByHash.get((request.params as { hash: string }).hash) as { data: string } | undefined;
    return reply.type("application/json; charset=utf-8").send(row?.data ?? "{}");
  });
  // Raw SQLite: the full-text statements of a site search (fulltext.sqlite.ts: the best rows of the
  // space for readers, then the details of the first 20 of them), without anything around them.
  const ftsRows = sqlite.prepare(`select s.id, s.page_id, s.section_key, s.conditions, bm25(search_fts, 10.0, 4.0, 1.0, 0.0) as rank
    from search_fts join search_sections s on s.id = search_fts.rowid
    where search_fts match ? and s.space_id in (?) and s.audience in ('everyone', 'readers') order by rank limit 1000`);
  const ftsDetails = sqlite.prepare(
    "select id, section_key, position, path, anchor, ancestors, page_title, section_title, body from search_sections where id in (select value from json_each(?))",
  );
  bareDb.get("/fts", async (request) => {
    const words =
      String((request.query as { q?: string }).q ?? "")
        .toLowerCase()
        .match(/[\p{L}\p{N}]+/gu) ?? [];
    const terms = words.map((w, i) => `"${w}"${i === words.length - 1 && w.length >= 3 ? "*" : ""}`).join(" AND ");
    const rows = ftsRows.all(`space_id : ("${contentSpace}") AND {page_title section_title body} : (${terms})`, contentSpace) as {
      id: number;
      page_id: string;
    }[];
    const seen = new Set<string>();
    const shown = rows.filter((r) => !seen.has(r.page_id) && seen.add(r.page_id)).slice(0, 20);
    return { results: ftsDetails.all(JSON.stringify(shown.map((r) => r.id))) };
  });
  const bareDbUrl = await bareDb.listen({ port: 0, host: "127.0.0.1" });
  // The stored document of the page read by GET page document.
  const revision = await handle.db
    .selectFrom("spaces")
    .innerJoin("revisions", "revisions.id", "spaces.revisionId")
    .select(["revisions.treeHash", "revisions.id"])
    .where("spaces.id", "=", contentSpace)
    .executeTakeFirstOrThrow();
  const documentHash = indexPages((await loadContent(handle.db, revision.treeHash)).pages).get(pageId)?.page.documentHash;
  if (!documentHash) throw new Error("the benched page has no document");

  const postgres = process.env.BENCH_POSTGRES_URL ? await postgresTargets(process.env.BENCH_POSTGRES_URL, config) : [];

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
      name: "raw SQLite server: token lookup + space PK read",
      url: `${bareDbUrl}/space/${spaceId}`,
      headers: auth,
    },
    {
      name: "GET space, SQLite",
      url: `${real}/v1/spaces/${spaceId}`,
      headers: auth,
      baseline: "raw SQLite server: token lookup + space PK read",
    },
    ...postgres,
    {
      name: "raw SQLite server: stored page document text",
      url: `${bareDbUrl}/document/${documentHash}`,
      headers: auth,
    },
    {
      name: "GET page document (1,000-page space)",
      url: `${real}/v1/spaces/${contentSpace}/revisions/${revision.id}/page/${pageId}/document`,
      headers: auth,
      baseline: "raw SQLite server: stored page document text",
    },
    { name: "raw FTS5 statements of a site search", url: `${bareDbUrl}/fts?q=lorem`, headers: {} },
    {
      name: "site search.json, every page matches",
      url: `${real}/s/${siteBasename}/~quire/search.json?q=lorem`,
      headers: {},
      baseline: "raw FTS5 statements of a site search",
    },
    {
      name: "raw FTS5 statements of a site search, new query each time",
      url: `${bareDbUrl}/fts?q=`,
      headers: {},
      shuffledWords: LOREM,
    },
    {
      name: "site search.json, every page matches, new query each time",
      url: `${real}/s/${siteBasename}/~quire/search.json?q=`,
      headers: {},
      baseline: "raw FTS5 statements of a site search, new query each time",
      shuffledWords: LOREM,
    },
    { name: "raw FTS5 statements of a site search, selective", url: `${bareDbUrl}/fts?q=topic%204.3`, headers: {} },
    {
      name: "site search.json, selective, misspelled (topik 4.3)",
      url: `${real}/s/${siteBasename}/~quire/search.json?q=topik%204.3`,
      headers: {},
      baseline: "raw FTS5 statements of a site search, selective",
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

/**
 * GET space on PostgreSQL: the app on a fresh database of the server at `url` (dropped when this
 * process ends), beside a raw `pg` server doing the same token lookup and primary-key read.
 */
async function postgresTargets(url: string, config: ReturnType<typeof loadConfig>) {
  const scratch = await scratchPostgres(url, `quire_bench_${process.pid}`);
  const { handle, organization, token } = scratch;
  const databaseUrl = new URL(scratch.url);
  process.once("SIGTERM", () => {
    pool
      .end()
      .then(() => scratch.drop())
      .finally(() => process.exit(0));
  });
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
  const created = await app.inject({
    method: "POST",
    url: `/v1/orgs/${organization.id}/spaces`,
    headers: auth,
    payload: { title: "Space" },
  });
  if (created.statusCode !== 201) throw new Error(`postgres seeding failed: ${created.statusCode} ${created.body}`);
  const spaceId = created.json().id as string;
  const sample = (await app.inject({ method: "GET", url: `/v1/spaces/${spaceId}`, headers: auth })).json();
  const real = await app.listen({ port: 0, host: "127.0.0.1" });

  // The raw server: ~30 lines of what GET space must do on PostgreSQL.
  const pool = new pg.Pool({ connectionString: databaseUrl.href, max: 10 });
  // The database is dropped (its connections ended) when the run stops this process.
  pool.on("error", () => {});
  const raw = Fastify({ logger: false });
  raw.get("/space/:id", async (request, reply) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
    const hash = createHash("sha256")
      .update(bearer ?? "")
      .digest("hex");
    const user = await pool.query({
      name: "user-by-token",
      text: "select u.* from api_tokens t join users u on u.id = t.user_id where t.token_hash = $1 and t.revoked_at is null",
      values: [hash],
    });
    if (!bearer || user.rowCount === 0) return reply.code(401).send({ error: { code: 401, message: "no" } });
    const space = await pool.query({
      name: "space-by-id",
      text: "select * from spaces where id = $1",
      values: [(request.params as { id: string }).id],
    });
    return space.rowCount ? sample : reply.code(404).send({ error: { code: 404, message: "no" } });
  });
  const rawUrl = await raw.listen({ port: 0, host: "127.0.0.1" });
  return [
    { name: "raw pg server: token lookup + space PK read", url: `${rawUrl}/space/${spaceId}`, headers: auth },
    {
      name: "GET space, PostgreSQL",
      url: `${real}/v1/spaces/${spaceId}`,
      headers: auth,
      baseline: "raw pg server: token lookup + space PK read",
    },
  ];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
