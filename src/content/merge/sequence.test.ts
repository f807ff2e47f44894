import { describe, expect, it } from "vitest";
import { commonSubsequence, mergeOrder } from "./sequence.js";
import { jsonEqual, mergeValue } from "./values.js";

const split = (s: string) => (s === "" ? [] : s.split(""));
/** Merges orders written as strings of one-letter ids; members = what the three-way membership keeps. */
function order(base: string, ours: string, theirs: string) {
  const [b, o, t] = [split(base), split(ours), split(theirs)];
  const members = new Set([...o, ...t].filter((id) => !b.includes(id) || (o.includes(id) && t.includes(id))));
  const merged = mergeOrder(b, o, t, members);
  return { order: merged.order.join(""), conflicts: merged.conflicts };
}

describe("commonSubsequence", () => {
  it("finds the longest run of ids kept in order", () => {
    expect([...commonSubsequence(split("abcdef"), split("bxcaef"))]).toEqual(["f", "e", "c", "b"]);
    expect(commonSubsequence([], split("abc")).size).toBe(0);
  });
});

describe("mergeOrder", () => {
  it("returns a side's order when the other side kept the base", () => {
    for (const side of ["abcd", "dcba", "axbyc", "ca", "", "xbdy"]) {
      expect(order("abcd", side, "abcd").order).toBe(side);
      expect(order("abcd", "abcd", side).order).toBe(side);
      expect(order("abcd", side, side)).toEqual({ order: side, conflicts: [] });
    }
  });

  it("combines insertions and deletions made at different places", () => {
    expect(order("abcd", "xabcd", "abcdy")).toEqual({ order: "xabcdy", conflicts: [] });
    expect(order("abcd", "abxcd", "acdy")).toEqual({ order: "axcdy", conflicts: [] });
  });

  it("keeps both insertions at the same place, ordered by id whichever side is ours", () => {
    expect(order("ab", "azb", "ayb").order).toBe("ayzb");
    expect(order("ab", "ayb", "azb").order).toBe("ayzb");
    // Each side's run stays whole.
    expect(order("ab", "azwb", "ayb").order).toBe("ayzwb");
  });

  it("applies a move on one side together with insertions on the other", () => {
    expect(order("abcd", "bcda", "abxcd")).toEqual({ order: "bxcda", conflicts: [] });
    expect(order("abcd", "adbc", "abcdy")).toEqual({ order: "adbcy", conflicts: [] });
  });

  it("accepts the same move on both sides, and reports one item moved to different places", () => {
    expect(order("abcd", "dabc", "dabcx")).toEqual({ order: "dabcx", conflicts: [] });
    expect(order("abcd", "dabc", "abdc")).toEqual({ order: "dabc", conflicts: ["d"] });
  });

  it("appends members no list places (a caller's conflict resolution)", () => {
    expect(mergeOrder(["a"], ["a"], ["a"], new Set(["a", "z", "m"])).order).toEqual(["a", "m", "z"]);
  });
});

describe("mergeValue", () => {
  it("merges objects field by field and treats content references as one value", () => {
    expect(mergeValue({ a: 1, b: 1 }, { a: 2, b: 1 }, { a: 1, b: 3 })).toEqual({ value: { a: 2, b: 3 }, conflicts: [] });
    const ref = mergeValue({ ref: { kind: "file", file: "x" } }, { ref: { kind: "file", file: "y" } }, { ref: { kind: "url", url: "u" } });
    expect(ref.conflicts).toEqual([
      { path: ["ref"], base: { kind: "file", file: "x" }, ours: { kind: "file", file: "y" }, theirs: { kind: "url", url: "u" } },
    ]);
  });

  it("treats a missing field as an undefined one, and never reads inherited fields", () => {
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(mergeValue<Record<string, unknown>>({}, { constructor: "x" }, {})).toEqual({ value: { constructor: "x" }, conflicts: [] });
    const merged = mergeValue<Record<string, unknown>>({ n: 1 }, JSON.parse('{"n":1,"__proto__":{"p":1}}'), { n: 2 });
    expect(Object.getPrototypeOf(merged.value)).toBe(Object.prototype);
    expect(Object.keys(merged.value)).toEqual(["n", "__proto__"]);
  });
});
