import { Transform } from "@tiptap/pm/transform";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { FakeRepository } from "../../../test/fixtures/markdown/fake-repository.js";
import { schemaErrors } from "../../../test/helpers/contract.js";
import {
  Builder,
  everyNodeDocument,
  MARK_TYPES,
  markdownFixtures,
  REF_KINDS,
  randomDocument,
} from "../../../test/helpers/editor-documents.js";
import { everyBlockDocument } from "../../../test/helpers/render-documents.js";
import { RichDocument } from "../../http/schemas.js";
import { DomainError } from "../../lib/errors.js";
import { collectKeys } from "../document/keys.js";
import { prepareDocumentNow } from "../document/off-thread.js";
import type { JSONDocument } from "../document/types.js";
import { parseMarkdownPage } from "../markdown/parse.js";
import { canonicalJson } from "../store/canonical.js";
import { type EditorNode, fromEditorDoc, MAX_ATTRIBUTE_DEPTH, MAX_EDITOR_DEPTH, toEditorDoc } from "./convert.js";
import { LEAF_MARKS, NODE_RULES } from "./model.js";
import { editorSchema } from "./schema.js";

type Any = any;

const doc = (...nodes: Any[]): JSONDocument => ({ object: "document", data: {}, nodes }) as JSONDocument;

/** ProseMirror's own JSON of the node the editor would build, null attributes left out (toEditorDoc omits them). */
function pmNormalForm(editorDoc: EditorNode): unknown {
  const node = editorSchema().nodeFromJSON(editorDoc);
  node.check();
  const strip = (json: Any): Any => {
    if (json.attrs) {
      for (const k of Object.keys(json.attrs)) if (json.attrs[k] === null) delete json.attrs[k];
      if (Object.keys(json.attrs).length === 0) delete json.attrs;
    }
    for (const mark of json.marks ?? []) strip(mark);
    for (const child of json.content ?? []) strip(child);
    return json;
  };
  return strip(node.toJSON());
}

function walkEditor(node: EditorNode, visit: (node: EditorNode) => void): void {
  visit(node);
  for (const child of node.content ?? []) walkEditor(child, visit);
}

function opaqueRaws(editorDoc: EditorNode): unknown[] {
  const out: unknown[] = [];
  walkEditor(editorDoc, (n) => {
    if (n.type === "opaqueBlock" || n.type === "opaqueInline") out.push(JSON.parse(n.attrs?.raw as string));
  });
  return out;
}

function countInlineSources(editorDoc: EditorNode): number {
  let n = 0;
  walkEditor(editorDoc, (node) => {
    if (node.attrs?.inlineSource) n++;
  });
  return n;
}

