/**
 * The route table of the app as buildApp() registers it, each route with the file and line of the
 * code that registered it: the API operations (by operationId), the web app's pages (/app/...) and
 * the published sites' (/s/...). The location is read from the call stack at registration (Fastify's
 * onRoute hook runs inside the `app.get(...)` or `app.route({...})` call), so routes made in loops
 * or by shared helpers are found where they are made, with no parsing to go wrong.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { Urls } from "../../src/http/urls.js";

export interface RouteEntry {
  method: string;
  /** Fastify's pattern: /v1/spaces/:spaceId */
  url: string;
  operationId?: string;
  /** Repository-relative file and line of the call that registered the route, or undefined (a plugin's). */
  file?: string;
  line?: number;
  /** Further frames of src/ on the way (the helpers that called the registering one, innermost first). */
  via: string[];
}

const root = path.resolve(import.meta.dirname, "../..");
const srcDir = `${path.join(root, "src")}${path.sep}`;

/** The frames of the current stack that lie in src/, innermost first, as "file:line". */
function sourceFrames(stack: string): { file: string; line: number }[] {
  const frames: { file: string; line: number }[] = [];
  for (const match of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts):(\d+):\d+/g)) {
    const file = match[1]!;
    if (!file.startsWith(srcDir)) continue;
    frames.push({ file: path.relative(root, file).split(path.sep).join("/"), line: Number(match[2]) });
  }
  return frames;
}

