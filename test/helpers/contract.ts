/**
 * Compatibility harness: GitBook's own client (@gitbook/api@0.146.0) pointed at a running Quire,
 * with every response validated against that package's spec/openapi.json. A response that does not
 * match its operation's declared schema makes the client call reject with the schema errors.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { GitBookAPI } from "@gitbook/api";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);
const specPath = require.resolve("@gitbook/api/spec/openapi.json");
export const spec = JSON.parse(readFileSync(specPath, "utf8")) as {
  paths: Record<string, Record<string, any>>;
  components: Record<string, Record<string, any>>;
};

function specAjv(allErrors: boolean): Ajv {
  const instance = new Ajv({ strict: false, allErrors });
  addFormats(instance);
  // Formats the spec uses for documentation only.
  for (const format of ["emoji", "icon", "markdown", "text", "color", "hex-color", "timestamp"]) {
    instance.addFormat(format, true);
  }
  instance.addSchema(fixSpecDefects(normalizeNullable(structuredClone(spec))), "spec");
  return instance;
}

const ajv = specAjv(true);
/**
 * The same spec without allErrors, for a yes or no: with allErrors, every failing branch of the
 * document schemas' nested oneOfs is validated to its leaves, which is exponential in a document's
 * depth (20 random documents of 2-23 KB took 33 s); schemaErrors asks it first.
 */
const quickAjv = specAjv(false);
const quickValidators = new Map<string, ValidateFunction>();

/**
 * The one place the harness departs from the spec text, each with its reason:
 *
 * `Document` (a page body) is oneOf markdown | {document} | "Empty" = `{}` with
 * `additionalProperties: false`. Pages are `allOf: [RevisionPageBase, Document, ...]`, and inside an
 * allOf that "Empty" branch rejects the page's own fields (id, title...), so no page without an
 * inline body could ever validate. The client's TypeScript type (`MarkdownDocument | {document} | {}`)
 * shows the intent: the body is optional. "Empty" is checked as "has neither markdown nor document".
 *
 * `RevisionSemanticChangePageEdited.attributes` is oneOf the document, group and link page attribute
 * schemas, which share `title`, `emoji` and `slug` and allow other properties: every attributes
 * object naming a shared field (and any document change, which the group schema also accepts)
 * matches more than one, so no `page_edited` change could validate. It is checked as anyOf.
 *
 * `OpenAPISpecContent.filesystem` is typed `object` (and the seeds say so); Quire serves the files
 * by path in it, each entry as GitBook's renderer lists them (`{dir, isEntrypoint, references,
 * filename, specification}`, api-notes 5d). It is checked as that object, each entry with every
 * field required: stricter than `object`, not looser.
 */
function fixSpecDefects(value: typeof spec): typeof spec {
  const documentSchema = value.components.schemas?.Document;
  const empty = documentSchema?.oneOf?.[2];
  if (empty?.title === "Empty" && empty.additionalProperties === false) {
    documentSchema.oneOf[2] = { title: "Empty", not: { anyOf: [{ required: ["markdown"] }, { required: ["document"] }] } };
  } else {
    throw new Error("@gitbook/api spec changed: review fixSpecDefects in test/helpers/contract.ts");
  }
  const pageEdited = value.components.schemas?.RevisionSemanticChangePageEdited?.properties?.attributes;
  if (Array.isArray(pageEdited?.oneOf) && pageEdited.oneOf.length === 3) {
    pageEdited.anyOf = pageEdited.oneOf;
    delete pageEdited.oneOf;
  } else {
    throw new Error("@gitbook/api spec changed: review fixSpecDefects in test/helpers/contract.ts");
  }
  const content = value.components.schemas?.OpenAPISpecContent?.properties;
  if (content?.filesystem?.type === "object") {
    content.filesystem = {
      type: "object",
      minProperties: 1,
      additionalProperties: {
        type: "object",
        required: ["dir", "isEntrypoint", "references", "filename", "specification"],
        properties: {
          dir: { type: "string" },
          isEntrypoint: { type: "boolean" },
          references: { type: "array", items: { type: "string" } },
          filename: { type: "string" },
          specification: { type: "object" },
        },
      },
    };
  } else {
    throw new Error("@gitbook/api spec changed: review fixSpecDefects in test/helpers/contract.ts");
  }
  return value;
}

/** OpenAPI 3.0 `nullable: true` becomes JSON Schema's "or null" (Ajv needs `type` beside `nullable`). */
function normalizeNullable(node: any): any {
  if (Array.isArray(node)) return node.map(normalizeNullable);
  if (!node || typeof node !== "object") return node;
  for (const key of Object.keys(node)) node[key] = normalizeNullable(node[key]);
  if (node.nullable === true) {
    delete node.nullable;
    if (typeof node.type === "string") {
      node.type = [node.type, "null"];
      if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum.push(null);
    } else {
      const copy = { ...node };
      for (const key of Object.keys(node)) delete node[key];
      node.anyOf = [copy, { type: "null" }];
    }
  }
  return node;
}

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  params: number;
  op: any;
}

const operations: Operation[] = [];
for (const [template, item] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (method === "parameters") continue;
    const params = (template.match(/\{[^}]+\}/g) ?? []).length;
    // Page paths keep their slashes in the URL (the client does not encode them).
    const pattern = template
      .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
      .replace(/\\?\{pagePath\\?\}/g, ".+")
      .replace(/\\?\{[^}]+\\?\}/g, "[^/]+");
    operations.push({ method: method.toUpperCase(), template, regex: new RegExp(`^${pattern}$`), params, op });
  }
}

