import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contentAssets } from "../../content/html/index.js";
import { buildSiteAssets } from "./site.assets.js";

describe("the site's assets", () => {
  const assets = buildSiteAssets(contentAssets());
  const body = (name: string) => assets.files.get(assets.names.get(name) ?? "")?.body.toString("utf8") ?? "";

  it("sends the site's and the renderer's own stylesheets and scripts minified, fingerprinted by what is sent", () => {
    for (const asset of contentAssets().filter((a) => a.name === "content.css" || a.name === "content.js")) {
      const written = readFileSync(asset.path, "utf8");
      const sent = body(asset.name);
      expect(sent.length, asset.name).toBeGreaterThan(0);
      expect(sent.length, asset.name).toBeLessThan(written.length * 0.9);
      expect(sent, asset.name).not.toContain("/*");
    }
    // The rules and the behaviour are all there.
    expect(body("site.css")).toContain(".q-sidebar li[data-branch]");
    expect(body("site.css")).toContain("-webkit-backdrop-filter");
    expect(body("site.js")).toContain('"data-script"');
    expect(body("search.js")).toContain("EventSource");
    expect(body("site.js")).not.toContain("EventSource");
    for (const [name, file] of assets.names) {
      if (name.includes("/")) continue;
      expect(file).toMatch(/^[\w.-]+\.[0-9a-f]{12}\.(css|js)$/);
    }
  });

  it("leaves files that come minified as they are", () => {
    const katex = contentAssets().find((a) => a.name === "katex/katex.min.css");
    expect(katex).toBeDefined();
    expect(body("katex/katex.min.css")).toBe(readFileSync(katex!.path, "utf8"));
  });
});
