import type { MessagePort } from "node:worker_threads";
import type { ImageRef, LoadImage } from "./images.js";

/**
 * What a render in a worker thread asks of the thread that owns the database, over a MessagePort:
 * the bytes of an image, when the renderer reaches the page that shows it (a space can hold
 * thousands of images, so they are not sent with the task; the answer's bytes are transferred,
 * not copied), and the names and download URLs of the files the pages refer to (signing a URL for
 * every file of a large space up front would cost the request thread more than the answers do).
 */

/** A file's name and download URL, as describeRef gives them. */
export interface FileDescription {
  text: string;
  url?: string;
}

/** The database's side of a render. */
export interface RenderHost {
  loadImage: LoadImage;
  /** Descriptions of these file ids; ids that are no file of the content are left out. */
  describeFiles(ids: readonly string[]): Promise<Map<string, FileDescription>>;
}

type Request = { id: number; image: ImageRef } | { id: number; files: string[] };

type Answer =
  | { id: number; found: false }
  | { id: number; found: true; bytes: ArrayBuffer; contentType: string }
  | { id: number; files: Map<string, FileDescription> }
  | { id: number; error: string };

/** The renderer's side: asks over `port`. `close()` once the render is over. */
export function renderHostOver(port: MessagePort): RenderHost & { close(): void } {
  let next = 0;
  const pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  port.on("message", (answer: Answer) => {
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if ("error" in answer) waiting.reject(new Error(answer.error));
    else waiting.resolve(answer);
  });
  port.on("close", () => {
    for (const waiting of pending.values()) waiting.reject(new Error("the render's channel closed"));
    pending.clear();
  });
  const ask = (request: Omit<Request, "id">) =>
    new Promise<Answer>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      port.postMessage({ ...request, id });
    });
  return {
    loadImage: async (image) => {
      const answer = await ask({ image });
      if (!("found" in answer) || !answer.found) return undefined;
      return { bytes: Buffer.from(answer.bytes), contentType: answer.contentType };
    },
    describeFiles: async (ids) => {
      if (ids.length === 0) return new Map();
      const answer = await ask({ files: [...ids] });
      return "files" in answer ? answer.files : new Map();
    },
    close: () => port.close(),
  };
}

/**
 * The database's side: answers each request on `port` from `host`, until the port closes. The
 * bytes `host.loadImage` returns are moved to the other thread (their Buffer is emptied here), so
 * it must return bytes nothing else keeps, as a fresh read from the blob store is.
 */
export function serveRenderHost(port: MessagePort, host: RenderHost): void {
  port.on("message", async (request: Request) => {
    let answer: Answer;
    const transfer: ArrayBuffer[] = [];
    try {
      if ("files" in request) {
        answer = { id: request.id, files: await host.describeFiles(request.files) };
      } else {
        const loaded = await host.loadImage(request.image);
        if (loaded) {
          const bytes = ownArrayBuffer(loaded.bytes);
          transfer.push(bytes);
          answer = { id: request.id, found: true, bytes, contentType: loaded.contentType };
        } else {
          answer = { id: request.id, found: false };
        }
      }
    } catch (error) {
      answer = { id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
    // Once the render is over (or aborted) the port is closed and the answer goes nowhere.
    port.postMessage(answer, transfer);
  });
}

/**
 * An ArrayBuffer holding exactly these bytes and nothing else, safe to transfer. Node slices small
 * Buffers out of a shared pool: transferring that pool would pull other Buffers' memory away from
 * under them, so those are copied.
 */
export function ownArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) return buffer;
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}
