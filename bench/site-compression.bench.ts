/**
 * `npx tsx bench/site-compression.bench.ts [pages]`: what compressing a warm published page costs the
 * server, per request. A child process serves a site over a generated repository (default 60
 * pages, imported through Git) and, beside it, a bare Fastify route that sends the same page's
 * bytes through @fastify/compress on every request (what an answer costs without its compressed
 * body kept). autocannon (this process) loads each target; the server's CPU time is read from
 * /proc before and after, and divided by the requests answered.
 */
import { spawn } from "node:child_process";
import readline from "node:readline";
import autocannon from "autocannon";
import { cpuMicros } from "./proc-cpu.js";

const PAGES = Number(process.argv[2] ?? 60);
const SECONDS = Number(process.env.BENCH_DURATION ?? 8);

async function serve() {
  const { default: Fastify } = await import("fastify");
  const { registerCompression } = await import("../src/http/compression.js");
  const { publishedBenchSite } = await import("./seed.js");

  const { app, basename } = await publishedBenchSite({ pages: PAGES, images: 5, tmpPrefix: "quire-bench-compress-" });
  const llms = await app.inject({ method: "GET", url: `/s/${basename}/llms.txt` });
  const pages = [...llms.body.matchAll(/\]\(http:\/\/localhost:8080([^)]+)\.md\)/g)].map((m) => m[1]!);
  // The largest page of the site: where compression costs most.
  let sitePath = pages[0]!;
  let body = "";
  for (const url of pages) {
    const res = await app.inject({ method: "GET", url });
    if (res.body.length > body.length) [sitePath, body] = [url, res.body];
  }
  await app.listen({ port: 0, host: "127.0.0.1" });

  // The same bytes through @fastify/compress on every request.
  const bare = Fastify({ logger: false });
  await bare.register(async (scope) => {
    await registerCompression(scope);
    scope.get("/page", async (_request, reply) => reply.type("text/html; charset=utf-8").send(Buffer.from(body)));
  });
  await bare.listen({ port: 0, host: "127.0.0.1" });
  const port = (s: { server: { address(): unknown } }) => (s.server.address() as { port: number }).port;
  console.log(
    JSON.stringify({ real: `http://127.0.0.1:${port(app)}${sitePath}`, bare: `http://127.0.0.1:${port(bare)}/page`, bytes: body.length }),
  );
}

/** The child's CPU time (user + system) in ms, from /proc. */
const cpuMs = (pid: number) => (cpuMicros(pid) ?? Number.NaN) / 1000;

async function main() {
  const child = spawn(process.execPath, ["--import", "tsx", process.argv[1]!, String(PAGES), "serve"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once("line", resolve));
  const { real, bare, bytes } = JSON.parse(line) as { real: string; bare: string; bytes: number };
  const run = async (name: string, url: string, headers: Record<string, string>) => {
    await autocannon({ url, headers, connections: 4, duration: 1 }); // warm-up: the compressed body is made and kept
    const before = cpuMs(child.pid!);
    const result = await autocannon({ url, headers, connections: 4, duration: SECONDS });
    const used = cpuMs(child.pid!) - before;
    const requests = result.requests.total;
    console.log(
      `${name.padEnd(52)} ${String(Math.round(result.requests.average)).padStart(6)} req/s  ${((used / requests) * 1000).toFixed(0).padStart(5)} µs CPU/request  ${(result.throughput.average / result.requests.average / 1024).toFixed(1)} KB/answer`,
    );
  };
  console.log(`largest page of ${PAGES}: ${(bytes / 1024).toFixed(1)} KB of HTML; ${SECONDS} s per target, 4 connections`);
  await run("site page, identity", real, {});
  await run("site page, br (compressed body kept)", real, { "accept-encoding": "br" });
  await run("site page, gzip (compressed body kept)", real, { "accept-encoding": "gzip" });
  await run("same bytes, bare route, identity", bare, {});
  await run("same bytes, bare route, br per request (q4)", bare, { "accept-encoding": "br" });
  await run("same bytes, bare route, gzip per request", bare, { "accept-encoding": "gzip" });
  child.kill();
}

if (process.argv[3] === "serve") await serve();
else await main();
