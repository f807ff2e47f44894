import { describe, expect, it } from "vitest";
import { readableOn, textOn } from "./site-customization.views.js";

/** WCAG contrast of two hex colors. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

describe("readableOn", () => {
  it("keeps a primary color that reads on the background, and moves one that does not just far enough", () => {
    expect(readableOn("#346DDB", "#ffffff")).toBe("#346DDB");
    expect(readableOn("#F48FB1", "#0d1117")).toBe("#F48FB1");
    const dark = readableOn("#346DDB", "#0d1117");
    expect(dark).not.toBe("#346DDB");
    expect(contrast(dark, "#0d1117")).toBeGreaterThanOrEqual(4.5);
    expect(contrast(dark, "#0d1117")).toBeLessThan(5.1);
    const light = readableOn("#FFE066", "#ffffff");
    expect(contrast(light, "#ffffff")).toBeGreaterThanOrEqual(4.5);
    expect(textOn("#000000")).toBe("#ffffff");
  });
});
