/**
 * Images at the widths pages show them: a stored PNG, JPEG, GIF or WebP made into WebP at a few
 * widths (an animated GIF into an animated WebP), so that a phone downloads a few tens of
 * kilobytes where the stored file weighs hundreds. Made with sharp (libvips), which works on its
 * own threads: the caller's event loop is not held while an image is decoded and encoded.
 *
 * What an upload may cost is bounded before any pixel is decoded: the stored bytes, the pixels of
 * every frame together (a decompression bomb declares huge dimensions in a few bytes), and the time
 * of each encoding.
 */
import sharp, { type Metadata, type OutputInfo } from "sharp";
import { variantWidths } from "./widths.js";

/** A source larger than this is served as stored. */
export const MAX_SOURCE_BYTES = 25 * 1024 * 1024;
/** Pixels of one frame, at most (a 4000 x 3000 photo is 12 million). */
export const MAX_FRAME_PIXELS = 50_000_000;
/** Pixels of every frame together, at most (a 233-frame 1080 x 1350 GIF is 340 million). */
export const MAX_SOURCE_PIXELS = 400_000_000;
/**
 * An animated image costs its frame count over again at each width: it is made at these widths
 * (narrower than it) and its own width up to ANIMATED_MAX_WIDTH; a wider request gets the widest made.
 */
const ANIMATED_WIDTHS: readonly number[] = [480, 800];
const ANIMATED_MAX_WIDTH = 1080;
/** Seconds one encoding may take before it is given up. */
const ENCODE_SECONDS = 30;
const WEBP_QUALITY = 78;

// One libvips thread per encoding, and no cache of decoded images between jobs: the server's other
// work keeps its cores, and memory goes back once an image is done.
sharp.concurrency(1);
sharp.cache(false);

export interface ImageVariant {
  width: number;
  height: number;
  contentType: string;
  /** The WebP bytes, or undefined when they would not be smaller than the source (the source is served instead). */
  data: Buffer | undefined;
}

/** Why a source cannot be made into variants: the bytes are served as stored. */
export class UnderivableImageError extends Error {
  readonly permanent = true;
  constructor(message: string) {
    super(message);
    this.name = "UnderivableImageError";
  }
}

/** The widths made for a source: every variant width of a still image, fewer of an animated one. */
export function widthsToMake(sourceWidth: number, frames: number): number[] {
  if (frames <= 1) return variantWidths(sourceWidth);
  const top = Math.min(Math.round(sourceWidth), ANIMATED_MAX_WIDTH);
  return [...ANIMATED_WIDTHS.filter((width) => width < top), top];
}

/**
 * The source at the widths made of it (`widthsToMake`), narrowest first. Throws
 * UnderivableImageError when the source is too large or unreadable, or when even its narrowest
 * width fails or takes too long (a wider one that does is left out: a request for it gets the
 * widest made). Widths in `skip` (made already) are left out of the answer.
 */
export async function deriveVariants(
  source: Buffer,
  skip: ReadonlySet<number> = new Set(),
  /** Runs each encoding (the caller's slot around it: encode-slots.ts); by default, as is. */
  around: <T>(encoding: () => Promise<T>) => Promise<T> = (encoding) => encoding(),
): Promise<ImageVariant[]> {
  const { width, pages } = await measure(source);
  const variants: ImageVariant[] = [];
  for (const target of widthsToMake(width, pages)) {
    // A width made already (by a reader's request, see deriveOneWidth) is not made again.
    if (skip.has(target)) continue;
    let variant: ImageVariant;
    try {
      variant = await around(() => encode(source, target, ENCODE_SECONDS));
    } catch (error) {
      if (variants.length > 0 || skip.size > 0) break;
      throw new UnderivableImageError(`The image cannot be converted: ${(error as Error).message}`);
    }
    variants.push(variant);
  }
  return variants;
}

const READ_OPTIONS = { animated: true, limitInputPixels: MAX_SOURCE_PIXELS, autoOrient: true, failOn: "error" } as const;

/** The source's width and frame count, after checking what decoding it would cost (UnderivableImageError beyond the bounds). */
async function measure(source: Buffer): Promise<{ width: number; frameHeight: number; pages: number }> {
  if (source.length > MAX_SOURCE_BYTES) throw new UnderivableImageError(`The image is larger than ${MAX_SOURCE_BYTES} bytes.`);
  let meta: Metadata;
  try {
    meta = await sharp(source, READ_OPTIONS).metadata();
  } catch (error) {
    throw new UnderivableImageError(`The image cannot be read: ${(error as Error).message}`);
  }
  const pages = Math.max(1, meta.pages ?? 1);
  // Frames are stacked: the height read is every frame's; a photo's EXIF orientation may swap its sides.
  const width = pages > 1 ? meta.width : (meta.autoOrient?.width ?? meta.width);
  const frameHeight = pages > 1 ? (meta.pageHeight ?? meta.height / pages) : (meta.autoOrient?.height ?? meta.height);
  if (!width || !frameHeight) throw new UnderivableImageError("The image has no size.");
  if (width * frameHeight > MAX_FRAME_PIXELS) throw new UnderivableImageError(`The image has more than ${MAX_FRAME_PIXELS} pixels.`);
  if (width * frameHeight * pages > MAX_SOURCE_PIXELS) {
    throw new UnderivableImageError(`The image has more than ${MAX_SOURCE_PIXELS} pixels in all its frames.`);
  }
  return { width, frameHeight, pages };
}

async function encode(source: Buffer, target: number, seconds: number): Promise<ImageVariant> {
  const output: { data: Buffer; info: OutputInfo } = await sharp(source, READ_OPTIONS)
    .resize({ width: target, withoutEnlargement: true })
    .webp({ quality: WEBP_QUALITY, effort: 4 })
    .timeout({ seconds })
    .toBuffer({ resolveWithObject: true });
  return {
    width: output.info.width,
    height: output.info.pageHeight ?? output.info.height,
    contentType: "image/webp",
    data: output.data.length < source.length ? output.data : undefined,
  };
}

/**
 * What a reader's request may have made at once (files.routes.ts): an image of at most this many
 * bytes and pixels (every frame's together for an animation: a 233-frame 320 x 400 GIF is 30
 * million, about a second); anything larger waits for the job.
 */
export const ON_REQUEST_MAX_PIXELS = 32_000_000;
export const ON_REQUEST_MAX_BYTES = 4 * 1024 * 1024;
const ON_REQUEST_ENCODE_SECONDS = 5;

/**
 * The one width a request for `requested` pixels is answered with (the narrowest made at least that
 * wide, else the widest), made now: undefined when the source is one the job should make instead
 * (large) or cannot be made at all (the job records why).
 */
export async function deriveOneWidth(source: Buffer, requested: number): Promise<ImageVariant | undefined> {
  if (source.length > ON_REQUEST_MAX_BYTES) return undefined;
  let measured: { width: number; frameHeight: number; pages: number };
  try {
    measured = await measure(source);
  } catch {
    return undefined;
  }
  if (measured.width * measured.frameHeight * measured.pages > ON_REQUEST_MAX_PIXELS) return undefined;
  const widths = widthsToMake(measured.width, measured.pages);
  const target = widths.find((w) => w >= requested) ?? widths.at(-1);
  if (target === undefined) return undefined;
  try {
    return await encode(source, target, ON_REQUEST_ENCODE_SECONDS);
  } catch {
    return undefined;
  }
}
