/**
 * A large PDF export does not hold the server: while a 160-page space with an image on every page
 * is rendered, /healthz keeps answering quickly and the thread that answers requests stays mostly
 * idle. The rendering (seconds of CPU) happens in a worker thread; the request thread only reads
 * the content and answers the renderer's requests for images. The same export rendered inline
 * (QUIRE_WORKER_THREADS=0) is measured too, so the test shows the difference it is about.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doc, image, makePng, typicalPage } from "../../../test/fixtures/pdf/documents.js";
import { readPdf } from "../../../test/fixtures/pdf/pdf-reader.js";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, testFile } from "../../../test/helpers/content.factories.js";
import { expectOffTheRequestThread, onTheRequestThread, whileProbing } from "../../../test/helpers/latency-probe.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { saveDocument } from "../../content/revision/storage.js";

const PAGES = 160;

let ctx: TestContext;
let endpoint: string;
beforeAll(async () => {
  ctx = await createTestContext();
  endpoint = await ctx.listen();
});
afterAll(() => ctx.close());

/** A space of typical pages, each showing an image of its own (stored files, read one at a time). */
async function largeSpace() {
  const { owner, space } = await createOrgWithSpace(ctx, { title: "Large handbook" });
  const files = [];
  const pages = [];
  for (let n = 0; n < PAGES; n++) {
    const file = await testFile(
      ctx,
      `figure-${n}.png`,
      makePng(48, 32, (x, y) => [(x * 5 + n) % 256, (y * 7) % 256, n % 256, 255]),
      "image/png",
    );
    files.push(file);
    const body = typicalPage(n);
    const withImage = doc(...body.nodes.slice(0, 3), image({ kind: "file", file: file.id }, `Figure ${n}`), ...body.nodes.slice(3));
    pages.push({ title: `Feature ${n}`, extra: { documentHash: await saveDocument(ctx.db, withImage) } });
  }
  await commitContent(ctx, space.id, { pages, files });
  const { url } = (await ctx.as(owner).get(`/v1/spaces/${space.id}/pdf`)).body as { url: string };
  const u = new URL(url);
  return `${endpoint}${u.pathname}${u.search}`;
}

/** Downloads the PDF while probing /healthz; the latencies and the request thread's event-loop utilization meanwhile. */
function exportWhileProbing(url: string) {
  return whileProbing(`${endpoint}/healthz`, async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  });
}

describe("a large PDF export and /healthz", () => {
  it("keeps /healthz under 200 ms and the request thread mostly idle while 160 pages are rendered", async () => {
    const url = await largeSpace();

    const worker = await exportWhileProbing(url);
    const pdf = await readPdf(worker.result);
    expect(pdf.pages.length).toBeGreaterThan(PAGES);
    expect(pdf.text).toContain(`Feature ${PAGES - 1}`);
    // Every page's image came over the port and was embedded (each a distinct file, written as two
    // image objects: an RGBA PNG's colours and its alpha mask).
    expect(worker.result.toString("latin1").match(/\/Subtype \/Image/g)?.length).toBe(2 * PAGES);

    // For comparison, the same export rendered on the request thread (the cached file put aside).
    await ctx.db.deleteFrom("pdfExports").execute();
    const inline = await onTheRequestThread(() => exportWhileProbing(url));
    expect((await readPdf(inline.result)).pages.length).toBe(pdf.pages.length);

    expectOffTheRequestThread(worker, inline);
  }, 180_000);
});
