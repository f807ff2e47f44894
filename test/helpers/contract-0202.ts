/**
 * Validation of Quire's answers to the operations it takes from @gitbook/api@0.202.0 against that
 * version's own schemas (test/fixtures/gitbook-api-0.202/operations.json, extracted from the
 * package's spec; the harness in contract.ts installs 0.146.0).
 */
import { readFileSync } from "node:fs";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

const document = JSON.parse(readFileSync(new URL("../fixtures/gitbook-api-0.202/operations.json", import.meta.url), "utf8")) as {
  operations: Record<string, { responses: Record<string, unknown> }>;
  components: { schemas: Record<string, unknown> };
};

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, "spec202");
const validators = new Map<string, ValidateFunction>();

function validator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec202#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

function errorsOf(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || "(root)"} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Problems with a JSON answer of `operationId` with `status`; empty when it conforms to 0.202. */
export function responseErrors0202(operationId: string, status: number, body: unknown): string[] {
  const response = document.operations[operationId]?.responses[String(status)] as { content?: unknown } | undefined;
  if (!response) return [`0.202 declares no ${status} answer for ${operationId}`];
  if (!response.content) return body === undefined || body === null || body === "" ? [] : [`${operationId} ${status} has no body in 0.202`];
  return errorsOf(validator(`/operations/${operationId}/responses/${status}/content/application~1json/schema`), body);
}

/** Problems with `value` as an instance of the 0.202 component schema `name`. */
export function schemaErrors0202(name: string, value: unknown): string[] {
  if (!document.components.schemas[name]) return [`no schema ${name} in the 0.202 extract`];
  return errorsOf(validator(`/components/schemas/${name}`), value);
}

/** The 0.202 text of a component schema (e.g. its `pattern`), for tests that check Quire applies it. */
export function schema0202(name: string): Record<string, unknown> {
  return document.components.schemas[name] as Record<string, unknown>;
}
