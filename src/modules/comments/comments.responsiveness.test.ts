/**
 * A long comment does not hold the server: comment bodies may be up to 100,000 characters of
 * Markdown, ~0.5 s or more of conversion, which runs in a worker thread (over 2 KB, as page Markdown
 * given to the API does) while /healthz keeps answering and the request thread stays mostly idle.
 * The same comment posted with the conversion inline (QUIRE_WORKER_THREADS=0) is measured too, and
 * must store the same body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { expectOffTheRequestThread, onTheRequestThread, whileProbing } from "../../../test/helpers/latency-probe.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
let endpoint: string;
beforeAll(async () => {
  ctx = await createTestContext();
  endpoint = await ctx.listen();
});
afterAll(() => ctx.close());

/** Just under `chars` of ordinary Markdown. */
function longComment(chars: number): string {
  const section = (i: number) =>
    `## Point ${i}\n\nSome *emphasis*, **bold** and \`code\` with [a link](https://example.com/${i}).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two\n  * nested item\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`;
  let text = "";
  for (let i = 0; ; i++) {
    const next = section(i);
    if (text.length + next.length > chars) return text;
    text += next;
  }
}

/** The document without its block keys (new blocks take fresh random keys on each run). */
function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k === "key" ? [] : [[k, withoutKeys(v)]])));
  return value;
}

describe("a comment of the longest Markdown allowed and /healthz", () => {
  it("converts a 100,000-character comment body off the request thread", async () => {
    const { owner, space } = await createOrgWithSpace(ctx, { title: "Comments" });
    await commitContent(ctx, space.id, { pages: [{ title: "Home", paragraphs: ["One"] }] });
    const markdown = longComment(100_000);

    const postWhileProbing = async () => {
      const run = await whileProbing(`${endpoint}/healthz`, async () => {
        const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/comments`, { body: { markdown } });
        expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
        return res.body;
      });
      const stored = await ctx.as(owner).get(`/v1/spaces/${space.id}/comments/${run.result.id}`);
      expect(stored.status).toBe(200);
      return { ...run, body: stored.body.body };
    };

    const worker = await postWhileProbing();
    expect(worker.body.document.nodes.length).toBeGreaterThan(1000);
    const inline = await onTheRequestThread(() => postWhileProbing());
    expect(withoutKeys(worker.body)).toEqual(withoutKeys(inline.body));
    expectOffTheRequestThread(worker, inline);
  }, 180_000);
});
