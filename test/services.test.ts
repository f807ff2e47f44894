/**
 * Process roles (QUIRE_SERVICES): a process runs the web side (API, web app, published sites), the
 * editor's live collaboration, or both, from one build; what it does not run answers 404 (web) or
 * says collaboration is off (collab), and every process answers its health.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "./helpers/app.js";
import { createOrgWithRoles } from "./helpers/factories.js";

let collabOnly: TestContext;
let webOnly: TestContext;
beforeAll(async () => {
  const base = await createTestContext();
  const collab = { ...base.deps.config.collab };
  await base.close();
  collabOnly = await createTestContext({
    config: { services: { web: false, worker: false, collab: true }, runWorker: false, collab: { ...collab, enabled: true } },
  });
  webOnly = await createTestContext({
    config: { services: { web: true, worker: false, collab: false }, runWorker: false, collab: { ...collab, enabled: false } },
  });
});
afterAll(async () => {
  await collabOnly?.close();
  await webOnly?.close();
});

describe("QUIRE_SERVICES", () => {
  it("a collaboration process answers its health and the editor's collaboration token, not the API, the app or the sites", async () => {
    expect((await collabOnly.anonymous.get("/healthz")).status).toBe(200);
    expect((await collabOnly.anonymous.get("/readyz")).status).toBe(200);
    for (const url of ["/v1/", "/v1/orgs/:organizationId", "/app/login", "/s/:basename/*"]) {
      expect(collabOnly.app.hasRoute({ method: "GET", url }), url).toBe(false);
      expect(webOnly.app.hasRoute({ method: "GET", url }), url).toBe(true);
    }
    expect((await collabOnly.anonymous.get("/app/login")).status).toBe(404);
    // Not signed in: refused by the token endpoint itself (it exists here), not a 404.
    const token = await collabOnly.anonymous.get("/app/collab/token?document=change-requests/x/pages/y");
    expect(token.status).toBe(401);
  });

  it("a web process without collab serves the API and refuses live collaboration with a reason", async () => {
    expect((await webOnly.anonymous.get("/v1/")).status).toBe(200);
    expect((await webOnly.anonymous.get("/healthz")).status).toBe(200);
    const { owner } = await createOrgWithRoles(webOnly);
    expect((await webOnly.as(owner).get("/v1/user")).status).toBe(200);
    const token = await webOnly.anonymous.get("/app/collab/token?document=change-requests/x/pages/y");
    expect(token.status).not.toBe(200);
  });
});
