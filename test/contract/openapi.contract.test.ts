/**
 * OpenAPI specs and their versions through GitBook's client against a listening Quire: every
 * response body is validated against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { OpenAPISpecVisibility } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { checkResponse, contractClient } from "../helpers/contract.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { realSpecs, type SpecServer, startSpecServer } from "../helpers/spec-server.js";

const server = useListeningServer({ config: { fetchAllowNetworks: ["127.0.0.0/8"], openapiFetchTimeoutMs: 5000 } });
let specs: SpecServer;
beforeAll(async () => {
  specs = await startSpecServer();
});
afterAll(() => specs.close());

describe("OpenAPI specs through @gitbook/api", () => {
  it("runs all eleven operations, before and after processing, and after a failed processing", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const client = contractClient(endpoint, owner.token);
    specs.set("/gitbook.json", realSpecs.gitbookJson());

    const created = await client.orgs.createOpenApiSpec(org.id, { slug: "gitbook", source: { url: `${specs.base}/gitbook.json` } });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ slug: "gitbook", processingState: "pending", sourceURL: `${specs.base}/gitbook.json` });
    const put = await client.orgs.createOrUpdateOpenApiSpecBySlug(org.id, "train-travel", {
      source: { text: realSpecs.trainTravel31Json() },
    });
    expect(put.status).toBe(201);
    await ctx.worker.drain();

    const list = await client.orgs.listOpenApiSpecs(org.id, { limit: 10 });
    expect(list.data.items.map((s) => [s.slug, s.processingState])).toEqual([
      ["gitbook", "complete"],
      ["train-travel", "complete"],
    ]);
    const spec = await client.orgs.getOpenApiSpecBySlug(org.id, "gitbook");
    expect(spec.data.lastVersion).toEqual(expect.any(String));
    const patched = await client.orgs.updateOpenApiSpecBySlug(org.id, "gitbook", { visibility: OpenAPISpecVisibility.Public });
    expect(patched.data.visibility).toBe("public");
    expect(patched.data.urls.published).toEqual(expect.any(String));

    const versions = await client.orgs.listOpenApiSpecVersions(org.id, "gitbook", { limit: 5 });
    expect(versions.data.items.map((v) => v.id)).toEqual([spec.data.lastVersion]);
    const latest = await client.orgs.getLatestOpenApiSpecVersion(org.id, "gitbook");
    const byId = await client.orgs.getOpenApiSpecVersionById(org.id, "gitbook", latest.data.id);
    expect(byId.data).toEqual(latest.data);
    const content = await client.orgs.getLatestOpenApiSpecVersionContent(org.id, "gitbook");
    const contentById = await client.orgs.getOpenApiSpecVersionContentById(org.id, "gitbook", latest.data.id);
    expect(contentById.data).toEqual(content.data);
    expect(content.data.url).toBe(latest.data.url);
    const [entry] = Object.values(content.data.filesystem) as { specification: unknown }[];
    expect(entry?.specification).toEqual(JSON.parse(realSpecs.gitbookJson()));
    // The version's url serves the document itself, to anyone now that the spec is public.
    const document = await fetch(latest.data.url.replace("http://quire.test", endpoint));
    expect(document.status).toBe(200);
    expect(((await document.json()) as { info: { title: string } }).info.title).toBe("GitBook API");

    // A broken update: the spec says why, and still has its version.
    const broken = await client.orgs.createOrUpdateOpenApiSpecBySlug(org.id, "train-travel", { source: { text: "openapi: 3.1.0\n" } });
    expect(broken.status).toBe(200);
    await ctx.worker.drain();
    const failed = await client.orgs.getOpenApiSpecBySlug(org.id, "train-travel");
    expect(failed.data).toMatchObject({
      processingState: "complete",
      lastProcessErrorCode: "PARSE_ERROR",
      lastVersion: expect.any(String),
    });
    expect(failed.data.lastProcessedErrors?.[0]?.message).toEqual(expect.any(String));

    const deleted = await client.orgs.deleteOpenApiSpecBySlug(org.id, "train-travel");
    expect(deleted.status).toBe(204);
    const after = await client.orgs.listOpenApiSpecs(org.id);
    expect(after.data.items.map((s) => s.slug)).toEqual(["gitbook"]);
  });

  it("holds the harness to the files, by path, GitBook's renderer reads", () => {
    const url = "http://x/v1/orgs/o/openapi/s/versions/latest/content";
    const entry = { dir: ".", isEntrypoint: true, references: [], filename: "openapi.json", specification: { openapi: "3.0.0" } };
    expect(checkResponse("GET", url, 200, JSON.stringify({ filesystem: { "openapi.json": entry }, url: "http://x/doc" }))).toEqual([]);
    expect(checkResponse("GET", url, 200, JSON.stringify({ filesystem: [entry], url: "http://x/doc" })).length).toBeGreaterThan(0);
    const { filename: _filename, ...withoutName } = entry;
    expect(
      checkResponse("GET", url, 200, JSON.stringify({ filesystem: { "openapi.json": withoutName }, url: "http://x/doc" })).length,
    ).toBeGreaterThan(0);
  });
});
