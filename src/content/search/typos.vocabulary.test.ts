/**
 * A space's vocabulary as site search loads it: read in slices by word (so that no statement holds
 * the request thread over the whole list) and indexed in a worker thread when large, kept per
 * indexed revision; the corrections are the same as a vocabulary built at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { closestWords, occurrencesOf, packVocabulary, unpackVocabulary, vocabulariesOf, vocabularyOf } from "./typos.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

/** 12,000 distinct made-up words (three slices of reads; past the inline bound, so built in a worker). */
const WORDS = Array.from({ length: 12_000 }, (_, i) => {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let word = "";
  for (let n = i + 26 * 26 * 26; n > 0; n = Math.floor(n / 26)) word += letters[n % 26];
  return `${word}ment`;
});

describe("a space's vocabulary for site search", () => {
  it("reads every word in slices, builds it off the request thread, and corrects as a vocabulary built at once", async () => {
    const { db } = database;
    const rows = WORDS.map((word, i) => ({ spaceId: "space-a", word, occurrences: (i % 7) + 1 }));
    rows.push({ spaceId: "space-a", word: "kubernetes", occurrences: 40 }, { spaceId: "space-b", word: "kubernetez", occurrences: 90 });
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto("searchWords")
        .values(rows.slice(i, i + 500))
        .execute();
    const now = new Date().toISOString();
    await db
      .insertInto("searchIndexState")
      .values([
        { spaceId: "space-a", revisionId: "r1", indexedAt: now },
        { spaceId: "space-b", revisionId: "r1", indexedAt: now },
      ])
      .execute();

    const [loaded] = await vocabulariesOf(db, ["space-a"]);
    expect(loaded!.words).toHaveLength(WORDS.length + 1);
    // Sorted, with each word's own occurrences (another space's words are not read).
    expect(loaded!.words).toEqual([...loaded!.words].sort());
    expect(occurrencesOf(loaded!, "kubernetes")).toBe(40);
    expect(occurrencesOf(loaded!, "kubernetez")).toBe(0);
    expect(occurrencesOf(loaded!, WORDS[9]!)).toBe(3);
    const atOnce = vocabularyOf(rows.filter((r) => r.spaceId === "space-a"));
    for (const word of ["kubernets", "kubrenetes", `${WORDS[5_000]!.slice(0, -1)}x`, "zzzzment"]) {
      expect(closestWords([loaded!], { word, prefix: false }), word).toEqual(closestWords([atOnce], { word, prefix: false }));
    }
    expect(closestWords([loaded!], { word: "kubernets", prefix: false })).toEqual(["kubernetes"]);
    // Kept per revision: the same object until the space is indexed again.
    expect((await vocabulariesOf(db, ["space-a"]))[0]).toBe(loaded);
    await db.updateTable("searchIndexState").set({ revisionId: "r2" }).where("spaceId", "=", "space-a").execute();
    expect((await vocabulariesOf(db, ["space-a"]))[0]).not.toBe(loaded);
  });

  it("packs and unpacks without losing a word, an occurrence or a pair", () => {
    const rows = [
      { word: "été", occurrences: 2 },
      { word: "alpha", occurrences: 5 },
      { word: "alphabet", occurrences: 1 },
    ];
    const vocabulary = unpackVocabulary(packVocabulary(rows));
    expect(vocabulary.words).toEqual(["alpha", "alphabet", "été"]);
    expect([...vocabulary.occurrences]).toEqual([5, 1, 2]);
    expect(closestWords([vocabulary], { word: "alpah", prefix: false })).toEqual(["alpha"]);
    expect(unpackVocabulary(packVocabulary([])).words).toEqual([]);
  });
});
