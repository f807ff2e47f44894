/**
 * A stored document in a Yjs document and back, as the collaboration server and the browser editor
 * share it: the blocks in the XmlFragment that y-prosemirror (and Tiptap's Collaboration extension)
 * binds, the document's own fields (`data`, and any other top-level field) in a map beside it, since
 * an XmlFragment has no attributes of its own.
 *
 * Attribute values are JSON and Yjs keeps them as they are (objects included: a table's records,
 * an annotation's body), except `null`, which y-prosemirror does not store; the conversion reads
 * an absent attribute as null, so nothing is lost.
 */
import { prosemirrorJSONToYXmlFragment, yXmlFragmentToProsemirrorJSON } from "y-prosemirror";
import * as Y from "yjs";
import { invalid } from "../../lib/errors.js";
import type { JSONDocument } from "../document/types.js";
import { type EditorNode, type FromEditorOptions, fromEditorDoc, toEditorDoc } from "./convert.js";
import { checkEditorDoc, editorSchema } from "./schema.js";

/** The XmlFragment's name: the one Tiptap's Collaboration extension and Hocuspocus use by default. */
export const EDITOR_FRAGMENT = "default";
/** The map holding the document's own fields. */
export const DOCUMENT_FIELDS_MAP = "document";

/** Writes `editorDoc`'s blocks into an empty fragment. */
export function editorDocToYXmlFragment(editorDoc: EditorNode, fragment: Y.XmlFragment): void {
  prosemirrorJSONToYXmlFragment(editorSchema(), editorDoc, fragment);
}

export function yXmlFragmentToEditorDoc(fragment: Y.XmlFragment): EditorNode {
  return yXmlFragmentToProsemirrorJSON(fragment) as EditorNode;
}

/** Fills an empty Y.Doc with `document` (one transaction). */
export function writeDocumentToYDoc(document: JSONDocument, ydoc: Y.Doc, field = EDITOR_FRAGMENT): void {
  const editorDoc = toEditorDoc(document);
  ydoc.transact(() => {
    const fields = ydoc.getMap<unknown>(DOCUMENT_FIELDS_MAP);
    for (const [name, value] of Object.entries(editorDoc.attrs ?? {})) fields.set(name, value);
    editorDocToYXmlFragment(editorDoc, ydoc.getXmlFragment(field));
  });
}

export interface ReadOptions extends FromEditorOptions {
  /**
   * Checks the blocks against the schema first (checkEditorDoc), refusing what a client that does
   * not follow it wrote: the collaboration server stores what every client converged on.
   */
  check?: boolean;
}

/** The document a Y.Doc holds now (what the collaboration server persists). */
export function readDocumentFromYDoc(ydoc: Y.Doc, field = EDITOR_FRAGMENT, options: ReadOptions = {}): JSONDocument {
  let editorDoc: EditorNode;
  try {
    editorDoc = yXmlFragmentToEditorDoc(ydoc.getXmlFragment(field));
  } catch (error) {
    // y-prosemirror recurses over the elements; only a client ignoring the schema nests that deep.
    if (error instanceof RangeError) throw invalid("The collaborative document nests too deeply to be stored.");
    throw error;
  }
  if (options.check) checkEditorDoc(editorDoc);
  const attrs = ydoc.getMap<unknown>(DOCUMENT_FIELDS_MAP).toJSON();
  return fromEditorDoc(Object.keys(attrs).length ? { ...editorDoc, attrs } : editorDoc, options);
}

/** A new Y.Doc holding `document`. */
export function documentToYDoc(document: JSONDocument, field = EDITOR_FRAGMENT): Y.Doc {
  const ydoc = new Y.Doc();
  writeDocumentToYDoc(document, ydoc, field);
  return ydoc;
}
