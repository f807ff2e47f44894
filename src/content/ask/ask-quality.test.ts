/**
 * Ask's quality on a real space: the sample Quire publishes on its first start, and the question
 * set of bench/ask/questions.json (each answerable question with the page that answers it, and
 * questions the sample does not answer). Reports the share of questions whose answering page is
 * among the citations, and of unanswerable ones left without a citation (docs/ask.md), and fails
 * below the floors the figures were measured at.
 *
 * `npx vitest run --project sqlite src/content/ask/ask-quality.test.ts` (or --project postgres).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { createSampleSite } from "../../sample.js";
import { fullTextIndex } from "../search/engine.js";
import { retrieve } from "./retrieve.js";

const set = JSON.parse(readFileSync(new URL("../../../bench/ask/questions.json", import.meta.url), "utf8")) as {
  answerable: { question: string; page: string }[];
  unanswerable: string[];
};

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
}, 120_000);
afterAll(() => ctx.close());

it("cites the answering page for most questions of the set, and nothing for questions the docs do not answer", async () => {
  const { owner, org } = await createOrgWithSpace(ctx, { title: "Unused" });
  const { spaceId } = await createSampleSite(ctx.app, { token: owner.token, orgId: org.id });
  await ctx.worker.drain();
  const index = fullTextIndex(ctx.dialect);
  let found = 0;
  let first = 0;
  const missed: string[] = [];
  for (const { question, page } of set.answerable) {
    const { sources } = await retrieve(index, ctx.db, [spaceId], question, "readers");
    const titles = sources.map((s) => s.pageTitle);
    if (titles.includes(page)) found++;
    else missed.push(`${question} -> ${titles.join(", ") || "(none)"} (wanted ${page})`);
    if (titles[0] === page) first++;
  }
  let silent = 0;
  const wrong: string[] = [];
  for (const question of set.unanswerable) {
    const { sources } = await retrieve(index, ctx.db, [spaceId], question, "readers");
    if (sources.length === 0) silent++;
    else wrong.push(`${question} -> ${sources.map((s) => s.pageTitle).join(", ")}`);
  }
  const share = (n: number, of: number) => `${n}/${of} (${Math.round((100 * n) / of)}%)`;
  console.log(
    [
      `ask quality (${ctx.dialect}): answering page among the citations ${share(found, set.answerable.length)}, cited first ${share(first, set.answerable.length)}`,
      `unanswerable questions without a citation ${share(silent, set.unanswerable.length)}`,
      ...missed.map((m) => `  missed: ${m}`),
      ...wrong.map((m) => `  cited: ${m}`),
    ].join("\n"),
  );
  expect(set.answerable.length).toBeGreaterThanOrEqual(30);
  expect(found / set.answerable.length).toBeGreaterThanOrEqual(0.8);
  expect(silent / set.unanswerable.length).toBeGreaterThanOrEqual(0.8);
}, 120_000);
