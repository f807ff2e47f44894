/**
 * Processing of an OpenAPI document: fetch (for a URL source), parse (JSON or YAML), bundle every
 * external `$ref` into the one document, validate (Swagger 2.0, OpenAPI 3.0 and 3.1, with
 * @apidevtools/swagger-parser), and hash the result. Pure of the database: the job records what
 * this returns.
 *
 * Every file is read through the safe fetcher (lib/public-fetch.ts): http(s) only, public
 * addresses unless the operator allowed a network, size and time bounded. The parser never reads
 * the server's files: its `file` resolver is off, and a `$ref` that is neither http(s) nor inside
 * the document is refused with a message saying so.
 */
import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { FetchRefused, fetchPublicFile, type PublicFetchOptions } from "../../lib/public-fetch.js";

export type ProcessErrorCode = "FETCH_TIMEOUT" | "FETCH_ERROR" | "PARSE_ERROR";

/** One problem found while processing (`OpenAPIErrorObject`): the message says where. */
export interface ProcessProblem {
  message: string;
  code?: string;
}

export type ProcessOutcome =
  | { ok: true; document: Record<string, unknown>; json: string; hash: string }
  | { ok: false; code: ProcessErrorCode; errors: ProcessProblem[] };

export type SpecSource = { url: string; text?: undefined } | { text: string; url?: undefined };

export interface ProcessOptions {
  fetch: Pick<PublicFetchOptions, "maxBytes" | "timeoutMs" | "isAllowed">;
  /** Files a document may reference besides itself (default 100). */
  maxReferencedFiles?: number;
}

/** Problems reported at most (a broken document can have thousands). */
const MAX_PROBLEMS = 50;

/** Base of a document given as text: relative `$ref`s resolve under it and are refused. */
const TEXT_BASE = "quire-text:/openapi";

class Failure extends Error {
  constructor(
    readonly code: ProcessErrorCode,
    readonly problems: ProcessProblem[],
  ) {
    super(problems[0]?.message ?? code);
  }
}

export async function processSpec(source: SpecSource, options: ProcessOptions): Promise<ProcessOutcome> {
  try {
    const base = source.url ?? TEXT_BASE;
    const text = source.url !== undefined ? await fetchText(source.url, options, "the document") : source.text;
    const parsed = parseText(text, source.url !== undefined ? `the document at ${source.url}` : "the document");
    checkStructure(parsed);
    const bundled = await bundle(base, parsed, options);
    await validate(bundled, text);
    const json = JSON.stringify(bundled);
    return { ok: true, document: bundled, json, hash: createHash("sha256").update(json).digest("hex") };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, code: error.code, errors: error.problems.slice(0, MAX_PROBLEMS) };
    throw error;
  }
}

async function fetchText(url: string, options: ProcessOptions, what: string): Promise<string> {
  try {
    const file = await fetchPublicFile(url, { ...options.fetch, maxRedirects: 5 });
    return file.bytes.toString("utf8");
  } catch (error) {
    if (error instanceof FetchRefused) {
      throw new Failure(error.timedOut ? "FETCH_TIMEOUT" : "FETCH_ERROR", [
        { message: `Could not fetch ${what} at ${url}: ${error.message}.`, code: error.timedOut ? "timeout" : "fetch" },
      ]);
    }
    throw error;
  }
}