/** The spec operation for a request; literal path segments win over parameters. */
export function findOperation(method: string, path: string): Operation | undefined {
  const candidates = operations.filter((o) => o.method === method && o.regex.test(path));
  candidates.sort((a, b) => a.params - b.params);
  return candidates[0];
}

function pointer(...tokens: string[]): string {
  return tokens.map((t) => encodeURIComponent(t.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");
}

const validators = new Map<string, ValidateFunction>();

function validatorFor(ref: string): ValidateFunction {
  const cached = validators.get(ref);
  if (cached) return cached;
  const fn = ajv.compile({ $ref: ref });
  validators.set(ref, fn);
  return fn;
}

/**
 * Statuses where the seeds (the contract) differ from 0.146: DELETE answers 204 (spec: 204 or 205),
 * comment posts answer 200, and applying a template answers 204 (spec: 201).
 */
const SEED_STATUS_OVERRIDES: Record<string, number[]> = {
  applyTemplateToSpace: [204],
};

/** Validates one response; returns a list of problems (empty when it conforms). */
export function checkResponse(method: string, url: string, status: number, bodyText: string): string[] {
  const path = new URL(url).pathname.replace(/^\/v1/, "") || "/";
  const operation = findOperation(method, path);
  if (!operation) return [`${method} ${path}: no such operation in @gitbook/api 0.146.0`];
  const id = operation.op.operationId as string;
  let response = operation.op.responses?.[String(status)];
  if (!response) {
    if (SEED_STATUS_OVERRIDES[id]?.includes(status)) return [];
    return [`${id}: status ${status} is not declared (declared: ${Object.keys(operation.op.responses ?? {}).join(", ")})`];
  }
  let responseRef = `spec#/${pointer("paths", operation.template, operation.method.toLowerCase(), "responses", String(status))}`;
  if (response.$ref) {
    responseRef = `spec#/${response.$ref.replace(/^#\//, "")}`;
    const name = response.$ref.split("/").pop();
    response = spec.components.responses?.[name];
  }
  if (response?.content?.["text/event-stream"]?.schema)
    return checkEventStream(id, `${responseRef}/content/text~1event-stream/schema`, bodyText);
  const schema = response?.content?.["application/json"]?.schema;
  if (!schema) {
    return bodyText.length === 0 ? [] : [`${id}: status ${status} declares no body but one was sent`];
  }
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return [`${id}: response body is not JSON`];
  }
  const validate = validatorFor(`${responseRef}/content/application~1json/schema`);
  if (validate(body)) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => `${id}: ${e.instancePath || "(root)"} ${e.message} ${JSON.stringify(e.params)}`);
}

/**
 * A server-sent events answer (GitBook's streamed operations): every event's `data` is an instance
 * of the declared schema, but the `done` and `error` events the client handles itself.
 */
function checkEventStream(id: string, ref: string, bodyText: string): string[] {
  const validate = validatorFor(ref);
  const problems: string[] = [];
  for (const chunk of bodyText.split("\n\n").filter((c) => c.trim() !== "")) {
    const event = /^event: (.*)$/m.exec(chunk)?.[1];
    const data = /^data: (.*)$/m.exec(chunk)?.[1];
    if (event === "done" || event === "error") continue;
    if (data === undefined) {
      problems.push(`${id}: an event without data: ${chunk.slice(0, 200)}`);
      continue;
    }
    if (!validate(JSON.parse(data))) {
      problems.push(
        ...(validate.errors ?? [])
          .slice(0, 5)
          .map((e) => `${id}: event ${e.instancePath || "(root)"} ${e.message} ${JSON.stringify(e.params)}`),
      );
    }
  }
  return problems;
}

export class ContractViolation extends Error {}

/** GitBook's client with `authToken`, talking to `endpoint`, validating every response. */
export function contractClient(endpoint: string, authToken: string): GitBookAPI {
  return new GitBookAPI({
    endpoint,
    authToken,
    serviceBinding: {
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        const url = typeof input === "string" ? input : input instanceof URL ? input.toString() : input.url;
        const method = (init?.method ?? "GET").toUpperCase();
        const response = await fetch(input, init);
        const text = await response.clone().text();
        if (response.ok) {
          const problems = checkResponse(method, url, response.status, text);
          if (problems.length) {
            throw new ContractViolation(
              `${method} ${url} -> ${response.status} violates the spec:\n  ${problems.join("\n  ")}\n  body: ${text.slice(0, 2000)}`,
            );
          }
        }
        return response;
      },
    } as never,
  });
}

/**
 * Problems with `value` as an instance of the spec schema `schemaName` (e.g. "JSONDocument");
 * empty when it conforms. Used by the content engine's tests.
 */
export function schemaErrors(schemaName: string, value: unknown): string[] {
  if (!spec.components.schemas?.[schemaName]) return [`no schema named ${schemaName} in the spec`];
  const ref = `spec#/components/schemas/${schemaName}`;
  let quick = quickValidators.get(ref);
  if (!quick) {
    quick = quickAjv.compile({ $ref: ref });
    quickValidators.set(ref, quick);
  }
  if (quick(value)) return [];
  const validate = validatorFor(ref);
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || "(root)"} ${e.message} ${JSON.stringify(e.params)}`);
}
