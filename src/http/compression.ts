/**
 * Compressed answers for the applications people read in a browser (the published sites and the
 * member app): brotli or gzip as the request's Accept-Encoding asks, never under 1 KB, never for
 * types that are compressed already (images, PDFs, fonts: mime-db says which), and
 * `Vary: accept-encoding` on every answer so that a cache between keeps the two forms apart.
 *
 * @fastify/compress compresses what a handler sends, on every request. An answer a site keeps in
 * memory (a page, llms-full.txt, the mermaid bundle) would be compressed again on each request,
 * which costs more CPU than the lookup that found it: `KeptEncodings` keeps the compressed
 * bodies next to it, by the answer's content hash, and the plugin leaves an answer that already
 * has a Content-Encoding alone.
 */
import { promisify } from "node:util";
import { brotliCompress, constants, gzip as gzipCompress } from "node:zlib";
import fastifyCompress from "@fastify/compress";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";

export type Encoding = "br" | "gzip";

/** Bodies under this many bytes are sent as they are: compression gains little and costs a round of CPU. */
export const COMPRESSION_THRESHOLD = 1024;

/** brotli's quality for answers compressed per request (the plugin's default: 11 costs ~10x more for ~5% less). */
const BROTLI_QUALITY = 4;

/**
 * Brotli for answers kept and compressed once, off the event loop (zlib's thread pool): quality 6
 * makes a large body ~10% smaller than 4; 9 and 11 gain little more for 3 to 100 times the time
 * (the 3.5 MB mermaid bundle: q4 0.09 s, q6 0.5 s, q9 1.3 s, q11 12 s).
 */
const KEPT_BROTLI_QUALITY = 6;

/**
 * A kept body's brotli form is made again at quality 11 after the first request, in the background,
 * one at a time, and replaces the first: every later reader gets it ~10% smaller (a 60 KB page:
 * 13.2 KB at 6, 11.9 KB at 11, for ~40 ms of one core once). Not past this size (the mermaid
 * bundle would take 12 s), and no more than REFINE_QUEUE waiting (each holds its body).
 */
const REFINED_BROTLI_QUALITY = 11;
const REFINE_MAX_BYTES = 256 * 1024;
const REFINE_QUEUE = 64;

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCompress);

/**
 * The encoding to answer with for this Accept-Encoding: brotli if the client takes it, else gzip
 * (`x-gzip` and `*` count), else none. A coding with `q=0` is refused.
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding | undefined {
  if (!header) return undefined;
  const accepted = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(",") : header).toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name === "x-gzip" ? "gzip" : name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (name: Encoding) => accepted.get(name) ?? accepted.get("*") ?? 0;
  const br = weight("br");
  const gzip = weight("gzip");
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return undefined;
}

/** Adds `accept-encoding` to the answer's Vary (lower case, as @fastify/compress looks for it). */
export function varyOnEncoding(reply: FastifyReply): void {
  const current = reply.getHeader("vary");
  const values = current === undefined ? [] : (Array.isArray(current) ? current : [String(current)]).flatMap((v) => v.split(","));
  const names = values.map((v) => v.trim()).filter(Boolean);
  if (names.some((v) => v.toLowerCase() === "accept-encoding" || v === "*")) return;
  reply.header("vary", [...names, "accept-encoding"].join(", "));
}

/**
 * Registers compression for the routes of `app` (an application's plugin; the routes added after
 * this call): the plugin for whatever handlers send, and Vary on every answer.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    encodings: ["br", "gzip"],
    threshold: COMPRESSION_THRESHOLD,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  });
  app.addHook("onSend", (_request, reply, _payload, done) => {
    varyOnEncoding(reply);
    done();
  });
}

/** Whether an answer of this type and size is worth compressing (text of 1 KB or more). */
export function compressible(type: string, size: number): boolean {
  if (size < COMPRESSION_THRESHOLD) return false;
  const mime = type.split(";", 1)[0]!.trim().toLowerCase();
  return mime.startsWith("text/") || /[/+](json|xml)$/.test(mime) || mime === "application/javascript" || mime === "image/svg+xml";
}

