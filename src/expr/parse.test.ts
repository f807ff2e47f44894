import { describe, expect, it } from "vitest";
import { ExpressionError, type ExpressionErrorCode, parseExpression } from "./index.js";

/** The ExpressionError `run` throws; fails the test when it throws anything else or nothing. */
function failure(run: () => unknown): ExpressionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error("expected an ExpressionError, got a value");
}

function expectFailure(source: string, code: ExpressionErrorCode, message?: RegExp, position?: number) {
  const error = failure(() => parseExpression(source));
  expect(error.code, source).toBe(code);
  if (message) expect(error.message, source).toMatch(message);
  if (position !== undefined) expect(error.position, source).toBe(position);
}

describe("parseExpression", () => {
  it("accepts one expression with blanks, comments and enclosing parentheses", () => {
    for (const source of ["a", " a ", "(a)", "((a)) // done", "a /* ) */", "a\n", "({a: 1})", "{a: 1}", "`x${a}`"]) {
      expect(parseExpression(source).source).toBe(source);
    }
  });

  it("refuses anything after the expression, naming where it starts", () => {
    expectFailure("a; b", "syntax", /after the expression/, 1);
    expectFailure("a b", "syntax", /after the expression/, 2);
    expectFailure("(a) b", "syntax", /after the expression/, 4);
    expectFailure("a)", "syntax", /after the expression/, 1);
    expectFailure("a /* c */ }", "syntax", /after the expression/, 10);
  });

  it("reports acorn's syntax errors with their offset", () => {
    expectFailure("((a)", "syntax", /Unexpected token/, 4);
    expectFailure("a +", "syntax", undefined, 3);
    expectFailure("", "syntax");
    expectFailure("'unterminated", "syntax");
    expectFailure("a ?? b || c", "syntax"); // mixing ?? with || needs parentheses, as in JavaScript
    expectFailure("a /* open", "syntax");
  });

  it("parses in strict mode", () => {
    expectFailure("010", "syntax");
    expectFailure("yield", "syntax");
  });

  it("refuses a non-string source", () => {
    for (const source of [42, null, undefined, {}, ["a"], new String("a")]) {
      expect(failure(() => parseExpression(source as never)).code).toBe("syntax");
    }
  });

  it("limits the length in code points, 1024 by default, before parsing", () => {
    expect(() => parseExpression(`"${"x".repeat(1022)}"`)).not.toThrow();
    expectFailure(`"${"x".repeat(1023)}"`, "too_long", /longer than 1024 characters/);
    // 1,000 emoji are 2,000 UTF-16 units but 1,002 code points with the quotes.
    expect(() => parseExpression(`"${"😀".repeat(1000)}"`)).not.toThrow();
    expectFailure(`"${"😀".repeat(1023)}"`, "too_long");
    expect(failure(() => parseExpression("a + b", { maxLength: 4 })).code).toBe("too_long");
    expect(() => parseExpression("x".repeat(2000), { maxLength: 2000 })).not.toThrow();
  });

  it("limits nesting depth; operator runs and member chains count as one level", () => {
    const chain = Array.from({ length: 300 }, () => "a").join("+");
    expect(() => parseExpression(chain)).not.toThrow();
    expect(() => parseExpression(`a${".b".repeat(400)}`)).not.toThrow();
    expect(() => parseExpression(`a${" || b".repeat(150)}`)).not.toThrow();
    const nested = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;
    expect(() => parseExpression(nested(99))).not.toThrow();
    expectFailure(nested(100), "too_long", /nests deeper than 100 levels/);
    expect(failure(() => parseExpression("!!!!!!a", { maxDepth: 5 })).code).toBe("too_long");
  });

  it("turns acorn running out of stack into too_long", () => {
    const source = `${"(".repeat(10_000)}a${")".repeat(10_000)}`;
    const error = failure(() => parseExpression(source, { maxLength: 100_000, maxDepth: 100_000 }));
    expect(error.code).toBe("too_long");
  });

  it("refuses bad limits as a programming error", () => {
    expect(() => parseExpression("a", { maxLength: 0 })).toThrow(RangeError);
    expect(() => parseExpression("a", { maxDepth: 1.5 })).toThrow(RangeError);
  });

  it("refuses every construct outside the language, naming it and its position", () => {
    const cases: [string, RegExp, number][] = [
      ["a = 1", /Assignment/, 0],
      ["x.y += 1", /Assignment/, 0],
      ["a ||= b", /Assignment/, 0],
      ["a++", /update operators/, 0],
      ["--a", /update operators/, 0],
      ["new Date()", /`new`/, 0],
      ["this.x", /`this`/, 0],
      ["await x", /`await`/, 0],
      ["a, b", /comma-separated/, 0],
      ["1 + (a, b)", /comma-separated/, 5],
      ["delete a.b", /`delete`/, 0],
      ["void 0", /`void`/, 0],
      ["a instanceof b", /`instanceof`/, 0],
      ["function () { return 1 }", /function expression/, 0],
      ["(function* () { yield 1 })", /function expression/, 1],
      ["class {}", /class/, 0],
      ["tag`x`", /tagged template/, 0],
      ["String.raw`x`", /tagged template/, 0],
      ["import('fs')", /`import\(\)`/, 0],
      ["import.meta", /import.meta/, 0],
      ["/a+$/.test(s)", /regular expression/, 0],
      ["s.replace(/(a+)+$/, '')", /regular expression/, 10],
      ["10n", /BigInt/, 0],
      ["[1, , 2]", /array hole/, 4],
      ["[, 1]", /array hole/, 1],
      ["({ get x() { return 1 } })", /getter/, 3],
      ["({ set x(v) {} })", /setter/, 3],
      ["({ m() { return 1 } })", /method definition/, 3],
      ["x => x", /arrow function outside a callback/, 0],
      ["(() => 1)()", /arrow function outside a callback/, 1],
      ["[x => x]", /arrow function outside a callback/, 1],
      ["a.map(async x => x)", /async arrow/, 6],
      ["a.map(x => { return x })", /block body/, 11],
      ["a.map(([x]) => x)", /Array destructuring/, 7],
      ["a.map((...xs) => xs)", /rest parameter/, 7],
      ["a.map(({...r}) => r)", /rest element/, 8],
      ["a.map(({[k]: v}) => v)", /computed key/, 9],
      ["a.map(undefined => 1)", /`undefined` as a parameter name/, 6],
      ["a.map(Math => Math)", /`Math` as a parameter name/, 6],
    ];
    for (const [source, message, position] of cases) expectFailure(source, "unsupported", message, position);
  });

  it("gives each parse its own tree: a ParsedExpression cannot be forged", () => {
    const parsed = parseExpression("a + 1");
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(Object.keys(parsed)).toEqual(["source"]);
  });
});
