import { inflateSync } from "node:zlib";

/**
 * Images of the PDF export: loading through the caller's `loadImage`, checking the bytes, and
 * opening them with pdfkit once per render (an image used on many pages is embedded once).
 *
 * pdfkit embeds PNG and JPEG. Some PNGs (alpha channel, palette transparency, interlacing) are
 * decoded by pdfkit in an asynchronous zlib callback that *throws* on corrupt data, which would
 * crash the process rather than fail the render; those PNGs are therefore fully checked here
 * first, and anything we cannot vouch for becomes a placeholder line instead.
 */

export type ImageRef = { kind: "file"; file: string } | { kind: "url"; url: string };

export type LoadImage = (ref: ImageRef) => Promise<{ bytes: Buffer; contentType: string } | undefined>;

/** An image opened by pdfkit (`doc.openImage`); `width`/`height` are in pixels. */
export interface OpenedImage {
  readonly width: number;
  readonly height: number;
  readonly orientation?: number;
  /** Set once the image has been written to the PDF. */
  readonly obj?: unknown;
}

declare global {
  // pdfkit documents `openImage` and accepts its result in `image()`; @types/pdfkit omits both.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace PDFKit.Mixins {
    interface PDFImage {
      openImage(src: Buffer | Uint8Array): OpenedImage;
      image(src: OpenedImage, x?: number, y?: number, options?: ImageOption): this;
    }
  }
}

export type ImageResult = { ok: true; image: OpenedImage; width: number; height: number } | { ok: false; reason: string };

/** Larger images are refused: decoding one would need gigabytes. */
const MAX_PIXELS = 30_000_000;
const CONCURRENCY = 4;

export function imageKey(ref: ImageRef): string {
  return ref.kind === "file" ? `file:${ref.file}` : `url:${ref.url}`;
}

