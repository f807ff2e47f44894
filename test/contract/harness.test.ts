import { describe, expect, it } from "vitest";
import { checkResponse, findOperation } from "../helpers/contract.js";

describe("contract harness", () => {
  it("matches literal path segments before parameters", () => {
    expect(findOperation("GET", "/orgs/o1/openapi/s1/versions/latest")?.op.operationId).toBe("getLatestOpenAPISpecVersion");
    expect(findOperation("GET", "/orgs/o1/openapi/s1/versions/v1")?.op.operationId).toBe("getOpenAPISpecVersionById");
  });

  it("rejects a body missing required fields, of the wrong type, or outside an enum", () => {
    const url = "http://x/v1/users/u1";
    expect(
      checkResponse("GET", url, 200, JSON.stringify({ object: "user", id: "u1", displayName: "A", urls: { location: "http://x" } })),
    ).toEqual([]);
    expect(checkResponse("GET", url, 200, JSON.stringify({ object: "user", id: "u1", urls: { location: "http://x" } })).join()).toMatch(
      /displayName/,
    );
    expect(
      checkResponse("GET", url, 200, JSON.stringify({ object: "member", id: "u1", displayName: "A", urls: { location: "x" } })).join(),
    ).toMatch(/allowed values|equal to constant/);
    expect(checkResponse("GET", "http://x/v1/orgs/o1", 200, JSON.stringify({ object: "organization" })).length).toBeGreaterThan(0);
  });

  it("rejects undeclared statuses and unknown operations", () => {
    expect(checkResponse("GET", "http://x/v1/users/u1", 201, "{}").join()).toMatch(/not declared/);
    expect(checkResponse("GET", "http://x/v1/nope", 200, "{}").join()).toMatch(/no such operation/);
  });
});

describe("documented spec adjustments", () => {
  const page = {
    id: "p1",
    title: "T",
    kind: "sheet",
    type: "document",
    urls: { app: "http://x" },
    slug: "t",
    path: "t",
    pages: [],
    layout: {
      width: "default",
      cover: true,
      coverSize: "hero",
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
    },
  };
  it("accepts a document page without an inline body, with a document, or with markdown", () => {
    const url = "http://x/v1/spaces/s/content/page/p1";
    expect(checkResponse("GET", url, 200, JSON.stringify(page))).toEqual([]);
    expect(checkResponse("GET", url, 200, JSON.stringify({ ...page, document: { object: "document", data: {}, nodes: [] } }))).toEqual([]);
    expect(checkResponse("GET", url, 200, JSON.stringify({ ...page, markdown: "# T" }))).toEqual([]);
  });

  it("still rejects a page missing a required field", () => {
    const { layout: _layout, ...withoutLayout } = page;
    expect(checkResponse("GET", "http://x/v1/spaces/s/content/page/p1", 200, JSON.stringify(withoutLayout)).length).toBeGreaterThan(0);
  });

  it("matches page paths that contain slashes", () => {
    expect(findOperation("GET", "/spaces/s/content/path/guides/install/linux")?.op.operationId).toBe("getPageByPath");
    expect(findOperation("GET", "/spaces/s/revisions/r/path/a/b")?.op.operationId).toBe("getPageInRevisionByPath");
  });
});
