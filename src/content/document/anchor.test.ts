import { describe, expect, it } from "vitest";
import { AnchorAllocator, gitbookAnchor, withHeadingAnchors } from "./anchor.js";

describe("GitBook's heading anchors", () => {
  it("turns punctuation into hyphens, as the anchors GitBook wrote into public repositories show", () => {
    expect(gitbookAnchor("/etc/sudoers, /etc/sudoers.d")).toBe("etc-sudoers-etc-sudoers-d");
    expect(gitbookAnchor("Rotate the log_key")).toBe("rotate-the-log-key");
    expect(gitbookAnchor("/var/run/sudo/ts/<Username>")).toBe("var-run-sudo-ts-less-than-username-greater-than");
    expect(gitbookAnchor("Get Farcaster Followers of Farcaster User(s)")).toBe("get-farcaster-followers-of-farcaster-user-s");
    expect(gitbookAnchor("DMARC (Reporting & Conformance)")).toBe("dmarc-reporting-and-conformance");
    expect(gitbookAnchor("Release 4.9")).toBe("release-4-9");
    expect(gitbookAnchor("Café — Überblick")).toBe("café-überblick");
    expect(gitbookAnchor("?!")).toBe("");
  });

  it("numbers repeated anchors and keeps pinned ones", () => {
    const anchors = new AnchorAllocator();
    expect(anchors.next(undefined, "Usage")).toBe("usage");
    expect(anchors.next(undefined, "Usage")).toBe("usage-1");
    expect(anchors.next("pinned", "Usage")).toBe("pinned");
    expect(anchors.next(undefined, "!!")).toBe("section");
  });

  it("gives every heading of a document its anchor as meta.id, inside tabs too, without touching the input", () => {
    const heading = (type: string, text: string, data: Record<string, string> = {}) => ({
      object: "block",
      type,
      data,
      nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
    });
    const document = {
      object: "document",
      data: {},
      nodes: [
        heading("heading-1", "log_key"),
        {
          object: "block",
          type: "tabs",
          data: {},
          nodes: [{ object: "block", type: "tabs-item", data: { title: "A" }, nodes: [heading("heading-2", "log key")] }],
        },
        heading("heading-3", "Title", { id: "own" }),
      ],
    };
    const before = JSON.stringify(document);
    const out = withHeadingAnchors(document) as unknown as {
      nodes: Array<{ meta?: { id: string }; nodes: Array<{ nodes: Array<{ meta?: { id: string } }> }> }>;
    };
    expect(out.nodes[0]!.meta).toEqual({ id: "log-key" });
    expect(out.nodes[1]!.nodes[0]!.nodes[0]!.meta).toEqual({ id: "log-key-1" });
    expect(out.nodes[2]!.meta).toEqual({ id: "own" });
    expect(JSON.stringify(document)).toBe(before);
  });
});
