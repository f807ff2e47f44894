import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realSpecs, type SpecServer, startSpecServer } from "../../../test/helpers/spec-server.js";
import { allowingNetworks } from "../../lib/public-fetch.js";
import { processSpec, processSpecIsolated } from "./openapi-processing.adapter.js";

let server: SpecServer;
beforeAll(async () => {
  server = await startSpecServer();
});
afterAll(() => server.close());

const options = { fetch: { maxBytes: 5 * 1024 * 1024, timeoutMs: 2000, isAllowed: allowingNetworks(["127.0.0.0/8"]) } };

async function failure(source: Parameters<typeof processSpec>[0], opts: Parameters<typeof processSpec>[1] = options) {
  const outcome = await processSpec(source, opts);
  if (outcome.ok) throw new Error("expected a failure");
  return outcome;
}

describe("processSpec with real documents", () => {
  it("processes GitBook's own spec, Swagger 2.0 (YAML), OpenAPI 3.0 and 3.1", async () => {
    const json = await processSpec({ text: realSpecs.gitbookJson() }, options);
    expect(json.ok).toBe(true);
    if (!json.ok) return;
    expect(json.document).toEqual(JSON.parse(realSpecs.gitbookJson()));
    expect((json.document.info as { title: string }).title).toBe("GitBook API");

    for (const [text, field, version] of [
      [realSpecs.petstoreSwagger2Yaml(), "swagger", "2.0"],
      [realSpecs.uspto30Json(), "openapi", "3.0.1"],
      [realSpecs.trainTravel31Json(), "openapi", "3.1.0"],
      [realSpecs.rclone31Yaml(), "openapi", "3.1.0"],
    ] as const) {
      const outcome = await processSpec({ text }, options);
      expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
      if (outcome.ok) expect(outcome.document[field]).toBe(version);
    }
  });

  it("hashes the processed document: the same input gives the same hash, a change another", async () => {
    const a = await processSpec({ text: realSpecs.uspto30Json() }, options);
    const b = await processSpec({ text: realSpecs.uspto30Json() }, options);
    const changed = await processSpec({ text: realSpecs.uspto30Json().replace('"USPTO Data Set API"', '"USPTO API"') }, options);
    expect(a.ok && b.ok && changed.ok).toBe(true);
    if (!a.ok || !b.ok || !changed.ok) return;
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.hash).toBe(a.hash);
    expect(changed.hash).not.toBe(a.hash);
  });

  it("bundles external references fetched relative to the document's URL into one document", async () => {
    server.set(
      "/specs/main.yaml",
      [
        "openapi: 3.0.3",
        "info: { title: Split, version: '1' }",
        "paths:",
        "  /pets:",
        "    get:",
        "      responses:",
        "        '200':",
        "          description: ok",
        "          content:",
        "            application/json:",
        "              schema: { $ref: 'schemas/pet.yaml' }",
      ].join("\n"),
    );
    server.set("/specs/schemas/pet.yaml", "type: object\nproperties:\n  name: { type: string }\n  tag: { $ref: 'tag.json' }\n");
    server.set("/specs/schemas/tag.json", '{"type": "string", "maxLength": 20}');
    const outcome = await processSpec({ url: `${server.base}/specs/main.yaml` }, options);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (!outcome.ok) return;
    const paths = outcome.document.paths as Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }>;
    const media = paths["/pets"]?.get.responses["200"]?.content["application/json"] as { schema: unknown } | undefined;
    const schema = media?.schema;
    expect(schema).toEqual({ type: "object", properties: { name: { type: "string" }, tag: { type: "string", maxLength: 20 } } });
    expect(outcome.json).not.toContain("pet.yaml");
  });
});

