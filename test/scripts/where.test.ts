/**
 * npm run where (scripts/where.ts, scripts/lib/routes.ts): every API operation of the app, and every
 * page route, is mapped to the line of code that registers it.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRoutes, type RouteEntry, routeTable } from "../../scripts/lib/routes.js";

const root = path.resolve(import.meta.dirname, "../..");
let table: Awaited<ReturnType<typeof routeTable>>;
beforeAll(async () => {
  table = await routeTable();
  await table.app.ready();
}, 60_000);
afterAll(() => table?.close());

/** The line a route entry points at. */
const lineOf = (route: RouteEntry) => fs.readFileSync(path.join(root, route.file!), "utf8").split("\n")[route.line! - 1] ?? "";
const REGISTERS = /\.(get|post|put|patch|delete|head|options|all|route)\s*(<.*>)?\(/;

describe("npm run where", () => {
  it("maps every operationId of the app to the line that registers it", () => {
    const spec = table.app.swagger() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const operations = Object.values(spec.paths).flatMap((methods) =>
      Object.values(methods).flatMap((operation) => (operation.operationId ? [operation.operationId] : [])),
    );
    // A floor, so that an empty description cannot pass.
    expect(operations.length).toBeGreaterThan(140);
    const unmapped: string[] = [];
    for (const operationId of operations) {
      const [route] = findRoutes(table.routes, operationId);
      if (!route?.file || !route.line || !route.file.startsWith("src/") || !REGISTERS.test(lineOf(route))) {
        unmapped.push(`${operationId} -> ${route ? `${route.file}:${route.line} ${lineOf(route).trim()}` : "nothing"}`);
      }
    }
    expect(unmapped).toEqual([]);
  });

  it("maps the web app's and the published sites' routes, and finds the route of a path as the router would", () => {
    const pageRoutes = table.routes.filter((route) => route.url.startsWith("/app") || route.url.startsWith("/s/"));
    expect(pageRoutes.length).toBeGreaterThan(20);
    // A route of an application's table is shown at the export of its handler (the table is in `via`).
    const DEFINES_HANDLER = /^export (const|(async )?function) \w+/;
    for (const route of pageRoutes) {
      const line = lineOf(route);
      expect(REGISTERS.test(line) || DEFINES_HANDLER.test(line), `${route.method} ${route.url}: ${line}`).toBe(true);
    }

    const one = (query: string) => findRoutes(table.routes, query).map((route) => `${route.method} ${route.url} ${route.file}`);
    expect(one("GET /v1/spaces/abc")).toEqual(["GET /v1/spaces/:spaceId src/modules/spaces/spaces.routes.ts"]);
    expect(one("GET /v1/spaces/{spaceId}")).toEqual(one("GET /v1/spaces/:spaceId"));
    // A static segment wins over a parameter.
    expect(one("GET /app/login")).toEqual(["GET /app/login src/apps/web/pages/home/login.page.ts"]);
    expect(one("GET /app/login/link/abc")).toEqual(["GET /app/login/link/:token src/apps/web/pages/home/login-link.page.ts"]);
    expect(one("GET /app/o/acme/s/handbook/p/intro")).toEqual([
      "GET /app/o/:org/s/:space/p/:page src/apps/web/pages/spaces/space-page.page.ts",
    ]);
    expect(one("GET /s/docs/getting-started/install")).toEqual(["GET /s/:basename/* src/apps/site/pages/page.page.ts"]);
    expect(one("GET /s/docs/~quire/search")).toEqual(["GET /s/:basename/~quire/search src/apps/site/pages/search.page.ts"]);
    expect(one("POST /s/docs/~quire/feedback")).toEqual(["POST /s/:basename/~quire/feedback src/apps/site/pages/feedback.action.ts"]);
    expect(one("getSpaceById")[0]).toBe("GET /v1/spaces/:spaceId src/modules/spaces/spaces.routes.ts");
    expect(one("/no/such/thing")).toEqual([]);
  });
});
