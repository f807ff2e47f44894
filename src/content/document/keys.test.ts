import { describe, expect, it } from "vitest";
import { withCpuTime } from "../../../test/helpers/cpu-time.js";
import { parseMarkdownPage } from "../markdown/parse.js";
import { collectKeys, reconcileKeys, reconcileKeysInPlace, seedKeys, stripKeys } from "./keys.js";
import type { JSONDocument } from "./types.js";

const doc = (markdown: string, previous?: JSONDocument) => parseMarkdownPage(markdown, previous ? { previous } : {}).document;
const topKeys = (d: JSONDocument) => d.nodes.map((n) => n.key);

describe("reconcileKeys", () => {
  const base = 'First paragraph.\n\n## Heading\n\n* one\n* two\n\n{% hint style="info" %}\nHint text\n{% endhint %}\n\nLast paragraph.\n';

  it("gives every keyed node a unique key when there is no previous document", () => {
    const d = doc(base);
    const keys = collectKeys(d);
    expect(keys.length).toBeGreaterThan(8);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every((k) => /^[0-9A-Za-z]{12}$/.test(k))).toBe(true);
  });

  it("re-importing the same Markdown gives identical keys", () => {
    const first = doc(base);
    expect(doc(base, first)).toEqual(first);
  });

  it("keeps keys of unchanged blocks around an inserted one; the new block gets a fresh key", () => {
    const first = doc(base);
    const next = doc(base.replace("## Heading", "New paragraph.\n\n## Heading"), first);
    const [a, b, c, d, e] = topKeys(first);
    expect(topKeys(next)).toEqual([a, expect.any(String), b, c, d, e]);
    expect(topKeys(first)).not.toContain(topKeys(next)[1]);
  });

  it("keeps the key of a block edited in place, and of its unchanged children", () => {
    const first = doc(base);
    const next = doc(base.replace("* two", "* two, edited").replace("Hint text", "Hint text, edited"), first);
    expect(topKeys(next)).toEqual(topKeys(first));
    const items = (d: JSONDocument) => (d.nodes[2] as { nodes: Array<{ key?: string }> }).nodes.map((n) => n.key);
    expect(items(next)).toEqual(items(first));
  });

  it("keeps keys of removed blocks' neighbours and of moved blocks", () => {
    const first = doc(base);
    const [a, b, c, d, e] = topKeys(first);
    expect(topKeys(doc(base.replace("## Heading\n\n", ""), first))).toEqual([a, c, d, e]);
    const moved = doc(`Last paragraph.\n\n${base.replace("Last paragraph.\n", "")}`, first);
    expect(topKeys(moved)).toEqual([e, a, b, c, d]);
  });

  it("keeps the key of a paragraph moved out of a removed hint", () => {
    const first = doc('{% hint style="info" %}\nKeep me.\n{% endhint %}\n');
    const inner = (first.nodes[0] as { nodes: Array<{ key?: string }> }).nodes[0]!.key;
    const next = doc("Keep me.\n", first);
    expect(next.nodes[0]!.key).toBe(inner);
  });

  it("pairs edited blocks of the same type by similarity when the gap sizes differ", () => {
    const first = doc("Alpha beta gamma delta.\n\nEpsilon zeta eta theta.\n\nEnd.\n");
    const next = doc("Epsilon zeta eta theta iota.\n\nEnd.\n", first);
    expect(next.nodes[0]!.key).toBe(first.nodes[1]!.key);
    expect(next.nodes[1]!.key).toBe(first.nodes[2]!.key);
  });

  it("never duplicates a key, even when the previous document had duplicates", () => {
    const first = doc("Same.\n\nSame.\n\nOther.\n");
    const broken = structuredClone(first);
    broken.nodes[1]!.key = broken.nodes[0]!.key;
    const next = reconcileKeys(broken, doc("Same.\n\nSame.\n\nSame.\n\nOther.\n"));
    const keys = collectKeys(next);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("does not modify its inputs and only changes keys", () => {
    const first = doc(base);
    const next = doc(base.replace("Last", "Final"));
    const nextCopy = structuredClone(next);
    const firstCopy = structuredClone(first);
    const result = reconcileKeys(first, next);
    expect(next).toEqual(nextCopy);
    expect(first).toEqual(firstCopy);
    expect(stripKeys(result)).toEqual(stripKeys(next));
  });

  it("aligns long lists (unique-content anchors) in reasonable time", () => {
    const paragraphs = Array.from({ length: 3000 }, (_, i) => `Paragraph number ${i}.`);
    const first = doc(paragraphs.join("\n\n"));
    const edited = [...paragraphs];
    edited.splice(10, 0, ...Array.from({ length: 1500 }, (_, i) => `Inserted ${i}.`));
    edited.reverse();
    // CPU time: other processes on a loaded machine do not stretch it (test/helpers/cpu-time.ts).
    const { result: next, ms } = withCpuTime(() => doc(edited.join("\n\n"), first));
    expect(ms).toBeLessThan(20_000);
    const previousKeys = new Map(first.nodes.map((n) => [JSON.stringify(stripKeys(n)), n.key]));
    const kept = next.nodes.filter((n) => previousKeys.get(JSON.stringify(stripKeys(n))) === n.key).length;
    expect(kept).toBe(3000);
  });

  describe("with the keys a JSON document gives (keepGiven)", () => {
    const given = (previous: JSONDocument | undefined, next: JSONDocument) => {
      const copy = structuredClone(next);
      reconcileKeysInPlace(previous, copy, { keepGiven: true });
      return copy;
    };
    const lines = "Light the lamp.\n\nTrim the wick.\n\nWind the clock.\n\nLog the ships.\n";

    it("keeps the key each block came with when blocks of one type trade places and one is edited", () => {
      // The editor's save after two moves and a few words typed: the last and first paragraphs traded
      // places, one of them edited. By content and position alone, each would take the other's key.
      const first = doc(lines);
      const [light, trim, wind, log] = first.nodes;
      const edited = structuredClone(light!) as unknown as { nodes: Array<{ leaves: Array<{ text: string }> }> };
      edited.nodes[0]!.leaves[0]!.text = "Light the lamp. Now.";
      const next = { ...first, nodes: [log!, trim!, wind!, edited as unknown as typeof light] } as JSONDocument;
      expect(topKeys(reconcileKeys(first, next))).toEqual([light!.key, trim!.key, wind!.key, log!.key]);
      expect(topKeys(given(first, next))).toEqual([log!.key, trim!.key, wind!.key, light!.key]);
    });

    it("keys only the blocks given without a key (or with one met earlier), never with a key another block keeps", () => {
      const first = doc(lines);
      const [light, trim, wind, log] = first.nodes.map((n) => n.key!);
      const next = structuredClone(first);
      // The first two blocks' keys traded places (the client says so): kept.
      next.nodes[0]!.key = wind!;
      next.nodes[2]!.key = light!;
      // Unchanged but given without its key: takes its previous one back.
      delete next.nodes[1]!.key;
      // A repeat of a key met earlier: keyed as if given none (its previous key, by content).
      next.nodes[3]!.key = wind!;
      const out = given(first, next);
      expect(topKeys(out)).toEqual([wind, trim, light, log]);
      // A block given none whose previous key another block keeps gets a fresh one.
      const again = structuredClone(first);
      again.nodes[0]!.key = trim!;
      delete again.nodes[1]!.key;
      const keys = topKeys(given(first, again));
      expect(keys[0]).toBe(trim);
      expect([light, trim, wind, log]).not.toContain(keys[1]);
      expect(keys.slice(2)).toEqual([wind, log]);
    });

    it("keeps every key of a document that names all its blocks, and keys nested blocks given without one", () => {
      const first = doc(base);
      const next = structuredClone(first);
      next.nodes.reverse();
      expect(given(first, next)).toEqual(next);
      const list = next.nodes.find((n) => n.type === "list-unordered") as unknown as { nodes: Array<{ key?: string }> };
      const itemKey = list.nodes[1]!.key;
      delete list.nodes[1]!.key;
      const out = given(first, next);
      expect((out.nodes.find((n) => n.type === "list-unordered") as unknown as { nodes: Array<{ key?: string }> }).nodes[1]!.key).toBe(
        itemKey,
      );
    });
  });
});

describe("seedKeys", () => {
  it("gives the same keys to the same document and seed, different keys to another seed, all distinct", () => {
    const make = (): JSONDocument =>
      ({
        object: "document",
        data: {},
        nodes: [
          {
            object: "block",
            type: "paragraph",
            key: "a",
            data: {},
            nodes: [{ object: "text", leaves: [{ object: "leaf", text: "one", marks: [] }] }],
          },
          {
            object: "block",
            type: "list-unordered",
            key: "b",
            data: {},
            nodes: [{ object: "block", type: "list-item", key: "c", data: {}, nodes: [] }],
          },
        ],
      }) as unknown as JSONDocument;
    const [first, again, other] = [make(), make(), make()];
    seedKeys(first, "answer-1");
    seedKeys(again, "answer-1");
    seedKeys(other, "answer-2");
    expect(collectKeys(first)).toEqual(collectKeys(again));
    expect(new Set(collectKeys(first)).size).toBe(3);
    expect(collectKeys(first).every((k) => /^[0-9A-Za-z]{12}$/.test(k))).toBe(true);
    expect(collectKeys(other)).not.toEqual(collectKeys(first));
  });
});
