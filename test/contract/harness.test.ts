import { describe, expect, it } from "vitest";
import { checkResponse, findOperation } from "../helpers/contract.js";

describe("contract harness", () => {
  it("matches literal path segments before parameters", () => {
    expect(findOperation("GET", "/orgs/o1/openapi/s1/versions/latest")?.op.operationId).toBe("getLatestOpenAPISpecVersion");
    expect(findOperation("GET", "/orgs/o1/openapi/s1/versions/v1")?.op.operationId).toBe("getOpenAPISpecVersionById");
  });

  it("rejects a body missing required fields, of the wrong type, or outside an enum", () => {
    const url = "http://x/v1/users/u1";
    expect(checkResponse("GET", url, 200, JSON.stringify({ object: "user", id: "u1", displayName: "A", urls: { location: "http://x" } }))).toEqual([]);
    expect(checkResponse("GET", url, 200, JSON.stringify({ object: "user", id: "u1", urls: { location: "http://x" } })).join()).toMatch(/displayName/);
    expect(checkResponse("GET", url, 200, JSON.stringify({ object: "member", id: "u1", displayName: "A", urls: { location: "x" } })).join()).toMatch(/allowed values|equal to constant/);
    expect(checkResponse("GET", "http://x/v1/orgs/o1", 200, JSON.stringify({ object: "organization" })).length).toBeGreaterThan(0);
  });

  it("rejects undeclared statuses and unknown operations", () => {
    expect(checkResponse("GET", "http://x/v1/users/u1", 201, "{}").join()).toMatch(/not declared/);
    expect(checkResponse("GET", "http://x/v1/nope", 200, "{}").join()).toMatch(/no such operation/);
  });
});
