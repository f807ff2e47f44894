import { describe, expect, it } from "vitest";
import { indexKeyedNodes } from "./find.js";

describe("indexKeyedNodes", () => {
  it("finds keyed nodes at any depth, in nodes and fragments, with their place and nearest keyed ancestor", () => {
    const caption = { object: "block", type: "paragraph", key: "cap", nodes: [] };
    const document = {
      nodes: [
        { object: "block", type: "paragraph", key: "p1", nodes: [{ object: "text", leaves: [] }] },
        {
          object: "block",
          type: "images",
          key: "imgs",
          nodes: [
            { object: "block", type: "image", key: "img", fragments: [{ object: "fragment", fragment: "caption", nodes: [caption] }] },
          ],
        },
      ],
    };
    const found = indexKeyedNodes(document);
    expect([...found.keys()]).toEqual(["p1", "imgs", "img", "cap"]);
    expect(found.get("p1")).toMatchObject({ index: 0, parentKey: null, slot: "nodes" });
    expect(found.get("img")).toMatchObject({ index: 0, parentKey: "imgs", slot: "nodes" });
    // The caption's fragment has no key: its nearest keyed ancestor is the image.
    expect(found.get("cap")).toMatchObject({ node: caption, index: 0, parentKey: "img", slot: "nodes" });
    expect(found.get("cap")!.list[0]).toBe(caption);
  });

  it("keeps the first of repeated keys and copes with an empty document", () => {
    const first = { object: "block", key: "k", nodes: [] };
    expect(indexKeyedNodes({ nodes: [first, { object: "block", key: "k", nodes: [] }] }).get("k")!.node).toBe(first);
    expect(indexKeyedNodes({}).size).toBe(0);
  });
});
