import { describe, expect, it } from "vitest";
import type { JSONDocument } from "../document/types.js";
import { collectDocument, SegmentCollector } from "./segments.js";

const text = (value: string, marks: { object: "mark"; type: "bold" | "code" }[] = []) => ({
  object: "text" as const,
  leaves: [{ object: "leaf" as const, text: value, marks }],
});

/**
 * A document with prose passed through `t` (identity for the source): the expected translation is
 * the same document built with the translation function, everything else unchanged.
 */
function build(t: (prose: string) => string): JSONDocument {
  return {
    object: "document",
    data: {},
    nodes: [
      { object: "block", type: "heading-1", key: "h1", data: {}, nodes: [text(t("Getting started"))] },
      {
        object: "block",
        type: "paragraph",
        key: "p1",
        nodes: [
          text(`${t("Run")} `),
          text("npm install", [{ object: "mark", type: "code" }]),
          text(` ${t("then read")} `),
          {
            object: "inline",
            type: "link",
            key: "l1",
            data: { ref: { kind: "url", url: "https://example.com/guide" } },
            nodes: [text(t("the guide"), [{ object: "mark", type: "bold" }])],
          },
          text(`${t(", version")} `),
          { object: "inline", type: "expression", key: "e1", isVoid: true, data: { expression: "space.vars.version" } },
          text(` ${t("for")} {{ space.vars.product }} ${t("at")} https://example.com/x.\n${t("Second line")}`),
        ],
      },
      {
        object: "block",
        type: "code",
        key: "c1",
        data: { syntax: "bash" },
        nodes: [{ object: "block", type: "code-line", key: "cl", data: {}, nodes: [text("echo hello world")] }],
      },
      { object: "block", type: "paragraph", key: "p2", nodes: [text('{% hint style="info" %}')] },
      {
        object: "block",
        type: "hint",
        key: "hn",
        data: { style: "info" },
        nodes: [{ object: "block", type: "paragraph", key: "p3", nodes: [text(t("Be careful."))] }],
      },
      {
        object: "block",
        type: "tabs",
        key: "t",
        nodes: [
          {
            object: "block",
            type: "tabs-item",
            key: "ti",
            data: { title: t("Linux") },
            nodes: [{ object: "block", type: "math", key: "m", isVoid: true, data: { formula: "x + y" } }],
          },
        ],
      },
      { object: "block", type: "paragraph", key: "p4", nodes: [text("  42 % ")] },
      {
        object: "block",
        type: "table",
        key: "tb",
        isVoid: true,
        data: {
          view: { type: "grid", columns: ["c1", "c2"], hideHeader: false },
          definition: {
            c1: { id: "c1", title: t("Option"), type: "text", textAlignment: "left" },
            c2: { id: "c2", title: "", type: "number" },
          },
          records: { r1: { orderIndex: "a0", values: { c1: "f1", c2: 3 } } },
        },
        fragments: [
          {
            object: "fragment",
            fragment: "f1",
            type: "table-cell",
            nodes: [{ object: "block", type: "paragraph", key: "fp", nodes: [text(t("Enables the cache"))] }],
          },
        ],
      },
    ],
  };
}

const document = build((prose) => prose);
const shout = (prose: string) => `«${prose.toUpperCase()}»`;

describe("collectDocument", () => {
  it("collects only prose, and puts translations back without touching structure, code, links, expressions or variables", () => {
    const collector = new SegmentCollector();
    const copy = collectDocument(document, collector);
    expect(collector.segments).toEqual([
      "Getting started",
      "Run",
      "then read",
      "the guide",
      ", version",
      "for",
      "at",
      "Second line",
      "Be careful.",
      "Linux",
      "Option",
      "Enables the cache",
    ]);
    expect(collector.words()).toBe(19);
    collector.apply(collector.segments.map(shout));
    expect(copy).toEqual(build(shout));
    // The input is left as it was.
    expect(document).toEqual(build((prose) => prose));
  });

  it("refuses a translation that does not have one text per segment", () => {
    const collector = new SegmentCollector();
    collectDocument(document, collector);
    expect(() => collector.apply(["one"])).toThrow("Expected 12 translated segments, got 1.");
  });
});
