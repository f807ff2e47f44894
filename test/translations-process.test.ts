/**
 * A worker process killed in the middle of a translation run (SIGKILL while the engine holds the
 * request): nothing of the run is written, the job stays claimed by the dead process until its
 * lease expires, and the next process's worker takes it over and completes it with exactly one
 * revision of the translated space. The engine is a LibreTranslate-compatible server on loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitRevision } from "../src/content/revision/commit.js";
import type { RevisionContent } from "../src/content/revision/model.js";
import { saveDocument } from "../src/content/revision/storage.js";
import { paragraphDoc } from "./helpers/content.factories.js";
import { createTestDatabase } from "./helpers/db.js";
import { startFakeLibreTranslate } from "./helpers/libretranslate.js";

interface Server {
  child: ChildProcess;
  url: string;
  exit: Promise<number | null>;
}

interface Translation {
  id: string;
  status: string;
  result: { space: string };
  stats: Record<string, number>;
  failure?: unknown;
}

const running: Server[] = [];
afterEach(() => {
  for (const server of running.splice(0)) server.child.kill("SIGKILL");
});

async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "serve"], {
    cwd: path.resolve(import.meta.dirname, ".."),
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.stdout?.on("data", () => {
      const match = /"address":"(http:[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", () => reject(new Error(`server exited:\n${output}`)));
  });
  const server = { child, url, exit };
  running.push(server);
  return server;
}

/** Polls until `check` returns a value (the worker polls the queue every second). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("a translation run in a killed process", () => {
  it("leaves nothing half-written and is completed by the next process once the lease expires", async () => {
    const database = await createTestDatabase();
    const service = await startFakeLibreTranslate();
    // SQLite: the server opens <data dir>/quire.db, the test database's file. PostgreSQL: a data dir of its own.
    const ownDataDir = database.location.sqlitePath ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), "quire-tr-"));
    const dataDir = ownDataDir ?? path.dirname(database.location.sqlitePath ?? "");
    const env: Record<string, string> = {
      QUIRE_DATA_DIR: dataDir,
      QUIRE_TRANSLATOR: "libretranslate",
      QUIRE_LIBRETRANSLATE_URL: service.url,
      ...(database.location.databaseUrl ? { DATABASE_URL: database.location.databaseUrl } : {}),
    };
    try {
      service.failFrom = 1;
      service.hang = true;
      const first = await startServer(env);
      const token = fs.readFileSync(path.join(dataDir, "admin-token"), "utf8").trim();
      const api = async <T>(server: Server, method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> => {
        const res = await fetch(`${server.url}${url}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: (res.status === 204 ? undefined : await res.json()) as T };
      };
      const org = (await api<{ items: Array<{ id: string }> }>(first, "GET", "/v1/orgs")).body.items[0]?.id;
      if (!org) throw new Error("the first start creates an organization");
      const space = (await api<{ id: string }>(first, "POST", `/v1/orgs/${org}/spaces`, { title: "Source" })).body;

      // Source content, written directly (the API's ways to write primary content have their own tests).
      const row = await database.db.selectFrom("spaces").selectAll().where("id", "=", space.id).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const content: RevisionContent = {
        pages: [
          {
            id: "p1",
            kind: "document",
            title: "One",
            slug: "one",
            createdAt: now,
            updatedAt: now,
            children: [],
            documentHash: await saveDocument(database.db, paragraphDoc(["First page."])),
          },
          {
            id: "p2",
            kind: "document",
            title: "Two",
            slug: "two",
            createdAt: now,
            updatedAt: now,
            children: [],
            documentHash: await saveDocument(database.db, paragraphDoc(["Second page."])),
          },
        ],
        files: [],
        reusableContents: [],
        variables: {},
      };
      await database.db.transaction().execute((trx) =>
        commitRevision(trx, {
          spaceId: space.id,
          parents: [row.revisionId],
          type: "edits",
          content,
          createdBy: null,
          movePrimaryFrom: row.revisionId,
        }),
      );

      const created = await api<Translation>(first, "POST", `/v1/orgs/${org}/translations`, {
        language: "es",
        source: { space: space.id, language: "en" },
      });
      expect(created.status).toBe(201);
      const translationId = created.body.id;
      const target = created.body.result.space;
      await service.waitForRequests(1); // the run is in the engine now
      expect((await api<Translation>(first, "GET", `/v1/orgs/${org}/translations/${translationId}`)).body.status).toBe("running");
      first.child.kill("SIGKILL");
      await first.exit;

      const revisions = () => database.db.selectFrom("revisions").select("id").where("spaceId", "=", target).execute();
      expect(await revisions()).toHaveLength(1);
      expect(
        await database.db.selectFrom("translationItems").select("itemId").where("translationId", "=", translationId).execute(),
      ).toEqual([]);
      const job = await database.db
        .selectFrom("jobs")
        .selectAll()
        .where("kind", "=", "translation-run")
        .where("dedupeKey", "like", `translation-run:${translationId}:%`)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ state: "running", attempts: 1 });

      // The dead process's lease runs out (30 minutes for a translation run; moved forward here).
      service.failFrom = undefined;
      service.hang = false;
      await database.db
        .updateTable("jobs")
        .set({ lockedUntil: new Date(Date.now() - 1000).toISOString() })
        .where("id", "=", job.id)
        .execute();
      const second = await startServer(env);
      const done = await eventually(async () => {
        const t = (await api<Translation>(second, "GET", `/v1/orgs/${org}/translations/${translationId}`)).body;
        return t.status === "completed" ? t : undefined;
      }, "the run to complete in the second process");
      expect(done.stats).toMatchObject({ runs: 1, latestPages: 2, latestWords: 6 });
      expect(done.failure).toBeUndefined();
      expect(await revisions()).toHaveLength(2);
      const page = (await api<{ title: string }>(second, "GET", `/v1/spaces/${target}/content/page/p2`)).body;
      expect(page.title).toBe("[es] Two");
      expect(await database.db.selectFrom("jobs").select(["state", "attempts"]).where("id", "=", job.id).executeTakeFirstOrThrow()).toEqual(
        {
          state: "succeeded",
          attempts: 2,
        },
      );
    } finally {
      for (const server of running.splice(0)) {
        server.child.kill("SIGKILL");
        await server.exit;
      }
      await service.close();
      await database.cleanup();
      if (ownDataDir) fs.rmSync(ownDataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
