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
    ]);
    expect(collector.words()).toBe(15);
    collector.apply(collector.segments.map(shout));
    expect(copy).toEqual(build(shout));
    // The input is left as it was.
    expect(document).toEqual(build((prose) => prose));
  });

  it("refuses a translation that does not have one text per segment", () => {
    const collector = new SegmentCollector();
    collectDocument(document, collector);
    expect(() => collector.apply(["one"])).toThrow("Expected 10 translated segments, got 1.");
  });
});
