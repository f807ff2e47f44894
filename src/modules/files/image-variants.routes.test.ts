import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { encodePng } from "../../../test/helpers/png.js";
import { imageDimensions } from "../../content/gitbook-repo/media.js";
import { ENCODE_SLOTS, encodeSlots } from "../../content/images/encode-slots.js";
import { putBlob } from "../../content/store/blobs.queries.js";
import { downloadUrl, widthsSrcset } from "./files-urls.model.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** A noisy picture (so that its PNG is large and its WebP much smaller), `width` x `height`. */
function photo(width: number, height: number, seed = 1): Buffer {
  return encodePng(width, height, (x, y) => [(x * 7 + seed) % 256, (y * 13 + x * seed) % 256, ((x ^ y) * 3) % 256, 255], false);
}

async function stored(bytes: Buffer, name: string, contentType: string) {
  const { hash } = await putBlob(ctx.db, bytes);
  const url = downloadUrl(ctx.urls.base, ctx.deps.secret, { blobHash: hash, name, contentType });
  return { hash, url, at: (w: number | string) => pathOf(`${url}&w=${w}`) };
}

const jobsOf = (hash: string) =>
  ctx.db
    .selectFrom("jobs")
    .select(["state"])
    .where("kind", "=", "image-variants")
    .where("dedupeKey", "=", `image-variants:${hash}`)
    .execute();

/** Takes every encode slot of the process (as encodings under way would), so that a request finds none free. */
async function takeEverySlot(): Promise<() => void> {
  const releases: (() => void)[] = [];
  for (let i = 0; i < ENCODE_SLOTS; i++) {
    const release = await encodeSlots.forRequest(0);
    if (!release) throw new Error("an encode slot is still taken");
    releases.push(release);
  }
  return () => {
    for (const release of releases) release();
  };
}

