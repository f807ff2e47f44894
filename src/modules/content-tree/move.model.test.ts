import { describe, expect, it } from "vitest";
import { statusOfDomainError } from "../../http/error-handler.js";
import { DomainError } from "../../lib/errors.js";
import { planMove } from "./move.model.js";
import { keyAtEnd, keyBetween, keysBetween, positionsFor, type Sibling, sortSiblings } from "./positions.model.js";

const [k1, k2, k3] = keysBetween(null, null, 3) as [string, string, string];
const siblings: Sibling[] = [
  { kind: "space", id: "a", position: k1 },
  { kind: "collection", id: "b", position: k2 },
  { kind: "space", id: "c", position: k3 },
];

function apply(list: Sibling[], updates: Sibling[]): string[] {
  const byKey = new Map(list.map((s) => [`${s.kind}:${s.id}`, s]));
  for (const u of updates) byKey.set(`${u.kind}:${u.id}`, u);
  return sortSiblings([...byKey.values()]).map((s) => s.id);
}

function status(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return statusOfDomainError[e.kind];
    throw e;
  }
  return undefined;
}

describe("positions", () => {
  it("uses only lower-case alphanumerics, which sort the same under every collation", () => {
    let key = keyBetween(null, null);
    const keys = [key];
    for (let i = 0; i < 200; i++) keys.push((key = keyBetween(null, key)));
    for (let i = 0; i < 200; i++) keys.push(keyBetween(keys[keys.length - 1] ?? null, null));
    for (const k of keys) expect(k).toMatch(/^[0-9a-z]+$/);
    expect(keyAtEnd(siblings) > k3).toBe(true);
  });

  it("renumbers the whole list when two neighbours share a key", () => {
    const dup: Sibling[] = [
      { kind: "space", id: "x", position: k1 },
      { kind: "space", id: "new", position: "" },
      { kind: "space", id: "y", position: k1 },
    ];
    const updates = positionsFor(dup, { kind: "space", id: "new" });
    expect(updates).toHaveLength(3);
    expect(apply([], updates)).toEqual(["x", "new", "y"]);
  });
});

describe("planMove", () => {
  const item = { kind: "space" as const, id: "a", parentId: null };

  it("moves to the end by default, before or after a sibling of either kind", () => {
    expect(apply(siblings, planMove({ item, destinationParentId: null, siblings }))).toEqual(["b", "c", "a"]);
    const afterB = planMove({ item, destinationParentId: null, siblings, position: { after: { type: "collection", collection: "b" } } });
    expect(apply(siblings, afterB)).toEqual(["b", "a", "c"]);
    const c = { kind: "space" as const, id: "c", parentId: null };
    const beforeA = planMove({ item: c, destinationParentId: null, siblings, position: { before: { type: "space", space: "a" } } });
    expect(apply(siblings, beforeA)).toEqual(["c", "a", "b"]);
  });

  it("answers 409 when the item would stay where it is", () => {
    const last = { kind: "space" as const, id: "c", parentId: null };
    expect(status(() => planMove({ item: last, destinationParentId: null, siblings }))).toBe(409);
    expect(
      status(() => planMove({ item, destinationParentId: null, siblings, position: { before: { type: "collection", collection: "b" } } })),
    ).toBe(409);
  });

  it("answers 400 for a sibling of another parent, a wrong kind, itself, both before and after, or a missing id", () => {
    const cases = [
      { before: { type: "space" as const, space: "elsewhere" } },
      { before: { type: "space" as const, space: "b" } },
      { after: { type: "space" as const, space: "a" } },
      { before: { type: "space" as const, space: "c" }, after: { type: "collection" as const, collection: "b" } },
      { before: { type: "space" as const, collection: "b" } },
    ];
    for (const position of cases) {
      expect(status(() => planMove({ item, destinationParentId: null, siblings, position }))).toBe(400);
    }
  });

  it("lands in another parent at the end or next to a sibling there", () => {
    const inside: Sibling[] = [{ kind: "space", id: "z", position: k1 }];
    const updates = planMove({ item, destinationParentId: "coll", siblings: inside, position: { before: { type: "space", space: "z" } } });
    expect(apply(inside, updates)).toEqual(["a", "z"]);
    expect(planMove({ item, destinationParentId: "coll", siblings: [] })).toHaveLength(1);
  });
});
