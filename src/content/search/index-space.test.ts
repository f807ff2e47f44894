import { describe, expect, it } from "vitest";
import type { PageLocation } from "../revision/model.js";
import { cutText, pageRows, SEARCH_ROW_LIMITS } from "./index-space.js";

const location = {
  page: { id: "p1", kind: "document", title: "Vault", slug: "vault", description: "About the vault", children: [] },
  path: "guides/vault",
  ancestors: [{ title: "Guides" }],
} as unknown as Parameters<typeof pageRows>[0] & PageLocation;

describe("cutText", () => {
  it("cuts at a line break or a space, repeats the end of each piece in the next, and never exceeds the size", () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ");
    const pieces = cutText(words, 1000, 100);
    expect(pieces.length).toBeGreaterThan(20);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(1000);
    // Every word is in some piece, and the words at each cut are together in one piece.
    for (const word of ["w0", "w2500", "w4999"]) expect(pieces.some((p) => p.split(" ").includes(word))).toBe(true);
    for (let i = 1; i < pieces.length; i++) {
      const lastOfPrevious = pieces[i - 1]!.split(" ").at(-1)!;
      expect(pieces[i]!.split(" ")).toContain(lastOfPrevious);
    }
    // A text without spaces is cut where it must be.
    const solid = "x".repeat(2500);
    expect(cutText(solid, 1000, 100).map((p) => p.length)).toEqual([1000, 1000, 700]);
    expect(cutText("short", 1000, 100)).toEqual(["short"]);
  });
});

describe("pageRows", () => {
  it("indexes a section without conditional blocks for everyone, in pieces when it is long", () => {
    const long = "lorem ipsum ".repeat(4000);
    const rows = pageRows(location, [{ text: "Intro." }, { heading: { key: "h1", text: "Long part", level: 2 }, text: long }]);
    expect(rows[0]).toMatchObject({ sectionKey: "", body: "About the vault\nIntro.", audience: "everyone", pageTitle: "Vault" });
    const long_ = rows.filter((r) => r.sectionKey === "h1");
    expect(long_.length).toBeGreaterThan(2);
    for (const row of long_) {
      expect(row).toMatchObject({ anchor: "long-part", sectionTitle: "Long part", audience: "everyone" });
      expect(row.body.length).toBeLessThanOrEqual(SEARCH_ROW_LIMITS.rowBodyChars);
    }
    expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => i));
  });

  it("indexes a conditional section whole for members and as readers' rows under their conditions", () => {
    const rows = pageRows(location, [
      {
        heading: { key: "h1", text: "Codes", level: 2 },
        text: "Public.\nSecret.",
        readers: [
          { conditions: [], text: "Public." },
          { conditions: ["visitor.claims.beta"], text: "Public.\nSecret." },
        ],
      },
      // Every word of this section is conditional: readers without the claim still find its heading.
      {
        heading: { key: "h2", text: "Beta only", level: 2 },
        text: "Beta.",
        readers: [{ conditions: ["visitor.claims.beta"], text: "Beta." }],
      },
    ]);
    expect(rows.map((r) => [r.sectionKey, r.audience, r.conditions, r.body])).toEqual([
      ["h1", "members", undefined, "About the vault\nPublic.\nSecret."],
      ["h1", "readers", [], "About the vault\nPublic."],
      ["h1", "readers", ["visitor.claims.beta"], "About the vault\nPublic.\nSecret."],
      ["h2", "members", undefined, "Beta."],
      ["h2", "readers", [], ""],
      ["h2", "readers", ["visitor.claims.beta"], "Beta."],
    ]);
  });

  it("stops indexing a page's text past the page's limit", () => {
    const part = { text: "word ".repeat(SEARCH_ROW_LIMITS.pageChars / 5) };
    const rows = pageRows(location, [part, { heading: { key: "h9", text: "Later", level: 2 }, text: "after the limit" }]);
    const chars = rows.reduce((n, r) => n + r.body.length, 0);
    expect(chars).toBeLessThanOrEqual(SEARCH_ROW_LIMITS.pageChars + rows.length * SEARCH_ROW_LIMITS.rowOverlapChars + 100);
    expect(rows.some((r) => r.body.includes("after the limit"))).toBe(false);
    // Its heading is still found.
    expect(rows.at(-1)).toMatchObject({ sectionKey: "h9", body: "" });
  });
});
