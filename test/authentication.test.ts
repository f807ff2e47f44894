/**
 * Every API operation requires a token: walks the whole OpenAPI description the server publishes,
 * so a route added later is covered without being listed here. Public operations are named below.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "./helpers/app.js";

// Operations reachable without a token, and why.
const PUBLIC = new Set([
  "GET /v1/", // API information, as GitBook's client reads it before authenticating
  // A public OpenAPI spec's processed documents: anyone may read them; private ones need a member's token.
  "GET /v1/orgs/{organizationId}/openapi/{specSlug}/openapi.json",
  "GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/openapi.json",
]);

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
  await ctx.app.ready();
});
afterAll(async () => {
  await ctx.close();
});

describe("authentication on every operation", () => {
  it("answers 401 with the error body to a request without a token, on every operation but the public ones", async () => {
    const paths = (ctx.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths;
    const operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
    // A floor, so that an empty description (or a broken walk) cannot pass.
    expect(operations.length).toBeGreaterThan(140);
    const failures: string[] = [];
    for (const { method, path } of operations) {
      const name = `${method} ${path}`;
      if (PUBLIC.has(name)) continue;
      const url = path.replace(/\{[^}]+\}/g, "x0000000000000000000");
      const response = await ctx.app.inject({
        method: method as "GET",
        url,
        ...(method === "GET" || method === "DELETE" ? {} : { payload: {} }),
      });
      const body = response.json() as { error?: { code?: number; message?: string } };
      if (response.statusCode !== 401 || body.error?.code !== 401 || !body.error.message)
        failures.push(`${name} → ${response.statusCode} ${response.body.slice(0, 80)}`);
    }
    expect(failures).toEqual([]);
  });

  it("answers 401 to an unknown token and to a malformed Authorization header", async () => {
    const unknown = await ctx.app.inject({ method: "GET", url: "/v1/user", headers: { authorization: "Bearer qr_unknown" } });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.message).toMatch(/unknown or has been revoked/);
    const malformed = await ctx.app.inject({ method: "GET", url: "/v1/user", headers: { authorization: "Token abc" } });
    expect(malformed.statusCode).toBe(401);
    expect(malformed.json().error.message).toMatch(/Bearer <API token>/);
  });

  it("serves the public operations without a token", async () => {
    const info = await ctx.app.inject({ method: "GET", url: "/v1/" });
    expect(info.statusCode).toBe(200);
  });
});

describe("the API reference", () => {
  // Served by @fastify/swagger-ui through @fastify/static: its files are public, and nothing else is.
  it("serves Swagger UI and its files without a token, and no file outside them", async () => {
    const page = await ctx.app.inject({ method: "GET", url: "/reference" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain('id="swagger-ui"');
    const css = await ctx.app.inject({ method: "GET", url: "/reference/static/swagger-ui.css" });
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toMatch(/^text\/css/);
    expect(css.body.length).toBeGreaterThan(1000);
    const outside = await ctx.app.inject({ method: "GET", url: "/reference/static/..%2f..%2f..%2fpackage.json" });
    expect(outside.statusCode).toBe(404);
    expect(outside.body).not.toContain('"dependencies"');
    expect(outside.json().error.code).toBe(404);
    // The page reads this app's OpenAPI document.
    const document = await ctx.app.inject({ method: "GET", url: "/reference/json" });
    expect(document.statusCode).toBe(200);
    expect(document.json()).toEqual((await ctx.app.inject({ method: "GET", url: "/openapi.json" })).json());
  });
});
