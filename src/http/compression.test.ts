import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { compressible, KeptEncodings, negotiateEncoding } from "./compression.js";

describe("negotiateEncoding", () => {
  it("prefers brotli, falls back to gzip, refuses q=0 and answers none for identity", () => {
    expect(negotiateEncoding("gzip, deflate, br")).toBe("br");
    expect(negotiateEncoding("br;q=0.5, gzip;q=0.8")).toBe("gzip");
    expect(negotiateEncoding("gzip, br;q=0")).toBe("gzip");
    expect(negotiateEncoding("x-gzip")).toBe("gzip");
    expect(negotiateEncoding("*")).toBe("br");
    expect(negotiateEncoding("*, br;q=0")).toBe("gzip");
    expect(negotiateEncoding("identity")).toBeUndefined();
    expect(negotiateEncoding("deflate")).toBeUndefined();
    expect(negotiateEncoding(undefined)).toBeUndefined();
    expect(negotiateEncoding("")).toBeUndefined();
  });

  it("compresses text, JSON, XML, scripts and SVG of 1 KB or more; nothing else", () => {
    for (const type of ["text/html; charset=utf-8", "text/markdown", "application/json", "application/xml", "image/svg+xml"]) {
      expect(compressible(type, 2048), type).toBe(true);
      expect(compressible(type, 1023), type).toBe(false);
    }
    for (const type of ["image/png", "application/pdf", "font/woff2"]) expect(compressible(type, 100_000), type).toBe(false);
  });
});

/** HTML-like text of about `bytes` bytes from a small vocabulary (a seeded generator: the same text each run). */
function pageLike(bytes: number): Buffer {
  const words = ["kubernetes", "cluster", "events", "privilege", "escalation", "shell", "token", "the", "a", "of", "node", "pod"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  let out = "<!doctype html><main>";
  while (out.length < bytes) {
    out += `<p id="p${next() % 10000}">`;
    for (let i = 0; i < 12; i++) out += `${words[next() % words.length]} `;
    out += `<a href="/s/docs/${words[next() % words.length]}/${next().toString(36)}">link</a></p>\n`;
  }
  return Buffer.from(out);
}

describe("KeptEncodings", () => {
  const asking = (encoding: string) => ({ headers: { "accept-encoding": encoding } }) as unknown as FastifyRequest;

  it("answers at once, then keeps the brotli body made again at the best quality: smaller, the same text", async () => {
    const kept = new KeptEncodings(10_000_000);
    const body = pageLike(60_000);
    const first = await kept.encodedFor(asking("br"), "page", "text/html; charset=utf-8", body);
    expect(first?.encoding).toBe("br");
    expect(brotliDecompressSync(first!.body).equals(body)).toBe(true);
    await kept.refined();
    const later = await kept.encodedFor(asking("br"), "page", "text/html; charset=utf-8", body);
    expect(later!.body.length).toBeLessThan(first!.body.length);
    expect(brotliDecompressSync(later!.body).equals(body)).toBe(true);
    // gzip is kept as first made.
    const gzipped = await kept.encodedFor(asking("gzip"), "page", "text/html; charset=utf-8", body);
    await kept.refined();
    expect((await kept.encodedFor(asking("gzip"), "page", "text/html; charset=utf-8", body))!.body).toBe(gzipped!.body);
    expect(gunzipSync(gzipped!.body).equals(body)).toBe(true);
  });

  it("queues a body the full queue could not take when it is asked again, and makes each body again once", async () => {
    const kept = new KeptEncodings(100_000_000);
    const bodies = Array.from({ length: 80 }, (_, i) => Buffer.from(`${i} ${pageLike(20_000).toString()}`));
    const first = await Promise.all(bodies.map((b, i) => kept.encodedFor(asking("br"), `p${i}`, "text/html", b)));
    await kept.refined();
    // The queue holds 64: the last ones were left as first made, and are made again once asked again.
    const second = await Promise.all(bodies.map((b, i) => kept.encodedFor(asking("br"), `p${i}`, "text/html", b)));
    expect(second.filter((s, i) => s!.body.length < first[i]!.body.length).length).toBeLessThan(bodies.length);
    await kept.refined();
    const third = await Promise.all(bodies.map((b, i) => kept.encodedFor(asking("br"), `p${i}`, "text/html", b)));
    third.forEach((t, i) => {
      expect(t!.body.length, `p${i}`).toBeLessThan(first[i]!.body.length);
      expect(brotliDecompressSync(t!.body).equals(bodies[i]!)).toBe(true);
    });
    await kept.refined();
    const fourth = await Promise.all(bodies.map((b, i) => kept.encodedFor(asking("br"), `p${i}`, "text/html", b)));
    fourth.forEach((f, i) => {
      expect(f!.body).toBe(third[i]!.body);
    });
  });

  it("does not make a body past 256 KB again (too long at that quality): it keeps the first", async () => {
    const kept = new KeptEncodings(10_000_000);
    const large = pageLike(300 * 1024);
    const first = await kept.encodedFor(asking("br"), "bundle", "text/javascript", large);
    await kept.refined();
    expect((await kept.encodedFor(asking("br"), "bundle", "text/javascript", large))!.body).toBe(first!.body);
  });
});
