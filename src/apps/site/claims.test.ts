import { describe, expect, it } from "vitest";
import { combineClaims, signedClaimsOf, unsignedClaims, unsignedSchemaOf, variantKeyOf } from "./claims.model.js";
import { conditionHolds, type Reader } from "./reader.model.js";

const schema = {
  type: "object",
  additionalProperties: false,
  properties: {
    plan: { type: "string", enum: ["free", "enterprise"], description: "Plan" },
    unsigned: {
      type: "object",
      description: "Unsigned claims of the site visitor.",
      additionalProperties: false,
      properties: {
        language: { type: "string", enum: ["en", "fr"], description: "Language" },
        beta: { type: "boolean", description: "Beta" },
        seats: { type: "number", description: "Seats" },
        tags: { type: "array", description: "Tags", items: { type: "string", description: "tag" } },
        region: {
          type: "object",
          description: "Region",
          additionalProperties: false,
          properties: { code: { type: "string", description: "Code" } },
        },
      },
    },
  },
};
const properties = unsignedSchemaOf(schema);

const reader = (claims: Record<string, unknown>): Reader => ({ claims, member: false, indexable: true, variantKey: "x", via: "anyone" });

describe("signed claims", () => {
  it("are the token's payload without the registered JWT claims", () => {
    expect(
      signedClaimsOf({ iss: "me", sub: "u1", aud: "a", exp: 1, nbf: 1, iat: 1, jti: "j", plan: "enterprise", flags: { x: true } }),
    ).toEqual({
      plan: "enterprise",
      flags: { x: true },
    });
  });
});

describe("unsigned claims", () => {
  it("are typed by the schema from query parameters (dot paths nest) and dropped when undeclared or mistyped", () => {
    const claims = unsignedClaims(properties, {
      cookies: [],
      query: [
        ["language", "fr"],
        ["beta", "true"],
        ["seats", "12"],
        ["tags", '["a","b"]'],
        ["region.code", "eu"],
        ["plan", "enterprise"],
        ["undeclared", "1"],
        ["region.other", "x"],
        ["__proto__.polluted", "1"],
      ],
    });
    expect(claims).toEqual({ language: "fr", beta: true, seats: 12, tags: ["a", "b"], region: { code: "eu" } });
    expect(
      unsignedClaims(properties, {
        cookies: [],
        query: [
          ["language", "de"],
          ["beta", "yes"],
          ["seats", "many"],
        ],
      }),
    ).toEqual({});
  });

  it("come from *-visitor-public* cookies as JSON, a query parameter winning; bad JSON is ignored", () => {
    const claims = unsignedClaims(properties, {
      cookies: ['{"language":"en","beta":false,"region":{"code":"us"},"secret":1}', "{not json"],
      query: [["language", "fr"]],
    });
    expect(claims).toEqual({ language: "fr", beta: false, region: { code: "us" } });
  });

  it("are none without an unsigned part in the schema", () => {
    expect(
      unsignedClaims(unsignedSchemaOf({ type: "object", properties: {} }), { cookies: ['{"language":"fr"}'], query: [["language", "fr"]] }),
    ).toEqual({});
    expect(unsignedClaims(undefined, { cookies: [], query: [["language", "fr"]] })).toEqual({});
  });
});

describe("conditions", () => {
  it("see signed claims under visitor.claims and unsigned ones under visitor.claims.unsigned", () => {
    const claims = combineClaims({ plan: "enterprise" }, { language: "fr" });
    expect(conditionHolds('visitor.claims.plan === "enterprise"', reader(claims))).toBe(true);
    expect(conditionHolds('visitor.claims.unsigned.language === "fr"', reader(claims))).toBe(true);
    expect(conditionHolds('visitor.claims.plan === "enterprise" && visitor.claims.unsigned.language === "en"', reader(claims))).toBe(false);
  });

  it("hide what they guard when a claim is missing, the expression is broken or runs out of budget", () => {
    const none = reader({});
    expect(conditionHolds(null, none)).toBe(true);
    expect(conditionHolds("  ", none)).toBe(true);
    expect(conditionHolds("visitor.claims.isBetaUser == true", none)).toBe(false);
    expect(conditionHolds("visitor.claims.unsigned.language === 'fr'", none)).toBe(false);
    expect(conditionHolds("visitor.claims.flags?.beta === true", none)).toBe(false);
    expect(conditionHolds("visitor.claims.plan ===", reader({ plan: "x" }))).toBe(false);
    expect(conditionHolds("Array(1e7).fill(1).map((x) => x + 1).length > 0", reader({}))).toBe(false);
    expect(conditionHolds("!visitor.claims.plan", none)).toBe(true);
  });

  it("read page and space variables given beside the claims", () => {
    expect(conditionHolds("page.vars.audience === 'ops'", reader({}), { page: { vars: { audience: "ops" } } })).toBe(true);
  });
});

describe("variant keys", () => {
  it("are equal for equal claims in any key order, and differ otherwise", () => {
    expect(variantKeyOf({}, false)).toBe("v0");
    expect(variantKeyOf({ a: 1, b: { c: 2, d: 3 } }, false)).toBe(variantKeyOf({ b: { d: 3, c: 2 }, a: 1 }, false));
    expect(variantKeyOf({ a: 1 }, false)).not.toBe(variantKeyOf({ a: 2 }, false));
    expect(variantKeyOf({}, true)).not.toBe("v0");
    expect(variantKeyOf({ a: "1" }, false)).not.toBe(variantKeyOf({ a: 1 }, false));
  });
});
