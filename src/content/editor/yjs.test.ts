import { describe, expect, it } from "vitest";
import { yXmlFragmentToProseMirrorRootNode } from "y-prosemirror";
import * as Y from "yjs";
import { FakeRepository } from "../../../test/fixtures/markdown/fake-repository.js";
import { schemaErrors } from "../../../test/helpers/contract.js";
import { Builder, everyNodeDocument, markdownFixtures, randomDocument } from "../../../test/helpers/editor-documents.js";
import { everyBlockDocument } from "../../../test/helpers/render-documents.js";
import { DomainError } from "../../lib/errors.js";
import type { JSONDocument } from "../document/types.js";
import { parseMarkdownPage } from "../markdown/parse.js";
import { canonicalJson } from "../store/canonical.js";
import { fromEditorDoc, toEditorDoc } from "./convert.js";
import { editorSchema } from "./schema.js";
import {
  DOCUMENT_FIELDS_MAP,
  documentToYDoc,
  EDITOR_FRAGMENT,
  editorDocToYXmlFragment,
  readDocumentFromYDoc,
  yXmlFragmentToEditorDoc,
} from "./yjs.js";

type Any = any;

/** A Y.Doc as another client receives it: its state encoded, sent and applied to a fresh document. */
function transmitted(ydoc: Y.Doc): Y.Doc {
  const other = new Y.Doc();
  Y.applyUpdate(other, Y.encodeStateAsUpdate(ydoc));
  return other;
}

/** The law through Yjs, and what the browser's editor view would build from the fragment passes ProseMirror's check. */
function expectThroughYjs(document: JSONDocument): Y.Doc {
  const received = transmitted(documentToYDoc(document));
  yXmlFragmentToProseMirrorRootNode(received.getXmlFragment(EDITOR_FRAGMENT), editorSchema()).check();
  const back = readDocumentFromYDoc(received);
  expect(back).toEqual(document);
  expect(canonicalJson(back)).toBe(canonicalJson(document));
  return received;
}

describe("documents through Yjs", () => {
  for (const full of [true, false]) {
    for (const keys of [true, false]) {
      it(`every node type (${full ? "every optional field" : "no optional field"}, ${keys ? "with" : "without"} keys) comes back identical`, () => {
        expectThroughYjs(everyNodeDocument({ full, keys }));
      });
    }
  }

  it("random documents: 100 seeds come back identical", { timeout: 60_000 }, () => {
    for (let seed = 1000; seed < 1100; seed++) expectThroughYjs(randomDocument(seed));
  });

  for (const { name, markdown } of markdownFixtures()) {
    it(`${name} comes back identical`, () => {
      expectThroughYjs(parseMarkdownPage(markdown, { resolve: new FakeRepository().resolve }).document);
    });
  }

  it("opaque nodes, inline sources and the document's own fields come back identical", () => {
    const b = new Builder(false, true);
    const document = everyBlockDocument() as Any;
    document.data = { schemaVersion: 2, custom: { nested: [1, { x: null }] } };
    document.later = { field: true };
    document.nodes.push(
      b.block("paragraph", {
        nodes: [
          { object: "text", leaves: [{ object: "leaf", text: "x", marks: [b.mark("italic"), b.mark("bold")] }] },
          { object: "inline", type: "future-inline", isVoid: true, data: { a: [null, {}] } },
        ],
      }),
    );
    const received = expectThroughYjs(document);
    expect(received.getMap(DOCUMENT_FIELDS_MAP).toJSON()).toEqual({ data: document.data, extra: { later: { field: true } } });
  });

  it("object-valued attributes are stored as objects: a table's records, a link's reference, an inline image's link", () => {
    const b = new Builder(true, true);
    const image = b.inline("inline-image", { isVoid: true, data: { ref: { kind: "url", url: "https://x/i.png" } } });
    const link = b.inline("link", { data: { ref: { kind: "page", page: "p1", space: "s1" } }, nodes: b.inlines(b.text("to "), image) });
    const table = b.table("grid", [[b.paragraph()]]);
    const received = transmitted(documentToYDoc({ object: "document", data: {}, nodes: [b.paragraph(link), table] } as JSONDocument));
    const fragment = received.getXmlFragment(EDITOR_FRAGMENT);
    const paragraph = fragment.get(0) as Y.XmlElement;
    const text = paragraph.get(0) as Y.XmlText;
    expect(text.toDelta()[0].attributes.link.data).toEqual({ ref: { kind: "page", page: "p1", space: "s1" } });
    const inlineImage = paragraph.get(1) as Y.XmlElement;
    expect(inlineImage.nodeName).toBe("inlineImage");
    expect((inlineImage.getAttribute("link") as Any).data.ref.page).toBe("p1");
    const tableElement = fragment.get(1) as Y.XmlElement;
    expect(tableElement.getAttribute("data" as never)).toEqual(table.data);
  });

  it("an empty Y.Doc reads as an empty document", () => {
    expect(readDocumentFromYDoc(new Y.Doc())).toEqual({ object: "document", data: {}, nodes: [] });
  });

  it("lone UTF-16 surrogates (not Unicode) become U+FFFD: Yjs encodes text as UTF-8; valid text is kept", () => {
    const b = new Builder(false, true);
    const document = { object: "document", data: {}, nodes: [b.paragraph(b.text("a\uD800b \u{1F680} ü"))] } as JSONDocument;
    const back = readDocumentFromYDoc(transmitted(documentToYDoc(document))) as Any;
    expect(back.nodes[0].nodes[0].leaves[0].text).toBe("a\uFFFDb \u{1F680} ü");
  });
});

