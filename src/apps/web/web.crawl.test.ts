/**
 * Every `urls.app` address the API returns for a seeded organization resolves to a page of the web
 * app: the API is crawled from its list endpoints, following each answer's `urls.location`, and
 * every `urls.app` found is opened by a signed-in member; none may answer 404 or 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, TEST_PUBLIC_URL, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent } from "../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { createCollection, createSpace } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { createLoginLink } from "./web.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const message = (role: "user" | "team-member", body: string) => ({ type: "message", role, body });

/** An organization with a collection, spaces with pages, a change request with comments, a site, an OpenAPI spec and conversation topics. */
async function seed() {
  const roles = await createOrgWithRoles(ctx);
  const { org, owner } = roles;
  const collection = await createCollection(ctx, owner, org.id, { title: "Guides" });
  await createCollection(ctx, owner, org.id, { title: "Nested", parent: collection.id });
  const space = await createSpace(ctx, owner, org.id, { title: "Product docs", parent: collection.id });
  const other = await createSpace(ctx, owner, org.id, { title: "API reference" });
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Reset your password", paragraphs: ["Ask for a password reset from the sign-in page; the link expires after 30 minutes."] },
      {
        title: "Billing",
        paragraphs: ["Invoices are sent monthly."],
        children: [{ title: "Refunds", paragraphs: ["A duplicate invoice is refunded."] }],
      },
      { title: "Resources", kind: "group", children: [{ title: "Status page", kind: "link", href: "https://status.example.com" }] },
    ],
  });
  await commitContent(ctx, other.id, { pages: [{ title: "Overview", paragraphs: ["The API answers JSON."] }] });
  const cr = await createChangeRequest(ctx, owner, space.id, { subject: "Explain refunds better" });
  await editContent(ctx, owner, space.id, cr.id, [
    { operation: "insert_page", document: { markdown: "# Refund policy\n\nRefunds take five days.\n" } },
  ]);
  const prefix = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  const comment = await ctx.as(owner).post(`${prefix}/comments`, { body: { markdown: "Looks good" } });
  expect(comment.status, comment.text).toBe(200);
  expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/comments`, { body: { markdown: "A space comment" } })).status).toBeLessThan(300);
  const site = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { title: "Help center", spaces: [space.id] });
  expect(site.status, site.text).toBe(201);
  expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.body.id}/publish`, {})).status).toBeLessThan(300);
  const spec = await ctx.as(owner).post(`/v1/orgs/${org.id}/openapi`, {
    slug: "public-api",
    source: {
      text: '{"openapi":"3.0.0","info":{"title":"Pets","version":"1"},"paths":{"/pets":{"get":{"summary":"List pets","responses":{"200":{"description":"ok"}}}}}}',
    },
  });
  expect(spec.status, spec.text).toBe(201);
  const conversations = [1, 2, 3, 4].map((n) => ({
    id: `c-${n}`,
    subject: n <= 2 ? "Password reset email never arrives" : "Invoice charged twice",
    parts: [
      message(
        "user",
        n <= 2
          ? "My password reset link expired, send a new reset email"
          : "Our invoice was charged twice, please refund the duplicate invoice",
      ),
    ],
    metadata: { createdAt: `2026-11-0${n}T10:00:00Z` },
  }));
  expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/conversations`, conversations)).status).toBe(204);
  await ctx.worker.drain();
  return { ...roles, space, other, cr, site: site.body };
}

/** Every `urls.app` (and API `urls.location`) in a JSON answer. */
function collect(value: unknown, apps: Set<string>, locations: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, apps, locations);
    return;
  }
  if (!value || typeof value !== "object") return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === "urls" && inner && typeof inner === "object") {
      const { app, location } = inner as { app?: unknown; location?: unknown };
      if (typeof app === "string") apps.add(app);
      if (typeof location === "string") locations.add(location);
    }
    collect(inner, apps, locations);
  }
}

async function crawlApi(user: TestUser, start: string[]): Promise<{ apps: Set<string>; visited: Set<string> }> {
  const apps = new Set<string>();
  const visited = new Set<string>();
  const queue = [...start];
  while (queue.length > 0 && visited.size < 400) {
    const path = queue.shift()!;
    if (visited.has(path)) continue;
    visited.add(path);
    const res = await ctx.as(user).get(path);
    if (res.status !== 200) continue;
    const locations = new Set<string>();
    collect(res.body, apps, locations);
    for (const location of locations) {
      if (!location.startsWith(`${TEST_PUBLIC_URL}/v1/`)) continue;
      const next = location.slice(TEST_PUBLIC_URL.length);
      if (!visited.has(next)) queue.push(next);
    }
  }
  return { apps, visited };
}

describe("every urls.app of a seeded organization", () => {
  it("resolves to a page of the web app for a signed-in member: no 404, no 500", async () => {
    const { org, owner, space, other, cr, site } = await seed();
    const start = [
      "/v1/orgs",
      `/v1/orgs/${org.id}`,
      `/v1/orgs/${org.id}/collections`,
      `/v1/orgs/${org.id}/spaces`,
      `/v1/spaces/${space.id}`,
      `/v1/spaces/${other.id}`,
      `/v1/spaces/${space.id}/content`,
      `/v1/spaces/${space.id}/content/pages`,
      `/v1/spaces/${other.id}/content`,
      `/v1/spaces/${space.id}/change-requests`,
      `/v1/spaces/${space.id}/change-requests/${cr.id}`,
      `/v1/spaces/${space.id}/change-requests/${cr.id}/comments`,
      `/v1/spaces/${space.id}/comments`,
      `/v1/orgs/${org.id}/sites`,
      `/v1/orgs/${org.id}/sites/${site.id}`,
      `/v1/orgs/${org.id}/openapi`,
      `/v1/orgs/${org.id}/conversations-clusters`,
      `/v1/orgs/${org.id}/conversations-issues`,
      `/v1/orgs/${org.id}/search?query=refund`,
      `/v1/spaces/${space.id}/search?query=password`,
    ];
    const { apps } = await crawlApi(owner, start);
    // Page ids of the space's content, so the crawl is known to have reached every kind of address.
    const pages = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content/pages`)).body.pages as { id: string }[];
    const kinds = new Set(
      [...apps].map((url) =>
        url.replace(/^http:\/\/quire\.test\/app\/o\/[^/]+/, "").replace(/\/[^/]+/g, (m, offset: number) => (offset === 0 ? m : "/x")),
      ),
    );
    for (const pattern of ["/s", "/c", "/sites", "/openapi", "/agent"]) {
      expect(
        [...kinds].some((k) => k.startsWith(pattern)),
        `${pattern} in ${[...kinds].join(", ")}`,
      ).toBe(true);
    }
    expect([...apps].some((u) => u.includes("/revisions/"))).toBe(true);
    expect([...apps].some((u) => u.includes(`/p/${pages[0]!.id}`))).toBe(true);
    expect([...apps]).toContain(`${TEST_PUBLIC_URL}/app/o/${org.id}`);

    const browser = new WebClient(ctx);
    const { token } = await createLoginLink(ctx.db, owner.id);
    const form = await browser.get(`/app/login/link/${token}`);
    expect((await browser.post(`/app/login/link/${token}`, { _csrf: WebClient.csrfOf(form.text) })).status).toBe(303);

    const failures: string[] = [];
    let opened = 0;
    for (const url of apps) {
      expect(url.startsWith(`${TEST_PUBLIC_URL}/app/`), url).toBe(true);
      const path = url.slice(TEST_PUBLIC_URL.length);
      const res = await browser.get(path);
      opened++;
      if (res.status === 404 || res.status >= 500 || res.status !== 200) failures.push(`${res.status} ${path}`);
    }
    expect(failures).toEqual([]);
    expect(opened).toBeGreaterThanOrEqual(10);
  });
});