/**
 * Compressed bodies of answers kept in memory, by the answer's content hash (its ETag) and the
 * encoding: compressed once, on the first request that asks for that encoding, and dropped with
 * the least recently used when past `maxBytes`.
 */
export class KeptEncodings {
  private readonly bodies: LRUCache<string, Buffer>;
  /** Compressions under way: the requests that ask meanwhile wait for the same one. */
  private readonly pending = new Map<string, Promise<Buffer>>();
  /** The background recompressions at REFINED_BROTLI_QUALITY, run one after the other. */
  private refining: Promise<void> = Promise.resolve();
  /** The kept ids waiting for their turn. */
  private readonly queued = new Set<string>();
  /** Brotli bodies that will not be made again: made at the best quality, or found no larger than it. */
  private readonly settled = new WeakSet<Buffer>();

  constructor(maxBytes: number) {
    this.bodies = new LRUCache<string, Buffer>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (b) => b.length + 100 });
  }

  /**
   * The body to send for this request: compressed (with its encoding) when the client asks for an
   * encoding and the type and size are worth it, else undefined (send the body as it is).
   */
  async encodedFor(
    request: FastifyRequest,
    key: string,
    type: string,
    body: Buffer,
  ): Promise<{ encoding: Encoding; body: Buffer } | undefined> {
    if (!compressible(type, body.length)) return undefined;
    const encoding = negotiateEncoding(request.headers["accept-encoding"]);
    if (!encoding) return undefined;
    const id = `${encoding}|${key}`;
    const kept = this.bodies.get(id);
    if (kept) {
      // One the queue was too full to take when it was made is queued now that it is asked again.
      if (encoding === "br" && !this.settled.has(kept)) this.refine(id, body);
      return { encoding, body: kept };
    }
    let running = this.pending.get(id);
    if (!running) {
      running = (
        encoding === "br"
          ? brotli(body, {
              params: { [constants.BROTLI_PARAM_QUALITY]: KEPT_BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
            })
          : gzip(body, { level: 6 })
      )
        .then((encoded) => {
          this.bodies.set(id, encoded);
          if (encoding === "br") this.refine(id, body);
          return encoded;
        })
        .finally(() => this.pending.delete(id));
      this.pending.set(id, running);
    }
    return { encoding, body: await running };
  }

  /** Queues the brotli body kept under `id` to be made again at the best quality (see REFINED_BROTLI_QUALITY). */
  private refine(id: string, body: Buffer): void {
    if (body.length > REFINE_MAX_BYTES || this.queued.size >= REFINE_QUEUE || this.queued.has(id)) return;
    this.queued.add(id);
    this.refining = this.refining.then(async () => {
      try {
        // Dropped from the cache meanwhile: nobody asked again, nothing to improve.
        const first = this.bodies.peek(id);
        if (!first || this.settled.has(first)) return;
        const better = await brotli(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: REFINED_BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        });
        const current = this.bodies.peek(id);
        if (!current) return;
        if (better.length < current.length) {
          this.settled.add(better);
          this.bodies.set(id, better);
        } else this.settled.add(current);
      } catch {
        // The first compression stays: it is correct, only larger.
      } finally {
        this.queued.delete(id);
      }
    });
  }

  /** Resolves once the recompressions queued so far are done (tests, benches). */
  refined(): Promise<void> {
    return this.refining;
  }

  /** Sends `body` compressed when the request asks and it is worth it (headers: Content-Encoding, Vary). */
  async send(request: FastifyRequest, reply: FastifyReply, key: string, type: string, body: Buffer): Promise<FastifyReply> {
    varyOnEncoding(reply);
    const encoded = await this.encodedFor(request, key, type, body);
    if (!encoded) return reply.type(type).send(body);
    return reply.type(type).header("content-encoding", encoded.encoding).send(encoded.body);
  }
}