/** JSON, or YAML (which JSON a strict parser refused may still be); errors say line and column. */
function parseText(text: string, name: string): Record<string, unknown> {
  const trimmed = text.replace(/^\uFEFF/, "");
  if (trimmed.trim() === "") throw new Failure("PARSE_ERROR", [{ message: `${capitalize(name)} is empty.`, code: "empty" }]);
  if (/^\s*[{[]/.test(trimmed)) {
    try {
      return asDocument(JSON.parse(trimmed), name);
    } catch (error) {
      if (error instanceof Failure) throw error;
      // Not strict JSON: YAML reads JSON too and says where the problem is.
    }
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(trimmed, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new Failure(
      "PARSE_ERROR",
      document.errors.map((e) => {
        const at = lineCounter.linePos(e.pos[0]);
        return {
          message: `${capitalize(name)} is not valid JSON or YAML at line ${at.line}, column ${at.col}: ${e.message}`,
          code: e.code,
        };
      }),
    );
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    throw new Failure("PARSE_ERROR", [
      { message: `${capitalize(name)} could not be read as YAML: ${(error as Error).message}`, code: "yaml" },
    ]);
  }
  return asDocument(value, name);
}

function asDocument(value: unknown, name: string): Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new Failure("PARSE_ERROR", [
      { message: `${capitalize(name)} is not an object: an OpenAPI document is a mapping of fields.`, code: "type" },
    ]);
  }
  return value as Record<string, unknown>;
}

const SUPPORTED = /^(2\.0|3\.0\.\d+|3\.1\.\d+)$/;

function checkStructure(document: Record<string, unknown>): void {
  checkVersion(document);
  const is31 = typeof document.openapi === "string" && document.openapi.startsWith("3.1");
  if (document.paths === undefined && !(is31 && document.webhooks !== undefined)) {
    throw new Failure("PARSE_ERROR", [
      {
        message: is31
          ? 'The document has neither "paths" nor "webhooks": an OpenAPI 3.1 document needs one of them.'
          : 'The document has no "paths": an OpenAPI document lists its operations there (it may be empty: "paths: {}").',
        code: "required",
      },
    ]);
  }
}

function checkVersion(document: Record<string, unknown>): void {
  const version = document.openapi ?? document.swagger;
  if (version === undefined) {
    throw new Failure("PARSE_ERROR", [
      { message: 'The document is not an OpenAPI document: it has neither an "openapi" nor a "swagger" field.', code: "version" },
    ]);
  }
  if (typeof version !== "string" || !SUPPORTED.test(version)) {
    const field = document.openapi !== undefined ? "openapi" : "swagger";
    throw new Failure("PARSE_ERROR", [
      {
        message: `#/${field}: version ${JSON.stringify(version)} is not supported; Swagger 2.0, OpenAPI 3.0.x and OpenAPI 3.1.x are.`,
        code: "version",
      },
    ]);
  }
}

/** Inlines every external `$ref` (each file fetched safely); internal references stay references. */
async function bundle(base: string, document: Record<string, unknown>, options: ProcessOptions): Promise<Record<string, unknown>> {
  const maxFiles = options.maxReferencedFiles ?? 100;
  let fetched = 0;
  /** The first fetch failure, whose kind (timeout or not) decides the error code. */
  let fetchFailure: Failure | undefined;
  const http = {
    order: 1,
    canRead: /^https?:\/\//i,
    read: async (file: { url: string }) => {
      if (++fetched > maxFiles) {
        const failure = new Failure("FETCH_ERROR", [
          { message: `The document references more than ${maxFiles} files; at most ${maxFiles} are fetched.`, code: "references" },
        ]);
        fetchFailure ??= failure;
        throw failure;
      }
      try {
        return await fetchText(file.url, options, "a referenced file");
      } catch (error) {
        if (error instanceof Failure) fetchFailure ??= error;
        throw error;
      }
    },
  };
  /** Why each refused reference was refused, by URL (the parser's own error only says "Error reading file"). */
  const refusals = new Map<string, string>();
  const refuse = {
    order: 2,
    canRead: true,
    read: async (file: { url: string }) => {
      const shown = file.url.replace(/^quire-text:\/?/, "");
      const message =
        base === TEXT_BASE
          ? `"${shown}" cannot be read: a document given as text can only reference its own parts ("#/...") or http(s) URLs.`
          : `"${shown}" cannot be read: only http(s) references are followed.`;
      refusals.set(file.url, message);
      throw new Error(message);
    },
  };
  try {
    const parserOptions = { continueOnError: true, resolve: { file: false, http: false, quireHttp: http, quireRefuse: refuse } };
    const SwaggerParser = await loadSwaggerParser();
    return (await SwaggerParser.bundle(base, document as never, parserOptions as never)) as unknown as Record<string, unknown>;
  } catch (error) {
    if (fetchFailure) throw fetchFailure;
    const errors = (error as { errors?: unknown[] }).errors ?? [error];
    throw new Failure(
      "PARSE_ERROR",
      errors.map((e) => referenceProblem(e as RefParserError, base, refusals)),
    );
  }
}

interface RefParserError extends Error {
  code?: string;
  path?: (string | number)[] | null;
  source?: string;
  ioErrorCode?: string;
}

function referenceProblem(error: RefParserError, base: string, refusals: Map<string, string>): ProcessProblem {
  const where = Array.isArray(error.path) && error.path.length > 0 ? `${pointerOf(error.path.map(String))}: ` : "";
  let message = error.message;
  const file = /Error reading file "([^"]+)"/.exec(message)?.[1];
  const refusal = file === undefined ? undefined : refusals.get(file);
  if (refusal) message = refusal;
  if (base === TEXT_BASE)
    message = message
      .split(TEXT_BASE)
      .join("the document")
      .replace(/quire-text:\/?/g, "");
  return { message: `${where}${message}`, code: error.code ?? "reference" };
}

/** The parser, loaded when a spec is first processed (it runs in its own thread; the server never needs it). */
async function loadSwaggerParser() {
  return (await import("@apidevtools/swagger-parser")).default;
}

