import { describe, expect, it } from "vitest";
import type { JSONDocument } from "../../../../content/document/types.js";
import { blockDiff, movedAndChanged, textDiff } from "./diff.model.js";

const p = (key: string, text: string) => ({
  object: "block" as const,
  type: "paragraph" as const,
  key,
  nodes: [{ object: "text" as const, leaves: [{ object: "leaf" as const, text, marks: [] }] }],
});
const doc = (...nodes: ReturnType<typeof p>[]) => ({ object: "document", data: {}, nodes }) as unknown as JSONDocument;
const kinds = (before: JSONDocument | undefined, after: JSONDocument | undefined) =>
  blockDiff(before, after).map((c) => `${c.kind}:${c.key}`);

describe("blockDiff", () => {
  it("marks blocks by key: unchanged, changed, added, and removed where they stood", () => {
    const before = doc(p("a", "One"), p("b", "Two"), p("c", "Three"), p("d", "Four"));
    const after = doc(p("a", "One"), p("b", "Two!"), p("x", "New"), p("d", "Four"));
    expect(kinds(before, after)).toEqual(["unchanged:a", "changed:b", "removed:c", "added:x", "unchanged:d"]);
  });

  it("puts removed leading blocks first and a whole page's blocks as added or removed", () => {
    expect(kinds(doc(p("a", "One"), p("b", "Two")), doc(p("b", "Two")))).toEqual(["removed:a", "unchanged:b"]);
    expect(kinds(undefined, doc(p("a", "One")))).toEqual(["added:a"]);
    expect(kinds(doc(p("a", "One")), undefined)).toEqual(["removed:a"]);
  });

  it("marks blocks out of the common order as moved, and tells whether they also changed", () => {
    const diff = blockDiff(doc(p("a", "One"), p("b", "Two"), p("c", "Three")), doc(p("c", "Three, moved"), p("a", "One"), p("b", "Two")));
    expect(diff.map((c) => `${c.kind}:${c.key}`)).toEqual(["moved:c", "unchanged:a", "unchanged:b"]);
    expect(movedAndChanged(diff[0]!)).toBe(true);
    expect(movedAndChanged(diff[1]!)).toBe(false);
  });

  it("diffs the words of a changed block", () => {
    expect(textDiff(p("a", "Keepers trim wicks"), p("a", "Keepers trim the wicks"))).toEqual([
      { text: "Keepers trim " },
      { text: "the ", added: true },
      { text: "wicks" },
    ]);
  });
});
