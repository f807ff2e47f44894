/**
 * Every route that may change something is audited: read from the app's route table as it is
 * registered, every POST, PUT, PATCH and DELETE (under /v1, /scim, the web app's forms, the SAML
 * endpoints) has an audit action and runs in an audit scope (src/http/audit.ts), or is on the
 * allow-list below with the reason it records nothing. A new write route is audited by default;
 * one that opts out (`config.audit.skip`) without being listed here, or a listed one that no longer
 * opts out, fails this test.
 */
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { auditActionCatalogue, auditActionOf, WRITE_METHODS } from "../src/http/audit.js";
import { createTestContext, type TestContext } from "./helpers/app.js";

/** Write routes that record nothing, each with why: none of them is a durable change of an organization. */
const NOT_AUDITED = new Map<string, string>([
  // The member's "last seen" time, sent by clients as they are used: activity, not a change.
  ["POST /v1/orgs/:organizationId/ping", "last seen"],
  // The editor's preview and its conversion of pasted Markdown store nothing; the save that follows is audited.
  ["POST /app/o/:org/s/:space/~/changes/:number/p/:pageId/preview", "preview"],
  ["POST /app/o/:org/s/:space/~/changes/:number/p/:pageId/markdown.json", "paste conversion"],
  // A published site's readers: MCP (reads only) and anonymous page ratings, which any visitor
  // could otherwise use to flood the organization's audit log.
  ["POST /s/:basename", "published site"],
  ["POST /s/:basename/*", "published site"],
  ["DELETE /s/:basename", "published site"],
  ["DELETE /s/:basename/*", "published site"],
]);

let ctx: TestContext;
const routes: RouteOptions[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  const app = await buildApp(ctx.deps, { onRoute: (route) => void routes.push(route) });
  await app.ready();
  await app.close();
});
afterAll(() => ctx.close());

const writeMethods = (route: RouteOptions) =>
  [route.method]
    .flat()
    .map(String)
    .filter((m) => WRITE_METHODS.has(m));

describe("audit coverage of the route table", () => {
  it("every write route is audited or on the allow-list, and the allow-list is exactly the routes that opt out", () => {
    const unaudited: string[] = [];
    const skipped: string[] = [];
    let audited = 0;
    for (const route of routes) {
      for (const method of writeMethods(route)) {
        const key = `${method} ${route.url}`;
        const action = auditActionOf({ ...route, method });
        if (action === undefined) {
          skipped.push(key);
          if (!NOT_AUDITED.has(key)) unaudited.push(key);
          continue;
        }
        audited++;
        // The handler runs in its audit scope: it was wrapped when registered.
        expect(route.handler.name, key).toBe("audited");
        expect(auditActionCatalogue().has(action), key).toBe(true);
      }
    }
    expect(unaudited, "write routes neither audited nor on the allow-list").toEqual([]);
    expect(skipped.sort()).toEqual([...NOT_AUDITED.keys()].sort());
    // Some 160 write routes: a count near zero means the table was not read.
    expect(audited).toBeGreaterThan(140);
  });

  it("each write route has its own action, so the action filter names one kind of change", () => {
    const seen = new Map<string, string>();
    for (const route of routes) {
      const audit = (route.config as { audit?: { action?: string; explicit?: true } } | undefined)?.audit;
      // Routes that share a named action on purpose (the sign-outs), and those recording their own entries.
      if (audit?.action || audit?.explicit) continue;
      for (const method of writeMethods(route)) {
        const action = auditActionOf({ ...route, method });
        if (!action) continue;
        const key = `${method} ${route.url}`;
        expect(seen.get(action), `${key} and ${seen.get(action)} share "${action}"`).toBeUndefined();
        seen.set(action, key);
      }
    }
  });

  it("sign-in routes reached by GET are audited too (success and failure)", () => {
    for (const url of ["/app/oidc/:providerId/callback", "/app/saml/:providerId/complete"]) {
      const route = routes.find((r) => r.url === url && [r.method].flat().includes("GET"));
      expect(route?.handler.name, url).toBe("audited");
      expect((route?.config as { audit?: { failure?: string } } | undefined)?.audit?.failure).toBe("sign_in.failed");
    }
  });
});
