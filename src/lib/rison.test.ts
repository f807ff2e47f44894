import { describe, expect, it } from "vitest";
import { decodeRison, RisonError } from "./rison.js";

describe("Rison", () => {
  it("decodes objects, arrays, strings, numbers and constants", () => {
    expect(decodeRison("(plan:enterprise,beta:!t,off:!f,none:!n,n:-1.5e2,tags:!(a,'b c'),nested:(x:1),empty:(),list:!())")).toEqual({
      plan: "enterprise",
      beta: true,
      off: false,
      none: null,
      n: -150,
      tags: ["a", "b c"],
      nested: { x: 1 },
      empty: {},
      list: [],
    });
    expect(decodeRison("'it!'s !! fine'")).toBe("it's ! fine");
    expect(decodeRison("42")).toBe(42);
  });

  it("keeps __proto__ a plain key", () => {
    const value = decodeRison("(__proto__:(admin:!t))") as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("refuses what is not Rison, and deep nesting", () => {
    for (const bad of ["", "(a:1", "(a)", "!x", "'open", "(a:1)x", "!(1,", "'a!b'"])
      expect(() => decodeRison(bad), bad).toThrow(RisonError);
    expect(() => decodeRison(`${"!(".repeat(100)}${")".repeat(100)}`)).toThrow(/nesting/);
  });
});
