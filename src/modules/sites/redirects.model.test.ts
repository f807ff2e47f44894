import { describe, expect, it } from "vitest";
import { DomainError } from "../../lib/errors.js";
import { caughtSegments, checkExternalUrl, externalTarget, matchRedirect, redirectStatus } from "./redirects.model.js";

const rules = [
  { source: "/old", captureWildcard: 0 },
  { source: "/blog/*", captureWildcard: 1 },
  { source: "/blog/2020/*", captureWildcard: 1 },
  { source: "/docs*", captureWildcard: 1 },
  { source: "/caf%C3%A9", captureWildcard: 0 },
];

describe("matchRedirect", () => {
  it("prefers an exact source, then the longest wildcard prefix", () => {
    expect(matchRedirect(rules, "/old")?.redirect.source).toBe("/old");
    expect(matchRedirect(rules, "/old/")?.redirect.source).toBe("/old");
    expect(matchRedirect(rules, "/old/more")).toBeUndefined();
    expect(matchRedirect(rules, "/blog/2020/x")).toMatchObject({ redirect: { source: "/blog/2020/*" }, rest: "x" });
    expect(matchRedirect(rules, "/blog/2021/x")).toMatchObject({ redirect: { source: "/blog/*" }, rest: "2021/x" });
    // `/blog/*` is what is under /blog/, not /blog itself or /blogs.
    expect(matchRedirect(rules, "/blogs")).toBeUndefined();
    expect(matchRedirect(rules, "/docs")).toMatchObject({ rest: "" });
    expect(matchRedirect(rules, "/docsify/a")).toMatchObject({ redirect: { source: "/docs*" }, rest: "ify/a" });
    // A %-escaped source matches the decoded path the router gives.
    expect(matchRedirect(rules, "/café")?.redirect.source).toBe("/caf%C3%A9");
  });
});

describe("destinations", () => {
  it("accepts only absolute http(s) URLs without credentials", () => {
    expect(checkExternalUrl("https://example.com", "f")).toBe("https://example.com/");
    for (const bad of ["javascript:alert(1)", "//evil.example", "/path", "data:text/html,x", "https://u:p@example.com", "mailto:a@b.c"]) {
      expect(() => checkExternalUrl(bad, "body.destination.url"), bad).toThrow(DomainError);
    }
  });

  it("appends what a wildcard caught only while the origin stays", () => {
    expect(externalTarget("https://good.example/", "a/b")).toBe("https://good.example/a/b");
    expect(externalTarget("https://good.example/docs?x=1", "/a")).toBe("https://good.example/docs/a?x=1");
    expect(new URL(externalTarget("https://good.example/", "@evil.example") ?? "").host).toBe("good.example");
    expect(externalTarget("https://good.example", "")).toBe("https://good.example");
    expect(caughtSegments("/a//b/../c/./d")).toEqual(["a", "b", "c", "d"]);
  });

  it("serves permanent redirects of public traffic as 308, everything else as 307", () => {
    expect(redirectStatus(true, true)).toBe(308);
    expect(redirectStatus(true, false)).toBe(307);
    expect(redirectStatus(false, true)).toBe(307);
  });
});
