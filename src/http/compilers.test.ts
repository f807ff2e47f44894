import Fastify from "fastify";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { compileNow } from "./compile-on-use.js";
import { buildSerializer } from "./serializers.js";
import { buildValidator } from "./validators.js";

const Body = Type.Object({ title: Type.String({ maxLength: 10 }) });
const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) });
const Answer = Type.Object({ id: Type.String(), count: Type.Integer() });

// Fastify asks the factories for compilers once per plugin context, with the context's external schemas and options.
const compilers = () => ({ validate: buildValidator({}, {} as never) as any, serialize: buildSerializer({}, {}) });

describe("compiling request and response schemas", () => {
  it("compiles a schema once, whichever plugin context or app asks", () => {
    const [a, b] = [compilers(), compilers()];
    expect(a.validate({ schema: Body, httpPart: "body" })).toBe(b.validate({ schema: Body, httpPart: "body" }));
    const route = { method: "GET", url: "/x", httpStatus: "200", schema: Answer };
    expect(a.serialize(route)).toBe(b.serialize({ ...route, url: "/y", httpStatus: "201" }));
    // A different schema is a different function.
    expect(a.serialize({ ...route, schema: Type.Object({ id: Type.String() }) })).not.toBe(a.serialize(route));
  });

  it("compiles a schema by its first use, not when its route is registered", () => {
    const { validate, serialize } = compilers();
    // Schemas neither compiler accepts: registering them does not compile them...
    const badBody = validate({ schema: { type: "object", properties: { a: { type: "no-such-type" } } }, httpPart: "body" });
    const badQuery = validate({ schema: { type: "object", required: "a" }, httpPart: "querystring" });
    const badAnswer = serialize({
      method: "GET",
      url: "/x",
      httpStatus: "200",
      schema: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
    });
    // ...their first use does, and compileNow does it ahead.
    expect(() => badBody({ a: 1 })).toThrow(/schema is invalid/);
    expect(() => compileNow(badQuery)).toThrow();
    expect(() => badAnswer({ a: 1 } as never)).toThrow(/nowhere/);
  });

  it("still validates bodies strictly, coerces query strings, and serializes by the schema", async () => {
    const app = Fastify({ schemaController: { compilersFactory: { buildValidator, buildSerializer } } });
    for (const prefix of ["/one", "/two"]) {
      await app.register(
        async (scope) => {
          scope.post("/", { schema: { body: Body, querystring: Query, response: { 200: Answer } } }, async (request) => ({
            id: (request.body as { title: string }).title,
            count: (request.query as { limit?: number }).limit ?? 0,
            secret: "not in the schema",
          }));
        },
        { prefix },
      );
    }
    for (const prefix of ["/one", "/two"]) {
      const ok = await app.inject({ method: "POST", url: `${prefix}/?limit=3`, payload: { title: "hello" } });
      expect(ok.json()).toEqual({ id: "hello", count: 3 });
      const number = await app.inject({ method: "POST", url: `${prefix}/`, payload: { title: 42 } });
      expect(number.statusCode).toBe(400);
      const infinite = await app.inject({ method: "POST", url: `${prefix}/?limit=1e309`, payload: { title: "x" } });
      expect(infinite.statusCode).toBe(400);
    }
    await app.close();
  });
});
