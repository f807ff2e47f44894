import { MessageChannel } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import type { LoadImage } from "./images.js";
import { ownArrayBuffer, renderHostOver, serveRenderHost } from "./render-port.js";

const noFiles = async () => new Map();

describe("a render's requests over a MessagePort", () => {
  it("answers found, missing and failed images, one request each", async () => {
    const asked: string[] = [];
    const stored = new Map([["a", Buffer.from("the bytes of a, long enough not to come from Node's buffer pool".repeat(100))]]);
    const load: LoadImage = async (ref) => {
      asked.push(ref.kind === "file" ? ref.file : ref.url);
      if (ref.kind === "url") throw new Error("no network here");
      const bytes = stored.get(ref.file);
      return bytes ? { bytes: Buffer.from(bytes), contentType: "image/png" } : undefined;
    };
    const { port1, port2 } = new MessageChannel();
    serveRenderHost(port1, { loadImage: load, describeFiles: noFiles });
    const images = renderHostOver(port2);
    try {
      const [found, missing] = await Promise.all([
        images.loadImage({ kind: "file", file: "a" }),
        images.loadImage({ kind: "file", file: "b" }),
      ]);
      expect(found?.contentType).toBe("image/png");
      expect(found?.bytes.equals(stored.get("a")!)).toBe(true);
      expect(missing).toBeUndefined();
      await expect(images.loadImage({ kind: "url", url: "https://example.com/x.png" })).rejects.toThrow("no network here");
      expect(asked).toEqual(["a", "b", "https://example.com/x.png"]);
    } finally {
      images.close();
      port1.close();
    }
  });

  it("describes the files asked for, in one request", async () => {
    const asked: string[][] = [];
    const { port1, port2 } = new MessageChannel();
    serveRenderHost(port1, {
      loadImage: async () => undefined,
      describeFiles: async (ids) => {
        asked.push([...ids]);
        return new Map(ids.filter((id) => id !== "gone").map((id) => [id, { text: `${id}.pdf`, url: `https://quire.test/files/${id}` }]));
      },
    });
    const host = renderHostOver(port2);
    try {
      const files = await host.describeFiles(["a", "gone"]);
      expect([...files]).toEqual([["a", { text: "a.pdf", url: "https://quire.test/files/a" }]]);
      expect((await host.describeFiles([])).size).toBe(0);
      expect(asked).toEqual([["a", "gone"]]);
    } finally {
      host.close();
      port1.close();
    }
  });

  it("fails the requests still waiting when the channel closes", async () => {
    const { port1, port2 } = new MessageChannel();
    serveRenderHost(port1, { loadImage: () => new Promise(() => {}), describeFiles: noFiles });
    const images = renderHostOver(port2);
    const waiting = images.loadImage({ kind: "file", file: "slow" });
    port1.close();
    await expect(waiting).rejects.toThrow("closed");
  });
});

describe("ownArrayBuffer", () => {
  it("hands over a Buffer's own memory, and copies a Buffer cut from the shared pool", () => {
    const large = Buffer.alloc(10_000, 7);
    expect(ownArrayBuffer(large)).toBe(large.buffer);
    const small = Buffer.from("small"); // sliced out of Node's 8 KB pool
    expect(small.buffer.byteLength).toBeGreaterThan(small.byteLength);
    const own = ownArrayBuffer(small);
    expect(own).not.toBe(small.buffer);
    expect(Buffer.from(own).toString()).toBe("small");
  });
});