describe("processSpec with broken documents", () => {
  it("reports YAML and JSON syntax errors with their line and column", async () => {
    const yaml = await failure({ text: "openapi: 3.0.0\ninfo:\n  title: x\n   bad: [1,\n" });
    expect(yaml.code).toBe("PARSE_ERROR");
    expect(yaml.errors[0]?.message).toBe(
      "The document is not valid JSON or YAML at line 3, column 10: Nested mappings are not allowed in compact mappings",
    );
    const json = await failure({ text: '{\n  "openapi": "3.0.0",\n  "info": {"title": "x" "version": "1"}\n}' });
    expect(json.code).toBe("PARSE_ERROR");
    expect(json.errors[0]?.message).toMatch(/^The document is not valid JSON or YAML at line 3, column \d+: /);
  });

  it("names the URL of a fetched document that is not JSON or YAML", async () => {
    server.set("/not-yaml.txt", { body: "openapi: [3.0\n", contentType: "text/plain" });
    const outcome = await failure({ url: `${server.base}/not-yaml.txt` });
    expect(outcome.code).toBe("PARSE_ERROR");
    expect(outcome.errors[0]?.message).toMatch(
      new RegExp(`^The document at ${server.base}/not-yaml.txt is not valid JSON or YAML at line 2, column 1: `),
    );
  });

  it("refuses what is not an OpenAPI document, and versions it does not support", async () => {
    expect((await failure({ text: "[1, 2]" })).errors).toEqual([
      { message: "The document is not an object: an OpenAPI document is a mapping of fields.", code: "type" },
    ]);
    expect((await failure({ text: "title: notes\n" })).errors[0]?.message).toBe(
      'The document is not an OpenAPI document: it has neither an "openapi" nor a "swagger" field.',
    );
    expect((await failure({ text: 'swagger: "1.2"\n' })).errors[0]?.message).toBe(
      '#/swagger: version "1.2" is not supported; Swagger 2.0, OpenAPI 3.0.x and OpenAPI 3.1.x are.',
    );
    expect((await failure({ text: "   \n" })).errors[0]?.message).toBe("The document is empty.");
    expect((await failure({ text: "openapi: 3.0.3\ninfo: { title: x, version: '1' }\n" })).errors[0]?.message).toBe(
      'The document has no "paths": an OpenAPI document lists its operations there (it may be empty: "paths: {}").',
    );
  });

  it("reports schema violations with their JSON pointer, line and column", async () => {
    const outcome = await failure({
      text: [
        "openapi: 3.0.3",
        "info:",
        "  title: Broken",
        "paths:",
        "  /pets:",
        "    get:",
        "      parameters:",
        "        - name: limit",
        "      responses:",
        "        200:",
        "          description: ok",
      ].join("\n"),
    });
    expect(outcome.code).toBe("PARSE_ERROR");
    const messages = outcome.errors.map((e) => e.message);
    expect(messages).toContain("#/info must have required property 'version' (line 3, column 3)");
    expect(messages).toContain("#/paths/~1pets/get/parameters/0 must have required property 'in' (line 8, column 11)");
    expect(outcome.errors.find((e) => e.message.startsWith("#/info"))?.code).toBe("required");
  });

  it("finds the defect of a real published spec (Directus: a request body whose schema is null) and says where", async () => {
    const outcome = await failure({ text: realSpecs.directusBrokenJson() });
    expect(outcome.code).toBe("PARSE_ERROR");
    expect(outcome.errors[0]).toEqual({
      message: "#/paths/~1items~1{collection}/post/requestBody/content/application~1json/schema must be object (line 788, column 25)",
      code: "type",
    });
  });

  it("takes GitBook's spec with a broken reference as a parse error naming the reference's place", async () => {
    const broken = JSON.parse(realSpecs.gitbookJson());
    broken.paths["/orgs/{organizationId}/openapi"].get.responses["200"].content["application/json"].schema.allOf[0].$ref =
      "#/components/schemas/NoSuchList";
    const outcome = await failure({ text: JSON.stringify(broken) });
    expect(outcome.code).toBe("PARSE_ERROR");
    expect(outcome.errors).toEqual([
      {
        message:
          '#/paths/~1orgs~1{organizationId}~1openapi/get/responses/200/content/application~1json/schema/allOf/0: Missing $ref pointer "#/components/schemas/NoSuchList". Token "NoSuchList" does not exist.',
        code: "EMISSINGPOINTER",
      },
    ]);
  });

  it("never reads the server's files: relative and file references of a text document are refused", async () => {
    const doc = (ref: string) =>
      `openapi: 3.0.3\ninfo: { title: x, version: '1' }\npaths:\n  /a:\n    get:\n      responses:\n        '200': { $ref: '${ref}' }\n`;
    for (const ref of ["/etc/passwd", "file:///etc/passwd", "../package.json#/name"]) {
      const outcome = await failure({ text: doc(ref) });
      expect(outcome.code).toBe("PARSE_ERROR");
      expect(outcome.errors[0]?.message).toMatch(/cannot be read: a document given as text can only reference its own parts/);
      expect(JSON.stringify(outcome)).not.toContain("root:");
    }
  });

  it("answers FETCH_ERROR for a missing document, a private address and an oversized file, FETCH_TIMEOUT for a slow server", async () => {
    expect(await failure({ url: `${server.base}/missing.json` })).toEqual({
      ok: false,
      code: "FETCH_ERROR",
      errors: [{ message: `Could not fetch the document at ${server.base}/missing.json: the server answered 404.`, code: "fetch" }],
    });
    const publicOnly = { fetch: { maxBytes: options.fetch.maxBytes, timeoutMs: options.fetch.timeoutMs } };
    expect((await failure({ url: `${server.base}/missing.json` }, publicOnly)).errors[0]?.message).toBe(
      `Could not fetch the document at ${server.base}/missing.json: 127.0.0.1 is not a public address.`,
    );
    server.set("/big.json", JSON.stringify({ openapi: "3.0.0", padding: "x".repeat(5000) }));
    const small = { fetch: { ...options.fetch, maxBytes: 1024 } };
    expect((await failure({ url: `${server.base}/big.json` }, small)).errors[0]?.message).toMatch(/larger than 1024 bytes/);
    server.set("/slow.json", { body: realSpecs.uspto30Json(), delayMs: 1500 });
    const impatient = { fetch: { ...options.fetch, timeoutMs: 300 } };
    const slow = await failure({ url: `${server.base}/slow.json` }, impatient);
    expect(slow.code).toBe("FETCH_TIMEOUT");
    expect(slow.errors[0]?.message).toBe(`Could not fetch the document at ${server.base}/slow.json: the server did not answer in time.`);
  });

  it("answers FETCH_ERROR when a referenced file cannot be fetched", async () => {
    server.set(
      "/refs/main.json",
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "x", version: "1" },
        paths: { "/a": { get: { responses: { 200: { $ref: "gone.json" } } } } },
      }),
    );
    const outcome = await failure({ url: `${server.base}/refs/main.json` });
    expect(outcome.code).toBe("FETCH_ERROR");
    expect(outcome.errors[0]?.message).toBe(`Could not fetch a referenced file at ${server.base}/refs/gone.json: the server answered 404.`);
  });
});

