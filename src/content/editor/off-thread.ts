/**
 * The collaboration server's conversions between a stored document and a Yjs state, off the
 * thread that answers requests when the document is large: on a generated 1 MB page, building
 * the Y.Doc takes 200-300 ms and reading it back (with the schema check) 500-800 ms
 * (docs/editor-model.md), time during which no other request or WebSocket message would be served.
 * Inputs and outputs are plain data: JSON text and Yjs updates (bytes).
 */
import * as Y from "yjs";
import { DomainError } from "../../lib/errors.js";
import type { JSONDocument } from "../document/types.js";
import { runInWorker } from "../run-in-worker.js";
import { canonicalJson } from "../store/canonical.js";
import { documentToYDoc, readDocumentFromYDoc } from "./yjs.js";

/** Below this size (JSON characters, or bytes of Yjs state) the conversion is done inline. */
export const INLINE_EDITOR_BYTES = 16 * 1024;

/** What reading a Yjs state gives: the document as JSON text, or why the schema refuses it. */
export type ReadYState = { json: string } | { refused: string };

/** The whole Yjs state (one update) of a Y.Doc holding `documentJson`. */
export function documentJsonToYStateNow(input: { documentJson: string }): Uint8Array {
  const ydoc = documentToYDoc(JSON.parse(input.documentJson) as JSONDocument);
  try {
    return Y.encodeStateAsUpdate(ydoc);
  } finally {
    ydoc.destroy();
  }
}

/** The document a Yjs state holds (canonical JSON), checked against the editor's schema. */
export function yStateToDocumentJsonNow(input: { state: Uint8Array }): ReadYState {
  const ydoc = new Y.Doc();
  try {
    Y.applyUpdate(ydoc, input.state);
    // Canonical, as stored: the caller compares it with the page's stored JSON without parsing either.
    return { json: canonicalJson(readDocumentFromYDoc(ydoc, undefined, { check: true })) };
  } catch (error) {
    // A domain error does not cross threads with its kind: it travels as a refusal.
    if (error instanceof DomainError) return { refused: error.message };
    if (error instanceof RangeError) return { refused: "The document nests too deeply to be stored." };
    throw error;
  } finally {
    ydoc.destroy();
  }
}

/** `documentJsonToYStateNow`, in a worker thread when the document is large. */
export async function documentToYState(document: JSONDocument): Promise<Uint8Array> {
  const documentJson = JSON.stringify(document);
  if (documentJson.length < INLINE_EDITOR_BYTES) return documentJsonToYStateNow({ documentJson });
  return runInWorker("editorDocumentToYState", { documentJson });
}

/** `yStateToDocumentJsonNow`, in a worker thread when the state is large. */
export async function yStateToDocument(state: Uint8Array): Promise<{ document: JSONDocument; json: string } | { refused: string }> {
  const read =
    state.byteLength < INLINE_EDITOR_BYTES ? yStateToDocumentJsonNow({ state }) : await runInWorker("editorYStateToDocument", { state });
  return "refused" in read ? read : { document: JSON.parse(read.json) as JSONDocument, json: read.json };
}

/** One update holding all of `states` (Y.mergeUpdates: no Y.Doc is built). */
export function mergeYStatesNow(input: { states: Uint8Array[] }): Uint8Array {
  return Y.mergeUpdates(input.states);
}

/** `mergeYStatesNow`, in a worker thread when the states are large (~0.3 s for two 1 MB pages' states). */
export async function mergeYStates(states: Uint8Array[]): Promise<Uint8Array> {
  const bytes = states.reduce((sum, state) => sum + state.byteLength, 0);
  if (bytes < INLINE_EDITOR_BYTES) return mergeYStatesNow({ states });
  return runInWorker("editorMergeYStates", { states });
}
