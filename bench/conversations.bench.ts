/**
 * The conversation analysis, measured: ingestion (with redaction) and one analysis job of N
 * generated, labelled conversations (test/fixtures/conversations/generate.ts) in an organization
 * whose documentation space has a page per topic, on SQLite (or PostgreSQL with DATABASE_URL).
 * Prints the times, the issues and clusters found, cluster purity and the share of issues in
 * their topic's cluster.
 *
 *   tsx bench/conversations.bench.ts [conversations] [seed] [noise]        (default 10000 1 0)
 *
 * `noise` (0 to 1): the share of detail sentences taken from another topic than the issue's.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { initOrganization } from "../src/bootstrap.js";
import { commitRevision } from "../src/content/revision/commit.js";
import type { PageNode } from "../src/content/revision/model.js";
import { saveDocument } from "../src/content/revision/storage.js";
import { indexSpace } from "../src/content/search/index-space.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { runConversationAnalysis } from "../src/modules/conversations/conversations.jobs.js";
import { ingestConversations } from "../src/modules/conversations/conversations.service.js";
import { createSpace } from "../src/modules/spaces/spaces.service.js";
import { loadOrgAccess } from "../src/permissions/access.js";
import { generateConversations, measure, TOPICS } from "../test/fixtures/conversations/generate.js";

const count = Number(process.argv[2] ?? 10_000);
const seed = Number(process.argv[3] ?? 1);
const noise = Number(process.argv[4] ?? 0);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-conversations-"));
const handle = openDatabase(
  process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { sqlitePath: path.join(dataDir, "quire.db") },
);
await migrateToLatest(handle.db);
const { db, dialect } = handle;
const { organization, user } = await db
  .transaction()
  .execute((trx) => initOrganization(trx, { orgTitle: `Bench ${Date.now()}`, email: `b${Date.now()}@bench.test`, name: "B" }));
const orgId = organization.id;

// A help center: one page per topic, written from the topic's replies, indexed for search.
const access = await loadOrgAccess(db, user.id, orgId);
const space = await db
  .transaction()
  .execute((trx) => createSpace(trx, { orgId, parentId: null, title: "Help center", access, actorId: user.id }));
const { id: spaceId, revisionId } = space;
const now = new Date().toISOString();
const pages: PageNode[] = [];
for (const [i, topic] of TOPICS.entries()) {
  const document = {
    object: "document",
    data: {},
    nodes: [...topic.replies, ...topic.questions.slice(0, 1)].map((text, j) => ({
      object: "block",
      type: "paragraph",
      key: `k${i}x${j}`,
      nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
    })),
  };
  pages.push({
    id: `benchpage${String(i).padStart(11, "0")}`,
    kind: "document",
    title: topic.subjects[0] ?? topic.name,
    slug: topic.name,
    createdAt: now,
    updatedAt: now,
    children: [],
    documentHash: await saveDocument(db, document as never),
  } as PageNode);
}
await db.transaction().execute(async (trx) => {
  await commitRevision(trx, {
    spaceId,
    parents: [revisionId],
    type: "edits",
    content: { pages, files: [], reusableContents: [], variables: {} },
    createdBy: null,
    movePrimaryFrom: revisionId,
  });
  await indexSpace(trx, dialect, spaceId);
});

const set = generateConversations(count, seed, undefined, { noise });
let started = performance.now();
for (let i = 0; i < set.length; i += 1000) {
  const slice = set.slice(i, i + 1000);
  // One request carries one source; the generator spreads conversations over three.
  for (const source of new Set(slice.map((c) => c.source))) {
    const conversations = slice.filter((c) => c.source === source).map((c) => c.input);
    await db.transaction().execute((trx) => ingestConversations(trx, { orgId, source, conversations, now: new Date().toISOString() }));
  }
}
const ingestSeconds = (performance.now() - started) / 1000;

started = performance.now();
const outcome = await runConversationAnalysis({ db, dialect }, orgId);
const analysisSeconds = (performance.now() - started) / 1000;

const external = new Map(
  (await db.selectFrom("conversations").select(["id", "externalId"]).where("orgId", "=", orgId).execute()).map((c) => [c.id, c.externalId]),
);
const issues = await db
  .selectFrom("conversationIssues")
  .select(["conversationId", "position", "clusterId", "documentation"])
  .where("orgId", "=", orgId)
  .execute();
const figures = measure(
  set,
  issues.map((i) => ({ conversationId: external.get(i.conversationId) ?? "", position: i.position, cluster: i.clusterId })),
);
const withPages = issues.filter((i) => i.documentation !== "[]").length;

console.log(
  JSON.stringify(
    {
      dialect,
      conversations: count,
      seed,
      noise,
      ingestSeconds: Number(ingestSeconds.toFixed(2)),
      analysisSeconds: Number(analysisSeconds.toFixed(2)),
      issues: outcome.issues,
      labelledIssues: figures.labelledIssues,
      clusters: outcome.clusters,
      purity: Number(figures.purity.toFixed(4)),
      issuesInTheirTopicsCluster: Number(figures.rightCluster.toFixed(4)),
      conversationsSplitRight: Number(figures.splitAccuracy.toFixed(4)),
      issuesWithDocumentation: Number((withPages / issues.length).toFixed(4)),
    },
    null,
    2,
  ),
);
await handle.destroy();
fs.rmSync(dataDir, { recursive: true, force: true });
