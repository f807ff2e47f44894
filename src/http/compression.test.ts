import { describe, expect, it } from "vitest";
import { compressible, negotiateEncoding } from "./compression.js";

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
