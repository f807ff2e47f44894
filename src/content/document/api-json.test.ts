import { describe, expect, it } from "vitest";
import { canonicalJson } from "../store/canonical.js";
import { anchoredDocumentJson, sendsAsStored } from "./api-json.js";

const doc = (extra: Record<string, unknown> = {}) => ({ object: "document", data: {}, nodes: [], ...extra });

describe("sendsAsStored", () => {
  it("accepts canonical documents, line breaks in values included", () => {
    expect(sendsAsStored(canonicalJson(doc()))).toBe(true);
    expect(sendsAsStored(canonicalJson({ object: "document", nodes: [] }))).toBe(true);
    const text = { object: "text", leaves: [{ object: "leaf", text: 'a\nb\r"c":\u2028\\n', marks: [] }] };
    expect(sendsAsStored(canonicalJson(doc({ nodes: [{ object: "block", type: "paragraph", nodes: [text] }] })))).toBe(true);
    // A backslash followed by "n" in a key is not a line break.
    expect(sendsAsStored(canonicalJson(doc({ data: { "a\\n": 1 } })))).toBe(true);
  });

  it("refuses a key holding a line terminator, at any depth", () => {
    for (const key of ["a\nb", "\r", "x\u2028", "\u2029y"]) {
      expect(sendsAsStored(canonicalJson(doc({ data: { [key]: 1 } }))), JSON.stringify(key)).toBe(false);
      expect(sendsAsStored(canonicalJson(doc({ nodes: [{ object: "block", deep: { [key]: 1 } }] }))), JSON.stringify(key)).toBe(false);
    }
  });

  it("refuses what is not a document object the serializer would send as it is", () => {
    expect(sendsAsStored(canonicalJson({ object: "block", nodes: [] }))).toBe(false);
    expect(sendsAsStored(canonicalJson(doc({ data: null })))).toBe(false);
    expect(sendsAsStored(JSON.stringify(doc()))).toBe(false); // not canonical: key order unknown
    expect(sendsAsStored(canonicalJson(doc()).replace(":", ": "))).toBe(false);
  });
});

describe("anchoredDocumentJson", () => {
  it("is the stored text without headings, the anchored document with them", () => {
    const plain = canonicalJson(doc({ nodes: [{ object: "block", type: "paragraph", nodes: [] }] }));
    expect(anchoredDocumentJson("h1", plain)).toBe(plain);
    const heading = {
      object: "block",
      type: "heading-1",
      nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Hi", marks: [] }] }],
    };
    const withHeading = canonicalJson(doc({ nodes: [heading] }));
    expect(JSON.parse(anchoredDocumentJson("h2", withHeading)!).nodes[0].meta).toEqual({ id: "hi" });
    expect(anchoredDocumentJson("h3", canonicalJson(doc({ data: { "a\nb": 1 } })))).toBeUndefined();
  });
});
