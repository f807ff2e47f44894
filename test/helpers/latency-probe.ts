/**
 * A health check from outside the server's process, like a load balancer's: a client in the test's
 * own process would be held by a stalled event loop too, and would not see the stall.
 */
import { spawn } from "node:child_process";

/**
 * Requests the URL every 20 ms until its stdin closes, printing each answer's latency in ms (a
 * request not answered counts from when it was sent, and the next waits for it).
 */
const PROBE = `
const url = process.argv[1];
let done = false;
process.stdin.on("end", () => { done = true; });
process.stdin.resume();
(async () => {
  while (!done) {
    const started = performance.now();
    const res = await fetch(url);
    await res.text();
    if (res.status !== 200) throw new Error("healthz answered " + res.status);
    process.stdout.write((performance.now() - started).toFixed(1) + "\\n");
    await new Promise((r) => setTimeout(r, 20));
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

/** Starts probing `url`; `stop()` ends the probe and returns the latency of each answer, in ms. */
export async function startLatencyProbe(url: string): Promise<{ stop(): Promise<number[]> }> {
  const probe = spawn(process.execPath, ["-e", PROBE, url], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  probe.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => probe.on("close", resolve));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the probe's first answers
  return {
    async stop() {
      probe.stdin.end();
      await exited;
      return output.split("\n").filter(Boolean).map(Number);
    },
  };
}
