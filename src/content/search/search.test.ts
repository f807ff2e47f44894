import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { fullTextIndex } from "./engine.js";
import { replaceSpace, type SearchSectionInput, searchTerms, sectionDetails } from "./fulltext.js";
import { searchOrganization, searchPages } from "./search.service.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.cleanup());

function section(pageId: string, over: Partial<SearchSectionInput> = {}): SearchSectionInput {
  return {
    pageId,
    sectionKey: "",
    position: 0,
    path: pageId,
    anchor: "",
    ancestors: [],
    pageTitle: `Page ${pageId}`,
    sectionTitle: "",
    body: "",
    ...over,
  };
}

describe("full-text index", () => {
  it("finds stemmed words and prefixes, ranks title matches first, and returns snippets", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "s1", [
      section("body-match", { body: "Before deploying, you should be installing the command line tools on every machine." }),
      section("title-match", { pageTitle: "Installation guide", body: "Everything about setup." }),
      section("other", { body: "Nothing relevant here at all." }),
      section("nested", {
        sectionKey: "h1",
        position: 1,
        anchor: "configure",
        sectionTitle: "Configure the installer",
        body: "Edit the file.",
        ancestors: [{ title: "Guides" }],
      }),
    ]);
    const hits = await index.search(db.db, ["s1"], searchTerms("install"), 10);
    const pages = hits.map((h) => h.pageId);
    expect(pages).toContain("body-match");
    expect(pages).toContain("nested");
    expect(pages).not.toContain("other");
    expect(pages[0]).toBe("title-match");
    const body = hits.find((h) => h.pageId === "body-match")!;
    const snippets = await index.snippets(db.db, [body.rowId], searchTerms("install"));
    expect(snippets.get(body.rowId)).toContain("installing");
    expect(snippets.size).toBe(1);
    const nested = hits.find((h) => h.pageId === "nested")!;
    expect((await sectionDetails(db.db, [nested.rowId])).get(nested.rowId)).toMatchObject({
      anchor: "configure",
      ancestors: [{ title: "Guides" }],
    });
    // prefix of the last word
    expect((await index.search(db.db, ["s1"], searchTerms("deplo"), 10)).map((h) => h.pageId)).toEqual(["body-match"]);
  });

  it("only searches the given spaces and replaces a space's rows", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "a", [section("pa", { body: "zebra crossing" })]);
    await replaceSpace(index, db.db, "b", [section("pb", { body: "zebra stripes" })]);
    expect((await index.search(db.db, ["a"], ["zebra"], 10)).map((h) => h.pageId)).toEqual(["pa"]);
    await replaceSpace(index, db.db, "a", [section("pa2", { body: "giraffe" })]);
    expect(await index.search(db.db, ["a"], ["zebra"], 10)).toEqual([]);
    expect((await index.search(db.db, ["a", "b"], ["zebra"], 10)).map((h) => h.pageId)).toEqual(["pb"]);
    await index.removeSpace(db.db, "b");
    expect(await index.search(db.db, ["b"], ["zebra"], 10)).toEqual([]);
  });

  it("indexes and replaces a space larger than one statement's chunk (SQLite writes the index in chunks)", async () => {
    const index = fullTextIndex(db.dialect);
    const many = Array.from({ length: 250 }, (_, i) =>
      section(`big${i}`, { body: `${i === 249 ? "okapi " : ""}${"filler ".repeat(2000)}` }),
    );
    await replaceSpace(index, db.db, "big", many);
    expect((await index.search(db.db, ["big"], ["okapi"], 10)).map((h) => h.pageId)).toEqual(["big249"]);
    expect((await index.search(db.db, ["big"], ["filler"], 300)).length).toBe(250);
    await replaceSpace(index, db.db, "big", [section("small", { body: "tapir" })]);
    expect(await index.search(db.db, ["big"], ["okapi"], 10)).toEqual([]);
    expect(await index.search(db.db, ["big"], ["filler"], 10)).toEqual([]);
    expect((await index.search(db.db, ["big"], ["tapir"], 10)).map((h) => h.pageId)).toEqual(["small"]);
    const rows = await db.db.selectFrom("searchSections").select("id").where("spaceId", "=", "big").execute();
    expect(rows).toHaveLength(1);
  });

  it("treats query syntax as plain words", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "syntax", [section("p", { body: "quoted NEAR text and stars" })]);
    for (const hostile of ['"unterminated', "a* OR b", "NEAR(x y)", "-minus", "col:value", "')); drop table x; --", "&|!:*"]) {
      await expect(index.search(db.db, ["syntax"], searchTerms(hostile), 10)).resolves.toBeInstanceOf(Array);
    }
    expect(searchTerms("&|!:*")).toEqual([]);
    expect((await index.search(db.db, ["syntax"], searchTerms('"near'), 10)).map((h) => h.pageId)).toEqual(["p"]);
  });

  it("matches accented and non-Latin words", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "intl", [section("fr", { body: "Le café est prêt" }), section("ja", { body: "東京 タワー" })]);
    expect((await index.search(db.db, ["intl"], searchTerms("café"), 10)).map((h) => h.pageId)).toEqual(["fr"]);
    expect((await index.search(db.db, ["intl"], searchTerms("東京"), 10)).map((h) => h.pageId)).toEqual(["ja"]);
  });
});

