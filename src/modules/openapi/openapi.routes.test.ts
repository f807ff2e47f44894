import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createOrganization, createOrgWithRoles, createUser } from "../../../test/helpers/factories.js";
import { realSpecs, type SpecServer, startSpecServer } from "../../../test/helpers/spec-server.js";
import { openapiRefreshJob } from "./openapi.jobs.js";

let ctx: TestContext;
let server: SpecServer;
beforeAll(async () => {
  ctx = await createTestContext({ config: { fetchAllowNetworks: ["127.0.0.0/8"], openapiFetchTimeoutMs: 3000 } });
  server = await startSpecServer();
});
afterAll(async () => {
  await server.close();
  await ctx.close();
});

let counter = 0;
const uniqueSlug = (prefix = "spec") => `${prefix}-${++counter}`;
const petstore = () => realSpecs.petstoreSwagger2Yaml();

async function createSpec(user: TestUser, orgId: string, body: { slug: string; source: { url?: string; text?: string } }) {
  const res = await ctx.as(user).post(`/v1/orgs/${orgId}/openapi`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function getSpec(user: TestUser, orgId: string, slug: string) {
  const res = await ctx.as(user).get(`/v1/orgs/${orgId}/openapi/${slug}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** An organization with every role, a processed spec (petstore, Swagger 2.0), and another organization with its own spec. */
async function scenario() {
  const base = await createOrgWithRoles(ctx);
  const slug = uniqueSlug("petstore");
  await createSpec(base.owner, base.org.id, { slug, source: { text: petstore() } });
  await ctx.worker.drain();
  const otherOrg = await createOrganization(ctx, base.outsider);
  const otherSlug = uniqueSlug("theirs");
  await createSpec(base.outsider, otherOrg.id, { slug: otherSlug, source: { text: realSpecs.uspto30Json() } });
  await ctx.worker.drain();
  return { ...base, slug, otherOrg, otherSlug };
}

let shared: ReturnType<typeof scenario> | undefined;
/**
 * One scenario(), built on first use, for the tests whose requests change nothing it holds (each
 * is refused, or only reads): a scenario processes two real specs, the bulk of this file's time.
 * A test that changes its spec or its organization's specs builds its own.
 */
const readOnlyScenario = () => (shared ??= scenario());

describe("authentication", () => {
  it("answers 401 without a token on every operation, and serves no private document", async () => {
    const { org, owner, slug } = await readOnlyScenario();
    const p = `/v1/orgs/${org.id}/openapi`;
    const versionId = (await getSpec(owner, org.id, slug)).lastVersion;
    for (const [method, url] of [
      ["get", p],
      ["post", p],
      ["get", `${p}/${slug}`],
      ["put", `${p}/${slug}`],
      ["patch", `${p}/${slug}`],
      ["delete", `${p}/${slug}`],
      ["get", `${p}/${slug}/versions`],
      ["get", `${p}/${slug}/versions/latest`],
      ["get", `${p}/${slug}/versions/latest/content`],
      ["get", `${p}/${slug}/versions/${versionId}`],
      ["get", `${p}/${slug}/versions/${versionId}/content`],
    ] as const) {
      const res = await (method === "get" || method === "delete" ? ctx.anonymous[method](url) : ctx.anonymous[method](url, {}));
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.body.error.message).toBe("Authentication required: send `Authorization: Bearer <API token>`.");
    }
    expect((await ctx.anonymous.get(`${p}/${slug}/openapi.json`)).status).toBe(404);
  });
});

describe("POST /v1/orgs/{organizationId}/openapi and processing", () => {
  it("creates a spec from text, pending, then processes it into a first version", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const slug = uniqueSlug("Pet-Store");
    const res = await ctx.as(members.create).post(`/v1/orgs/${org.id}/openapi`, { slug, source: { text: petstore() } });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${org.id}/openapi/${slug}`);
    expect(res.body).toEqual({
      object: "openapi-spec",
      id: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      slug,
      processingState: "pending",
      visibility: "private",
      permissions: { view: true, edit: true },
      urls: { location: `http://quire.test/v1/orgs/${org.id}/openapi/${slug}`, app: `http://quire.test/app/o/${org.id}/openapi/${slug}` },
    });

    expect(await ctx.worker.drain()).toBe(1);
    const spec = await getSpec(owner, org.id, slug);
    expect(spec).toMatchObject({ processingState: "complete", lastVersion: expect.any(String), lastProcessedAt: expect.any(String) });
    expect(spec.lastProcessErrorCode).toBeUndefined();
    expect(spec.lastProcessedErrors).toBeUndefined();

    const versions = await ctx.as(members.read).get(`/v1/orgs/${org.id}/openapi/${slug}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body).toEqual({
      count: 1,
      items: [
        {
          object: "openapi-spec-version",
          id: spec.lastVersion,
          createdAt: expect.any(String),
          url: `http://quire.test/v1/orgs/${org.id}/openapi/${slug}/versions/${spec.lastVersion}/openapi.json`,
          urls: { location: `http://quire.test/v1/orgs/${org.id}/openapi/${slug}/versions/${spec.lastVersion}` },
        },
      ],
    });
    const latest = await ctx.as(members.read).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/latest`);
    expect(latest.body).toEqual(versions.body.items[0]);
    const byId = await ctx.as(members.read).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/${spec.lastVersion}`);
    expect(byId.body).toEqual(versions.body.items[0]);

    for (const path of ["latest", spec.lastVersion]) {
      const content = await ctx.as(members.read).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/${path}/content`);
      expect(content.status).toBe(200);
      expect(content.body.url).toBe(versions.body.items[0].url);
      expect(Object.keys(content.body.filesystem)).toEqual(["openapi.json"]);
      expect(content.body.filesystem["openapi.json"]).toMatchObject({
        dir: ".",
        isEntrypoint: true,
        references: [],
        filename: "openapi.json",
      });
      expect(content.body.filesystem["openapi.json"].specification).toMatchObject({ swagger: "2.0", info: { title: "Swagger Petstore" } });
    }
  });

  it("fetches a URL source (GitBook's own spec, served over HTTP) and serves the processed document", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    server.set("/gitbook/openapi.json", realSpecs.gitbookJson());
    const slug = uniqueSlug("gitbook");
    const created = await createSpec(owner, org.id, { slug, source: { url: `${server.base}/gitbook/openapi.json` } });
    expect(created.sourceURL).toBe(`${server.base}/gitbook/openapi.json`);
    await ctx.worker.drain();
    const spec = await getSpec(owner, org.id, slug);
    expect(spec.processingState).toBe("complete");
    const document = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/openapi.json`);
    expect(document.status).toBe(200);
    expect(document.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(document.body).toEqual(JSON.parse(realSpecs.gitbookJson()));
  });

  it("answers precise 400s for a bad slug or source, and 409 for a slug in use", async () => {
    // An organization of its own: this test creates a spec in it.
    const { org, owner } = await createOrgWithRoles(ctx);
    const post = (body: unknown) => ctx.as(owner).post(`/v1/orgs/${org.id}/openapi`, body);
    const text = petstore();
    const cases: [unknown, string][] = [
      [{ source: { text } }, "body.slug is required."],
      [{ slug: "a", source: undefined }, "body.source is required."],
      [{ slug: "two--hyphens", source: { text } }, "body.slug must match the pattern ^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$."],
      [{ slug: "with space", source: { text } }, "body.slug must match the pattern ^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$."],
      [{ slug: "a".repeat(101), source: { text } }, "body.slug must be at most 100 characters long."],
      [
        { slug: "a", source: {} },
        "body.source must have either `url` (an http or https URL of the document) or `text` (the document itself).",
      ],
      [{ slug: "a", source: { text, url: "https://example.com/a.json" } }, "body.source must have either `url` or `text`, not both."],
      [{ slug: "a", source: { url: "ftp://example.com/a.json" } }, "body.source.url must be an http or https URL, not ftp:"],
      [{ slug: "a", source: { url: "not a url" } }, "body.source.url must be a valid uri."],
      [{ slug: "a", source: { url: "https://user:pw@example.com/a.json" } }, "body.source.url must not carry credentials."],
      [{ slug: "a", source: { text: "" } }, "body.source.text must be at least 1 characters long."],
      [{ slug: "a", source: { text: "  \n" } }, "body.source.text must not be blank: send the OpenAPI document as JSON or YAML."],
      [{ slug: "a", source: { url: `https://example.com/${"a".repeat(2048)}` } }, "body.source.url must be at most 2048 characters long."],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.body.error.message).toBe(message);
    }
    const taken = await ctx.as(owner).post(`/v1/orgs/${org.id}/openapi`, { slug: (await readOnlyScenario()).slug, source: { text } });
    expect(taken.status).toBe(201); // another organization's slug is free here
    const duplicate = await post({ slug: taken.body.slug, source: { text } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.message).toBe(
      `An OpenAPI spec with slug "${taken.body.slug}" already exists in this organization; PUT /openapi/${taken.body.slug} updates its source.`,
    );
  });

  it("records parse errors with their locations, keeping the previous version", async () => {
    const { org, owner, slug } = await scenario();
    const before = await getSpec(owner, org.id, slug);
    const put = await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, {
      source: { text: "swagger: '2.0'\ninfo:\n  title: Broken\npaths: {}\n" },
    });
    expect(put.status).toBe(200);
    expect(put.body.processingState).toBe("pending");
    await ctx.worker.drain();
    const after = await getSpec(owner, org.id, slug);
    expect(after).toMatchObject({ processingState: "complete", lastVersion: before.lastVersion, lastProcessErrorCode: "PARSE_ERROR" });
    expect(after.lastProcessedErrors).toEqual([
      { message: "#/info must have required property 'version' (line 3, column 3)", code: "required" },
    ]);
    const versions = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions`);
    expect(versions.body.count).toBe(1);
    const content = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/latest/content`);
    expect(content.body.filesystem["openapi.json"].specification.info.title).toBe("Swagger Petstore");
  });

  it("processes Rclone's OpenAPI 3.1 YAML by URL, and records the defect of Directus' published spec", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    server.set("/rclone/openapi.yaml", { body: realSpecs.rclone31Yaml(), contentType: "application/yaml" });
    server.set("/directus/openapi.json", realSpecs.directusBrokenJson());
    await createSpec(owner, org.id, { slug: "rclone", source: { url: `${server.base}/rclone/openapi.yaml` } });
    await createSpec(owner, org.id, { slug: "directus", source: { url: `${server.base}/directus/openapi.json` } });
    await ctx.worker.drain();
    const rclone = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/rclone/versions/latest/content`);
    expect(rclone.body.filesystem["openapi.json"].specification).toMatchObject({ openapi: "3.1.0", info: { title: "Rclone RC API" } });
    const directus = await getSpec(owner, org.id, "directus");
    expect(directus).toMatchObject({ processingState: "complete", lastProcessErrorCode: "PARSE_ERROR" });
    expect(directus.lastVersion).toBeUndefined();
    expect(directus.lastProcessedErrors[0]).toEqual({
      message: "#/paths/~1items~1{collection}/post/requestBody/content/application~1json/schema must be object (line 788, column 25)",
      code: "type",
    });
  });

  it("records FETCH_ERROR and FETCH_TIMEOUT with their messages", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const missing = uniqueSlug("missing");
    await createSpec(owner, org.id, { slug: missing, source: { url: `${server.base}/nothing-here.json` } });
    server.set("/hangs.json", { hang: true });
    const slow = uniqueSlug("slow");
    await createSpec(owner, org.id, { slug: slow, source: { url: `${server.base}/hangs.json` } });
    await ctx.worker.drain();
    expect(await getSpec(owner, org.id, missing)).toMatchObject({
      processingState: "complete",
      lastProcessErrorCode: "FETCH_ERROR",
      lastProcessedErrors: [
        { message: `Could not fetch the document at ${server.base}/nothing-here.json: the server answered 404.`, code: "fetch" },
      ],
    });
    const timedOut = await getSpec(owner, org.id, slow);
    expect(timedOut).toMatchObject({ processingState: "complete", lastProcessErrorCode: "FETCH_TIMEOUT" });
    expect(timedOut.lastVersion).toBeUndefined();
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slow}/versions/latest`)).body.error.message).toBe(
      `The OpenAPI spec "${slow}" has no processed version yet (processingState: complete, last error: FETCH_TIMEOUT).`,
    );
  });

  it("refuses private addresses unless the operator allowed their network", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    server.set("/private.json", realSpecs.uspto30Json());
    const slug = uniqueSlug("private");
    await createSpec(owner, org.id, { slug, source: { url: `${server.base}/private.json` } });
    const allowed = ctx.config.fetchAllowNetworks;
    ctx.config.fetchAllowNetworks = [];
    try {
      await ctx.worker.drain();
    } finally {
      ctx.config.fetchAllowNetworks = allowed;
    }
    expect(await getSpec(owner, org.id, slug)).toMatchObject({
      lastProcessErrorCode: "FETCH_ERROR",
      lastProcessedErrors: [{ message: `Could not fetch the document at ${server.base}/private.json: 127.0.0.1 is not a public address.` }],
    });
  });
});

