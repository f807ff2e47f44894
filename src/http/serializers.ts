/**
 * Response serializers (fast-json-stringify), compiled once per response schema object. Routes
 * share schemas: every route answers its errors with the same `ErrorBody` (400, 401, 403, 404 and
 * more), many lists share item schemas. Fastify compiles a serializer per route and status code;
 * the compiled function depends only on the schema, the external schemas and the options, so one
 * is kept per schema object for each of those. It is compiled by its first use, not at start
 * (as validators are: src/http/validators.ts).
 */
import { createRequire } from "node:module";
import type { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyReply } from "fastify";
import { serializerOnFirstUse } from "./compile-on-use.js";

type Factory = ReturnType<typeof SerializerSelector>;
type Compiler = ReturnType<Factory>;
type Serializer = ReturnType<Compiler>;

// fast-json-stringify (and the Ajv it uses) is required by the first compile.
let selector: Factory | undefined;
function serializerSelector(): Factory {
  selector ??= (
    createRequire(import.meta.url)("@fastify/fast-json-stringify-compiler") as typeof import("@fastify/fast-json-stringify-compiler")
  ).SerializerSelector();
  return selector;
}
const compiled = new Map<string, WeakMap<object, Serializer>>();

/** The `schemaController.compilersFactory.buildSerializer` of buildApp. */
export const buildSerializer: Factory = (externalSchemas, options) => {
  const compile: Compiler = (route) => serializerSelector()(externalSchemas, options)(route);
  const key = `${JSON.stringify(externalSchemas ?? {})}${JSON.stringify(options ?? {})}`;
  let bySchema = compiled.get(key);
  if (!bySchema) compiled.set(key, (bySchema = new WeakMap()));
  const cache = bySchema;
  return (route) => {
    const schema = route.schema;
    if (!schema || typeof schema !== "object") return compile(route);
    let serializer = cache.get(schema);
    if (!serializer) cache.set(schema, (serializer = serializerOnFirstUse(() => compile(route))));
    return serializer;
  };
};

/**
 * Sends JSON text as it is, bypassing the route's response serializer for this reply only (the
 * schema still documents the response): for text the serializer wrote before and that was kept,
 * or stored JSON that is what the serializer would write (content/document/api-json.ts).
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
