/**
 * Runs one processing (openapi-processing.adapter.ts) in a worker thread, so that parsing and validating a
 * large document never blocks the event loop of the process that serves requests, and a document
 * that needs too much memory ends this thread, not the process. Posts back the outcome without the
 * parsed document (the job needs only its JSON text and hash).
 */
import { parentPort, workerData } from "node:worker_threads";
import { allowingNetworks } from "../../lib/public-fetch.js";
import { processSpec, type SpecSource } from "./openapi-processing.adapter.js";

export interface ThreadInput {
  source: SpecSource;
  maxBytes: number;
  timeoutMs: number;
  allowNetworks: string[];
}

const input = workerData as ThreadInput;
const outcome = await processSpec(input.source, {
  fetch: { maxBytes: input.maxBytes, timeoutMs: input.timeoutMs, isAllowed: allowingNetworks(input.allowNetworks) },
});
parentPort?.postMessage(outcome.ok ? { ok: true, json: outcome.json, hash: outcome.hash } : outcome);