/** Builds the app (over a migrated in-memory SQLite, nothing listening) and returns its routes, and the app. */
export async function routeTable(): Promise<{ routes: RouteEntry[]; app: FastifyInstance; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-where-"));
  const config = loadConfig({ QUIRE_PUBLIC_URL: "http://quire.where", QUIRE_DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const handle = openDatabase({ sqlitePath: ":memory:" });
  // Some route families read the database as they register (the published sites' host names).
  await migrateToLatest(handle.db);
  const routes: RouteEntry[] = [];
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  let app: FastifyInstance;
  try {
    app = await buildApp(
      {
        config,
        db: handle.db,
        dialect: handle.dialect,
        urls: new Urls(config.publicUrl),
        log: pino({ level: "silent" }),
        secret: "where",
        notifyJobs: () => {},
      },
      {
        onRoute(route) {
          const frames = sourceFrames(new Error().stack ?? "").filter((frame) => frame.file !== "scripts/lib/routes.ts");
          const [first, ...rest] = frames;
          const methods = Array.isArray(route.method) ? route.method : [route.method];
          for (const method of methods) {
            routes.push({
              method,
              url: route.url,
              ...(route.schema?.operationId ? { operationId: route.schema.operationId } : {}),
              ...(first ? { file: first.file, line: first.line } : {}),
              via: rest.filter((frame) => frame.file !== "src/app.ts").map((frame) => `${frame.file}:${frame.line}`),
            });
          }
        },
      },
    );
  } finally {
    Error.stackTraceLimit = limit;
  }
  await pointTableRoutesAtHandlers(routes);
  return {
    routes,
    app,
    async close() {
      await app.close();
      await handle.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * An application registers its pages from one table (`src/apps/<app>/<app>.routes.ts`: rows of
 * method, url, handler) in a loop, so the stack names the loop. Such a route is pointed at the
 * file that defines its handler: the module among the table's imports that exports the very
 * function the row holds, at the line of that export; the table stays in `via`. A row Fastify does
 * not register itself (the published site registers its catch-all addresses and matches its rows
 * after the reader's share key) is listed as a route of its own, at its handler.
 */
async function pointTableRoutesAtHandlers(routes: RouteEntry[]): Promise<void> {
  const tables = new Set(
    routes.map((route) => route.file).filter((file): file is string => /^src\/apps\/[^/]+\/[^/]+\.routes\.ts$/.test(file ?? "")),
  );
  for (const table of tables) {
    const tablePath = path.join(root, table);
    const tableModule = (await import(tablePath)) as Record<string, unknown>;
    const rows = Object.values(tableModule).filter(isRouteRows).flat();
    const exporters = new Map<unknown, { file: string; name: string }>();
    const source = fs.readFileSync(tablePath, "utf8");
    for (const [, specifier] of source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"(\.[^"]+)";/gms)) {
      const file = path.resolve(path.dirname(tablePath), specifier!.replace(/\.js$/, ".ts"));
      for (const [name, value] of Object.entries((await import(file)) as Record<string, unknown>)) {
        if ((typeof value === "function" || (typeof value === "object" && value !== null)) && !exporters.has(value))
          exporters.set(value, { file, name });
      }
    }
    const lineOfExport = (exporter: { file: string; name: string }) =>
      fs
        .readFileSync(exporter.file, "utf8")
        .split("\n")
        .findIndex((line) => new RegExp(`^export (?:async )?(?:const|function) ${exporter.name}\\b`).test(line)) + 1;
    const registered = routes.filter((route) => route.file === table);
    for (const route of registered) {
      const row = rows.find((r) => r.url === route.url && (r.method === route.method || (r.method === "GET" && route.method === "HEAD")));
      const exporter = row && exporters.get(row.handler);
      if (!exporter) continue;
      route.via = [`${route.file}:${route.line}`, ...route.via];
      route.file = path.relative(root, exporter.file).split(path.sep).join("/");
      route.line = lineOfExport(exporter);
    }
    for (const row of rows) {
      if (registered.some((route) => route.url === row.url && route.method === row.method)) continue;
      const exporter = exporters.get(row.handler);
      if (!exporter) continue;
      const at =
        source
          .split("\n")
          .findIndex((line) => line.includes(`method: "${row.method}"`) && new RegExp(`handler: ${exporter.name}\\b`).test(line)) + 1;
      routes.push({
        method: row.method,
        url: row.url,
        file: path.relative(root, exporter.file).split(path.sep).join("/"),
        line: lineOfExport(exporter),
        via: [at > 0 ? `${table}:${at}` : table],
      });
    }
  }
}

function isRouteRows(value: unknown): value is { method: string; url: string; handler: unknown }[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((row) => typeof row === "object" && row !== null && "url" in row && "handler" in row)
  );
}

/** How a route pattern's segments rank against a path (Fastify prefers static, then parameters, then wildcards). */
function matchScore(pattern: string, pathname: string): number[] | undefined {
  const want = pathname.split("/");
  const have = pattern.split("/");
  const score: number[] = [];
  for (let i = 0; i < have.length; i++) {
    const segment = have[i]!;
    if (segment === "*") {
      if (want.length <= i) return undefined;
      score.push(0);
      return score;
    }
    const given = want[i];
    if (given === undefined) return undefined;
    if (segment.includes(":")) {
      // A parameter may sit after a static prefix (/file-:name): the prefix must match.
      const prefix = segment.slice(0, segment.indexOf(":"));
      if (!given.startsWith(prefix) || (given.length === prefix.length && !/^\{.*\}$/.test(given))) return undefined;
      score.push(1);
    } else if (segment === given) {
      score.push(2);
    } else {
      return undefined;
    }
  }
  return want.length === have.length ? score : undefined;
}

/**
 * The routes a query names: an operationId, or a path (`/v1/spaces/abc`, `/v1/spaces/{spaceId}`,
 * `/v1/spaces/:spaceId`), optionally after a method (`GET /v1/...`); the best matches first.
 */
export function findRoutes(routes: RouteEntry[], query: string): RouteEntry[] {
  const trimmed = query.trim();
  const byId = routes.filter((route) => route.operationId === trimmed);
  if (byId.length > 0) return byId;
  const [, method, rawPath] = /^(?:([A-Za-z]+)\s+)?(\/\S*)$/.exec(trimmed) ?? [];
  if (!rawPath) return [];
  const pathname = rawPath.split("?")[0]!.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
  const scored = routes
    .filter((route) => !method || route.method === method.toUpperCase())
    .map((route) => ({ route, score: route.url === rawPath ? [Number.POSITIVE_INFINITY] : matchScore(route.url, pathname) }))
    .filter((entry): entry is { route: RouteEntry; score: number[] } => entry.score !== undefined);
  scored.sort((a, b) => {
    for (let i = 0; i < Math.max(a.score.length, b.score.length); i++) {
      const diff = (b.score[i] ?? -1) - (a.score[i] ?? -1);
      if (diff !== 0) return diff;
    }
    return 0;
  });
  // The best-ranked pattern, each of its methods (HEAD is GET's shadow unless asked for).
  const best = scored[0]?.route.url;
  return scored
    .filter((entry) => entry.route.url === best)
    .map((entry) => entry.route)
    .filter((route) => method || route.method !== "HEAD");
}
