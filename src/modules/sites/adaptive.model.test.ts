import { describe, expect, it } from "vitest";
import { parseExpression } from "../../expr/index.js";
import { DomainError } from "../../lib/errors.js";
import { checkAdaptiveSchema, templateConditions } from "./adaptive.model.js";

const schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    isBetaUser: { type: "boolean", description: "Beta program member" },
    plan: { type: "string", description: "Plan", enum: ["free", "enterprise"] },
    name: { type: "string", description: "Display name" },
    "org-size": { type: "number", description: "Seats" },
    roles: { type: "array", description: "Roles", items: { type: "string", description: "Role", enum: ["admin", "dev"] } },
    account: {
      type: "object",
      description: "Account",
      properties: { trial: { type: "boolean", description: "On trial" } },
      additionalProperties: false,
    },
    unsigned: {
      type: "object",
      description: "Unsigned claims of the site visitor.",
      properties: { language: { type: "string", description: "Language", enum: ["fr", "en"] } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

function refusal(value: Record<string, unknown>): string {
  try {
    checkAdaptiveSchema(value);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "invalid") return error.message;
    throw error;
  }
  throw new Error("accepted");
}

describe("checkAdaptiveSchema", () => {
  it("accepts the documented shape", () => {
    expect(() => checkAdaptiveSchema(schema)).not.toThrow();
    expect(() => checkAdaptiveSchema({ type: "object", properties: {}, additionalProperties: false })).not.toThrow();
  });

  it("says where and why a schema is not of that shape", () => {
    expect(refusal({ ...schema, type: "array" })).toBe('body.jsonSchema.type must be "object".');
    expect(refusal({ ...schema, additionalProperties: true })).toBe("body.jsonSchema.additionalProperties must be false.");
    expect(refusal({ ...schema, $schema: "https://json-schema.org/draft/2020-12/schema" })).toBe(
      'body.jsonSchema.$schema must be "http://json-schema.org/draft-07/schema#" when given.',
    );
    expect(refusal({ type: "object", additionalProperties: false })).toBe(
      "body.jsonSchema.properties is required and must be an object of claims.",
    );
    expect(refusal({ ...schema, title: "x" })).toMatch(/^body\.jsonSchema has the property "title", which is not allowed here/);
    expect(refusal({ ...schema, properties: { a: { type: "integer", description: "x" } } })).toBe(
      'body.jsonSchema.properties.a.type must be one of "boolean", "string", "number", "array", "object", not "integer".',
    );
    expect(refusal({ ...schema, properties: { a: { type: "boolean" } } })).toBe(
      "body.jsonSchema.properties.a.description is required and must be a string.",
    );
    expect(refusal({ ...schema, properties: { a: { type: "string", description: "x", enum: [] } } })).toBe(
      "body.jsonSchema.properties.a.enum must be a non-empty array of strings.",
    );
    expect(
      refusal({ ...schema, properties: { a: { type: "object", description: "x", properties: {}, additionalProperties: true } } }),
    ).toBe("body.jsonSchema.properties.a.additionalProperties must be false.");
    expect(
      refusal({
        ...schema,
        properties: { unsigned: { type: "object", description: "Other", properties: {}, additionalProperties: false } },
      }),
    ).toBe('body.jsonSchema.properties.unsigned.description must be "Unsigned claims of the site visitor.".');
    expect(refusal({ ...schema, properties: { a: { type: "array", description: "x", items: { type: "object" } } } })).toBe(
      'body.jsonSchema.properties.a.items.type must be "boolean", "string" or "number" here, not "object".',
    );
  });
});

describe("templateConditions", () => {
  it("gives one condition per boolean claim and per enum value, each a valid expression", () => {
    const conditions = templateConditions(schema);
    expect(conditions.map((c) => c.condition)).toEqual([
      "visitor.claims.isBetaUser === true",
      'visitor.claims.plan === "free"',
      'visitor.claims.plan === "enterprise"',
      'visitor.claims.roles?.includes("admin") === true',
      'visitor.claims.roles?.includes("dev") === true',
      "visitor.claims.account.trial === true",
      'visitor.claims.unsigned.language === "fr"',
      'visitor.claims.unsigned.language === "en"',
    ]);
    expect(conditions[0]?.description).toBe("Beta program member: isBetaUser is true");
    for (const { condition } of conditions) expect(() => parseExpression(condition)).not.toThrow();
  });
});
