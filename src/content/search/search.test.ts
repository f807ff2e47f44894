import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/db.js";
import { fullTextIndex } from "./engine.js";
import { parseSearchQuery, replaceSpace, type SearchSectionInput, sectionDetails } from "./fulltext.js";
import { searchOrganization, searchPages } from "./search.service.js";
import { snippetOf } from "./snippets.js";

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
    audience: "everyone",
    ...over,
  };
}

/** Members' search of the words of `query` (as a user's query reads them). */
const q = parseSearchQuery;

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
    const hits = await index.search(db.db, ["s1"], q("install"), 10, "members");
    const pages = hits.map((h) => h.pageId);
    expect(pages).toContain("body-match");
    expect(pages).toContain("nested");
    expect(pages).not.toContain("other");
    expect(pages[0]).toBe("title-match");
    const body = hits.find((h) => h.pageId === "body-match")!;
    const { body: text } = (await sectionDetails(db.db, [body.rowId])).get(body.rowId)!;
    expect(snippetOf(text, q("install"))).toContain("installing");
    const nested = hits.find((h) => h.pageId === "nested")!;
    expect((await sectionDetails(db.db, [nested.rowId])).get(nested.rowId)).toMatchObject({
      anchor: "configure",
      ancestors: [{ title: "Guides" }],
    });
    // prefix of the last word
    expect((await index.search(db.db, ["s1"], q("deplo"), 10, "members")).map((h) => h.pageId)).toEqual(["body-match"]);
  });

  it("only searches the given spaces and replaces a space's rows", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "a", [section("pa", { body: "zebra crossing" })]);
    await replaceSpace(index, db.db, "b", [section("pb", { body: "zebra stripes" })]);
    expect((await index.search(db.db, ["a"], q("zebra"), 10, "members")).map((h) => h.pageId)).toEqual(["pa"]);
    await replaceSpace(index, db.db, "a", [section("pa2", { body: "giraffe" })]);
    expect(await index.search(db.db, ["a"], q("zebra"), 10, "members")).toEqual([]);
    expect((await index.search(db.db, ["a", "b"], q("zebra"), 10, "members")).map((h) => h.pageId)).toEqual(["pb"]);
    await index.removeSpace(db.db, "b");
    expect(await index.search(db.db, ["b"], q("zebra"), 10, "members")).toEqual([]);
  });

  it("indexes and replaces a space larger than one statement's chunk (SQLite writes the index in chunks)", async () => {
    const index = fullTextIndex(db.dialect);
    const many = Array.from({ length: 250 }, (_, i) =>
      section(`big${i}`, { body: `${i === 249 ? "okapi " : ""}${"filler ".repeat(2000)}` }),
    );
    await replaceSpace(index, db.db, "big", many);
    expect((await index.search(db.db, ["big"], q("okapi"), 10, "members")).map((h) => h.pageId)).toEqual(["big249"]);
    expect((await index.search(db.db, ["big"], q("filler"), 300, "members")).length).toBe(250);
    await replaceSpace(index, db.db, "big", [section("small", { body: "tapir" })]);
    expect(await index.search(db.db, ["big"], q("okapi"), 10, "members")).toEqual([]);
    expect(await index.search(db.db, ["big"], q("filler"), 10, "members")).toEqual([]);
    expect((await index.search(db.db, ["big"], q("tapir"), 10, "members")).map((h) => h.pageId)).toEqual(["small"]);
    const rows = await db.db.selectFrom("searchSections").select("id").where("spaceId", "=", "big").execute();
    expect(rows).toHaveLength(1);
  });

  it("treats query syntax as plain words", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "syntax", [section("p", { body: "quoted NEAR text and stars" })]);
    for (const hostile of [
      '"unterminated',
      "text OR b",
      "NEAR(x y)",
      "text -(minus)",
      "col:value",
      "')); drop table x; --",
      "AND NOT text*",
    ]) {
      await expect(index.search(db.db, ["syntax"], q(hostile), 10, "members")).resolves.toBeInstanceOf(Array);
    }
    expect((await index.search(db.db, ["syntax"], q('"near'), 10, "members")).map((h) => h.pageId)).toEqual(["p"]);
    expect((await index.search(db.db, ["syntax"], q("text OR absent"), 10, "members")).map((h) => h.pageId)).toEqual([]);
  });

  it("excludes -words, matches word* as a prefix, and refuses a query of stop words with exclusions", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "shape", [
      section("both", { body: "alpha and beta together" }),
      section("alpha", { body: "alpha alone" }),
      section("prefix", { body: "unbelievable things" }),
    ]);
    const pages = async (query: string) => (await index.search(db.db, ["shape"], q(query), 10, "members")).map((h) => h.pageId).sort();
    expect(await pages("alpha")).toEqual(["alpha", "both"]);
    expect(await pages("alpha -beta")).toEqual(["alpha"]);
    expect(await pages("alpha -bet*")).toEqual(["alpha"]);
    expect(await pages("unbel* things")).toEqual(["prefix"]);
    expect(await pages("unbel things")).toEqual([]);
    // "the" is an English stop word on PostgreSQL: "the -beta" must not become "anything but beta".
    expect(await pages("the -beta")).toEqual([]);
  });

  it("finds members' rows for members and readers' rows for readers, with their conditions", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "aud", [
      section("plain", { body: "okapi everywhere" }),
      section("cond", { body: "okapi shared then secret zebra", audience: "members" }),
      section("cond", { body: "okapi shared", audience: "readers", conditions: [] }),
      section("cond", { body: "okapi shared then secret zebra", audience: "readers", conditions: ["visitor.claims.beta"] }),
    ]);
    const members = await index.search(db.db, ["aud"], q("zebra"), 10, "members");
    expect(members.map((h) => [h.pageId, h.conditions])).toEqual([["cond", null]]);
    const readers = await index.search(db.db, ["aud"], q("zebra"), 10, "readers");
    expect(readers.map((h) => [h.pageId, h.conditions])).toEqual([["cond", JSON.stringify(["visitor.claims.beta"])]]);
    const everyone = await index.search(db.db, ["aud"], q("okapi"), 10, "readers");
    expect(everyone.map((h) => h.conditions).sort()).toEqual([JSON.stringify([]), JSON.stringify(["visitor.claims.beta"]), null].sort());
  });

  it("matches accented and non-Latin words", async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "intl", [section("fr", { body: "Le café est prêt" }), section("ja", { body: "東京 タワー" })]);
    expect((await index.search(db.db, ["intl"], q("café"), 10, "members")).map((h) => h.pageId)).toEqual(["fr"]);
    expect((await index.search(db.db, ["intl"], q("東京"), 10, "members")).map((h) => h.pageId)).toEqual(["ja"]);
  });

  it('finds a title with a compatibility character as it is written (HackTricks\' "Download 2ºFTP file")', async () => {
    const index = fullTextIndex(db.dialect);
    await replaceSpace(index, db.db, "compat", [section("ftp", { pageTitle: "FTP Bounce - Download 2ºFTP file" })]);
    expect((await index.search(db.db, ["compat"], q("FTP Bounce - Download 2ºFTP file"), 10, "members")).map((h) => h.pageId)).toEqual([
      "ftp",
    ]);
    expect((await index.search(db.db, ["compat"], q("2ºFTP"), 10, "members")).map((h) => h.pageId)).toEqual(["ftp"]);
  });
});

