/**
 * The JSON body parser: UTF-8 only, nesting depth capped, an empty body read as `{}`.
 *
 * - A `charset` other than UTF-8 is refused with 415: the body would otherwise be read as UTF-8 and
 *   stored garbled.
 * - Arrays and objects may nest at most MAX_JSON_DEPTH levels. The document is scanned before it is
 *   parsed, so a body of 100,000 nested arrays costs one pass over its bytes, not a parse and a
 *   recursive walk (validation, storage) that could exhaust the stack.
 * - GitBook's client sends `Content-Type: application/json` with an empty body on bodyless calls;
 *   that reads as `{}`. Prototype poisoning is still refused by Fastify's own parser.
 */
import type { FastifyInstance } from "fastify";
import { HttpError } from "./errors.js";

/** Deepest nesting of arrays and objects accepted in a JSON body (documented in the README). */
export const MAX_JSON_DEPTH = 128;

/** The charset parameter of a Content-Type header, lower-cased, or undefined when absent. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  for (const part of contentType.split(";").slice(1)) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    return part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
  }
  return undefined;
}

/** The deepest nesting of arrays and objects in a JSON text, stopping as soon as it exceeds `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return false;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const defaultJsonParser = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const charset = charsetOf(request.headers["content-type"]);
    if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
      return done(new HttpError(415, `Unsupported charset "${charset}": send JSON encoded as UTF-8 (charset=utf-8).`), undefined);
    }
    const text = body as string;
    if (text.trim() === "") return done(null, {});
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      return done(new HttpError(400, `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`), undefined);
    }
    defaultJsonParser(request, text, done);
  });
}