describe("PUT /v1/orgs/{organizationId}/openapi/{specSlug}", () => {
  it("creates (201), and re-fetches the same URL, recording a version only when the document changed", async () => {
    const { org, owner, members } = await createOrgWithRoles(ctx);
    const slug = uniqueSlug("train");
    const path = `/${slug}/openapi.json`;
    server.set(path, realSpecs.trainTravel31Json());
    const url = `${server.base}${path}`;
    const created = await ctx.as(members.admin).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { url } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`http://quire.test/v1/orgs/${org.id}/openapi/${slug}`);
    await ctx.worker.drain();
    const first = await getSpec(owner, org.id, slug);
    expect(first.processingState).toBe("complete");

    const fetchesBefore = server.requests.filter((r) => r === path).length;
    const same = await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { url } });
    expect(same.status).toBe(200);
    expect(same.body.processingState).toBe("pending");
    await ctx.worker.drain();
    expect(server.requests.filter((r) => r === path).length).toBe(fetchesBefore + 1);
    const unchanged = await getSpec(owner, org.id, slug);
    expect(unchanged.lastVersion).toBe(first.lastVersion);
    expect(unchanged.lastProcessedAt > first.lastProcessedAt).toBe(true);

    server.set(path, realSpecs.trainTravel31Json().replace('"title": "Train Travel API"', '"title": "Train Travel API v2"'));
    await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { url } });
    await ctx.worker.drain();
    const changed = await getSpec(owner, org.id, slug);
    expect(changed.lastVersion).not.toBe(first.lastVersion);
    const versions = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions`);
    expect(versions.body.items.map((v: { id: string }) => v.id)).toEqual([changed.lastVersion, first.lastVersion]);
    const old = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/${first.lastVersion}/content`);
    expect(old.body.filesystem["openapi.json"].specification.info.title).toBe("Train Travel API");
    const latest = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/latest/content`);
    expect(latest.body.filesystem["openapi.json"].specification.info.title).toBe("Train Travel API v2");

    // From a URL to text: the source URL goes away.
    const toText = await ctx.as(owner).put(`/v1/orgs/${org.id}/openapi/${slug}`, { source: { text: petstore() } });
    expect(toText.status).toBe(200);
    expect(toText.body.sourceURL).toBeUndefined();
  });

  it("answers 400 for a slug the pattern refuses, and 403 for members below create", async () => {
    const { org, members } = await readOnlyScenario();
    const bad = await ctx.as(members.admin).put(`/v1/orgs/${org.id}/openapi/bad_slug`, { source: { text: petstore() } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(
      'path parameter "specSlug" must be letters and digits in groups separated by single hyphens, not "bad_slug".',
    );
    const missingBody = await ctx.as(members.admin).put(`/v1/orgs/${org.id}/openapi/good`, {});
    expect(missingBody.status).toBe(400);
    expect(missingBody.body.error.message).toBe("body.source is required.");
    for (const role of ["review", "edit", "comment", "read", "guest"] as const) {
      const res = await ctx.as(members[role]).put(`/v1/orgs/${org.id}/openapi/good`, { source: { text: petstore() } });
      expect(res.status, role).toBe(403);
      expect(res.body.error.message).toBe("Only members with the create role or higher can create, change or delete OpenAPI specs.");
    }
  });
});

describe("permissions and visibility", () => {
  it("gives admin and create edit rights, other roles view rights, guests and outsiders nothing", async () => {
    const { org, members, outsider, slug } = await readOnlyScenario();
    for (const role of ["admin", "create"] as const) {
      expect((await getSpec(members[role], org.id, slug)).permissions).toEqual({ view: true, edit: true });
    }
    for (const role of ["review", "edit", "comment", "read"] as const) {
      expect((await getSpec(members[role], org.id, slug)).permissions).toEqual({ view: true, edit: false });
      const list = await ctx.as(members[role]).get(`/v1/orgs/${org.id}/openapi`);
      expect(list.body.items.map((s: { slug: string }) => s.slug)).toEqual([slug]);
    }
    const guestList = await ctx.as(members.guest).get(`/v1/orgs/${org.id}/openapi`);
    expect(guestList.status).toBe(403);
    expect(guestList.body.error.message).toBe("Guests cannot list the organization's OpenAPI specs.");
    const guestGet = await ctx.as(members.guest).get(`/v1/orgs/${org.id}/openapi/${slug}`);
    expect(guestGet.status).toBe(404);
    expect(guestGet.body.error.message).toBe(`No OpenAPI spec with slug "${slug}" in this organization.`);
    for (const path of ["", `/${slug}`, `/${slug}/versions`, `/${slug}/versions/latest`, `/${slug}/versions/latest/content`]) {
      const res = await ctx.as(outsider).get(`/v1/orgs/${org.id}/openapi${path}`);
      expect(res.status, path).toBe(404);
      expect(res.body.error.message).toBe(`No organization with id "${org.id}" that you are a member of.`);
    }
  });

  it("treats another organization's slugs and version ids as unknown", async () => {
    const { org, owner, slug, otherOrg, otherSlug, outsider } = await readOnlyScenario();
    const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${otherSlug}`);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No OpenAPI spec with slug "${otherSlug}" in this organization.`);
    const theirVersion = (await getSpec(outsider, otherOrg.id, otherSlug)).lastVersion;
    const crossed = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/${theirVersion}`);
    expect(crossed.status).toBe(404);
    expect(crossed.body.error.message).toBe(`No version "${theirVersion}" of the OpenAPI spec "${slug}".`);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/${theirVersion}/content`)).status).toBe(404);
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}/openapi/${otherSlug}`, { visibility: "public" })).status).toBe(404);
    // Deleting through the wrong organization deletes nothing.
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/openapi/${otherSlug}`)).status).toBe(204);
    expect((await getSpec(outsider, otherOrg.id, otherSlug)).slug).toBe(otherSlug);
  });

  it("PATCH makes a spec public: anyone reads its processed documents; private again, members only", async () => {
    const { org, owner, members, outsider, slug } = await scenario();
    const spec = await getSpec(owner, org.id, slug);
    const latestUrl = `/v1/orgs/${org.id}/openapi/${slug}/openapi.json`;
    const versionUrl = `/v1/orgs/${org.id}/openapi/${slug}/versions/${spec.lastVersion}/openapi.json`;
    expect((await ctx.anonymous.get(latestUrl)).status).toBe(404);
    expect((await ctx.as(outsider).get(versionUrl)).status).toBe(404);
    expect((await ctx.as(members.read).get(versionUrl)).body.info.title).toBe("Swagger Petstore");
    expect((await ctx.as(members.guest).get(latestUrl)).status).toBe(404);
    expect((await ctx.anonymous.get(latestUrl, { headers: { authorization: "Bearer qr_nope" } })).status).toBe(401);

    const readerPatch = await ctx.as(members.read).patch(`/v1/orgs/${org.id}/openapi/${slug}`, { visibility: "public" });
    expect(readerPatch.status).toBe(403);
    const badPatch = await ctx.as(owner).patch(`/v1/orgs/${org.id}/openapi/${slug}`, { visibility: "everyone" });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.message).toBe('body.visibility must be one of: "private", "public".');

    const patched = await ctx.as(members.create).patch(`/v1/orgs/${org.id}/openapi/${slug}`, { visibility: "public" });
    expect(patched.status).toBe(200);
    expect(patched.body.visibility).toBe("public");
    expect(patched.body.urls.published).toBe(`http://quire.test${latestUrl}`);
    const anonymous = await ctx.anonymous.get(latestUrl);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.swagger).toBe("2.0");
    expect((await ctx.as(outsider).get(versionUrl)).status).toBe(200);

    await ctx.as(owner).patch(`/v1/orgs/${org.id}/openapi/${slug}`, { visibility: "private" });
    expect((await ctx.anonymous.get(latestUrl)).status).toBe(404);
    expect((await ctx.as(members.read).get(latestUrl)).status).toBe(200);
  });
});

