/**
 * The pool keeps running tasks after a thread dies. piscina (minThreads 0) does not replace a
 * thread stopped while tasks wait in its queue, so tasks wait in pool.ts instead; without that, the
 * task queued behind an aborted one waited for ever.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeWorkerThreads } from "../workers/pool.js";
import { runInWorker } from "./run-in-worker.js";

afterAll(() => closeWorkerThreads());

describe("runInWorker", () => {
  it("runs a task queued behind one whose thread was stopped by an abort", async () => {
    let markdown = "# Long\n\n";
    for (let i = 0; markdown.length < 1_000_000; i++)
      markdown += `## Section ${i}\n\nSome *emphasis* and a [link](https://example.com/${i}).\n\n`;
    // A thread ready first, so that the long task runs at once (an abort of a task still queued in piscina never stalled).
    await runInWorker("convertMarkdown", { markdown: "# Warm\n" });
    const abort = new AbortController();
    const reason = new Error("client went away");
    const long = runInWorker("convertMarkdown", { markdown }, { signal: abort.signal });
    const queued = runInWorker("convertMarkdown", { markdown: "# Queued\n\nBehind the long one.\n" });
    abort.abort(reason);
    await expect(long).rejects.toBe(reason);
    expect((await queued).title).toBe("Queued");
  }, 60_000);
});
