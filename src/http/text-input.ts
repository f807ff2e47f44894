/**
 * PostgreSQL text cannot hold the NUL character (U+0000): a value containing one passes schema
 * validation and then fails inside the database as a 500. Refusing it in every input (path, query
 * and body, keys included) keeps such requests a clear 400 on both engines.
 */
import type { FastifyInstance } from "fastify";
import { badRequest } from "./errors.js";

export function registerTextInputGuard(app: FastifyInstance): void {
  app.addHook("preValidation", (request, _reply, done) => {
    // Path and query values are decoded from the URL, where a NUL can only be written `%00`
    // (Node's HTTP parser refuses a raw one): most requests skip the walk over them.
    const urlMayHoldNul = request.url.includes("%00");
    const where =
      (urlMayHoldNul
        ? (findNul(request.params, (key) => `path parameter "${key}"`) ?? findNul(request.query, (key) => `query parameter "${key}"`))
        : undefined) ?? findNul(request.body, (key) => (key ? `body.${key}` : "The request body"));
    done(where ? badRequest(`${where} must not contain the NUL character (\\u0000).`) : undefined);
  });
}

/** Where the first NUL is, named by `describe(path)`; iterative, as JSON bodies can nest deeply. */
function findNul(input: unknown, describe: (path: string) => string): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: input, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return describe(path);
    } else if (value && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (key.includes("\u0000")) return describe(childPath);
        stack.push({ value: child, path: childPath });
      }
    }
  }
  return undefined;
}