describe("parseSearchQuery", () => {
  it("reads words, -exclusions and word* prefixes; the last word is a prefix from three letters", () => {
    expect(q("Install the CLI")).toEqual({
      include: [
        { word: "install", prefix: false },
        { word: "the", prefix: false },
        { word: "cli", prefix: true },
      ],
      exclude: [],
    });
    expect(q("go")).toEqual({ include: [{ word: "go", prefix: false }], exclude: [] });
    expect(q("alpha -beta")).toEqual({ include: [{ word: "alpha", prefix: false }], exclude: [{ word: "beta", prefix: false }] });
    expect(q("inst* guide -old*")).toEqual({
      include: [
        { word: "inst", prefix: true },
        { word: "guide", prefix: false },
      ],
      exclude: [{ word: "old", prefix: true }],
    });
    // A hyphen inside a word separates words; it excludes only at the start of one.
    expect(q("e-mail")).toEqual({
      include: [
        { word: "e", prefix: false },
        { word: "mail", prefix: true },
      ],
      exclude: [],
    });
    expect(q("alpha alpha ALPHA")).toEqual({ include: [{ word: "alpha", prefix: true }], exclude: [] });
  });

  it("refuses queries past its bounds with a message saying what to change", () => {
    const refusal = (query: string) => {
      try {
        q(query);
      } catch (error) {
        expect(error).toMatchObject({ kind: "invalid" });
        return (error as Error).message;
      }
      throw new Error(`${query} was accepted`);
    };
    expect(refusal("&|!:*")).toBe("The query has no words to search for (letters or digits).");
    expect(refusal("b*")).toBe('"b*" is too short a prefix: a word ending in * needs at least 3 letters or digits before the *.');
    expect(refusal("alpha be*")).toContain('"be*" is too short a prefix');
    expect(refusal("-beta")).toBe("The query only excludes words (-word): add at least one word to search for.");
    expect(refusal("-beta -gamma")).toBe("The query only excludes words (-word): add at least one word to search for.");
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
    expect(refusal(words(17))).toBe("The query has more than 16 different words; search for at most 16.");
    expect(refusal(`alpha ${"x".repeat(65)}`)).toContain("is longer than 64 letters");
    expect(q("one two three four five six seven eight").include).toHaveLength(8);
    // A long page title pasted whole is searched, and a repeated word counts once.
    expect(q(words(16)).include).toHaveLength(16);
    expect(q(`${words(16)} word3 word3`).include).toHaveLength(16);
    expect(q("AWS Lambda – EFS Mount Injection via UpdateFunctionConfiguration (Data Theft)").include).toHaveLength(9);
  });
});

describe("snippetOf", () => {
  it("shows the words around the best match, with ellipses where the text is cut", () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    const text = [...words.slice(0, 30), "Kangaroo", "facts", ...words.slice(30)].join(" ");
    const snippet = snippetOf(text, q("kangaroo facts"));
    expect(snippet.startsWith("…w26 w27 w28 w29 Kangaroo facts")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet.split(" ")).toHaveLength(24);
    // The window holding most of the query's words wins over the first match.
    const spread = `${"alpha ".repeat(1)}${words.join(" ")} alpha beta`;
    expect(snippetOf(spread, q("alpha beta"))).toContain("alpha beta");
    // Stemmed and prefix matches; the text's start when nothing matches (a title match).
    expect(snippetOf(`${words.join(" ")} installing`, q("installs"))).toContain("installing");
    expect(snippetOf(`${words.join(" ")} deployment`, q("deplo"))).toContain("deployment");
    expect(snippetOf(words.join(" "), q("absent"))).toBe(`${words.slice(0, 24).join(" ")}…`);
    expect(snippetOf("Short text.", q("short"))).toBe("Short text.");
    expect(snippetOf("", q("short"))).toBe("");
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
