/**
 * `npx tsx bench/collab-latency.ts [rounds]`: live collaboration on loopback, the Quire server in a
 * child process (SQLite, worker threads as configured by default) and the providers in this one.
 *
 * 1. Five Hocuspocus providers on one page; in each round one of them (in turn) types a character
 *    into the first paragraph, and the time until each of the four others has it is recorded.
 *    Prints p50/p95/max of those times (target: p95 < 100 ms).
 * 2. A generated ~1 MB page: time for a provider to open it (first sync), then to get "saved" after
 *    an edit, and the longest the server's event loop was held meanwhile (monitorEventLoopDelay in
 *    the server process): what a request arriving then waited at most.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { HocuspocusProvider } from "@hocuspocus/provider";
import pino from "pino";
import WebSocket from "ws";
import * as Y from "yjs";
import { buildApp } from "../src/app.js";
import { initOrganization, loadInstanceSecret } from "../src/bootstrap.js";
import { loadConfig } from "../src/config.js";
import { EDITOR_FRAGMENT } from "../src/content/editor/yjs.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { Urls } from "../src/http/urls.js";
import { collabDocumentName, issueCollabToken } from "../src/modules/collab/collab.service.js";

interface Ready {
  port: number;
  small: { name: string; token: string };
  large: { name: string; token: string; bytes: number };
}

const paragraph = (i: number, text: string) => ({
  object: "block",
  type: "paragraph",
  key: `b${i}`,
  nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
});

async function server(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-collab-bench-"));
  const config = loadConfig({ QUIRE_DATA_DIR: dataDir, LOG_LEVEL: "silent", PORT: "0", QUIRE_RATE_LIMIT: "false" });
  const handle = openDatabase({ sqlitePath: path.join(dataDir, "quire.db") });
  await migrateToLatest(handle.db);
  const { organization, token, user } = await handle.db
    .transaction()
    .execute((trx) => initOrganization(trx, { orgTitle: "Bench", email: "bench@bench.test", name: "Bench" }));
  const secret = await loadInstanceSecret(handle.db);
  const app = await buildApp({
    config,
    db: handle.db,
    dialect: handle.dialect,
    urls: new Urls(config.publicUrl),
    log: pino({ level: "silent" }),
    secret,
    notifyJobs: () => {},
  });
  const call = async (method: "POST", url: string, payload: unknown) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json();
  };
  const space = await call("POST", `/v1/orgs/${organization.id}/spaces`, { title: "Bench" });
  const cr = await call("POST", `/v1/spaces/${space.id}/change-requests`, { subject: "Bench" });
  const sentence = "A sentence of ordinary length, written to make the page as large as a long reference page. ";
  const largeDoc = {
    object: "document",
    data: {},
    nodes: Array.from({ length: 3400 }, (_, i) => paragraph(i, `${i}: ${sentence.repeat(2)}`)),
  };
  const edited = await call("POST", `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
    changes: [
      {
        operation: "insert_page",
        title: "Small",
        document: { document: { object: "document", data: {}, nodes: [paragraph(0, "Type here")] } },
      },
      { operation: "insert_page", title: "Large", document: { document: largeDoc } },
    ],
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as { port: number }).port;
  const doc = (pageId: string) => {
    const name = collabDocumentName(cr.id, pageId);
    return { name, token: issueCollabToken(secret, { userId: user.id, document: name, ttlSeconds: 3600 }) };
  };
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  process.on("message", (message: string) => {
    if (message === "reset") {
      histogram.reset();
      histogram.enable();
      process.send!({ reset: true });
    } else if (message === "report") {
      histogram.disable();
      process.send!({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 });
    } else if (message === "stop") {
      void app.close().then(() => process.exit(0));
    }
  });
  const ready: Ready = {
    port,
    small: doc(edited.changes[0].page.id),
    large: { ...doc(edited.changes[1].page.id), bytes: JSON.stringify(largeDoc).length },
  };
  process.send!({ ready });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function client(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 200);
  const child = fork(fileURLToPath(import.meta.url), ["--server"], { execArgv: process.execArgv });
  const next = <T>(key: string) =>
    new Promise<T>((resolve) => {
      const on = (message: Record<string, unknown>) => {
        if (key in message) {
          child.off("message", on);
          resolve((key === "maxMs" ? message : message[key]) as T);
        }
      };
      child.on("message", on);
    });
  const ready = await next<Ready>("ready");
  const url = `ws://127.0.0.1:${ready.port}/app/collab`;
  const open = (target: { name: string; token: string }) => {
    const doc = new Y.Doc();
    let synced!: () => void;
    const stateless: { type: string }[] = [];
    const done = new Promise<void>((resolve) => {
      synced = resolve;
    });
    const provider = new HocuspocusProvider({
      url,
      WebSocketPolyfill: WebSocket,
      name: target.name,
      token: target.token,
      document: doc,
      onSynced: () => synced(),
      onStateless: ({ payload }: { payload: string }) => stateless.push(JSON.parse(payload)),
    } as never);
    return { doc, provider, synced: done, stateless };
  };

  // 1. Five editors on one page.
  const editors = Array.from({ length: 5 }, () => open(ready.small));
  await Promise.all(editors.map((e) => e.synced));
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const sender = editors[round % editors.length]!;
    const others = editors.filter((e) => e !== sender);
    const arrived = others.map(
      (e) =>
        new Promise<number>((resolve) => {
          const on = () => {
            e.doc.off("update", on);
            resolve(performance.now());
          };
          e.doc.on("update", on);
        }),
    );
    const start = performance.now();
    const text = (sender.doc.getXmlFragment(EDITOR_FRAGMENT).get(0) as Y.XmlElement).get(0) as Y.XmlText;
    text.insert(text.length, String.fromCharCode(97 + (round % 26)));
    for (const at of await Promise.all(arrived)) samples.push(at - start);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  samples.sort((a, b) => a - b);
  console.log(
    `5 editors, ${rounds} keystrokes, ${samples.length} arrivals: p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms, max ${samples.at(-1)!.toFixed(1)} ms`,
  );
  for (const e of editors) e.provider.destroy();

  // 2. A ~1 MB page: open, edit, saved; the server's event loop meanwhile.
  child.send("reset");
  await next("reset");
  const t0 = performance.now();
  const large = open(ready.large);
  await large.synced;
  const opened = performance.now() - t0;
  const t1 = performance.now();
  const first = (large.doc.getXmlFragment(EDITOR_FRAGMENT).get(0) as Y.XmlElement).get(0) as Y.XmlText;
  first.insert(0, "Edited. ");
  while (!large.stateless.some((m) => m.type === "saved" || m.type === "refused")) await new Promise((r) => setTimeout(r, 10));
  const saved = performance.now() - t1;
  child.send("report");
  const loop = await next<{ maxMs: number; p99Ms: number }>("maxMs");
  console.log(
    `${(ready.large.bytes / 1024 / 1024).toFixed(2)} MB page: first sync ${opened.toFixed(0)} ms, edit to "${large.stateless.at(-1)!.type}" ${saved.toFixed(0)} ms; server event loop held at most ${loop.maxMs.toFixed(0)} ms (p99 ${loop.p99Ms.toFixed(0)} ms)`,
  );
  large.provider.destroy();
  child.send("stop");
}

if (process.argv.includes("--server")) void server();
else void client();