export class ImageStore {
  private readonly results = new Map<string, ImageResult>();

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly load: LoadImage,
    private readonly signal?: AbortSignal,
  ) {}

  /** Loads the images one page needs (a few at a time), skipping those already opened. */
  async prefetch(refs: readonly ImageRef[]): Promise<void> {
    const pending = new Map<string, ImageRef>();
    for (const ref of refs) {
      const key = imageKey(ref);
      if (!this.results.has(key)) pending.set(key, ref);
    }
    const queue = [...pending];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        this.signal?.throwIfAborted();
        const [key, ref] = next;
        this.results.set(key, await this.fetch(ref));
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
    this.signal?.throwIfAborted();
  }

  get(ref: ImageRef): ImageResult {
    return this.results.get(imageKey(ref)) ?? { ok: false, reason: "not loaded" };
  }

  /**
   * Forgets images that were opened but never drawn (their bytes are still held); drawn ones stay
   * cached, since pdfkit has already written them and only keeps a reference.
   */
  releaseUnused(): void {
    for (const [key, result] of this.results) {
      if (result.ok && !result.image.obj) this.results.delete(key);
    }
  }

  private async fetch(ref: ImageRef): Promise<ImageResult> {
    let loaded: { bytes: Buffer; contentType: string } | undefined;
    try {
      loaded = await abortable(this.load(ref), this.signal);
    } catch (error) {
      this.signal?.throwIfAborted();
      return { ok: false, reason: `could not be loaded: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (!loaded?.bytes || loaded.bytes.length === 0) return { ok: false, reason: "not found" };
    return this.open(Buffer.isBuffer(loaded.bytes) ? loaded.bytes : Buffer.from(loaded.bytes), loaded.contentType);
  }

  private open(bytes: Buffer, contentType: string): ImageResult {
    const format = sniff(bytes);
    if (format !== "png" && format !== "jpeg") {
      const name = format === "unknown" ? contentType || "unknown format" : format.toUpperCase();
      return { ok: false, reason: `${name} images cannot be embedded in PDF` };
    }
    const problem = format === "png" ? checkPng(bytes) : checkJpeg(bytes);
    if (problem) return { ok: false, reason: problem };
    try {
      const image = this.doc.openImage(bytes);
      if (!(image.width > 0 && image.height > 0)) return { ok: false, reason: "empty image" };
      // EXIF orientations 5-8 are rotated by a quarter turn: pdfkit swaps the sides when drawing.
      const turned = (image.orientation ?? 1) > 4;
      return { ok: true, image, width: turned ? image.height : image.width, height: turned ? image.width : image.height };
    } catch (error) {
      return { ok: false, reason: `damaged file: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (a loader that hangs must not hold the render). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

type Format = "png" | "jpeg" | "gif" | "webp" | "svg" | "bmp" | "unknown";

export function sniff(bytes: Buffer): Format {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  const head = bytes.subarray(0, 256).toString("latin1");
  if (head.startsWith("GIF8")) return "gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "webp";
  if (head.startsWith("BM")) return "bmp";
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(svg|!DOCTYPE svg)/i.test(head)) return "svg";
  return "unknown";
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const BIT_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/** Why pdfkit could not safely embed this PNG, or undefined when it can. */
export function checkPng(bytes: Buffer): string | undefined {
  let pos = 8;
  let header: { width: number; height: number; bits: number; colorType: number; interlace: number } | undefined;
  let transparency = false;
  const data: Buffer[] = [];
  while (pos + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(pos);
    const type = bytes.toString("latin1", pos + 4, pos + 8);
    const body = bytes.subarray(pos + 8, pos + 8 + length);
    if (body.length < length) return "truncated file";
    if (type === "IHDR") {
      if (length < 13) return "damaged file (bad header)";
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        bits: body[8] as number,
        colorType: body[9] as number,
        interlace: body[12] as number,
      };
    } else if (type === "tRNS") {
      transparency = true;
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      break;
    }
    pos += 12 + length;
  }
  if (!header) return "damaged file (no header)";
  const { width, height, bits, colorType, interlace } = header;
  const channels = CHANNELS[colorType];
  if (channels === undefined || !BIT_DEPTHS[colorType]?.includes(bits)) return "unknown PNG colour format";
  if (width === 0 || height === 0) return "empty image";
  if (width * height > MAX_PIXELS) return `too large (${width}×${height} pixels)`;
  if (data.length === 0) return "no image data";
  if (interlace > 1) return "unknown PNG interlace method";

  // pdfkit decodes pixels itself only for these; other PNGs are copied into the PDF as they are.
  const decoded = colorType === 4 || colorType === 6 || (colorType === 3 && transparency) || interlace === 1;
  if (!decoded) return undefined;
  // pdfkit's decoder sizes its buffers in whole bytes per pixel.
  if (bits < 8) return "PNG variant not supported (low bit depth with transparency or interlacing)";

  const pixelBytes = (bits * channels) / 8;
  let expected = 0;
  const passes = interlace === 1 ? ADAM7 : [[0, 0, 1, 1]];
  for (const [x0, y0, dx, dy] of passes as [number, number, number, number][]) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    expected += h * (1 + Math.max(0, w) * pixelBytes);
  }
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(data), { maxOutputLength: expected + 65_536 });
  } catch {
    return "damaged file (bad compressed data)";
  }
  // Walk the scanlines exactly as pdfkit's decoder (png-js) does and check every filter byte.
  let at = 0;
  for (const [x0, y0, dx, dy] of passes as [number, number, number, number][]) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    const scanline = Math.max(0, w) * pixelBytes;
    for (let row = 0; row < h && at < raw.length; row++) {
      const filter = raw[at] as number;
      if (filter > 4) return "damaged file (bad scanline filter)";
      at += 1 + scanline;
    }
  }
  return undefined;
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

// The markers pdfkit takes for a frame header (its list, so both stop at the same place).
const JPEG_FRAMES = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf]);

/** Finds the JPEG frame header the way pdfkit does and checks what it will put in the PDF. */
export function checkJpeg(bytes: Buffer): string | undefined {
  let pos = 2;
  while (pos + 4 <= bytes.length) {
    while (pos < bytes.length && bytes[pos] !== 0xff) pos++;
    if (pos + 4 > bytes.length) break;
    const marker = bytes[pos + 1] as number;
    if (JPEG_FRAMES.has(marker)) {
      if (pos + 10 > bytes.length) return "truncated file";
      const height = bytes.readUInt16BE(pos + 5);
      const width = bytes.readUInt16BE(pos + 7);
      const components = bytes[pos + 9] as number;
      if (width === 0 || height === 0) return "empty image";
      if (![1, 3, 4].includes(components)) return "unknown JPEG colour format";
      if (width * height > MAX_PIXELS) return `too large (${width}×${height} pixels)`;
      return undefined;
    }
    pos += 2 + bytes.readUInt16BE(pos + 2);
  }
  return "damaged file (no JPEG frame header)";
}
