/**
 * A JSON document given to the API (a change request's content edits) made ready to store off the
 * thread that answers requests: taking the block keys of the page's previous document costs
 * ~0.5 ms per KB of JSON (bench/document-costs.bench.ts: ~500 ms for a 1.2 MB document, seconds
 * for 9 MB), and canonicalizing and hashing ~0.07 ms per KB more. Small documents are done inline.
 */

import { runInWorker } from "../run-in-worker.js";
import { canonicalJson, objectHash } from "../store/canonical.js";
import { reconcileKeysInPlace } from "./keys.js";
import type { JSONDocument } from "./types.js";

/**
 * Below this many characters of JSON (the document and its previous version together) the work
 * is done inline. Measured (bench/document-costs.bench.ts, 2 cores shared with other work): a
 * 22 KB document and its previous version cost 10-20 ms inline (mostly reconcileKeys), 80 ms at
 * 300 KB; handing the JSON to a warm worker thread costs the request thread ~1 ms. So all but
 * small documents go to the thread: at 8 KB the request thread is held ~4 ms.
 */
export const INLINE_DOCUMENT_JSON_CHARS = 8 * 1024;

export interface DocumentPreparation {
  /** The document given, as JSON text (`{object, data, nodes}`). */
  documentJson: string;
  /** The stored JSON of the page's previous document, whose block keys unchanged blocks given without a key keep. */
  previousJson?: string | undefined;
}

/** A document as it is stored: its object hash (kind "document") and canonical JSON. */
export interface PreparedDocument {
  hash: string;
  json: string;
}

/** The work itself, the same on either thread. */
export function prepareDocumentNow(input: DocumentPreparation): PreparedDocument {
  const document = JSON.parse(input.documentJson) as JSONDocument;
  const previous = input.previousJson === undefined ? undefined : (JSON.parse(input.previousJson) as JSONDocument);
  // The document names its blocks: a block that comes with a key keeps it (a block moved across
  // another of its type is not that other block); only blocks without one take keys from `previous`.
  reconcileKeysInPlace(previous, document, { keepGiven: true });
  const json = canonicalJson(document);
  return { hash: objectHash("document", json), json };
}

/**
 * The document with the previous version's block keys, canonical and hashed, in a worker thread
 * when it is large. The document given is read once as JSON text here (~20 ms per MB, less than
 * the structured clone a worker's input would otherwise take) and never changed.
 */
export async function prepareDocument(document: JSONDocument, previousJson: string | undefined): Promise<PreparedDocument> {
  const input: DocumentPreparation = {
    documentJson: JSON.stringify({ object: "document", data: document.data ?? {}, nodes: document.nodes }),
    ...(previousJson !== undefined ? { previousJson } : {}),
  };
  if (input.documentJson.length + (previousJson?.length ?? 0) < INLINE_DOCUMENT_JSON_CHARS) return prepareDocumentNow(input);
  return runInWorker("prepareDocument", input);
}