describe("two clients editing at once", () => {
  it("edits of different blocks merge, and the merged document is valid and keeps every key", () => {
    const b = new Builder(true, true);
    const document = {
      object: "document",
      data: {},
      nodes: [b.hint("info", [b.paragraph(b.text("Hint text"))]), b.paragraph(b.text("Hello")), b.code(["a = 1"])],
    } as JSONDocument;
    const server = documentToYDoc(document);
    const alice = transmitted(server);
    const bob = transmitted(server);

    // Alice makes the hint a warning (an attribute holding an object).
    const hint = alice.getXmlFragment(EDITOR_FRAGMENT).get(0) as Y.XmlElement;
    hint.setAttribute("data" as never, { ...(hint.getAttribute("data" as never) as Any), style: "warning" } as never);
    // Bob types in the paragraph, in bold.
    const paragraph = bob.getXmlFragment(EDITOR_FRAGMENT).get(1) as Y.XmlElement;
    (paragraph.get(0) as Y.XmlText).insert(5, " world", { bold: {} });

    for (const client of [alice, bob]) Y.applyUpdate(server, Y.encodeStateAsUpdate(client));
    for (const client of [alice, bob]) Y.applyUpdate(client, Y.encodeStateAsUpdate(server));

    const merged = readDocumentFromYDoc(server) as Any;
    expect(readDocumentFromYDoc(alice)).toEqual(merged);
    expect(readDocumentFromYDoc(bob)).toEqual(merged);
    expect(merged.nodes[0].data.style).toBe("warning");
    expect(merged.nodes[1].nodes[0].leaves).toEqual([
      { object: "leaf", text: "Hello", marks: [] },
      { object: "leaf", text: " world", marks: [{ object: "mark", type: "bold" }] },
    ]);
    expect(schemaErrors("JSONDocument", merged)).toEqual([]);
    expect(merged.nodes.map((n: Any) => n.key)).toEqual(document.nodes.map((n: Any) => n.key));
  });

  it("the fragment helpers write and read ProseMirror JSON directly", () => {
    const document = everyNodeDocument({ full: false, keys: true });
    const ydoc = new Y.Doc();
    editorDocToYXmlFragment(toEditorDoc(document), ydoc.getXmlFragment("prosemirror"));
    const editorDoc = yXmlFragmentToEditorDoc(transmitted(ydoc).getXmlFragment("prosemirror"));
    // The fragment holds the blocks; the document's own fields (here `data: {}`) travel beside it.
    expect(fromEditorDoc(editorDoc)).toEqual(document);
  });
});

describe("what a client that ignores the schema writes", () => {
  const b = new Builder(false, true);

  it("check refuses blocks where the schema has no place for them, and unknown elements, with a message", () => {
    const ydoc = documentToYDoc({ object: "document", data: {}, nodes: [b.paragraph()] } as JSONDocument);
    const fragment = ydoc.getXmlFragment(EDITOR_FRAGMENT);
    fragment.insert(1, [new Y.XmlElement("listItem")]);
    expect(() => readDocumentFromYDoc(ydoc, EDITOR_FRAGMENT, { check: true })).toThrow(/does not follow the document model/);
    // Unchecked, it is converted as it is (a list item at the top level).
    expect((readDocumentFromYDoc(ydoc) as Any).nodes[1].type).toBe("list-item");
    fragment.insert(2, [new Y.XmlElement("marquee")]);
    expect(() => readDocumentFromYDoc(ydoc, EDITOR_FRAGMENT, { check: true })).toThrow(DomainError);
    expect(() => readDocumentFromYDoc(ydoc)).toThrow(/"marquee" that the document model does not know/);
  });

  it("elements nested thousands deep are refused as a domain error, not a stack overflow", () => {
    const ydoc = new Y.Doc();
    // Built from the top down, each element inserted into one already in the document (as a client's
    // edits would arrive): a prepared tree of that depth overflows Yjs's own insertion.
    ydoc.transact(() => {
      let parent: Y.XmlFragment | Y.XmlElement = ydoc.getXmlFragment(EDITOR_FRAGMENT);
      for (let i = 0; i < 20_000; i++) {
        const child: Y.XmlElement = new Y.XmlElement("blockquote");
        parent.insert(0, [child]);
        parent = child;
      }
    });
    expect(() => readDocumentFromYDoc(ydoc)).toThrow(/nests too deeply/);
  });

  it("attribute values of the wrong kind give a document of the right shape", () => {
    const ydoc = documentToYDoc({ object: "document", data: {}, nodes: [b.hint("info"), b.paragraph()] } as JSONDocument);
    const fragment = ydoc.getXmlFragment(EDITOR_FRAGMENT);
    const hint = fragment.get(0) as Y.XmlElement;
    hint.setAttribute("data" as never, "not an object" as never);
    hint.setAttribute("meta" as never, 42 as never);
    hint.setAttribute("key" as never, 7 as never);
    ydoc.getMap(DOCUMENT_FIELDS_MAP).set("data", ["not", "an", "object"]);
    const out = readDocumentFromYDoc(ydoc) as Any;
    expect(out.data).toEqual({});
    expect(out.nodes[0].data).toEqual({ style: "info" });
    expect(out.nodes[0].meta).toBeUndefined();
    expect(out.nodes[0].key).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(schemaErrors("JSONDocument", out)).toEqual([]);
  });
});
