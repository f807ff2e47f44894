import { describe, expect, it } from "vitest";
import { indexPages } from "../revision/model.js";
import { listTemplates, renderTemplateText, templateContent } from "./templates.js";

describe("templates", () => {
  it("lists the built-in templates", () => {
    expect(listTemplates().map((t) => t.id)).toEqual(["api-reference", "changelog", "faq", "getting-started"]);
  });

  it("builds fresh pages without Git metadata", async () => {
    const { content, documents } = await templateContent("getting-started", {}, "2026-01-01T00:00:00.000Z");
    const pages = [...indexPages(content.pages).values()];
    expect(pages.map((l) => l.page.title)).toEqual(["Welcome", "Getting started", "Quickstart", "Installation"]);
    expect(pages.every((l) => !l.page.git)).toBe(true);
    expect(documents.size).toBeGreaterThanOrEqual(3);
  });

  it("fills parameters and sections, and refuses unsafe or unknown ones", async () => {
    expect(renderTemplateText("{{#a.b}}yes {{a.b.c}}\n{{/a.b}}{{^a.b}}no\n{{/a.b}}", { a: { b: { c: "x1" } } })).toBe("yes x1\n");
    expect(renderTemplateText("{{#a.b}}yes\n{{/a.b}}{{^a.b}}no\n{{/a.b}}", {})).toBe("no\n");
    expect(() => renderTemplateText("{{a}}", { a: '" %}{% include "/etc/passwd' })).toThrow(/id/);
    const withSpec = await templateContent("api-reference", { spec: { kind: "openapi", spec: "petstore" } }, "2026-01-01T00:00:00.000Z");
    expect(JSON.stringify([...withSpec.documents.values()])).toContain("petstore");
    await expect(templateContent("api-reference", { other: { kind: "openapi", spec: "x" } }, "now")).rejects.toThrow(
      /no parameter "other"/,
    );
    await expect(templateContent("api-reference", { spec: { kind: "url", url: "https://x" } }, "now")).rejects.toThrow(/kind "openapi"/);
    await expect(templateContent("nope", {}, "now")).rejects.toThrow(/getting-started/);
  });
});
