/**
 * The server as an operator runs it: a child process started with `quire serve`.
 * First start, the admin token file, logs without secrets, readiness, graceful shutdown, the sample
 * site and sign-in link of a first start, and (on PostgreSQL) several processes sharing one database.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { createApiToken, revokeApiToken } from "../src/modules/users/tokens.queries.js";
import { connectChromium } from "./helpers/browser.js";
import { createTestDatabase, testDialect } from "./helpers/db.js";
import { freePort } from "./helpers/ports.js";

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

/** A full-page screenshot named `name`, when QUIRE_SCREENSHOTS_DIR is set. */
async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.QUIRE_SCREENSHOTS_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

async function waitFor(server: Server, text: string): Promise<void> {
  for (let i = 0; i < 600 && !server.logs().includes(text); i++) await new Promise((r) => setTimeout(r, 100));
  expect(server.logs()).toContain(text);
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const dataDir = env.QUIRE_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "quire-proc-"));
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "serve"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    // The sample site has its own test; the others start without it.
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", QUIRE_SAMPLE: "false", QUIRE_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 180_000);
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
    // The organization created during shutdown is created through the API, which needs the operator's setting.
    const server = await startServer({
      QUIRE_ORG_CREATION: "users",
      ...(database?.location.databaseUrl ? { DATABASE_URL: database.location.databaseUrl } : {}),
    });
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

  it.runIf(testDialect() === "sqlite")("warns when the SQLite database made by an earlier version may be read by others", async () => {
    const first = await startServer({});
    first.child.kill("SIGTERM");
    expect(await first.exit).toBe(0);
    expect(first.logs()).not.toContain("chmod 600");
    // A file made 0644 (as versions that did not choose a mode left it) is reported, not changed.
    const file = path.join(first.dataDir, "quire.db");
    fs.chmodSync(file, 0o644);
    const again = await startServer({ QUIRE_DATA_DIR: first.dataDir });
    expect(again.logs()).toMatch(/"file":"[^"]*quire\.db".*chmod 600 it/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
  });

  it.runIf(testDialect() === "postgres")(
    "lets several processes share one PostgreSQL database, bootstrapping once",
    async () => {
      const database = await createTestDatabase({ migrate: false });
      try {
        const env = { DATABASE_URL: database.location.databaseUrl!, QUIRE_ORG_CREATION: "users" };
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

        // A token both processes have seen (and keep), revoked by a third process (as `quire tokens
        // revoke` does): both refuse it once the change feed has told them, in well under the bound.
        const { id: userId } = (await (await fetch(`${a.url}/v1/user`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
          id: string;
        };
        const other = await createApiToken(database.db, userId, "revoked elsewhere");
        const withOther = (server: { url: string }) =>
          fetch(`${server.url}/v1/orgs/${id}`, { headers: { authorization: `Bearer ${other.token}` } }).then((res) => res.status);
        expect([await withOther(a), await withOther(b)]).toEqual([200, 200]);
        expect(await revokeApiToken(database.db, other.id)).toBe(true);
        await expect.poll(() => Promise.all([withOther(a), withOther(b)]), { timeout: 10_000, interval: 10 }).toEqual([401, 401]);
        // The owner's own token is untouched.
        expect((await fetch(`${b.url}/v1/orgs/${id}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
        a.child.kill("SIGTERM");
        b.child.kill("SIGTERM");
        expect(await a.exit).toBe(0);
        expect(await b.exit).toBe(0);
      } finally {
        await database.cleanup();
      }
      // Two cold starts racing for one fresh database (one migrates, the other waits for it): ~50 s on
      // a quiet 2-core machine, past two minutes when the suite's other workers share it.
    },
    300_000,
  );

  it("publishes a sample site on the first start, prints where to sign in, and does neither again", async () => {
    const database = testDialect() === "postgres" ? await createTestDatabase({ migrate: false }) : undefined;
    const port = await freePort();
    const db: Record<string, string> = database?.location.databaseUrl ? { DATABASE_URL: database.location.databaseUrl } : {};
    try {
      const server = await startServer({ PORT: String(port), QUIRE_SAMPLE: "true", ...db });
      await waitFor(server, "Quire is ready.");
      const site = /Sample docs site: +(\S+)/.exec(server.logs())?.[1];
      const signIn = /Sign in to the app: +(\S+)/.exec(server.logs())?.[1];
      expect(site).toBe(`http://localhost:${port}/s/quire-sample-docs`);
      expect(signIn).toMatch(new RegExp(`^http://localhost:${port}/app/login/link/`));

      const home = await fetch(site!);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain("Welcome");
      const blocks = await (await fetch(`${site}/writing-pages/every-kind-of-block.md`)).text();
      for (const block of ['{% hint style="warning" %}', "{% tabs %}", "{% stepper %}", "<details>", "$$", "```mermaid"]) {
        expect(blocks).toContain(block);
      }
      // In Chromium: the sample site, then the printed link signs the owner in to the app, which lists the sample space.
      const browser = await connectChromium();
      try {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        await page.goto(site!);
        await page.getByRole("heading", { name: "Welcome" }).first().waitFor();
        await shot(page, "first-start-sample-site");
        await page.goto(signIn!);
        expect(await page.textContent("body")).toContain("admin@localhost");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(`http://localhost:${port}/app`);
        await shot(page, "first-start-app-signed-in");
        await page.getByRole("link", { name: "My Organization" }).click();
        await page.getByRole("link", { name: "Getting started with Quire" }).first().click();
        await page.getByText("Every kind of block").first().waitFor();
        await shot(page, "first-start-app-sample-space");
        await context.close();
      } finally {
        await browser.close();
      }

      // A command run without the server's environment prints links under the server's address.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "src/cli.ts", "users", "login-link", "--user", "admin@localhost"],
        {
          cwd: path.resolve(import.meta.dirname, ".."),
          env: { ...process.env, PORT: "", QUIRE_PUBLIC_URL: "", QUIRE_DATA_DIR: server.dataDir, ...db },
        },
      );
      expect(stdout).toMatch(new RegExp(`^http://localhost:${port}/app/login/link/`));

      server.child.kill("SIGTERM");
      expect(await server.exit).toBe(0);
      const again = await startServer({ PORT: String(port), QUIRE_SAMPLE: "true", QUIRE_DATA_DIR: server.dataDir, ...db });
      const token = fs.readFileSync(path.join(server.dataDir, "admin-token"), "utf8").trim();
      const orgs = (await (await fetch(`${again.url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        items: { id: string }[];
      };
      const spaces = (await (
        await fetch(`${again.url}/v1/orgs/${orgs.items[0]!.id}/spaces`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { items: { title: string }[] };
      expect(spaces.items.map((space) => space.title)).toEqual(["Getting started with Quire"]);
      expect(again.logs()).not.toContain("Quire is ready.");
    } finally {
      await database?.cleanup();
    }
  }, 600_000);
});