describe("GET /files/{hash}/{name}?w= (images at other widths)", () => {
  it("serves the source uncached while no encode slot frees up, until the job made the widths, then the narrowest WebP at least as wide, cached as the file", async () => {
    const source = photo(1000, 500);
    const image = await stored(source, "chart.png", "image/png");

    const release = await takeEverySlot();
    try {
      // The request waits a bounded time for a slot, then gets the source.
      const first = await ctx.anonymous.get(image.at(640));
      expect(first.status).toBe(200);
      expect(first.headers["content-type"]).toBe("image/png");
      expect(first.headers["cache-control"]).toBe("no-cache");
      expect(first.raw.equals(source)).toBe(true);
      // Asked once however often the width is asked before the job runs.
      await ctx.anonymous.get(image.at(320));
      expect(await jobsOf(image.hash)).toEqual([{ state: "queued" }]);
      expect(await ctx.db.selectFrom("imageVariants").select("width").where("sourceHash", "=", image.hash).execute()).toEqual([]);
    } finally {
      release();
    }

    await ctx.worker.drain();
    for (const [asked, served] of [
      [640, 640],
      [500, 640],
      [1, 320],
      [1000, 1000],
      [1600, 1000],
    ] as const) {
      const res = await ctx.anonymous.get(image.at(asked));
      expect(res.status, `w=${asked}`).toBe(200);
      expect(res.headers["content-type"]).toBe("image/webp");
      expect(res.headers["cache-control"]).toMatch(/^private, max-age=\d+, immutable$/);
      expect(res.headers["content-disposition"]).toBe("inline; filename*=UTF-8''chart.webp");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(imageDimensions(res.raw), `w=${asked}`).toEqual({ width: served, height: served / 2 });
      expect(res.raw.length).toBeLessThan(source.length);
    }
    // The source itself is untouched.
    const plain = await ctx.anonymous.get(pathOf(image.url));
    expect(plain.headers["content-type"]).toBe("image/png");
    expect(plain.raw.equals(source)).toBe(true);
  });

  it("makes the width asked for while the reader waits when a slot is free, and leaves the other widths to the job", async () => {
    const source = photo(900, 300, 4);
    const image = await stored(source, "wide.png", "image/png");
    const first = await ctx.anonymous.get(image.at(500));
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toBe("image/webp");
    expect(first.headers["cache-control"]).toMatch(/^private, max-age=\d+, immutable$/);
    expect(first.headers["content-disposition"]).toBe("inline; filename*=UTF-8''wide.webp");
    // The narrowest width offered at least as wide as asked.
    expect(imageDimensions(first.raw)).toEqual({ width: 640, height: 213 });
    const rows = () => ctx.db.selectFrom("imageVariants").select("width").where("sourceHash", "=", image.hash).orderBy("width").execute();
    expect(await rows()).toEqual([{ width: 640 }]);
    expect(await jobsOf(image.hash)).toEqual([{ state: "queued" }]);
    // A wider width is not answered with the narrower one made: it is made too.
    const wider = await ctx.anonymous.get(image.at(900));
    expect(imageDimensions(wider.raw)).toEqual({ width: 900, height: 300 });

    await ctx.worker.drain();
    expect((await rows()).map((r) => r.width)).toEqual([0, 320, 480, 640, 800, 900]);
    const again = await ctx.anonymous.get(image.at(500));
    expect(again.raw.equals(first.raw)).toBe(true);
  });

  it("makes an animated GIF an animated WebP", async () => {
    const frames = [0, 1, 2].map((seed) => photo(500, 200, seed + 2));
    const gif = await sharp(frames, { join: { animated: true } })
      .gif()
      .toBuffer();
    const image = await stored(gif, "demo.gif", "image/gif");
    await ctx.anonymous.get(image.at(480));
    await ctx.worker.drain();
    const res = await ctx.anonymous.get(image.at(480));
    expect(res.headers["content-type"]).toBe("image/webp");
    const meta = await sharp(res.raw, { animated: true }).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.pages).toBe(3);
    expect(meta.width).toBe(480);
  });

  it("serves a source it cannot or need not convert as stored, and does not try it again", async () => {
    // A decompression bomb: a PNG that declares 60000 x 60000 pixels in a few bytes.
    const header = encodePng(1, 1, () => [0, 0, 0, 255]);
    const bomb = Buffer.from(header);
    bomb.writeUInt32BE(60_000, 16);
    bomb.writeUInt32BE(60_000, 20);
    const image = await stored(bomb, "bomb.png", "image/png");
    await ctx.anonymous.get(image.at(640));
    await ctx.worker.drain();
    const res = await ctx.anonymous.get(image.at(640));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(res.headers["cache-control"]).toMatch(/^private, max-age=\d+, immutable$/);
    expect(res.raw.equals(bomb)).toBe(true);
    const marker = await ctx.db.selectFrom("imageVariants").select(["width", "error"]).where("sourceHash", "=", image.hash).execute();
    expect(marker).toHaveLength(1);
    expect(marker[0]?.error).toMatch(/pixels|cannot be read/);
    await ctx.anonymous.get(image.at(320));
    expect(await jobsOf(image.hash)).toHaveLength(1);

    // A one-pixel GIF, which no WebP is smaller than: the source at every width.
    const tiny = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
    const small = await stored(tiny, "dot.gif", "image/gif");
    await ctx.anonymous.get(small.at(2));
    await ctx.worker.drain();
    const dot = await ctx.anonymous.get(small.at(2));
    expect(dot.headers["content-type"]).toBe("image/gif");
    expect(dot.headers["cache-control"]).toMatch(/^private, max-age=\d+, immutable$/);
    expect(dot.raw.equals(tiny)).toBe(true);
  });

  it("answers only under the file's own signature, and 400 for a width or type it does not offer", async () => {
    const image = await stored(photo(400, 200, 9), "a.png", "image/png");
    const other = await stored(photo(400, 200, 10), "b.png", "image/png");
    // The other file's signature does not open this one, at any width.
    const forged = new URL(image.url);
    forged.searchParams.set("sig", new URL(other.url).searchParams.get("sig") as string);
    forged.searchParams.set("w", "320");
    expect((await ctx.anonymous.get(pathOf(forged.toString()))).status).toBe(403);
    const retyped = new URL(`${image.url}&w=320`);
    retyped.searchParams.set("type", "image/gif");
    expect((await ctx.anonymous.get(pathOf(retyped.toString()))).status).toBe(403);

    for (const w of ["0", "-5", "1601", "abc", "3.5"]) {
      const res = await ctx.anonymous.get(image.at(w));
      expect(res.status, `w=${w}`).toBe(400);
      expect(res.body.error.code).toBeTruthy();
    }
    const svg = await stored(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), "x.svg", "image/svg+xml");
    const refused = await ctx.anonymous.get(svg.at(320));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/PNG, JPEG, GIF and WebP/);
    expect(await jobsOf(svg.hash)).toHaveLength(0);
  });
});

describe("widthsSrcset", () => {
  it("lists the widths narrower than the image, then its own, capped, for the types that have them", () => {
    expect(widthsSrcset("/files/h/a.png?sig=x", "image/png", 700)).toBe(
      "/files/h/a.png?sig=x&w=320 320w, /files/h/a.png?sig=x&w=480 480w, /files/h/a.png?sig=x&w=640 640w, /files/h/a.png?sig=x&w=700 700w",
    );
    expect(widthsSrcset("/a.jpg", "image/jpeg", 5000)?.split(", ").at(-1)).toBe("/a.jpg?w=1600 1600w");
    expect(widthsSrcset("/a.svg", "image/svg+xml", 700)).toBeUndefined();
    expect(widthsSrcset("/a.png", "image/png", undefined)).toBeUndefined();
  });
});
