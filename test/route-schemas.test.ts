/**
 * Route schemas are compiled by their first request (src/http/compile-on-use.ts), not at start: this
 * compiles every schema of every route of the app, so a schema Ajv or fast-json-stringify refuses
 * fails here rather than on its route's first request.
 */
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { compileNow } from "../src/http/compile-on-use.js";
import { buildSerializer } from "../src/http/serializers.js";
import { buildValidator } from "../src/http/validators.js";
import { createTestContext, type TestContext } from "./helpers/app.js";

let ctx: TestContext;
const routes: RouteOptions[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  const app = await buildApp(ctx.deps, { onRoute: (route) => void routes.push(route) });
  await app.ready();
  await app.close();
});
afterAll(() => ctx.close());

type Schema = { content?: Record<string, { schema: object }> } & Record<string, unknown>;
const bodies = (schema: Schema) => (schema.content ? Object.values(schema.content).map((c) => c.schema) : [schema]);

describe("route schemas", () => {
  it("every request and response schema of every route compiles", () => {
    const validator = buildValidator({}, { customOptions: {} } as never) as unknown as (route: object) => object;
    const serializer = buildSerializer({}, {});
    let compiled = 0;
    for (const route of routes) {
      const schema = (route.schema ?? {}) as Record<string, Schema | undefined>;
      const where = `${String(route.method)} ${route.url}`;
      for (const httpPart of ["body", "querystring", "params", "headers"]) {
        for (const part of schema[httpPart] ? bodies(schema[httpPart]) : []) {
          expect(() => compileNow(validator({ schema: part, httpPart, url: route.url })), `${where} ${httpPart}`).not.toThrow();
          compiled++;
        }
      }
      for (const [status, response] of Object.entries((schema.response ?? {}) as Record<string, Schema>)) {
        for (const part of bodies(response)) {
          const serialize = serializer({ schema: part, url: route.url, method: String(route.method), httpStatus: status });
          expect(() => compileNow(serialize), `${where} ${status}`).not.toThrow();
          compiled++;
        }
      }
    }
    // The app's routes carry some hundreds of schemas: a count near zero means routes were not seen.
    expect(compiled).toBeGreaterThan(300);
  });
});
