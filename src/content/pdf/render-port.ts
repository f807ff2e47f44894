import type { MessagePort } from "node:worker_threads";
import { answerOn, askOver } from "../../lib/port-questions.js";
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

type Question = { image: ImageRef } | { files: string[] };

type Answer = { found: false } | { found: true; bytes: ArrayBuffer; contentType: string } | { files: Map<string, FileDescription> };

/** The renderer's side: asks over `port`. `close()` once the render is over. */
export function renderHostOver(port: MessagePort): RenderHost & { close(): void } {
  const { ask, close } = askOver<Question, Answer>(port);
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
    close,
  };
}

/**
 * The database's side: answers each request on `port` from `host`, until the port closes. The
 * bytes `host.loadImage` returns are moved to the other thread (their Buffer is emptied here), so
 * it must return bytes nothing else keeps, as a fresh read from the blob store is.
 */
export function serveRenderHost(port: MessagePort, host: RenderHost): void {
  answerOn<Question, Answer>(port, async (question) => {
    if ("files" in question) return { answer: { files: await host.describeFiles(question.files) } };
    const loaded = await host.loadImage(question.image);
    if (!loaded) return { answer: { found: false } };
    const bytes = ownArrayBuffer(loaded.bytes);
    return { answer: { found: true, bytes, contentType: loaded.contentType }, transfer: [bytes] };
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
