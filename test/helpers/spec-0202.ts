/**
 * Validation against @gitbook/api@0.202.0, whose newer operations (the audit log's) Quire takes
 * from it while 0.146 stays the contract of the rest (test/helpers/contract.ts). The schemas are
 * the spec's own, copied verbatim into test/fixtures/gitbook-api-0.202/ (the package is not a
 * dependency): `checkResponse0202("GET /orgs/{organizationId}/audit-events", body)`.
 */
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const fixture = JSON.parse(readFileSync(new URL("../fixtures/gitbook-api-0.202/audit-events.json", import.meta.url), "utf8")) as {
  components: object;
  responses: Record<string, object>;
};

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ components: fixture.components }, "spec");

/** The schema errors of `body` as the 200 answer of `operation` (empty when it conforms). */
export function checkResponse0202(operation: string, body: unknown): string[] {
  const schema = fixture.responses[operation];
  if (!schema) throw new Error(`No 0.202 response schema for ${operation}`);
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"spec#/components/')));
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
