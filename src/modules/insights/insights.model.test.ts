import { describe, expect, it } from "vitest";
import { isAgentUserAgent, questionKey, questionType, searchKey, weeklyPulse } from "./insights.model.js";

describe("insights model", () => {
  it("tells agents from browsers by their user agent", () => {
    expect(isAgentUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")).toBe(false);
    expect(isAgentUserAgent("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)")).toBe(true);
    expect(isAgentUserAgent("curl/8.5.0")).toBe(true);
    expect(isAgentUserAgent(undefined)).toBe(true);
  });

  it("keys the same words as one search and one question", () => {
    expect(searchKey("  Install   GUIDE ")).toBe("install guide");
    expect(questionKey("How do I run the installer?")).toBe(questionKey("how do i run  the installer"));
  });

  it("types questions and counts 13 weeks up to now", () => {
    expect(questionType("How do I run the installer?")).toBe("how-to");
    expect(questionType("Why does the zeppelin fail to dock?")).toBe("troubleshooting");
    expect(questionType("What is a gateway?")).toBe("reference");
    const now = new Date("2026-06-30T12:00:00Z");
    const pulse = weeklyPulse(["2026-06-30T11:00:00Z", "2026-06-20T00:00:00Z", "2025-01-01T00:00:00Z"], now);
    expect(pulse).toHaveLength(13);
    expect(pulse[12]).toBe(1);
    expect(pulse[11]).toBe(1);
    expect(pulse.reduce((a, b) => a + b, 0)).toBe(2);
  });
});