describe("GET lists and DELETE", () => {
  it("lists specs by slug, a page at a time", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    for (const slug of ["c-spec", "a-spec", "b-spec"]) await createSpec(owner, org.id, { slug, source: { text: petstore() } });
    const first = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi?limit=2`);
    expect(first.body.count).toBe(3);
    expect(first.body.items.map((s: { slug: string }) => s.slug)).toEqual(["a-spec", "b-spec"]);
    const second = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi?limit=2&page=${first.body.next.page}`);
    expect(second.body.items.map((s: { slug: string }) => s.slug)).toEqual(["c-spec"]);
    expect(second.body.next).toBeUndefined();
    const bad = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('query parameter "limit" must be at least 1.');
  });

  it("deletes a spec and its versions (204, also when it does not exist); members below create get 403", async () => {
    const { org, owner, members, slug } = await scenario();
    const reader = await ctx.as(members.read).delete(`/v1/orgs/${org.id}/openapi/${slug}`);
    expect(reader.status).toBe(403);
    const res = await ctx.as(members.create).delete(`/v1/orgs/${org.id}/openapi/${slug}`);
    expect(res.status).toBe(204);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}`)).status).toBe(404);
    expect((await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions`)).status).toBe(404);
    expect((await ctx.as(owner).delete(`/v1/orgs/${org.id}/openapi/${slug}`)).status).toBe(204);
    const rows = await ctx.db
      .selectFrom("openapiSpecVersions")
      .innerJoin("openapiSpecs", "openapiSpecs.id", "openapiSpecVersions.specId")
      .select("openapiSpecVersions.id")
      .where("openapiSpecs.slug", "=", slug)
      .where("openapiSpecs.orgId", "=", org.id)
      .execute();
    expect(rows).toEqual([]);
    const outsider = await createUser(ctx);
    expect((await ctx.as(outsider).delete(`/v1/orgs/${org.id}/openapi/${slug}`)).status).toBe(404);
  });
});

