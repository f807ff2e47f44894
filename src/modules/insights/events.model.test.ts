import { describe, expect, it } from "vitest";
import { reportedEvent } from "../../../test/helpers/insights.factories.js";
import { bucketsOf, canonicalJson, classifyUserAgent, cleanUrl, keptClaims, languageOf, readEvent } from "./events.model.js";

const now = new Date("2026-11-29T10:15:00.000Z");
const base = reportedEvent("page_view");

describe("insight events model", () => {
  it("buckets a time in UTC: weeks start on Monday, Sunday is day 7", () => {
    // 2026-11-29 is a Sunday.
    expect(bucketsOf(new Date("2026-11-29T23:59:59.000Z"))).toEqual({
      at: "2026-11-29T23:59:59.000Z",
      hour: "2026-11-29T23",
      day: "2026-11-29",
      week: "2026-11-23",
      month: "2026-11",
      hourOfDay: 23,
      dayOfWeek: 7,
    });
    expect(bucketsOf(new Date("2026-11-30T00:00:00.000Z"))).toMatchObject({ week: "2026-11-30", dayOfWeek: 1 });
  });

  it("keeps an address without its query or fragment, the utm_ parameters apart", () => {
    expect(cleanUrl("https://Docs.example.com/a/b?token=x&utm_source=news#top")).toMatchObject({
      url: "https://docs.example.com/a/b",
      path: "/a/b",
      host: "docs.example.com",
      utm: { source: "news", medium: null },
    });
    expect(cleanUrl("javascript:alert(1)")).toBeNull();
    expect(cleanUrl("not a url")).toBeNull();
  });

  it("tells browser, device, system and bot from a user agent", () => {
    expect(
      classifyUserAgent(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0",
      ),
    ).toEqual({
      browser: "edge",
      device: "desktop",
      os: "windows",
      bot: null,
    });
    expect(
      classifyUserAgent(
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36",
      ),
    ).toEqual({
      browser: "chrome",
      device: "mobile",
      os: "android",
      bot: null,
    });
    expect(classifyUserAgent("Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)").bot).toBe("claudebot");
    expect(classifyUserAgent("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0").bot).toBe("chatgpt");
    expect(classifyUserAgent("python-requests/2.32").bot).toBe("unknown");
    expect(classifyUserAgent(undefined).bot).toBe("unknown");
  });

  it("keeps only the claims the site's adaptive schema makes categories", () => {
    const schema = {
      type: "object",
      properties: {
        plan: { type: "string", enum: ["free", "pro"] },
        email: { type: "string" },
        seats: { type: "number" },
        beta: { type: "boolean" },
        roles: { type: "array", items: { type: "string", enum: ["admin", "dev"] } },
        unsigned: { type: "object", properties: { team: { type: "string", enum: ["core"] } } },
      },
    };
    const claims = {
      plan: "pro",
      email: "ada@example.com",
      seats: 12,
      beta: false,
      roles: ["dev", "admin", "dev"],
      unsigned: { team: "core" },
      extra: "x",
    };
    expect(keptClaims(claims, schema)).toEqual([
      { property: "plan", value: "pro" },
      { property: "beta", value: "false" },
      { property: "roles", value: '["admin","dev"]' },
      { property: "unsigned.team", value: "core" },
    ]);
    expect(keptClaims({ plan: "enterprise" }, schema)).toEqual([]);
    expect(keptClaims(claims, null)).toEqual([]);
  });

  it("reads a reported event into what is kept, or says what is wrong with it", () => {
    const read = readEvent({ ...base, type: "search_open_result", query: "install", result: { spaceId: "sp", pageId: "pg" } }, "e", now);
    expect(read.fields).toMatchObject({
      type: "search_open_result",
      searchQuery: "install",
      spaceId: "sp",
      pageId: "pg",
      displayContext: "site",
    });
    expect(read.at).toEqual(now);
    expect(() => readEvent({ ...base, type: "teleport" }, "body.events[0]", now)).toThrow(/body\.events\[0\]\.type: unknown event type/);
    expect(() => readEvent({ ...base, type: "ask_rate_response", query: "q", rating: 5, responseId: "r" }, "e", now)).toThrow(/rating/);
    expect(() => readEvent({ ...base, type: "page_view", timestamp: "2026-11-29T10:30:00Z" }, "e", now)).toThrow(/within 5 minutes/);
    expect(readEvent({ ...base, type: "page_view", timestamp: "2026-11-29T10:12:00Z" }, "e", now).at.toISOString()).toBe(
      "2026-11-29T10:12:00.000Z",
    );
    expect(() => readEvent({ ...base, type: "page_view", location: { ...base.location, displayContext: "fridge" } }, "e", now)).toThrow(
      /displayContext/,
    );
  });

  it("writes the same JSON for the same content, whatever its key order", () => {
    expect(canonicalJson({ url: "u", kind: "url" })).toBe(canonicalJson({ kind: "url", url: "u" }));
    expect(languageOf("fr-CA,fr;q=0.9")).toBe("fr");
    expect(languageOf("*")).toBeNull();
  });
});