/** The law, plus: ProseMirror accepts the editor document as it is, and neither side is mutated. */
function expectRoundTrip(document: JSONDocument): EditorNode {
  const frozen = deepFreeze(structuredClone(document));
  const editorDoc = toEditorDoc(frozen);
  expect(pmNormalForm(editorDoc)).toEqual(editorDoc);
  const back = fromEditorDoc(deepFreeze(structuredClone(editorDoc)));
  expect(back).toEqual(document);
  // toEqual ignores undefined fields; the stored JSON must not differ either.
  expect(canonicalJson(back)).toBe(canonicalJson(document));
  return editorDoc;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** What the content API checks of a JSON document (the route's schema), and the spec it is documented against. */
function expectAcceptedByContentApi(document: JSONDocument): void {
  expect(Value.Check(RichDocument, document)).toBe(true);
  expect(schemaErrors("JSONDocument", document)).toEqual([]);
}

function typesIn(document: JSONDocument): Set<string> {
  const seen = new Set<string>();
  const visit = (n: Any) => {
    if (n?.type) seen.add(n.type);
    for (const leaf of n?.leaves ?? []) for (const m of leaf.marks) seen.add(`mark:${m.type}`);
    for (const c of [...(n?.nodes ?? []), ...(n?.fragments ?? [])]) visit(c);
  };
  for (const n of document.nodes) visit(n);
  return seen;
}

describe("generated documents of every node type", () => {
  for (const full of [true, false]) {
    for (const keys of [true, false]) {
      it(`${full ? "every optional field set" : "no optional field"}, ${keys ? "with" : "without"} keys: valid, editable and back identical`, () => {
        const document = everyNodeDocument({ full, keys });
        expect(schemaErrors("JSONDocument", document)).toEqual([]);
        const seen = typesIn(document);
        for (const rule of NODE_RULES) expect(seen, rule.type).toContain(rule.type);
        for (const mark of MARK_TYPES) expect(seen).toContain(`mark:${mark}`);

        const editorDoc = expectRoundTrip(document);
        // Everything is editable: nothing opaque, no inline content kept aside.
        expect(opaqueRaws(editorDoc)).toEqual([]);
        expect(countInlineSources(editorDoc)).toBe(0);
        expectAcceptedByContentApi(fromEditorDoc(editorDoc));
      });
    }
  }

  it("every content reference kind and leaf mark reaches ProseMirror as such", () => {
    const editorDoc = toEditorDoc(everyNodeDocument({ full: true, keys: true }));
    const kinds = new Set<string>();
    const marks = new Set<string>();
    walkEditor(editorDoc, (n) => {
      for (const m of n.marks ?? []) {
        marks.add(m.type);
        const ref = (m.attrs?.data as Any)?.ref;
        if (m.type === "link" && ref) kinds.add(ref.kind);
      }
    });
    expect([...kinds].sort()).toEqual([...REF_KINDS].sort());
    expect([...marks].sort()).toEqual([...LEAF_MARKS.map((m) => m.pm), "link", "annotation"].sort());
  });

  it("keeps what it converts in attributes: a table's records, an integration's props, an annotation's body", () => {
    const editorDoc = toEditorDoc(everyNodeDocument({ full: true, keys: true }));
    const table = editorDoc.content!.find((n) => n.type === "table")!;
    expect((table.attrs!.data as Any).records.r1.values.cover).toEqual({
      ref: { kind: "file", file: "file-light" },
      objectFit: "cover",
      alt: "Cover",
    });
    expect(table.content!.map((f) => f.type)).toEqual(["tableFragment", "tableFragment", "tableFragment", "tableFragment"]);
    const cellTypes = table.content!.map((f) => f.content?.[0]?.type);
    expect(cellTypes).toEqual(["paragraph", "conditional", "columns", undefined]);
    let annotation: Any;
    walkEditor(editorDoc, (n) => {
      annotation ??= n.marks?.find((m) => m.type === "annotation");
    });
    expect(annotation.attrs.fragments[0].nodes.map((b: Any) => b.type)).toEqual(["paragraph", "code"]);
  });

  it("random documents: 300 seeds, valid, editable and back identical", { timeout: 120_000 }, () => {
    for (let seed = 1; seed <= 300; seed++) {
      const document = randomDocument(seed);
      expect(schemaErrors("JSONDocument", document), `seed ${seed}`).toEqual([]);
      const editorDoc = expectRoundTrip(document);
      expect(opaqueRaws(editorDoc), `seed ${seed}`).toEqual([]);
      // Two neighbouring links to the same place, both without a key, become one run of the same
      // link mark: the paragraph then keeps its inline source. Stored documents have keys.
      if (collectKeys(document).length) expect(countInlineSources(editorDoc), `seed ${seed}`).toBe(0);
    }
  });
});

describe("Markdown fixtures through the project's parser", () => {
  const fixtures = markdownFixtures();

  it("finds the fixtures", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
  });

  for (const { name, markdown } of fixtures) {
    it(`${name}: back identical, nothing opaque, accepted by the content API`, () => {
      const { document } = parseMarkdownPage(markdown, { resolve: new FakeRepository().resolve });
      const editorDoc = expectRoundTrip(document);
      expect(opaqueRaws(editorDoc)).toEqual([]);
      expect(countInlineSources(editorDoc)).toBe(0);
      expectAcceptedByContentApi(fromEditorDoc(editorDoc));
    });
  }
});

describe("what the editor cannot express comes back unchanged", () => {
  const b = new Builder(false, true);

  it("a block type the model does not know (a later schema's) is an opaque atom, wherever it is", () => {
    const future = (key: string) => ({
      object: "block",
      type: "future-block",
      key,
      data: { x: [1, { y: null }] },
      nodes: [b.paragraph()],
      later: true,
    });
    const document = doc(future("f1"), b.hint("info", [b.paragraph(), future("f2")]), b.list("list-unordered", [[future("f3")]]));
    const editorDoc = expectRoundTrip(document);
    expect(opaqueRaws(editorDoc).map((r: Any) => r.key)).toEqual(["f1", "f2", "f3"]);
  });

  it("an inline type or mark the model does not know makes an opaque inline, and its block keeps its inline source", () => {
    const document = doc(
      b.paragraph(b.text("a "), { object: "inline", type: "future-inline", key: "i1", isVoid: true, data: {} }, b.text(" b")),
      b.block("paragraph", {
        nodes: [{ object: "text", leaves: [{ object: "leaf", text: "x", marks: [{ object: "mark", type: "glow" }] }] }],
      }),
    );
    const editorDoc = expectRoundTrip(document);
    expect(opaqueRaws(editorDoc)).toHaveLength(2);
  });

  it("known nodes where the 0.146 schema does not allow them, or not well formed, are opaque", () => {
    const image = b.image("alt");
    const cases: Any[] = [
      image, // an image outside images
      b.columns([[b.paragraph()]]), // columns at the top level
      b.block("if", { data: { expression: "true" }, nodes: [b.paragraph()] }), // if at the top level
      b.hint("info", [b.table("grid", [])]), // a table inside a hint: the table is opaque, the hint is not
      { ...b.images(), isVoid: undefined }, // images without isVoid: false
      b.block("list-unordered", { nodes: "not a list" }),
      b.block("heading-2", { nodes: [b.text("no data")] }),
      { ...b.expandable(), fragments: [b.expandable().fragments[1]] }, // an expandable without a title
      { ...b.image("x"), fragments: [{ object: "fragment", fragment: "not-caption", nodes: [] }] },
      b.block("paragraph", { key: 42, nodes: [b.text("key not a string")] }),
      b.void("divider", {}),
    ];
    cases[cases.length - 1].isVoid = false; // a divider that says it is not void
    const editorDoc = expectRoundTrip(doc(...cases.map((c) => JSON.parse(JSON.stringify(c)))));
    const types = opaqueRaws(editorDoc).map((r: Any) => r.type);
    expect(types).toEqual([
      "image",
      "columns",
      "if",
      "table",
      "images",
      "list-unordered",
      "heading-2",
      "expandable",
      "image",
      "paragraph",
      "divider",
    ]);
    expect(editorDoc.content![3]!.type).toBe("hint");
  });

  it("fields the model does not know, on any node, fragment or the document, are kept", () => {
    const document = {
      ...doc(
        { ...b.paragraph(), isVoid: false, later: { a: 1 } },
        { ...b.expandable(), extraField: "x" },
        { ...b.void("divider", {}), nodes: [{ object: "text", leaves: [{ object: "leaf", text: "", marks: [] }] }] },
      ),
      later: ["document-level"],
    } as Any;
    document.nodes[1].fragments[0].extra = true;
    document.data = { schemaVersion: 3, other: { x: 1 } };
    const editorDoc = expectRoundTrip(document);
    expect(opaqueRaws(editorDoc)).toEqual([]);
  });

  it("inline content not in normal form is kept as it was until the block is edited, then written in normal form", () => {
    const odd = [
      // marks in another order, a leaf split with the same marks, a mark with empty data
      {
        object: "text",
        leaves: [
          { object: "leaf", text: "a", marks: [b.mark("italic"), b.mark("bold")] },
          { object: "leaf", text: "b", marks: [b.mark("italic"), b.mark("bold")] },
          { object: "leaf", text: "c", marks: [{ object: "mark", type: "code", data: {} }] },
        ],
      },
      // two texts in a row, a text with a key, no empty text around the inline at the end
      { object: "text", key: "t1", leaves: [{ object: "leaf", text: "d", marks: [] }] },
      { object: "text", leaves: [{ object: "leaf", text: "e", marks: [] }] },
      { object: "inline", type: "emoji", key: "e1", isVoid: true, data: { code: "1f600" } },
    ];
    const document = doc(b.block("paragraph", { key: "p1", nodes: odd }));
    const editorDoc = expectRoundTrip(document);
    expect(countInlineSources(editorDoc)).toBe(1);
    expect(opaqueRaws(editorDoc)).toEqual([]);

    // The user types a character: the paragraph is written in normal form, with its edit.
    const edited = structuredClone(editorDoc);
    const paragraph = edited.content![0]!;
    paragraph.content!.push({ type: "text", text: "!" });
    const out = fromEditorDoc(edited);
    expect(out.nodes[0]).toEqual({
      object: "block",
      type: "paragraph",
      key: "p1",
      nodes: [
        {
          object: "text",
          leaves: [
            { object: "leaf", text: "ab", marks: [b.mark("bold"), b.mark("italic")] },
            { object: "leaf", text: "c", marks: [{ object: "mark", type: "code", data: {} }] },
            { object: "leaf", text: "de", marks: [] },
          ],
        },
        { object: "inline", type: "emoji", key: "e1", isVoid: true, data: { code: "1f600" } },
        { object: "text", leaves: [{ object: "leaf", text: "!", marks: [] }] },
      ],
    });
  });

  it("subtrees nested deeper than MAX_EDITOR_DEPTH are opaque, without overflowing the stack", () => {
    let node: Any = b.paragraph();
    for (let i = 0; i < 1500; i++) node = b.quote([node]);
    const document = doc(node);
    const editorDoc = toEditorDoc(document);
    expect(opaqueRaws(editorDoc)).toHaveLength(1);
    let depth = 0;
    for (let n: EditorNode | undefined = editorDoc; n; n = n.content?.[0]) depth++;
    expect(depth).toBeLessThanOrEqual(MAX_EDITOR_DEPTH + 3);
    expect(fromEditorDoc(editorDoc)).toEqual(document);
  });

  it("a node whose data or annotation body nests deeper than MAX_ATTRIBUTE_DEPTH is opaque", () => {
    let deep: Any = {};
    for (let i = 0; i < MAX_ATTRIBUTE_DEPTH + 5; i++) deep = { d: deep };
    let list: Any = b.paragraph();
    for (let i = 0; i < MAX_ATTRIBUTE_DEPTH; i++) list = b.list("list-unordered", [[list]]);
    const annotation = { ...b.annotation("deep"), fragments: [{ object: "fragment", type: "annotation-body", nodes: [list] }] };
    const document = doc(b.void("integration", { integration: "x", block: "y", props: deep }), b.paragraph(b.text("a "), annotation));
    const editorDoc = expectRoundTrip(document);
    expect(opaqueRaws(editorDoc).map((r: Any) => r.type)).toEqual(["integration", "annotation"]);
  });

  it("a document nested beyond what JSON.stringify can write is refused with a message, not a crash", () => {
    let node: Any = b.paragraph();
    for (let i = 0; i < 20_000; i++) node = b.quote([node]);
    expect(() => toEditorDoc(doc(node))).toThrow(/nests too deeply/);
  });

  it("the render tests' every-block document (top-level if and columns, a future block) comes back identical", () => {
    expectRoundTrip(everyBlockDocument());
  });

  it("refuses what is not a document, with a message", () => {
    expect(() => toEditorDoc({ object: "block" } as Any)).toThrow(DomainError);
    expect(() => fromEditorDoc({ type: "paragraph" } as Any)).toThrow(/must be a "doc" node/);
    expect(() => fromEditorDoc({ type: "doc", content: [{ type: "bogus" }] } as Any)).toThrow(
      /"bogus" that the document model does not know/,
    );
    let deep: EditorNode = { type: "paragraph" };
    for (let i = 0; i < 50_000; i++) deep = { type: "blockquote", content: [deep] };
    expect(() => fromEditorDoc({ type: "doc", content: [deep] })).toThrow(/nests too deeply/);
    expect(() => toEditorDoc({ object: "document", data: "x", nodes: [] } as Any)).toThrow(/an object as data/);
  });
});

describe("keys of nodes made or copied in the editor", () => {
  const schema = editorSchema();
  const builder = new Builder(false, true);
  let counter = 0;
  const newKey = () => `new${counter++}`;

  it("a node made in the editor (no key) gets a fresh key; one without a key in the document keeps none", () => {
    const editorDoc: EditorNode = {
      type: "doc",
      content: [
        { type: "paragraph", attrs: { key: false }, content: [{ type: "text", text: "had no key" }] },
        { type: "paragraph", content: [{ type: "text", text: "new" }] },
        { type: "hint", attrs: { data: { style: "danger" } }, content: [{ type: "paragraph" }] },
        {
          type: "expandable",
          content: [
            { type: "expandableTitle", content: [{ type: "paragraph" }] },
            { type: "expandableBody", content: [{ type: "paragraph" }] },
          ],
        },
      ],
    };
    const out = fromEditorDoc(editorDoc) as Any;
    expect(out.nodes[0].key).toBeUndefined();
    const keys = collectKeys(out);
    expect(keys).toHaveLength(8);
    expect(new Set(keys).size).toBe(8);
    for (const key of keys) expect(key).toMatch(/^[0-9A-Za-z]{12}$/);
    expectAcceptedByContentApi(out);
    expect(out.nodes[3].fragments.map((f: Any) => [f.fragment, f.type])).toEqual([
      ["expandable-title", "expandable-title"],
      ["expandable-body", "expandable-body"],
    ]);
  });

  it("a block pasted twice keeps its keys the first time; the copy and everything in it get new ones", () => {
    const document = doc(
      builder.hint("info", [builder.paragraph(builder.text("x "), builder.inline("emoji", { isVoid: true, data: { code: "1f600" } }))]),
      builder.paragraph(),
    );
    const editorDoc = toEditorDoc(document);
    const pasted = { ...editorDoc, content: [editorDoc.content![0]!, editorDoc.content![1]!, structuredClone(editorDoc.content![0]!)] };
    const out = fromEditorDoc(pasted, { newKey }) as Any;
    expect(out.nodes[0]).toEqual(document.nodes[0]);
    const before = new Set(collectKeys(document));
    const copyKeys = collectKeys({ ...out, nodes: [out.nodes[2]] });
    expect(copyKeys).toHaveLength(3);
    for (const key of copyKeys) expect(before.has(key)).toBe(false);
    expect(new Set(collectKeys(out)).size).toBe(collectKeys(out).length);
  });

  it("splitting a block (ProseMirror copies its attributes) gives the second half a new key", () => {
    const document = doc(builder.paragraph(builder.text("one two")), builder.paragraph(builder.text("after")));
    const node = schema.nodeFromJSON(toEditorDoc(document));
    const split = new Transform(node).split(5).doc;
    const out = fromEditorDoc(split.toJSON(), { newKey }) as Any;
    expect(out.nodes.map((n: Any) => n.nodes[0].leaves[0].text)).toEqual(["one ", "two", "after"]);
    expect(out.nodes[0].key).toBe(document.nodes[0]!.key);
    expect(out.nodes[1].key).toMatch(/^new\d+$/);
    expect(out.nodes[2].key).toBe(document.nodes[1]!.key);
  });

  it("a fresh key never repeats one the document already has", () => {
    const document = doc(builder.paragraph(), builder.paragraph());
    const taken = collectKeys(document);
    const editorDoc = toEditorDoc(document);
    editorDoc.content!.push({ type: "paragraph" });
    const offered = [...taken, ...taken, "unique"];
    const out = fromEditorDoc(editorDoc, { newKey: () => offered.shift()! });
    expect(collectKeys(out)).toEqual([...taken, "unique"]);
  });

  it("annotations and links copied within a paragraph: the body of the copy gets new keys too", () => {
    const document = doc(builder.paragraph(builder.text("see "), builder.annotation("this")));
    const editorDoc = toEditorDoc(document);
    const paragraph = editorDoc.content![0]!;
    const annotated = paragraph.content!.find((n) => n.marks?.some((m) => m.type === "annotation"))!;
    paragraph.content!.push({ type: "text", text: " and " }, structuredClone(annotated));
    const out = fromEditorDoc(editorDoc, { newKey });
    const keys = collectKeys(out);
    expect(new Set(keys).size).toBe(keys.length);
    expect((out.nodes[0] as Any).nodes.filter((n: Any) => n.type === "annotation")).toHaveLength(2);
  });
});

describe("documents made in the editor are accepted by the content API", () => {
  const schema = editorSchema();

  it("every block the schema can create with its defaults", () => {
    // These need a reference the user picks (an image, a file, a page...) before they mean anything.
    const needsInput = new Set([
      "image",
      "file",
      "drawing",
      "contentRef",
      "reusableContent",
      "swagger",
      "openapiOperation",
      "openapiSchemas",
      "openapiWebhook",
      "integration",
      "embed",
      "images",
      // An atom that only ever holds JSON the model did not know.
      "opaqueBlock",
    ]);
    const made: string[] = [];
    for (const type of Object.values(schema.nodes)) {
      if (!type.isInGroup("ctxDocument") || needsInput.has(type.name)) continue;
      const node = type.createAndFill();
      expect(node, type.name).toBeTruthy();
      const editorDoc = schema.node("doc", null, [node!]).toJSON();
      expectAcceptedByContentApi(fromEditorDoc(editorDoc));
      made.push(type.name);
    }
    expect(made.length).toBeGreaterThanOrEqual(10);
  });

  it("a whole document re-made in the editor without keys (every node new) gets unique keys and validates", () => {
    const editorDoc = toEditorDoc(everyNodeDocument({ full: true, keys: true }));
    const strip = (node: EditorNode) => {
      if (node.attrs) delete node.attrs.key;
      for (const mark of node.marks ?? []) if (mark.attrs) delete mark.attrs.key;
      for (const child of node.content ?? []) strip(child);
    };
    strip(editorDoc);
    const out = fromEditorDoc(editorDoc);
    expectAcceptedByContentApi(out);
    const keys = collectKeys(out);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("stored through the content API's own preparation, the editor's document keeps its keys", () => {
    const original = everyNodeDocument({ full: true, keys: true });
    const out = fromEditorDoc(toEditorDoc(original));
    const prepared = prepareDocumentNow({ documentJson: JSON.stringify(out), previousJson: JSON.stringify(original) });
    expect(prepared.json).toBe(canonicalJson(original));
  });
});

describe("what the editor's image controls write", () => {
  it("a width in pixels, a dark variant and a caption added in the editor: accepted, and back identical", () => {
    const paragraph = (text: string) => ({
      object: "block",
      type: "paragraph",
      key: `p-${text.length}`,
      nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
    });
    const document = doc({
      object: "block",
      type: "images",
      key: "imgs",
      isVoid: false,
      data: {},
      nodes: [
        {
          object: "block",
          type: "image",
          key: "img",
          isVoid: true,
          data: { ref: { kind: "file", file: "light" }, refDark: { kind: "file", file: "dark" }, width: 320, alt: "The lamp room" },
          fragments: [{ object: "fragment", fragment: "caption", type: "caption", key: "cap", nodes: [paragraph("Lit at dusk")] }],
        },
      ],
    });
    expectAcceptedByContentApi(document);
    const editorDoc = toEditorDoc(document);
    expect(JSON.stringify(editorDoc)).not.toContain("opaque");
    expect(fromEditorDoc(editorDoc)).toEqual(document);
    // The caption the editor adds to an image without one: one empty paragraph, given keys on the way out.
    const bare = structuredClone(editorDoc) as Any;
    const image = bare.content[0].content[0];
    image.content = [{ type: "imageCaption", content: [{ type: "paragraph" }] }];
    const out = fromEditorDoc(bare) as Any;
    expectAcceptedByContentApi(out);
    expect(out.nodes[0].nodes[0].fragments).toHaveLength(1);
    expect(out.nodes[0].nodes[0].fragments[0].fragment).toBe("caption");
  });
});
