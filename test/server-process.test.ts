/**
 * The server as an operator runs it: a child process started with `quire serve`.
 * First start, the admin token file, logs without secrets, readiness, graceful shutdown, and
 * (on PostgreSQL) several processes sharing one database.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, testDialect } from "./helpers/db.js";

interface Server {
  child: ChildProcess;
  url: string;
  dataDir: string;
  logs: () => string;
  exit: Promise<number | null>;
}

const running: Server[] = [];
afterEach(() => {
  for (const server of running.splice(0)) server.child.kill("SIGKILL");
});

async function startServer(env: Record<string, string>): Promise<Server> {
  const dataDir = env.QUIRE_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "quire-proc-"));
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "serve"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", QUIRE_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const check = () => {
      const match = /"address":"(http:[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", check);
    child.on("exit", () => reject(new Error(`server exited:\n${output}`)));
  });
  const server = { child, url, dataDir, logs: () => output, exit };
  running.push(server);
  return server;
}

describe("quire serve", () => {
  it("bootstraps on first start, writes the token file 0600, never logs it, and shuts down gracefully", async () => {
    const database = testDialect() === "postgres" ? await createTestDatabase({ migrate: false }) : undefined;
    const server = await startServer(database?.location.databaseUrl ? { DATABASE_URL: database.location.databaseUrl } : {});
    try {
      const tokenFile = path.join(server.dataDir, "admin-token");
      expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
      const token = fs.readFileSync(tokenFile, "utf8").trim();
      expect(token).toMatch(/^qr_/);

      const orgs = await fetch(`${server.url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
      expect(orgs.status).toBe(200);
      expect(((await orgs.json()) as { count: number }).count).toBe(1);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect(server.logs()).toContain("admin-token");
      expect(server.logs()).not.toContain(token);

      // A request still receiving its body when SIGTERM arrives is completed, then the process exits 0.
      const body = JSON.stringify({ title: "Created during shutdown" });
      const { port } = new URL(server.url);
      const response = new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            path: "/v1/orgs",
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.write(body.slice(0, 5));
        setTimeout(() => {
          server.child.kill("SIGTERM");
          setTimeout(() => req.end(body.slice(5)), 300);
        }, 200);
      });
      expect(await response).toBe(201);
      expect(await server.exit).toBe(0);
    } finally {
      await database?.cleanup();
    }
  });

  it.runIf(testDialect() === "postgres")("lets several processes share one PostgreSQL database, bootstrapping once", async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      const env = { DATABASE_URL: database.location.databaseUrl! };
      const [a, b] = await Promise.all([startServer(env), startServer(env)]);
      const tokens = [a, b].map((s) => path.join(s.dataDir, "admin-token")).filter((f) => fs.existsSync(f));
      expect(tokens).toHaveLength(1);
      const token = fs.readFileSync(tokens[0]!, "utf8").trim();
      const created = await fetch(`${a.url}/v1/orgs`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Shared" }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const seen = await fetch(`${b.url}/v1/orgs/${id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(seen.status).toBe(200);
      a.child.kill("SIGTERM");
      b.child.kill("SIGTERM");
      expect(await a.exit).toBe(0);
      expect(await b.exit).toBe(0);
    } finally {
      await database.cleanup();
    }
  });
});
