import hljs from "highlight.js";
import { describe, expect, it } from "vitest";
import { editorSchema } from "../../../content/editor/index.js";
import { conditionProblem } from "./condition.js";
import { searchEmoji } from "./emoji.js";
import { tokensOfHtml } from "./highlight.js";
import { checkLinkUrl, headingsOf } from "./link.js";

describe("the editor's highlighting", () => {
  it("reads highlight.js's HTML as classed ranges of the source text, entities and nesting included", () => {
    const source = 'const s = "a<b" && `x${y}`; // done';
    const tokens = tokensOfHtml(hljs.highlight(source, { language: "javascript" }).value);
    const text = (className: string) => tokens.filter((t) => t.className === className).map((t) => source.slice(t.from, t.to));
    expect(text("hljs-keyword")).toEqual(["const"]);
    expect(text("hljs-string")).toEqual(['"a<b"', "`x${y}`"]);
    expect(text("hljs-subst")).toEqual(["${y}"]);
    expect(text("hljs-comment")).toEqual(["// done"]);
  });
});

describe("the link dialog's addresses", () => {
  it("takes http(s) and mailto, completes a bare site name, refuses every other scheme with a reason", () => {
    expect(checkLinkUrl(" https://example.com/a?b#c ")).toEqual({ url: "https://example.com/a?b#c" });
    expect(checkLinkUrl("mailto:keeper@example.com")).toEqual({ url: "mailto:keeper@example.com" });
    expect(checkLinkUrl("example.com/lamps")).toEqual({ url: "https://example.com/lamps" });
    for (const bad of ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<b>", "vbscript:x", "file:///etc/passwd"])
      expect((checkLinkUrl(bad) as { error: string }).error, bad).toMatch(/not allowed: only http, https and mailto/);
    expect(checkLinkUrl("")).toHaveProperty("error");
    expect(checkLinkUrl("not a link")).toHaveProperty("error");
    expect(checkLinkUrl("https://")).toHaveProperty("error");
  });

  it("lists the page's headings with the anchors the published page gives them (repeats numbered, pinned ids kept)", () => {
    const schema = editorSchema();
    const heading = (level: number, text: string, data: Record<string, unknown> = {}) =>
      schema.nodes.heading!.create({ level, data }, schema.text(text));
    const doc = schema.nodes.doc!.create(null, [
      heading(1, "Install the lamp"),
      schema.nodes.paragraph!.create(null, schema.text("text")),
      heading(2, "Install the lamp"),
      heading(3, "Wicks & oil", { id: "oil" }),
    ]);
    expect(headingsOf(doc)).toEqual([
      { anchor: "install-the-lamp", title: "Install the lamp", level: 1 },
      { anchor: "install-the-lamp-1", title: "Install the lamp", level: 2 },
      { anchor: "oil", title: "Wicks & oil", level: 3 },
    ]);
  });
});

describe("the emoji picker's search", () => {
  it("finds emoji by the start of their words", () => {
    expect(searchEmoji("rock").map(([c]) => c)).toEqual(["🚀"]);
    expect(searchEmoji("thumbs").map(([c]) => c)).toEqual(["👍", "👎"]);
    expect(searchEmoji("heart red").map(([c]) => c)).toEqual(["❤"]);
    expect(searchEmoji("zzzz-nothing")).toEqual([]);
    expect(searchEmoji("").length).toBeGreaterThan(100);
  });
});

describe("a conditional block's condition", () => {
  it("reads what the site can evaluate; says why for what it cannot, with the place", () => {
    expect(conditionProblem('visitor.claims.plan === "pro"')).toBeUndefined();
    expect(conditionProblem("visitor.claims.seats > 10 && !visitor.claims.trial")).toBeUndefined();
    expect(conditionProblem("")).toMatch(/Write a condition/);
    expect(conditionProblem("   ")).toMatch(/Write a condition/);
    expect(conditionProblem("visitor.(")).toMatch(/position 8/);
    expect(conditionProblem('visitor.claims.plan === "pro" &&')).toMatch(/position/);
    expect(conditionProblem("x".repeat(5000))).toBeTruthy();
  });
});
