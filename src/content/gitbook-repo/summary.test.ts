import { describe, expect, it } from "vitest";
import { formatSummary, parseSummary, type SummaryNode } from "./summary.js";

/** The parse without line numbers, for readable expectations. */
function parse(text: string) {
  const { nodes, warnings } = parseSummary(text, "SUMMARY.md");
  const strip = (list: SummaryNode[]): unknown[] =>
    list.map((node) => {
      const { line: _line, ...rest } = node;
      return "children" in rest ? { ...rest, children: strip(rest.children) } : rest;
    });
  return { nodes: strip(nodes), warnings: warnings.map((w) => w.code) };
}

describe("parseSummary", () => {
  it("ignores the # title, reads pages, nesting, groups, anchors, labels and links", () => {
    const { nodes, warnings } = parse(
      [
        "# Table of contents",
        "",
        "* [Intro](README.md)",
        "",
        '## Getting started <a href="#start" id="start"></a>',
        "",
        "* [Install](install/README.md)",
        "  * [Linux](install/linux.md)",
        '    * [Arch](install/arch.md "Arch Linux")',
        "* [Status](https://status.example.com)",
        "",
        "## Plain group",
        "",
        "- [Dash](dash.md)",
        "    - [Four spaces](dash/child.md)",
      ].join("\n"),
    );
    expect(warnings).toEqual([]);
    expect(nodes).toEqual([
      { kind: "page", title: "Intro", target: "README.md", children: [] },
      {
        kind: "group",
        title: "Getting started",
        slug: "start",
        children: [
          {
            kind: "page",
            title: "Install",
            target: "install/README.md",
            children: [
              {
                kind: "page",
                title: "Linux",
                target: "install/linux.md",
                children: [{ kind: "page", title: "Arch", label: "Arch Linux", target: "install/arch.md", children: [] }],
              },
            ],
          },
          { kind: "link", title: "Status", href: "https://status.example.com" },
        ],
      },
      {
        kind: "group",
        title: "Plain group",
        children: [
          {
            kind: "page",
            title: "Dash",
            target: "dash.md",
            children: [{ kind: "page", title: "Four spaces", target: "dash/child.md", children: [] }],
          },
        ],
      },
    ]);
  });

  it("decodes percent-escapes, backslash-escapes, angle brackets, fragments and formatting in titles", () => {
    const { nodes } = parse(
      [
        "* [Spaces](my%20page%20(1).md)",
        "* [Angle](<other page.md>)",
        "* [Esc\\_aped \\[x\\]](a\\_b.md#section)",
        "* [**Bold** `code`](ünï/çödé.md)",
        "* [Percent](100%25.md)",
        "* [Bad escape](50%.md)",
      ].join("\n"),
    );
    expect(nodes.map((n) => [(n as { title: string }).title, (n as { target: string }).target])).toEqual([
      ["Spaces", "my page (1).md"],
      ["Angle", "other page.md"],
      ["Esc_aped [x]", "a_b.md"],
      ["Bold code", "ünï/çödé.md"],
      ["Percent", "100%.md"],
      ["Bad escape", "50%.md"],
    ]);
  });

  it("takes a group's slug from an href-only anchor, or leaves it to the title", () => {
    const { nodes } = parse('## API <a href="#api-v2"></a>\n\n* [A](a.md)\n\n## Other\n');
    expect(nodes).toMatchObject([
      { kind: "group", title: "API", slug: "api-v2" },
      { kind: "group", title: "Other" },
    ]);
    expect((nodes[1] as { slug?: string }).slug).toBeUndefined();
  });

  it("reads an item without a link as a page without content over its children; warns about other content", () => {
    const { nodes, warnings } = parse("Some paragraph.\n\n* Not a link\n  * [Child](child.md)\n* [](  )\n");
    expect(warnings).toEqual(["summary_content_ignored", "summary_item_ignored"]);
    expect(nodes).toEqual([
      { kind: "empty", title: "Not a link", children: [{ kind: "page", title: "Child", target: "child.md", children: [] }] },
    ]);
  });

  it("a link page cannot have children: they move up a level", () => {
    const { nodes, warnings } = parse("* [Site](https://x.example)\n  * [Child](c.md)\n");
    expect(warnings).toEqual(["summary_item_ignored"]);
    expect(nodes).toEqual([
      { kind: "link", title: "Site", href: "https://x.example" },
      { kind: "page", title: "Child", target: "c.md", children: [] },
    ]);
  });
});

describe("parseSummary: nesting", () => {
  const nested = (levels: number, indent = "  ") =>
    Array.from({ length: levels }, (_, i) => `${indent.repeat(i)}* [P${i}](p${i}.md)`).join("\n");
  const depth = (nodes: SummaryNode[]): number => nodes.reduce((d, n) => Math.max(d, 1 + ("children" in n ? depth(n.children) : 0)), 0);

  it("reads lists up to the bound, and gives the line of the first item past it", () => {
    const fifty = parseSummary(nested(50), "SUMMARY.md", 50);
    expect(fifty.tooDeep).toBeUndefined();
    expect(depth(fifty.nodes)).toBe(50);
    expect(parseSummary(nested(60), "SUMMARY.md", 50).tooDeep).toEqual({ line: 51 });
    expect(parseSummary(nested(60, "    "), "SUMMARY.md", 50).tooDeep).toEqual({ line: 27 });
  });

  it("refuses a line of thousands of list markers without reading it (remark's time grows with the square of the nesting)", () => {
    const result = parseSummary(`* [Home](README.md)\n${"* ".repeat(20_000)}[x](x.md)\n`, "SUMMARY.md", 50);
    expect(result.tooDeep).toEqual({ line: 2 });
  });
});

describe("formatSummary", () => {
  it("writes pages, nesting by two spaces, labels, links and anchored groups", () => {
    const text = formatSummary(
      [
        { kind: "page", title: "Intro", path: "README.md", children: [] },
        {
          kind: "group",
          title: "Guides",
          slug: "guides",
          children: [
            {
              kind: "page",
              title: "Setup [beta] & *more*",
              label: 'Say "hi"',
              path: "guides/README.md",
              children: [{ kind: "page", title: "Child", path: "guides/page (1) 100%.md", children: [] }],
            },
            { kind: "link", title: "Status", href: "https://status.example.com/a%20b" },
          ],
        },
      ],
      "",
    );
    expect(text).toBe(
      [
        "# Table of contents",
        "",
        "* [Intro](README.md)",
        "",
        '## Guides <a href="#guides" id="guides"></a>',
        "",
        '* [Setup \\[beta\\] \\& \\*more\\*](guides/README.md "Say \\"hi\\"")',
        "  * [Child](<guides/page (1) 100%25.md>)",
        "* [Status](https://status.example.com/a%20b)",
        "",
      ].join("\n"),
    );
  });

  it("round-trips through parseSummary, with paths relative to the summary's folder", () => {
    const entries = [
      { kind: "page" as const, title: "Home", path: "README.md", children: [] },
      { kind: "page" as const, title: "Tricky `title` <x> \\ [y]", label: 'L \\ "q"', path: "a b/ü (2)/%41.md", children: [] },
    ];
    const text = formatSummary(entries, "toc");
    const { nodes } = parse(text);
    expect(nodes).toEqual([
      { kind: "page", title: "Home", target: "../README.md", children: [] },
      { kind: "page", title: "Tricky `title` <x> \\ [y]", label: 'L \\ "q"', target: "../a b/ü (2)/%41.md", children: [] },
    ]);
  });
});