describe("processSpecIsolated (a worker thread)", () => {
  const isolation = { maxBytes: 5 * 1024 * 1024, timeoutMs: 2000, allowNetworks: ["127.0.0.0/8"], memoryMb: 512, maxMs: 60_000 };

  it("answers what processSpec answers, without the parsed document", async () => {
    const direct = await processSpec({ text: realSpecs.trainTravel31Json() }, options);
    const isolated = await processSpecIsolated({ text: realSpecs.trainTravel31Json() }, isolation);
    expect(direct.ok && isolated.ok).toBe(true);
    if (!direct.ok || !isolated.ok) return;
    expect(isolated).toEqual({ ok: true, json: direct.json, hash: direct.hash });
    server.set(
      "/isolated/missing-ref.json",
      JSON.stringify({ openapi: "3.0.3", info: { title: "x", version: "1" }, paths: { "/a": { $ref: "nope.json" } } }),
    );
    expect(await processSpecIsolated({ url: `${server.base}/isolated/missing-ref.json` }, isolation)).toEqual({
      ok: false,
      code: "FETCH_ERROR",
      errors: [
        { message: `Could not fetch a referenced file at ${server.base}/isolated/nope.json: the server answered 404.`, code: "fetch" },
      ],
    });
  });

  it("stops the thread when its signal aborts (the worker stops or lost the job)", async () => {
    server.set("/isolated/hangs.json", { hang: true });
    const controller = new AbortController();
    const requested = server.nextRequest("/isolated/hangs.json");
    const running = processSpecIsolated(
      { url: `${server.base}/isolated/hangs.json` },
      { ...isolation, timeoutMs: 60_000, signal: controller.signal },
    );
    await requested;
    controller.abort();
    await expect(running).rejects.toThrow("the processing was stopped (the worker is stopping or lost the job)");
  });

  it("stops a processing that needs more memory or time than allowed, as a parse error", async () => {
    const text = realSpecs.gitbookJson();
    expect(await processSpecIsolated({ text }, { ...isolation, memoryMb: 16 })).toEqual({
      ok: false,
      code: "PARSE_ERROR",
      errors: [{ message: "Processing the document needed more than 16 MiB of memory and was stopped.", code: "memory" }],
    });
    expect(await processSpecIsolated({ text }, { ...isolation, maxMs: 50 })).toEqual({
      ok: false,
      code: "PARSE_ERROR",
      errors: [{ message: "Processing the document took longer than 50 ms and was stopped.", code: "time" }],
    });
  });
});
