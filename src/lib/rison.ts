/**
 * Rison (a compact, URL-friendly JSON: `(plan:enterprise,beta:!t,tags:!(a,b))`), the encoding of
 * the visitor claims a site preview link carries. Only decoding is needed. Bounded: the input's
 * length bounds the work, and nesting deeper than MAX_DEPTH is refused rather than recursed into.
 */

const MAX_DEPTH = 32;
// Characters that end a bare identifier or number (Rison's reserved set).
const NOT_ID = " '!:(),*@$";

export class RisonError extends Error {}

/** Decodes one Rison value; throws RisonError saying where the text is not Rison. */
export function decodeRison(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new RisonError(`${what} at character ${at + 1} of the Rison value`);
  };

  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const c = text[at];
    if (c === undefined) return fail("unexpected end");
    if (c === "(") {
      at++;
      const out: Record<string, unknown> = {};
      if (text[at] === ")") {
        at++;
        return out;
      }
      for (;;) {
        const key = text[at] === "'" ? quoted() : bare();
        if (typeof key !== "string") fail("an object key must be a string");
        if (text[at] !== ":") fail('expected ":"');
        at++;
        Object.defineProperty(out, key as string, { value: value(depth + 1), enumerable: true, writable: true, configurable: true });
        if (text[at] === ",") at++;
        else if (text[at] === ")") {
          at++;
          return out;
        } else fail('expected "," or ")"');
      }
    }
    if (c === "'") return quoted();
    if (c === "!") {
      const next = text[at + 1];
      at += 2;
      if (next === "t") return true;
      if (next === "f") return false;
      if (next === "n") return null;
      if (next === "(") {
        const out: unknown[] = [];
        if (text[at] === ")") {
          at++;
          return out;
        }
        for (;;) {
          out.push(value(depth + 1));
          if (text[at] === ",") at++;
          else if (text[at] === ")") {
            at++;
            return out;
          } else fail('expected "," or ")"');
        }
      }
      at -= 2;
      return fail('unknown "!" escape');
    }
    return bare();
  };

  const quoted = (): string => {
    at++;
    let out = "";
    for (;;) {
      const c = text[at];
      if (c === undefined) return fail("unterminated string");
      at++;
      if (c === "'") return out;
      if (c === "!") {
        const escaped = text[at];
        if (escaped !== "!" && escaped !== "'") fail('"!" in a string must be followed by "!" or "\'"');
        out += escaped;
        at++;
      } else out += c;
    }
  };

  const bare = (): string | number => {
    const start = at;
    while (at < text.length && !NOT_ID.includes(text[at] as string)) at++;
    const token = text.slice(start, at);
    if (token === "") fail("expected a value");
    if (/^-?(0|[1-9]\d*)(\.\d+)?(e[+-]?\d+)?$/.test(token)) return Number(token);
    return token;
  };

  const result = value(0);
  if (at !== text.length) fail("unexpected text after the value");
  return result;
}
