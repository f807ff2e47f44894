import { performance } from "node:perf_hooks";
import { commitRevision } from "../src/content/revision/commit.js";
import type { PageNode } from "../src/content/revision/model.js";
import { saveDocument } from "../src/content/revision/storage.js";
import { mergeChangeRequest } from "../src/modules/change-request-merge/change-request-merge.service.js";
import { requireChangeRequest } from "../src/modules/change-requests/change-requests.loader.js";
import { AccessCache } from "../src/permissions/access.js";
import { benchApp } from "./seed.js";

const SECTIONS = 20;
const PAGES_PER_SECTION = 49;
const PARAGRAPHS = 24;
const TIMED = 20;

const paragraph = (key: string, text: string) => ({
  object: "block",
  type: "paragraph",
  key,
  nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
});
const markdownOf = (id: string, edit?: { index: number; text: string }) =>
  `${Array.from({ length: PARAGRAPHS }, (_, i) =>
    edit?.index === i ? edit.text : `Paragraph ${i} of ${id}, with a sentence of ordinary length to be realistic.`,
  ).join("\n\n")}\n`;

async function main() {
  const bench = await benchApp({
    tmpPrefix: "quire-merge-bench-",
    // The limiter runs (its cost is measured) but never refuses the benchmark's load.
    env: { QUIRE_RATE_LIMIT: "true", QUIRE_RATE_LIMIT_TOKEN: "1000000000", QUIRE_RATE_LIMIT_ADDRESS: "1000000000" },
  });
  const { app, db, organization, token, user } = bench;
  const auth = { authorization: `Bearer ${token}` };
  const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, headers: auth, ...(payload !== undefined ? { payload: payload as object } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  // A 1,000-page space, committed directly (its creation is not what is measured).
  const space = await call("POST", `/v1/orgs/${organization.id}/spaces`, { title: "Big" });
  const now = new Date().toISOString();
  const pages: PageNode[] = [];
  for (let s = 0; s < SECTIONS; s++) {
    const children: PageNode[] = [];
    for (let p = 0; p < PAGES_PER_SECTION; p++) {
      const id = `s${s}p${p}`;
      const document = {
        object: "document",
        data: {},
        nodes: Array.from({ length: PARAGRAPHS }, (_, i) =>
          paragraph(`${id}b${i}`, `Paragraph ${i} of ${id}, with a sentence of ordinary length to be realistic.`),
        ),
      };
      children.push({
        id,
        kind: "document",
        title: `Page ${id}`,
        slug: id,
        documentHash: await saveDocument(db, document),
        createdAt: now,
        updatedAt: now,
        children: [],
      });
    }
    pages.push({ id: `s${s}`, kind: "group", title: `Section ${s}`, slug: `s${s}`, createdAt: now, updatedAt: now, children });
  }
  await db.transaction().execute((trx) =>
    commitRevision(trx, {
      spaceId: space.id,
      parents: [space.revision],
      type: "edits",
      content: { pages, files: [], reusableContents: [], variables: {} },
      createdBy: user.id,
      movePrimaryFrom: space.revision,
    }),
  );

  // 21 change requests on the same primary revision, each editing 10 pages through the API.
  const crs: string[] = [];
  for (let n = 0; n <= TIMED; n++) {
    const cr = await call("POST", `/v1/spaces/${space.id}/change-requests`, { subject: `Change ${n}` });
    const changes = [];
    for (let s = 0; s < 9; s++) {
      const id = `s${s}p${n}`;
      changes.push({
        operation: "update_page",
        page: id,
        document: { markdown: markdownOf(id, { index: 3, text: `Edited by change request ${n}` }) },
      });
    }
    changes.push({
      operation: "update_page",
      page: "s19p48",
      document: { markdown: markdownOf("s19p48", { index: n, text: `Shared page, block ${n} edited by change request ${n}` }) },
    });
    await call("POST", `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, { changes });
    crs.push(cr.id);
  }

  const actorUser = await db.selectFrom("users").selectAll().where("id", "=", user.id).executeTakeFirstOrThrow();
  const times: number[] = [];
  for (const [n, crId] of crs.entries()) {
    const actor = { user: actorUser, tokenId: "bench", access: new AccessCache(db, user.id) };
    const loaded = await requireChangeRequest(db, actor, space.id, crId);
    const start = performance.now();
    const outcome = await mergeChangeRequest(db, { loaded, actor });
    const elapsed = performance.now() - start;
    if (outcome.result !== "merge")
      throw new Error(`change request ${n} did not merge cleanly: ${JSON.stringify(outcome.conflicts.slice(0, 3))}`);
    if (n > 0) times.push(elapsed);
  }
  const shared = await call("GET", `/v1/spaces/${space.id}/content/page/s19p48`);
  const edited = JSON.stringify(shared.document).match(/Shared page, block \d+ edited/g)?.length ?? 0;
  if (edited !== crs.length) throw new Error(`the shared page should hold ${crs.length} merged block edits, it has ${edited}`);

  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  console.log(`mergeChangeRequest (service call), SQLite, 1,000-page space, change request touching 10 pages (1 shared, merged by block):`);
  console.log(
    `  median ${at(0.5)} ms   min ${times[0]!.toFixed(1)} ms   p90 ${at(0.9)} ms   max ${times[times.length - 1]!.toFixed(1)} ms   (${TIMED} merges after a warm-up)`,
  );
  console.log(`  target < 100 ms: ${Number(at(0.5)) < 100 ? "met" : "NOT met"}`);
  await bench.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
