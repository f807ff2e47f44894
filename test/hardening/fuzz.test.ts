/**
 * The Proof of issue 14: every operation of the served /openapi.json, called with bodies, query
 * strings and path parameters generated from its own schemas (valid ones, and invalid ones made by
 * mutating them), never answers 5xx, and a 4xx leaves the stored data exactly as it was.
 *
 * Deterministic: the cases come from a seeded generator (QUIRE_FUZZ_SEED to explore other seeds).
 * Bounded: the first pass calls every operation once with valid input, the second gives each query
 * parameter hostile values (every numeric one each of NUMERIC_HOSTILE), later passes (random invalid
 * variants of paths, queries and bodies) run until FUZZ_BUDGET_MS has passed: about ten seconds on
 * either database.
 */
import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext, type TestUser } from "../helpers/app.js";
import { createChangeRequest } from "../helpers/change-requests.factories.js";
import { commitContent, testFile } from "../helpers/content.factories.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { createCollection, createOrgWithSpace, createSpace } from "../helpers/spaces.factories.js";
import { createLinkInvite, createTeam } from "../helpers/teams.factories.js";

const SEED = Number(process.env.QUIRE_FUZZ_SEED ?? 20261125);
const FUZZ_BUDGET_MS = Number(process.env.QUIRE_FUZZ_BUDGET_MS ?? 3000);

/** The parts of a JSON schema the generator reads. */
interface Schema {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
}

interface SpecOperation {
  parameters?: Operation["parameters"];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

interface Spec {
  paths: Record<string, Record<string, SpecOperation | undefined>>;
  components: { schemas: Record<string, Schema> };
}
interface Operation {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  parameters: { name: string; in: string; required?: boolean; schema?: Schema }[];
  body?: Schema;
}

/** mulberry32: a small seeded PRNG, so a failing case can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}
type Random = ReturnType<typeof prng>;

/** Values a valid body may hold, from the schema (patterns and formats are approximated). */
function generate(
  schema: Schema | undefined,
  random: Random,
  resolve: (s: Schema) => Schema,
  ids: Map<string, string>,
  depth = 0,
): unknown {
  if (!schema) return null;
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return random.pick(s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return generate(random.pick(alternatives), random, resolve, ids, depth + 1);
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((part: Schema) => generate(part, random, resolve, ids, depth + 1));
    return Object.assign({}, ...parts.filter((p: unknown) => p && typeof p === "object" && !Array.isArray(p)));
  }
  if (s.nullable && random.chance(0.1)) return null;
  const type = Array.isArray(s.type) ? random.pick(s.type.filter((t: string) => t !== "null")) : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const properties = Object.entries((s.properties ?? {}) as Record<string, Schema>);
      const required = new Set<string>(s.required ?? []);
      for (const [key, child] of properties) {
        if (required.has(key) || (depth < 4 && random.chance(0.5))) out[key] = generate(child, random, resolve, ids, depth + 1);
      }
      return out;
    }
    case "array": {
      const count = depth > 4 ? (s.minItems ?? 0) : random.int(s.minItems ?? 0, Math.min(s.maxItems ?? 3, (s.minItems ?? 0) + 2));
      return Array.from({ length: count }, () => generate(s.items, random, resolve, ids, depth + 1));
    }
    case "integer":
    case "number": {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
      const max = s.maximum ?? min + 100;
      return type === "integer" ? random.int(Math.ceil(min), Math.floor(max)) : min + random.next() * (max - min);
    }
    case "boolean":
      return random.chance(0.5);
    case "string":
      return stringFor(s, random, ids);
    case "null":
      return null;
    default:
      return s.properties ? generate({ ...s, type: "object" }, random, resolve, ids, depth) : "x";
  }
}

