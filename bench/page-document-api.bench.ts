import { isDeepStrictEqual } from "node:util";
import type { FastifyRequest } from "fastify";
import Type from "typebox";
import { withHeadingAnchors } from "../src/content/document/anchor.js";
import { parseMarkdownPage } from "../src/content/markdown/index.js";
import { commitRevision } from "../src/content/revision/commit.js";
import type { PageNode } from "../src/content/revision/model.js";
import { saveDocument } from "../src/content/revision/storage.js";
import { actorOf } from "../src/http/authenticate.js";
import { RichDocument } from "../src/http/schemas.js";
import { Urls } from "../src/http/urls.js";
import { loadRevisionView, pageDocument, requirePage } from "../src/modules/content/content.loader.js";
import { presentPage } from "../src/modules/content/content.presenter.js";
import { PageSchema } from "../src/modules/content/content.schemas.js";
import { requireSpace } from "../src/modules/spaces/spaces.loader.js";
import { benchApp } from "./seed.js";

const REQUESTS = Number(process.argv[2] ?? 400);

function section(i: number, headings: boolean): string {
  return (
    `${headings ? `## Section ${i}` : `Section ${i}`}\n\nSome *emphasis*, **bold** and \`code\` with [a link](https://example.com/${i}).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two\n  * nested item\n\n` +
    `{% hint style="info" %}\nA hint ${i}\n{% endhint %}\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`
  );
}
function markdownOf(chars: number, headings: boolean): string {
  let text = headings ? "# A page\n\n" : "A page\n\n";
  for (let i = 0; text.length < chars; i++) text += section(i, headings);
  return text;
}

const bench = await benchApp({
  tmpPrefix: "quire-page-document-bench-",
  // The limiter runs (its cost is measured) but never refuses the benchmark's load.
  env: { QUIRE_RATE_LIMIT: "true", QUIRE_RATE_LIMIT_TOKEN: "1000000000", QUIRE_RATE_LIMIT_ADDRESS: "1000000000" },
});
const { app, db, organization, token, user } = bench;

// The reads as they were: the parsed document (object cache), anchored, through the serializer.
const params = Type.Object({ spaceId: Type.String(), revisionId: Type.String(), pageId: Type.String() });
const viewOf = async (request: FastifyRequest) => {
  const { spaceId, revisionId, pageId } = request.params as { spaceId: string; revisionId: string; pageId: string };
  const { space } = await requireSpace(db, actorOf(request), spaceId);
  const view = await loadRevisionView(db, space, revisionId);
  return { view, location: requirePage(view, pageId) };
};
app.get(
  "/v1/bench-parsed/:spaceId/:revisionId/:pageId/document",
  { schema: { params, response: { 200: RichDocument } } },
  async (request) => {
    const { location } = await viewOf(request);
    return withHeadingAnchors(await pageDocument(db, location)) as never;
  },
);
app.get("/v1/bench-parsed/:spaceId/:revisionId/:pageId", { schema: { params, response: { 200: PageSchema } } }, async (request) => {
  const { view, location } = await viewOf(request);
  const ctx = { urls: new Urls("http://localhost:8080"), secret: "", orgId: view.space.orgId, spaceId: view.space.id, metadata: true };
  return presentPage(location.page, location.path, ctx, { document: withHeadingAnchors(await pageDocument(db, location)) }) as never;
});

const auth = { authorization: `Bearer ${token}` };
const space = (
  await app.inject({ method: "POST", url: `/v1/orgs/${organization.id}/spaces`, headers: auth, payload: { title: "Bench" } })
).json() as { id: string; revision: string };

const sizes = [2_000, 32_000, 256_000];
const now = new Date().toISOString();
const pages: PageNode[] = [];
const rows: { name: string; id: string; jsonChars: number }[] = [];
for (const headings of [true, false]) {
  for (const chars of sizes) {
    const document = parseMarkdownPage(markdownOf(chars, headings)).document;
    const id = `p${chars}${headings ? "h" : "n"}`;
    pages.push({
      id,
      kind: "document",
      title: id,
      slug: id,
      documentHash: await saveDocument(db, document),
      createdAt: now,
      updatedAt: now,
      children: [],
    });
    rows.push({ name: `${headings ? "headings" : "no headings"}`, id, jsonChars: JSON.stringify(document).length });
  }
}
const revision = await db.transaction().execute((trx) =>
  commitRevision(trx, {
    spaceId: space.id,
    parents: [space.revision],
    type: "edits",
    content: { pages, files: [], reusableContents: [], variables: {} },
    createdBy: user.id,
    movePrimaryFrom: space.revision,
  }),
);

async function get(url: string): Promise<string> {
  const res = await app.inject({ method: "GET", url, headers: auth });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.body;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function perRequest(url: string, requests: number): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = cpuMs();
    for (let i = 0; i < requests; i++) await get(url);
    rounds.push((cpuMs() - started) / requests);
  }
  rounds.sort((a, b) => a - b);
  return rounds[2]!;
}

const base = `/v1/spaces/${space.id}/revisions/${revision.id}/page`;
const ms = (v: number) => `${v.toFixed(3)} ms`;
console.log(`CPU per request, median of 5 rounds of up to ${REQUESTS} requests (SQLite, app.inject)`);
console.log("document | JSON chars | GET page document: parsed | as stored | ratio | GET page: parsed | as stored | ratio");
for (const row of rows) {
  const requests = Math.max(20, Math.round((REQUESTS * 2_000) / Math.max(2_000, row.jsonChars)));
  const stored = `${base}/${row.id}/document`;
  const parsed = `/v1/bench-parsed/${space.id}/${revision.id}/${row.id}/document`;
  const storedPage = `${base}/${row.id}`;
  const parsedPage = `/v1/bench-parsed/${space.id}/${revision.id}/${row.id}`;
  // Same fields and values both ways (and warm: caches filled, code optimized).
  for (let i = 0; i < 20; i++) {
    for (const url of [stored, parsed, storedPage, parsedPage]) await get(url);
  }
  if (!isDeepStrictEqual(JSON.parse(await get(stored)), JSON.parse(await get(parsed)))) throw new Error(`${row.id}: bodies differ`);
  if (!isDeepStrictEqual(JSON.parse(await get(storedPage)), JSON.parse(await get(parsedPage)))) throw new Error(`${row.id}: pages differ`);
  const a = await perRequest(parsed, requests);
  const b = await perRequest(stored, requests);
  const c = await perRequest(parsedPage, requests);
  const d = await perRequest(storedPage, requests);
  console.log(
    [row.name, String(row.jsonChars), ms(a), ms(b), `${(a / b).toFixed(1)}x`, ms(c), ms(d), `${(c / d).toFixed(1)}x`].join(" | "),
  );
}
await bench.close();
