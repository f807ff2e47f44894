/**
 * A large page in the member web app does not hold the server: its document (~4 MB of JSON) is
 * rendered to HTML in a worker thread when the page is opened, and ~400 KB of Markdown in the
 * editor's preview is read and rendered in worker threads, while /healthz keeps answering and the
 * request thread stays mostly idle. The same requests with the work inline (QUIRE_WORKER_THREADS=0)
 * are measured too, and must give the same HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { createChangeRequest } from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { bothWays, expectOffTheRequestThread, whileProbing } from "../../../test/helpers/latency-probe.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { parseMarkdownPage } from "../../content/markdown/index.js";
import { saveDocument } from "../../content/revision/storage.js";

let ctx: TestContext;
let endpoint: string;
beforeAll(async () => {
  ctx = await createTestContext();
  endpoint = await ctx.listen();
});
afterAll(() => ctx.close());

const signedIn = (user: { id: string }) => WebClient.signedIn(ctx, user);

/** About `chars` of ordinary Markdown, with links to `pageId` and to the file `fileId`. */
function largeMarkdown(chars: number, ids: { pageId: string; fileId: string }): string {
  const section = (i: number) =>
    `## Section ${i}\n\nSome *emphasis*, **bold** and \`code\` with [a page](/pages/${ids.pageId}) and [a link](https://example.com/${i}).\n` +
    "A second line of the paragraph, with more words to fill the line up to a usual length.\n\n" +
    `* item one ${i}\n* item two\n  * nested item\n\n{% hint style="info" %}\nA hint ${i}\n{% endhint %}\n\n` +
    `\`\`\`js\nconst x = ${i};\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | two |\n\n`;
  let text = "# A very large page\n\n";
  for (let i = 0; text.length < chars; i++) text += section(i);
  return text;
}

/** The rendered document of an app page, without the parts that differ per request (CSRF tokens). */
function contentOf(text: string): string {
  const start = text.indexOf('<div class="q-content">');
  expect(start).toBeGreaterThan(-1);
  return text.slice(
    start,
    text.indexOf('<section id="history">', start) === -1 ? undefined : text.indexOf('<section id="history">', start),
  );
}

describe("a large page in the web app and /healthz", () => {
  it("renders a page whose document is ~4 MB of JSON off the request thread", async () => {
    const { owner, org, space } = await createOrgWithSpace(ctx, { title: "Large" });
    const document = parseMarkdownPage(largeMarkdown(400_000, { pageId: "other", fileId: "none" })).document;
    const documentHash = await saveDocument(ctx.db, document);
    const { content } = await commitContent(ctx, space.id, {
      pages: [
        { title: "Large", slug: "large", extra: { documentHash } },
        { title: "Other", slug: "other", paragraphs: ["Other"] },
      ],
    });
    const browser = await signedIn(owner);
    const url = `/app/o/${org.id}/s/${space.id}/p/${content.pages[0]!.id}`;
    const open = () =>
      whileProbing(`${endpoint}/healthz`, async () => {
        const res = await browser.get(url);
        expect(res.status, res.text.slice(0, 500)).toBe(200);
        return contentOf(res.text);
      });
    const { worker, inline } = await bothWays(open);
    expect(worker.result).toContain("Section 1000");
    expect(worker.result).toBe(inline.result);
    expectOffTheRequestThread(worker, inline);
  }, 180_000);

  it("reads and renders ~400 KB of Markdown in the editor's preview off the request thread", async () => {
    const { owner, org, space } = await createOrgWithSpace(ctx, { title: "Preview" });
    const { content } = await commitContent(ctx, space.id, {
      pages: [
        { title: "Home", slug: "home", paragraphs: ["Home"] },
        { title: "Other", slug: "other", paragraphs: ["Other"] },
      ],
    });
    const [home, other] = content.pages;
    const cr = await createChangeRequest(ctx, owner, space.id, { subject: "Preview" });
    const browser = await signedIn(owner);
    const edit = `/app/o/${org.id}/s/${space.id}/~/changes/${cr.number}/p/${home!.id}`;
    const form = await browser.get(`${edit}/markdown`);
    expect(form.status, form.text.slice(0, 500)).toBe(200);
    const csrf = WebClient.csrfOf(form.text);
    const markdown = largeMarkdown(400_000, { pageId: other!.id, fileId: "none" });
    const preview = () =>
      whileProbing(`${endpoint}/healthz`, async () => {
        const res = await browser.post(`${edit}/preview`, { _csrf: csrf, markdown });
        expect(res.status, res.text.slice(0, 500)).toBe(200);
        return res.text;
      });
    const { worker, inline } = await bothWays(preview);
    // The preview reads links as written (the content operation resolves them when saving).
    expect(worker.result).toContain(`/pages/${other!.id}`);
    expect(worker.result).toContain("Section 1000");
    expect(worker.result).toBe(inline.result);
    expectOffTheRequestThread(worker, inline);
  }, 180_000);
});