function stringFor(s: Schema, random: Random, ids: Map<string, string>): string {
  if (s.format === "uri" || s.format === "url") return random.pick(["https://example.com/a.png", "https://git.example.com/acme/docs.git"]);
  if (s.format === "date-time") return new Date(Date.UTC(2026, 0, random.int(1, 28))).toISOString();
  if (s.format === "email") return `fuzz${random.int(1, 9999)}@example.com`;
  const known = [...ids.values()];
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 24, 40);
  const candidates = [
    random.pick(known),
    "Fuzzed title",
    "hello-world",
    "example.com",
    "# Heading\n\nSome *markdown* text.",
    "x".repeat(Math.max(min, 1)),
  ].filter((v) => v.length >= min && v.length <= max);
  if (candidates.length === 0) return "a".repeat(Math.max(min, Math.min(max, 8)));
  return random.pick(candidates);
}

/** An invalid variant of a valid body: a wrong type somewhere, a missing field, a hostile value. */
function mutate(value: unknown, random: Random): unknown {
  const hostile = [
    42,
    -1,
    1e308,
    0.5,
    true,
    null,
    "",
    "x".repeat(10_000),
    "\ud800 lone surrogate",
    "emoji 👍🏽 and RTL \u202e text",
    ["an", "array"],
    { an: "object" },
    JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`),
    "../../etc/passwd",
    "' or 1=1 --",
  ];
  if (!value || typeof value !== "object" || random.chance(0.15)) return random.pick(hostile);
  const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<string, unknown>;
  const keys = Object.keys(copy);
  if (keys.length === 0) return random.chance(0.5) ? random.pick(hostile) : { unexpected: random.pick(hostile) };
  const key = random.pick(keys);
  if (random.chance(0.25)) delete copy[key];
  else copy[key] = random.chance(0.5) ? mutate(copy[key], random) : random.pick(hostile);
  return copy;
}

const NUMERIC_HOSTILE = ["1e309", "-1", "NaN", "99999999999999999999"];
const HOSTILE_QUERY = ["-1", "0", "1e309", "NaN", "", "%00", "x".repeat(3000), "[]", "true", "999999999999999999999", "%E0%A4%A"];

let ctx: TestContext;
let owner: TestUser;
let spec: Spec;
const ids = new Map<string, string>();

/** Columns that move on reads and are not data: `last_used_at` of tokens moves on any authenticated call. */
const VOLATILE_COLUMNS = new Set(["last_used_at"]);

let fingerprintQuery: { sql: string; tables: string[] } | undefined;

/** The stored data, as one hash per table. PostgreSQL hashes in one statement (one round trip). */
async function fingerprint(): Promise<Record<string, string>> {
  if (!fingerprintQuery) {
    const tables = (await ctx.db.introspection.getTables()).filter((t) => t.name !== "rate_limits" && !t.name.startsWith("kysely_"));
    const parts = tables.map((t) => {
      const columns = t.columns.filter((c) => !VOLATILE_COLUMNS.has(c.name)).map((c) => `"${c.name}"`);
      const row = `md5(row(${columns.join(", ")})::text)`;
      return `select '${t.name}' as t, coalesce(md5(string_agg(${row}, ',' order by ${row})), '') as h from "${t.name}"`;
    });
    fingerprintQuery = { sql: parts.join(" union all "), tables: tables.map((t) => t.name) };
  }
  const out: Record<string, string> = {};
  if (ctx.dialect === "postgres") {
    const { rows } = await sql.raw<{ t: string; h: string }>(fingerprintQuery.sql).execute(ctx.db);
    for (const row of rows) out[row.t] = row.h;
    return out;
  }
  for (const table of fingerprintQuery.tables) {
    const rows = await (ctx.db as unknown as Kysely<Record<string, Record<string, unknown>>>).selectFrom(table).selectAll().execute();
    const lines = rows.map((row: Record<string, unknown>) => {
      const { lastUsedAt: _ignored, ...rest } = row;
      return JSON.stringify(rest, (_key, v) =>
        v && v.type === "Buffer" ? createHash("sha1").update(Buffer.from(v.data)).digest("hex") : v,
      );
    });
    out[table] = createHash("sha1").update(lines.sort().join("\n")).digest("hex");
  }
  return out;
}

beforeAll(async () => {
  ctx = await createTestContext();
  const base = await createOrgWithSpace(ctx);
  owner = base.owner;
  const file = await testFile(ctx, "logo.png", Buffer.from("89504e470d0a1a0a", "hex"), "image/png");
  const { content } = await commitContent(ctx, base.space.id, {
    pages: [
      { title: "Intro", paragraphs: ["Hello"], children: [{ title: "Child", paragraphs: ["World"] }] },
      { title: "Group", kind: "group" },
    ],
    files: [file],
  });
  const space = await ctx.db.selectFrom("spaces").select("revisionId").where("id", "=", base.space.id).executeTakeFirstOrThrow();
  const collection = await createCollection(ctx, owner, base.org.id, { title: "Guides" });
  const team = await createTeam(ctx, owner, base.org.id, { title: "Writers", members: [base.members.read.id] });
  const changeRequest = await createChangeRequest(ctx, owner, base.space.id, { subject: "Fuzz" });
  const invite = await createLinkInvite(ctx, owner, base.org.id, "read");
  const page = content.pages[0] as { id: string };
  const comment = await ctx.as(owner).post(`/v1/spaces/${base.space.id}/comments`, { body: { markdown: "A comment" }, page: page.id });
  expect(comment.status, JSON.stringify(comment.body)).toBe(200);
  const reply = await ctx
    .as(owner)
    .post(`/v1/spaces/${base.space.id}/comments/${comment.body.id}/replies`, { body: { markdown: "A reply" } });
  // Another organization's objects: reachable ids that must behave like missing ones.
  const outsider = await createUser(ctx);
  const otherOrg = await createOrganization(ctx, outsider, "Other org");
  await createSpace(ctx, outsider, otherOrg.id, { title: "Theirs" });
  for (const [name, id] of Object.entries({
    organizationId: base.org.id,
    spaceId: base.space.id,
    collectionId: collection.id,
    teamId: team.id,
    userId: base.members.read.id,
    changeRequestId: changeRequest.id,
    pageId: page.id,
    fileId: file.id,
    revisionId: space.revisionId,
    inviteId: invite.id,
    commentId: comment.body.id,
    commentReplyId: reply.body?.id ?? "nope",
    emailDomain: "example.test",
    "*": "intro",
  })) {
    ids.set(name, id);
  }
  ids.set("otherOrganizationId", otherOrg.id);
  spec = (await ctx.anonymous.get("/openapi.json")).body;
}, 120_000);
afterAll(() => ctx.close());

function operations(): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      ops.push({
        method: method.toUpperCase() as Operation["method"],
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.["application/json"]?.schema,
      });
    }
  }
  // Deletions last: they remove the objects the other operations work on.
  return [...ops.filter((o) => o.method !== "DELETE"), ...ops.filter((o) => o.method === "DELETE")];
}

function resolver(s: Schema): Schema {
  if (typeof s.$ref === "string") {
    const name = s.$ref.replace("#/components/schemas/", "");
    return spec.components.schemas[name] ?? {};
  }
  return s;
}

interface Case {
  operation: Operation;
  url: string;
  body?: unknown;
}

function buildCase(operation: Operation, random: Random, invalid: boolean): Case {
  let path = operation.path;
  const query = new URLSearchParams();
  const target = invalid ? random.int(0, 2) : -1; // 0: a path parameter, 1: the query, 2: the body
  for (const parameter of operation.parameters) {
    if (parameter.in === "path") {
      let value = ids.get(parameter.name) ?? "unknown0000000000000";
      if (target === 0)
        value = random.pick([ids.get("otherOrganizationId") as string, "nope", "x".repeat(600), "%00", "..%2F..", "ünïcödé"]);
      path = path.replace(`{${parameter.name}}`, value.startsWith("%") ? value : encodeURIComponent(value));
    } else if (parameter.in === "query") {
      if (target === 1 && random.chance(0.6)) query.set(parameter.name, random.pick(HOSTILE_QUERY));
      else if (parameter.required || random.chance(0.3)) {
        const value = generate(parameter.schema, random, resolver, ids);
        query.set(parameter.name, Array.isArray(value) ? String(value[0] ?? "") : String(value));
      }
    }
  }
  const search = query.toString().replace(/%25(00|E0)/g, "%$1");
  const url = `${path}${search ? `?${search}` : ""}`;
  if (!operation.body) return { operation, url, ...(target === 2 ? { body: mutate({}, random) } : {}) };
  const valid = generate(operation.body, random, resolver, ids);
  return { operation, url, body: target === 2 || (invalid && random.chance(0.5)) ? mutate(valid, random) : valid };
}

/** The valid case of `operation`, with query parameter `name` set to `value` as sent. */
function queryCase(operation: Operation, random: Random, name: string, value: string): Case {
  const valid = buildCase(operation, random, false);
  const [path, search] = valid.url.split("?") as [string, string | undefined];
  const query = new URLSearchParams(search ?? "");
  query.delete(name);
  const rest = query.toString();
  return { ...valid, url: `${path}?${rest ? `${rest}&` : ""}${encodeURIComponent(name)}=${value}` };
}

describe("fuzzing every operation of /openapi.json", () => {
  it("never answers 5xx, and a 4xx changes nothing", { timeout: 120_000 }, async () => {
    const random = prng(SEED);
    const all = operations();
    expect(all.length).toBeGreaterThan(100);
    const failures: string[] = [];
    let before = await fingerprint();
    let calls = 0;
    const statuses = new Map<number, number>();
    const run = async (c: Case) => {
      calls++;
      const reply = await ctx.app.inject({
        method: c.operation.method,
        url: c.url,
        headers: { authorization: `Bearer ${owner.token}`, ...(c.body !== undefined ? { "content-type": "application/json" } : {}) },
        ...(c.body !== undefined ? { payload: JSON.stringify(c.body) } : {}),
      });
      const res = { status: reply.statusCode, text: reply.body };
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const where = `${c.operation.method} ${c.url.slice(0, 200)} ${JSON.stringify(c.body)?.slice(0, 300)} (seed ${SEED})`;
      if (res.status >= 500) failures.push(`${res.status} for ${where}: ${res.text.slice(0, 300)}`);
      const after = await fingerprint();
      if (res.status >= 400 && res.status < 500) {
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length > 0) failures.push(`${res.status} changed ${changed.join(", ")} for ${where}: ${res.text.slice(0, 200)}`);
      }
      before = after;
    };
    // Pass 1: every operation once, with valid input.
    for (const operation of all) await run(buildCase(operation, random, false));
    // Pass 2: every query parameter with hostile values (sent as written: `%00` stays an escape).
    let cycle = 0;
    for (const operation of all) {
      for (const parameter of operation.parameters.filter((p) => p.in === "query")) {
        const type = resolver(parameter.schema ?? {}).type;
        const values =
          type === "integer" || type === "number" ? NUMERIC_HOSTILE : [HOSTILE_QUERY[cycle++ % HOSTILE_QUERY.length] as string];
        for (const value of values) {
          await run(queryCase(operation, random, parameter.name, /^[\w.%-]*$/.test(value) ? value : encodeURIComponent(value)));
        }
      }
    }
    // Later passes: invalid variants, while the time budget lasts.
    const deadline = Date.now() + FUZZ_BUDGET_MS;
    for (let pass = 0; Date.now() < deadline && pass < 20; pass++) {
      for (const operation of all) {
        if (Date.now() >= deadline) break;
        await run(buildCase(operation, random, true));
      }
    }
    const summary = `${failures.length} failures in ${calls} calls; statuses ${JSON.stringify([...statuses].sort())}`;
    expect(failures, summary).toEqual([]);
    // The fuzzing reached past validation: successes and refusals both.
    const count = (pred: (s: number) => boolean) => [...statuses].filter(([s]) => pred(s)).reduce((n, [, c]) => n + c, 0);
    expect(count((s) => s < 300)).toBeGreaterThan(30);
    expect(count((s) => s === 400)).toBeGreaterThan(30);
  });
});
