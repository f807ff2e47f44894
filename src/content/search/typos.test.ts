import { describe, expect, it } from "vitest";
import { closestWords, correctedQuery, editDistance, vocabularyOf, vocabularyRows } from "./typos.js";

const vocabulary = (words: Record<string, number>) =>
  vocabularyOf(Object.entries(words).map(([word, occurrences]) => ({ word, occurrences })));

describe("typo tolerance", () => {
  it("counts an edit per letter added, removed, changed, or pair of neighbours swapped, up to a bound", () => {
    expect(editDistance("kubernetes", "kubernetes", 2)).toBe(0);
    expect(editDistance("kubrenetes", "kubernetes", 2)).toBe(1);
    expect(editDistance("kubernets", "kubernetes", 2)).toBe(1);
    expect(editDistance("kubernetess", "kubernetes", 2)).toBe(1);
    expect(editDistance("kubernetas", "kubernetes", 2)).toBe(1);
    expect(editDistance("kbernetas", "kubernetes", 2)).toBe(2);
    // Past the bound, the bound plus one (the computation stops early).
    expect(editDistance("kbrnts", "kubernetes", 2)).toBe(3);
    expect(editDistance("abc", "abcdefgh", 1)).toBe(2);
  });

  it("corrects only words no vocabulary knows, into the closest then commonest words", () => {
    const v = vocabulary({ kubernetes: 10, kubernetez: 1, cluster: 5, clusters: 1, helm: 3, helix: 1 });
    expect(closestWords([v], { word: "kubernetas", prefix: false })).toEqual(["kubernetes", "kubernetez"]);
    expect(closestWords([v], { word: "clustr", prefix: false })).toEqual(["cluster"]);
    // A word being typed is compared with the start of longer words too.
    expect(closestWords([v], { word: "clustre", prefix: true })).toEqual(["cluster", "clusters"]);
    const query = {
      include: [
        { word: "helm", prefix: false },
        { word: "clustr", prefix: true },
      ],
      exclude: [],
    };
    expect(correctedQuery([v], query)).toEqual({
      include: [
        { word: "helm", prefix: false },
        { word: "clustr", prefix: true, alternatives: ["cluster", "clusters"] },
      ],
      exclude: [],
    });
    // Known words, prefixes of known words, short words and numbers: nothing to correct.
    expect(correctedQuery([v], { include: [{ word: "helm", prefix: false }], exclude: [] })).toBeUndefined();
    expect(correctedQuery([v], { include: [{ word: "kuber", prefix: true }], exclude: [] })).toBeUndefined();
    expect(correctedQuery([v], { include: [{ word: "hel", prefix: false }], exclude: [] })).toBeUndefined();
    expect(correctedQuery([v], { include: [{ word: "12345", prefix: false }], exclude: [] })).toBeUndefined();
    // Several spaces' vocabularies: a word one of them knows is not corrected.
    expect(correctedQuery([v, vocabulary({ clustr: 1 })], { include: [{ word: "clustr", prefix: false }], exclude: [] })).toBeUndefined();
  });

  it("keeps the commonest words of a vocabulary past its bound", () => {
    const counts = new Map(Array.from({ length: 50_010 }, (_, i) => [`w${i}`, i < 10 ? 1 : 2] as const));
    const rows = vocabularyRows(counts);
    expect(rows).toHaveLength(50_000);
    expect(rows.some((r) => r.occurrences === 1)).toBe(false);
  });
});