describe("scheduled re-fetch", () => {
  it("re-fetches URL specs whose last fetch is older than the configured period, and only those", async () => {
    const { org, owner } = await createOrgWithRoles(ctx);
    const slug = uniqueSlug("scheduled");
    const path = `/${slug}.json`;
    server.set(path, realSpecs.uspto30Json());
    await createSpec(owner, org.id, { slug, source: { url: `${server.base}${path}` } });
    const textSlug = uniqueSlug("text");
    await createSpec(owner, org.id, { slug: textSlug, source: { text: petstore() } });
    await ctx.worker.drain();
    const first = await getSpec(owner, org.id, slug);

    const refresh = async () => {
      await openapiRefreshJob.run({}, { ...ctx.deps, jobId: "test", attempt: 1, signal: new AbortController().signal });
      await ctx.worker.drain();
    };
    const fetches = () => server.requests.filter((r) => r === path).length;
    const before = fetches();
    await refresh();
    expect(fetches()).toBe(before); // fetched moments ago: not due

    server.set(path, realSpecs.uspto30Json().replace('"USPTO Data Set API"', '"USPTO Data Set API (new)"'));
    const sixHoursAgo = new Date(Date.now() - (ctx.config.openapiRefreshMinutes * 60_000 + 1000)).toISOString();
    await ctx.db.updateTable("openapiSpecs").set({ lastFetchedAt: sixHoursAgo }).where("orgId", "=", org.id).execute();
    await refresh();
    expect(fetches()).toBe(before + 1);
    const refreshed = await getSpec(owner, org.id, slug);
    expect(refreshed.lastVersion).not.toBe(first.lastVersion);
    const content = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${slug}/versions/latest/content`);
    expect(content.body.filesystem["openapi.json"].specification.info.title).toBe("USPTO Data Set API (new)");
    // A text spec is never re-fetched: its processing ran once.
    const textVersions = await ctx.as(owner).get(`/v1/orgs/${org.id}/openapi/${textSlug}/versions`);
    expect(textVersions.body.count).toBe(1);
  });
});
