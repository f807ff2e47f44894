/**
 * Markdown converted in a worker thread is stopped past its time limit with a "too-large" error
 * that says what to change, and the next conversion runs on a fresh thread. The limit is lowered
 * here so that a page of unmatched `[` (hundreds of ms to convert) passes it; what is asserted is
 * the outcome, not a duration.
 */
import { afterAll, describe, expect, it } from "vitest";
import { DomainError } from "../../lib/errors.js";
import { closeWorkerThreads } from "../../workers/pool.js";
import { convertMarkdown, INLINE_MARKDOWN_CHARS } from "./off-thread.js";

afterAll(() => closeWorkerThreads());

describe("convertMarkdown", () => {
  it("stops a conversion past its time limit with a 413 that says what to change, and converts the next one", async () => {
    // Warm: the thread started and the parser loaded, so the limit below is spent converting.
    await convertMarkdown({ markdown: `# Warm\n\n${"text ".repeat(INLINE_MARKDOWN_CHARS)}` });
    const hostile = "[a ".repeat(100_000);
    const error = await convertMarkdown({ markdown: hostile }, { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe("too-large");
    expect((error as DomainError).message).toMatch(/took longer than 0\.02 s and was stopped: split it into smaller pages.*\\\[ and \\\*/);
    const next = await convertMarkdown({ markdown: `# After\n\n${"more text ".repeat(INLINE_MARKDOWN_CHARS)}` });
    expect(next.title).toBe("After");
  }, 120_000);

  it("converts the same hostile page within the default limit", async () => {
    const converted = await convertMarkdown({ markdown: "[a ".repeat(5000) });
    expect(JSON.parse(converted.json).nodes).toHaveLength(1);
  }, 120_000);
});