/** Schema and specification checks; each problem names its place (JSON pointer, line and column). */
async function validate(bundled: Record<string, unknown>, text: string): Promise<void> {
  try {
    const SwaggerParser = await loadSwaggerParser();
    await SwaggerParser.validate(structuredClone(bundled) as never, { resolve: { external: false } } as never);
  } catch (error) {
    const details = (error as { details?: AjvError[] }).details;
    const locate = locator(text);
    if (Array.isArray(details) && details.length > 0) {
      const seen = new Set<string>();
      const problems: ProcessProblem[] = [];
      for (const detail of details) {
        const pointer = `#${detail.instancePath ?? ""}`;
        const message = `${pointer} ${detail.message ?? "is not valid"}${locate(detail.instancePath ?? "")}`;
        if (seen.has(message)) continue;
        seen.add(message);
        problems.push({ message, code: detail.keyword });
      }
      throw new Failure("PARSE_ERROR", problems);
    }
    const e = error as RefParserError;
    const path = Array.isArray(e.path) ? pointerOf(e.path.map(String)) : undefined;
    throw new Failure("PARSE_ERROR", [
      { message: `${path ? `${path}: ` : ""}${e.message}${path ? locate(path.slice(1)) : ""}`, code: e.code ?? "invalid" },
    ]);
  }
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
}

function pointerOf(tokens: string[]): string {
  return `#/${tokens.map((t) => t.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}

/**
 * Maps a JSON pointer of the document to " (line L, column C)" in its text, or "" when the text
 * does not have it (a part bundled from another file). The text is parsed for positions only when
 * a problem needs them.
 */
function locator(text: string): (pointer: string) => string {
  let parsed: { document: ReturnType<typeof parseDocument>; lines: LineCounter } | undefined;
  return (pointer) => {
    try {
      if (!parsed) {
        const lines = new LineCounter();
        parsed = { document: parseDocument(text.replace(/^\uFEFF/, ""), { lineCounter: lines, prettyErrors: false }), lines };
      }
      const tokens = pointer
        .split("/")
        .slice(1)
        .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
      const node = nodeAt(parsed.document.contents, tokens);
      if (!node?.range) return "";
      const at = parsed.lines.linePos(node.range[0]);
      return ` (line ${at.line}, column ${at.col})`;
    } catch {
      return "";
    }
  };
}

/** The node at a path of keys (map keys compared as text: YAML reads `200:` as a number). */
function nodeAt(root: unknown, tokens: string[]): { range?: [number, number, number] | null } | undefined {
  let node: unknown = root;
  for (const token of tokens) {
    if (isSeq(node)) node = node.items[Number(token)];
    else if (isMap(node)) node = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === token)?.value;
    else return undefined;
  }
  return node as { range?: [number, number, number] | null } | undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a processing in a worker thread answers: the document only as JSON text. */
export type IsolatedOutcome = { ok: true; json: string; hash: string } | { ok: false; code: ProcessErrorCode; errors: ProcessProblem[] };

export interface IsolationOptions {
  maxBytes: number;
  timeoutMs: number;
  allowNetworks: string[];
  /** Heap of the thread, in MiB: a document that needs more fails as a PARSE_ERROR. */
  memoryMb: number;
  /** Wall-clock time for the whole processing (fetches included). */
  maxMs: number;
  /** Stops the thread (the worker is stopping, or another worker took the job over). */
  signal?: AbortSignal;
}

/**
 * processSpec() in a worker thread (openapi-thread.adapter.ts), bounded in memory and time. From the
 * TypeScript sources (tests, `tsx`) the thread loads its entry through tsx; from dist/, as is.
 */
export function processSpecIsolated(source: SpecSource, options: IsolationOptions): Promise<IsolatedOutcome> {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = new URL(fromSource ? "./openapi-thread.adapter.ts" : "./openapi-thread.adapter.js", import.meta.url);
  const input = { source, maxBytes: options.maxBytes, timeoutMs: options.timeoutMs, allowNetworks: options.allowNetworks };
  return new Promise((resolve, reject) => {
    // From the sources, a bootstrap registers tsx in the thread and imports the entry through it.
    const bootstrap = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(entry.href)}))`;
    const worker = new Worker(fromSource ? bootstrap : entry, {
      eval: fromSource,
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const timer = setTimeout(() => {
      finish(() =>
        resolve({
          ok: false,
          code: "PARSE_ERROR",
          errors: [
            {
              message: `Processing the document took longer than ${formatDuration(options.maxMs)} and was stopped.`,
              code: "time",
            },
          ],
        }),
      );
      void worker.terminate();
    }, options.maxMs);
    const onAbort = () => {
      finish(() => reject(new Error("the processing was stopped (the worker is stopping or lost the job)")));
      void worker.terminate();
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (outcome: IsolatedOutcome) => finish(() => resolve(outcome)));
    worker.once("error", (error: Error & { code?: string }) => {
      if (error.code === "ERR_WORKER_OUT_OF_MEMORY") {
        finish(() =>
          resolve({
            ok: false,
            code: "PARSE_ERROR",
            errors: [
              { message: `Processing the document needed more than ${options.memoryMb} MiB of memory and was stopped.`, code: "memory" },
            ],
          }),
        );
      } else finish(() => reject(error));
    });
    worker.once("exit", (code) => finish(() => reject(new Error(`the OpenAPI processing thread exited with code ${code}`))));
  });
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} seconds`;
  return `${Math.round(ms / 60_000)} minutes`;
}