describe("searchPages", () => {
  it("groups sections by page and pages through results without repeats", async () => {
    const index = fullTextIndex(db.dialect);
    const sections: SearchSectionInput[] = [];
    for (let p = 0; p < 12; p++) {
      sections.push(section(`p${p}`, { body: `kangaroo fact number ${p}` }));
      sections.push(section(`p${p}`, { sectionKey: `k${p}`, position: 1, anchor: "more", sectionTitle: "More", body: "another kangaroo" }));
    }
    await replaceSpace(index, db.db, "grouped", sections);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await searchPages(index, db.db, ["grouped"], "kangaroo", { page, limit: 5 });
      expect(res.count).toBe(12);
      for (const r of res.results) {
        expect(r.sections).toHaveLength(2);
        seen.push(r.pageId);
      }
      page = res.next?.page;
    } while (page);
    expect(new Set(seen).size).toBe(12);
    expect(seen).toHaveLength(12);
    const badCursor = "The `page` parameter is not a cursor returned by this search; pass `next.page` from a previous response.";
    await expect(searchPages(index, db.db, ["grouped"], "kangaroo", { page: "garbage" })).rejects.toMatchObject({
      kind: "invalid",
      message: badCursor,
    });
    await expect(
      searchPages(index, db.db, ["grouped"], "kangaroo", { page: Buffer.from("[-5]").toString("base64url") }),
    ).rejects.toMatchObject({ kind: "invalid", message: badCursor });
    await expect(searchPages(index, db.db, ["grouped"], "&|!", {})).rejects.toMatchObject({
      kind: "invalid",
      message: "The query has no words to search for (letters or digits).",
    });
  });
});

describe("searchOrganization", () => {
  it("groups pages by space, spaces in the order of their best page, and pages through spaces", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "org-a", [
      section("a1", { body: "walrus" }),
      section("a2", { pageTitle: "Walrus", body: "walrus walrus" }),
    ]);
    await replaceSpace(index, db.db, "org-b", [section("b1", { pageTitle: "Walrus facts", body: "walrus" })]);
    await replaceSpace(index, db.db, "org-c", [section("c1", { body: "walrus" })]);
    const ranked = (await searchPages(index, db.db, ["org-a", "org-b"], "walrus", { limit: 100 })).results;
    const spaceOrder = [...new Set(ranked.map((r) => r.spaceId))];
    const all = await searchOrganization(index, db.db, ["org-a", "org-b"], "walrus", {});
    expect(all.count).toBe(2);
    expect(all.next).toBeUndefined();
    expect(all.results.map((s) => s.spaceId)).toEqual(spaceOrder);
    for (const space of all.results) {
      expect(space.pages.map((p) => p.pageId)).toEqual(ranked.filter((r) => r.spaceId === space.spaceId).map((r) => r.pageId));
    }
    const first = await searchOrganization(index, db.db, ["org-a", "org-b"], "walrus", { limit: 1 });
    expect(first.results.map((s) => s.spaceId)).toEqual(spaceOrder.slice(0, 1));
    expect(first.next).toBeDefined();
    const second = await searchOrganization(index, db.db, ["org-a", "org-b"], "walrus", { limit: 1, page: first.next!.page });
    expect(second).toMatchObject({ count: 2, results: [{ spaceId: spaceOrder[1] }] });
    expect(second.next).toBeUndefined();
    await expect(searchOrganization(index, db.db, ["org-a"], "walrus", { page: "garbage" })).rejects.toMatchObject({ kind: "invalid" });
  });
});
