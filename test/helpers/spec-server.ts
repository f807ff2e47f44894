/**
 * A real HTTP server on loopback serving OpenAPI documents for tests: each path answers what the
 * test set (a body, a status, a delay), and every request is recorded. Processing jobs fetch from it
 * through the safe fetcher, which the test configuration lets reach 127.0.0.0/8.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

export interface Route {
  body?: string;
  status?: number;
  contentType?: string;
  /** Milliseconds before answering. */
  delayMs?: number;
  /** Never answer (until the server closes). */
  hang?: boolean;
}

export interface SpecServer {
  base: string;
  set(path: string, route: Route | string): void;
  /** Paths requested, in order. */
  requests: string[];
  /** Resolves on the next request for `path`. */
  nextRequest(path: string): Promise<void>;
  close(): Promise<void>;
}

export async function startSpecServer(): Promise<SpecServer> {
  const routes = new Map<string, Route>();
  const requests: string[] = [];
  const waiters: { path: string; resolve: () => void }[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    requests.push(path);
    for (const waiter of waiters.splice(0)) {
      if (waiter.path === path) waiter.resolve();
      else waiters.push(waiter);
    }
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (route.hang) {
      open.add(res);
      res.on("close", () => open.delete(res));
      return;
    }
    const answer = () =>
      res.writeHead(route.status ?? 200, { "content-type": route.contentType ?? "application/json" }).end(route.body ?? "");
    if (route.delayMs) setTimeout(answer, route.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return {
    base: `http://127.0.0.1:${address.port}`,
    set(path, route) {
      routes.set(path, typeof route === "string" ? { body: route } : route);
    },
    requests,
    nextRequest(path) {
      return new Promise((resolve) => waiters.push({ path, resolve }));
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const require = createRequire(import.meta.url);

/** Real OpenAPI documents written by other people, as shipped in npm packages. */
export const realSpecs = {
  /** GitBook's API, OpenAPI 3.0 (`@gitbook/api`), JSON, 1.2 MB. */
  gitbookJson: () => readFileSync(require.resolve("@gitbook/api/spec/openapi.json"), "utf8"),
  /** Swagger 2.0 petstore (`@readme/oas-examples`), YAML. */
  petstoreSwagger2Yaml: () => readFileSync(require.resolve("@readme/oas-examples/2.0/yaml/petstore.yaml"), "utf8"),
  /** Bump.sh's Train Travel API, OpenAPI 3.1 (`@readme/oas-examples`), JSON. */
  trainTravel31Json: () => readFileSync(require.resolve("@readme/oas-examples/3.1/json/train-travel.json"), "utf8"),
  /** The USPTO data set API, OpenAPI 3.0 (`@readme/oas-examples`), JSON. */
  uspto30Json: () => readFileSync(require.resolve("@readme/oas-examples/3.0/json/uspto.json"), "utf8"),
  /** Rclone's remote control API, OpenAPI 3.1 (`rclone-openapi`), YAML. */
  rclone31Yaml: () => readFileSync(path.join(path.dirname(require.resolve("rclone-openapi")), "openapi.yaml"), "utf8"),
  /**
   * Directus' API (`@directus/specs` 15.2.0), OpenAPI 3.0, JSON, as published: invalid, one request
   * body has `"schema": null` (a broken document written by other people).
   */
  directusBrokenJson: () =>
    readFileSync(path.join(path.dirname(require.resolve("@directus/specs/package.json")), "dist/openapi.json"), "utf8"),
};
