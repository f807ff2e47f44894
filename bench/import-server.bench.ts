/**
 * A Git import as a user runs it: the compiled server (`node bin/quire.js serve`, as `npm start`
 * runs it) on a fresh SQLite data directory, the import asked for over HTTP, and the server
 * process's resident memory sampled from /proc while it runs (worker threads included; the git
 * child processes are not part of it) until the import and the search indexing that follows it
 * are done. Prints the import's wall time and the server's CPU time, the idle RSS before the
 * import and the peak (VmHWM), and the worst latency of /healthz asked over and over meanwhile.
 *
 *   npm run build && tsx bench/import-server.bench.ts <bare repository or URL> [ref] [project directory]
 *
 * The server's node runs with the flags of `npm start`. Extra environment (QUIRE_WORKER_THREADS, QUIRE_GIT_*) is passed to the server; BENCH_TRACE=1 prints
 * the RSS every second, BENCH_SETTLE_MS sets the wait before measuring the idle RSS.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMicros } from "./proc-cpu.js";

const [target, ref = "HEAD", projectDirectory = ""] = process.argv.slice(2);
if (!target) {
  console.error("usage: tsx bench/import-server.bench.ts <bare repository or URL> [ref] [project directory]");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (!fs.existsSync(path.join(root, "dist/main.js"))) {
  console.error("dist/ is missing: run `npm run build` first");
  process.exit(2);
}
const url = target.includes("://") ? target : `file://${path.resolve(target)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quire-bench-import-server-"));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;

// The node flags of `npm start` (its young-generation size is part of what is measured), then
// BENCH_NODE_ARGS: more flags for the server's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
const startScript: string = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts.start;
const startFlags = startScript.split(/\s+/).filter((word) => word.startsWith("--"));
const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [])];
const server = spawn(process.execPath, [...nodeArgs, path.join(root, "bin/quire.js"), "serve"], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    QUIRE_DATA_DIR: dataDir,
    QUIRE_PUBLIC_URL: base,
    QUIRE_GIT_ALLOW_FILE_URLS: "true",
    QUIRE_RATE_LIMIT: "false",
    LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const status = (field: "VmRSS" | "VmHWM") => {
  const text = fs.readFileSync(`/proc/${server.pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) * 1024;
};
/** CPU seconds the server process used so far, all its threads. */
const cpuSeconds = () => (cpuMicros(server.pid!) ?? Number.NaN) / 1e6;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

try {
  for (let i = 0; ; i++) {
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error("the server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const token = fs.readFileSync(path.join(dataDir, "admin-token"), "utf8").trim();
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const orgs = await api("GET", "/v1/orgs");
  const space = await api("POST", `/v1/orgs/${orgs.items[0].id}/spaces`, { title: "Import" });
  // What a freshly started server holds once it settled (10 s, as the idle figure of the README).
  await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS ?? 10_000)));
  const idle = status("VmRSS");

  let peak = idle;
  const trace: number[] = [];
  const sampler = setInterval(() => {
    const rss = status("VmRSS");
    peak = Math.max(peak, rss);
    trace.push(rss);
  }, 20);
  // /healthz asked one request after another while the import runs: its worst latency is what a
  // load balancer's health check would see (the bound is 200 ms).
  let probing = true;
  const healthz: number[] = [];
  const probe = (async () => {
    while (probing) {
      const t0 = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      healthz.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = performance.now();
  const cpuBefore = cpuSeconds();
  await api("POST", `/v1/spaces/${space.id}/git/import`, {
    url,
    ref,
    ...(projectDirectory ? { repoProjectDirectory: projectDirectory } : {}),
  });
  let lastImport: { status: string; warnings?: unknown[]; error?: string } | undefined;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const info = await api("GET", `/v1/spaces/${space.id}/git/info`).catch(() => undefined);
    lastImport = info?.lastImport ?? (await api("GET", `/v1/spaces/${space.id}`)).gitSync?.lastImport;
    if (lastImport && lastImport.status !== "pending" && lastImport.status !== "running") break;
  }
  const ms = performance.now() - started;
  const cpu = cpuSeconds() - cpuBefore;
  // The search index job runs right after the import: the peak counts it too. Done when the
  // first page's title is found.
  const content = await api("GET", `/v1/spaces/${space.id}/content`);
  const word = String(content.pages[0]?.title ?? "").match(/[\p{L}\p{N}]{3,}/u)?.[0];
  for (let i = 0; word && i < 600; i++) {
    const found = await api("GET", `/v1/spaces/${space.id}/search?query=${encodeURIComponent(word)}`);
    if (found.items.length > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  clearInterval(sampler);
  probing = false;
  await probe;
  // BENCH_TRACE=1 prints the RSS every second of the import.
  if (process.env.BENCH_TRACE)
    console.log(
      trace
        .filter((_, i) => i % 50 === 0)
        .map((b) => (b / 1024 / 1024).toFixed(0))
        .join(" "),
    );
  peak = Math.max(peak, status("VmHWM"));
  if (lastImport?.status !== "succeeded") throw new Error(`import ${lastImport?.status}: ${JSON.stringify(lastImport)}`);
  const count = (pages: { pages?: unknown[] }[]): number => pages.reduce((n, p) => n + 1 + count((p.pages ?? []) as never), 0);
  console.log(
    `server import of ${target}: ${count(content.pages)} pages + ${content.files.length} files, ${lastImport.warnings?.length ?? 0} warnings: ` +
      `${(ms / 1000).toFixed(2)} s (server CPU ${cpu.toFixed(1)} s), server RSS idle ${mb(idle)}, peak ${mb(peak)}; ` +
      `/healthz worst ${Math.max(...healthz).toFixed(0)} ms over ${healthz.length} requests`,
  );
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
