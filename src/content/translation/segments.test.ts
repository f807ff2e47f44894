import { describe, expect, it } from "vitest";
import type { JSONDocument } from "../document/types.js";
import { collectDocument, SegmentCollector } from "./segments.js";

const text = (value: string, marks: { object: "mark"; type: "bold" | "code" }[] = []) => ({
  object: "text" as const,
  leaves: [{ object: "leaf" as const, text: value, marks }],
});

const document: JSONDocument = {
  object: "document",
  data: {},
  nodes: [
    { object: "block", type: "heading-1", key: "h1", data: {}, nodes: [text("Getting started")] },
    {
      object: "block",
      type: "paragraph",
      key: "p1",
      nodes: [
        text("Run "),
        text("npm install", [{ object: "mark", type: "code" }]),
        text(" then read "),
        {
          object: "inline",
          type: "link",
          key: "l1",
          data: { ref: { kind: "url", url: "https://example.com/guide" } },
          nodes: [text("the guide", [{ object: "mark", type: "bold" }])],
        },
        text(", version "),
        { object: "inline", type: "expression", key: "e1", isVoid: true, data: { expression: "space.vars.version" } },
        text(" for {{ space.vars.product }} at https://example.com/x.\nSecond line"),
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
      nodes: [{ object: "block", type: "paragraph", key: "p3", nodes: [text("Be careful.")] }],
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
          data: { title: "Linux" },
          nodes: [{ object: "block", type: "math", key: "m", isVoid: true, data: { formula: "x + y" } }],
        },
      ],
    },
    { object: "block", type: "paragraph", key: "p4", nodes: [text("  42 % ")] },
  ],
};

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
    collector.apply(collector.segments.map((s) => `«${s.toUpperCase()}»`));
    const expected = structuredClone(document) as any;
    const p = expected.nodes[1].nodes;
    expected.nodes[0].nodes[0].leaves[0].text = "«GETTING STARTED»";
    p[0].leaves[0].text = "«RUN» ";
    p[2].leaves[0].text = " «THEN READ» ";
    p[3].nodes[0].leaves[0].text = "«THE GUIDE»";
    p[4].leaves[0].text = "«, VERSION» ";
    p[6].leaves[0].text = " «FOR» {{ space.vars.product }} «AT» https://example.com/x.\n«SECOND LINE»";
    expected.nodes[4].nodes[0].nodes[0].leaves[0].text = "«BE CAREFUL.»";
    expected.nodes[5].nodes[0].data.title = "«LINUX»";
    expect(copy).toEqual(expected);
    // The input is left as it was.
    expect((document.nodes[0] as any).nodes[0].leaves[0].text).toBe("Getting started");
  });

  it("refuses a translation that does not have one text per segment", () => {
    const collector = new SegmentCollector();
    collectDocument(document, collector);
    expect(() => collector.apply(["one"])).toThrow("Expected 10 translated segments, got 1.");
  });
});
