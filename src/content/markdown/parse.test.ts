import { describe, expect, it } from "vitest";
import { FakeRepository } from "../../../test/fixtures/markdown/fake-repository.js";
import { schemaErrors } from "../../../test/helpers/contract.js";
import { stripKeys } from "../document/keys.js";
import type { DocumentBlock, JSONDocument } from "../document/types.js";
import { type ParseMarkdownOptions, parseMarkdownPage } from "./parse.js";
import { markdownFromDocument, type SerializeMarkdownOptions, serializeMarkdownPage } from "./serialize.js";

/**
 * Parses, checks the document against the spec, serializes, parses again and checks that the
 * second document equals the first (keys aside). Returns the first result and the Markdown written.
 */
function convert(markdown: string, options: ParseMarkdownOptions = {}, serializeOptions: SerializeMarkdownOptions = {}) {
  const result = parseMarkdownPage(markdown, options);
  expect(schemaErrors("JSONDocument", result.document)).toEqual([]);
  const out = serializeMarkdownPage({ title: result.title, frontmatter: result.frontmatter, document: result.document }, serializeOptions);
  const again = parseMarkdownPage(out, options);
  expect(stripKeys(again.document)).toEqual(stripKeys(result.document));
  expect(again.title).toEqual(result.title);
  return { ...result, out, nodes: stripKeys(result.document).nodes as DocumentBlock[] };
}

/** The text of a block's first text node's leaves, for short assertions. */
function texts(block: unknown): string {
  const parts: string[] = [];
  const visit = (n: { leaves?: Array<{ text: string }>; nodes?: unknown[]; fragments?: unknown[] }) => {
    if (n.leaves) parts.push(n.leaves.map((l) => l.text).join(""));
    for (const c of [...(n.nodes ?? []), ...(n.fragments ?? [])]) visit(c as typeof n);
  };
  visit(block as never);
  return parts.join("");
}

describe("CommonMark and GFM", () => {
  it("takes the single # heading as the title and maps ##/###/#### to heading-1/2/3", () => {
    const r = convert("# Title\n\n## One\n\n### Two\n\n#### Three\n\nBody");
    expect(r.title).toBe("Title");
    expect(r.nodes.map((n) => n.type)).toEqual(["heading-1", "heading-2", "heading-3", "paragraph"]);
    expect(r.out).toBe("# Title\n\n## One\n\n### Two\n\n#### Three\n\nBody\n");
  });

  it("reads an empty # heading as no title", () => {
    const r = convert("#\n\nBody\n");
    expect(r.title).toBeUndefined();
    expect(r.out).toBe("Body\n");
  });

  it("keeps a second # heading and deeper headings, with warnings", () => {
    const r = convert("# Title\n\n# Again\n\n###### Deep");
    expect(r.nodes.map((n) => n.type)).toEqual(["heading-1", "heading-3"]);
    expect(r.warnings.join("\n")).toMatch(/second # heading/);
    expect(r.warnings.join("\n")).toMatch(/level-6 heading/);
  });

  it("takes only a # heading that opens the page as its title; one below other content is a section", () => {
    // As in a public GitBook-synced repository: a banner, then the page's first section; the
    // title is SUMMARY.md's.
    const r = convert(
      "<details>\n\n<summary>Support us</summary>\n\nThanks.\n\n</details>\n\n# **TTL Manipulation**\n\nSend packets.\n\n# Avoiding signatures\n",
    );
    expect(r.title).toBeUndefined();
    expect(r.nodes.map((n) => n.type)).toEqual(["expandable", "heading-1", "paragraph", "heading-1"]);
    expect(texts(r.nodes[1])).toBe("TTL Manipulation");
    expect(r.warnings).toEqual([
      expect.stringMatching(/line 9: a # heading below other content is a section heading \(##\), not the page title/),
      expect.stringMatching(/line 13: a second # heading/),
    ]);
    // Link definitions and HTML comments before it do not count as content.
    const opened = convert("[site]: https://example.com\n<!-- generated -->\n\n# Title\n\nSee [the site][site].\n");
    expect(opened.title).toBe("Title");
    expect(opened.warnings).toEqual([expect.stringMatching(/an HTML comment \(hidden text\) was dropped/)]);
  });

  it("reads a pinned heading anchor into data.id", () => {
    const r = convert('## Setup <a href="#install" id="install"></a>\n');
    expect(r.nodes[0]).toMatchObject({ type: "heading-1", data: { id: "install" } });
    expect(texts(r.nodes[0])).toBe("Setup");
    expect(r.out).toContain('## Setup <a href="#install" id="install"></a>');
    // GitBook's older form, without href, and an anchor in camel case (a public repository's API reference).
    const older = convert('### lifecycleStart <a id="lifecycleStart"></a>\n');
    expect(older.warnings).toEqual([
      'line 1: the heading anchor "lifecycleStart" was lowercased to "lifecyclestart" (GitBook\'s anchors are lowercase)',
    ]);
    expect(older.nodes[0]).toMatchObject({ type: "heading-2", data: { id: "lifecyclestart" } });
    expect(texts(older.nodes[0])).toBe("lifecycleStart");
  });

  it("maps inline marks", () => {
    const r = convert('**b** *i* `c` ~~s~~ <sup>p</sup> <sub>d</sub> <kbd>K</kbd> <mark style="color:red;">r</mark>');
    const leaves = (r.nodes[0] as { nodes: Array<{ leaves?: Array<{ text: string; marks: Array<{ type: string; data?: unknown }> }> }> })
      .nodes[0]!.leaves!;
    const marked = leaves.filter((l) => l.marks.length).map((l) => [l.text, l.marks.map((m) => m.type).join("+")]);
    expect(marked).toEqual([
      ["b", "bold"],
      ["i", "italic"],
      ["c", "code"],
      ["s", "strikethrough"],
      ["p", "superscript"],
      ["d", "subscript"],
      ["K", "keyboard"],
      ["r", "color"],
    ]);
    expect(leaves.find((l) => l.text === "r")!.marks[0]!.data).toEqual({ text: "red", background: "default" });
  });

  it("nests marks and keeps them through the serializer", () => {
    const r = convert("***both*** and **bold `code`**");
    const leaves = (r.nodes[0] as { nodes: Array<{ leaves: Array<{ text: string; marks: Array<{ type: string }> }> }> }).nodes[0]!.leaves;
    expect(leaves.map((l) => [l.text, l.marks.map((m) => m.type)])).toEqual([
      ["both", ["bold", "italic"]],
      [" and ", []],
      ["bold ", ["bold"]],
      ["code", ["bold", "code"]],
    ]);
  });

  it("turns hard breaks into newlines and soft breaks into spaces", () => {
    const r = convert("one\ntwo  \nthree\\\nfour");
    expect(texts(r.nodes[0])).toBe("one two\nthree\nfour");
  });

  it("converts nested, ordered and task lists", () => {
    const r = convert("3. three\n4. four\n   * nested\n     * deeper\n\n- [x] done\n- [ ] todo\n");
    expect(r.nodes[0]).toMatchObject({ type: "list-ordered", data: { start: 3 } });
    const nested = (r.nodes[0] as { nodes: Array<{ nodes: DocumentBlock[] }> }).nodes[1]!.nodes[1]!;
    expect(nested.type).toBe("list-unordered");
    expect(r.nodes[1]).toMatchObject({ type: "list-tasks", nodes: [{ data: { checked: true } }, { data: { checked: false } }] });
  });

  it("converts blockquotes, dividers and fenced code with a language", () => {
    const r = convert("> quote\n> > nested\n\n***\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n");
    expect(r.nodes.map((n) => n.type)).toEqual(["blockquote", "divider", "code"]);
    expect((r.nodes[0] as { nodes: DocumentBlock[] }).nodes[1]!.type).toBe("blockquote");
    expect(r.nodes[2]).toMatchObject({ data: { syntax: "ts" } });
    expect((r.nodes[2] as { nodes: unknown[] }).nodes).toHaveLength(3);
  });

  it("converts GFM tables with alignment, inline code and escaped pipes", () => {
    const r = convert("| Name | Value |\n| :--- | ----: |\n| `a \\| b` | **1** |\n| x | |\n");
    const table = r.nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    expect(table.type).toBe("table");
    expect(Object.values(table.data.definition).map((d) => [d.title, d.type === "text" ? d.textAlignment : ""])).toEqual([
      ["Name", "left"],
      ["Value", "right"],
    ]);
    expect(table.data.view).toEqual({ type: "grid", columns: ["c1", "c2"], hideHeader: false });
    expect(Object.keys(table.data.records)).toHaveLength(2);
    expect(texts(table.fragments[0])).toBe("a | b");
    // The empty cell has no value.
    expect(table.data.records.r2!.values).toEqual({ c1: "r2-c1" });
    expect(r.out).toContain("`a \\| b`");
  });

  it("reads GitBook's cells of several blocks (<p>, <ul>, <ol>, <li> in a pipe-table cell) and writes them back alike", () => {
    // As GitBook's Git sync writes them (from a public GitBook repository): paragraphs and lists
    // inside a pipe-table cell, `<` as a character reference.
    const r = convert(
      "| Issue | PoC |\n| --- | --- |\n" +
        "| Command | <p>Depends of program rules:</p><ul><li>Read: <code>cat /proc/1/maps</code></li><li>Write: <strong>touch</strong> \\| x</li></ul> |\n" +
        '| Code | <p>Run &#x3C;?php echo 7*7; ?></p><ol start="3"><li>PHP</li><li><p>then</p><ul><li>nested</li></ul></li><li></li></ol> |\n' +
        "| Plain | just **text** |\n",
    );
    expect(r.warnings).toEqual([]);
    const table = r.nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    const cell = (name: string) => table.fragments.find((f) => f.fragment === name)!.nodes;
    expect(cell("r1-c2").map((b) => b.type)).toEqual(["paragraph", "list-unordered"]);
    const list = cell("r1-c2")[1] as Extract<DocumentBlock, { type: "list-unordered" }>;
    expect(list.nodes.map((item) => texts(item))).toEqual(["Read: cat /proc/1/maps", "Write: touch | x"]);
    expect(list.nodes[0]!.nodes[0]).toMatchObject({
      type: "paragraph",
      nodes: [{ leaves: [{ text: "Read: " }, { text: "cat /proc/1/maps", marks: [{ type: "code" }] }] }],
    });
    const ordered = cell("r2-c2")[1] as Extract<DocumentBlock, { type: "list-ordered" }>;
    expect(texts(cell("r2-c2")[0])).toBe("Run <?php echo 7*7; ?>");
    expect(ordered.data).toEqual({ start: 3 });
    expect(ordered.nodes.map((item) => item.nodes.map((b) => b.type))).toEqual([
      ["paragraph"],
      ["paragraph", "list-unordered"],
      ["paragraph"],
    ]);
    expect(cell("r3-c2").map((b) => b.type)).toEqual(["paragraph"]);
    // Still a pipe table, each row on one line; Markdown's characters in the HTML are references.
    expect(r.out.trim().split("\n")).toHaveLength(5);
    expect(r.out).toContain('<p>Run &lt;?php echo 7&#x2A;7; ?&gt;</p><ol start="3">');
    expect(r.out).toContain("<strong>touch</strong> &#x7C; x</li></ul> |");
  });

  it("drops formatting of a pipe table's column titles, with one warning per table", () => {
    const r = convert("| **Name** | **Value** | Plain |\n| --- | --- | --- |\n| a | b | c |\n");
    const table = r.nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    expect(Object.values(table.data.definition).map((d) => d.title)).toEqual(["Name", "Value", "Plain"]);
    expect(r.warnings).toEqual(["line 1: formatting in a table header was dropped (column titles are plain text)"]);
  });

  it("keeps a pipe-table cell's lists when a tag is missing or stray", () => {
    const r = parseMarkdownPage("| a |\n| - |\n| <ul><li>one<li>two |\n| x</ul> <li>loose</li> |\n");
    const table = stripKeys(r.document).nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    const cell = (name: string) => table.fragments.find((f) => f.fragment === name)!.nodes;
    expect(cell("r1-c1")).toHaveLength(1);
    expect((cell("r1-c1")[0] as Extract<DocumentBlock, { type: "list-unordered" }>).nodes.map((i) => texts(i))).toEqual(["one", "two"]);
    expect(cell("r2-c1").map((b) => b.type)).toEqual(["paragraph", "list-unordered"]);
    expect(r.warnings.join("\n")).toMatch(/a list in a table cell was not closed/);
    expect(r.warnings.join("\n")).toMatch(/closing <\/ul> without an opening tag in a table cell was dropped/);
    expect(schemaErrors("JSONDocument", r.document)).toEqual([]);
  });

  it("turns footnotes into annotations on the preceding word", () => {
    const r = convert("A claim[^1] here.\n\n[^1]: The *source*.\n");
    const p = r.nodes[0] as { nodes: Array<{ type?: string; nodes?: unknown[]; fragments?: unknown[] }> };
    const annotation = p.nodes.find((n) => n.type === "annotation")!;
    expect(texts({ nodes: annotation.nodes })).toBe("claim");
    expect(texts({ nodes: annotation.fragments })).toBe("The source.");
    expect(r.out).toContain("A claim[^1] here.");
    expect(r.out).toContain("[^1]: The *source*.");
  });

  it("converts emoji shortcodes, leaving unknown ones and times alone", () => {
    const r = convert("Ship it :rocket: at 10:30:00, not :nonsense:");
    const p = r.nodes[0] as { nodes: Array<{ type?: string; data?: unknown }> };
    expect(p.nodes.filter((n) => n.type === "emoji").map((n) => n.data)).toEqual([{ code: "1f680" }]);
    expect(texts(p)).toContain("10:30:00, not :nonsense:");
  });

  it("converts block and inline math, leaving dollar amounts as text", () => {
    const r = convert("Inline $$a^2$$ costs $5 or $10.\n\n$$\nx = y\n$$\n");
    expect(r.nodes[1]).toEqual({ object: "block", type: "math", isVoid: true, data: { formula: "x = y" } });
    const p = r.nodes[0] as { nodes: Array<{ type?: string; data?: unknown }> };
    expect(p.nodes.filter((n) => n.type === "inline-math").map((n) => n.data)).toEqual([{ formula: "a^2" }]);
    expect(texts(p)).toContain("costs $5 or $10.");
  });

  it("keeps mermaid fences as code blocks", () => {
    const r = convert("```mermaid\ngraph TD\n  A --> B\n```\n");
    expect(r.nodes[0]).toMatchObject({ type: "code", data: { syntax: "mermaid" } });
  });

  it("keeps backslash escapes as literal text", () => {
    const r = convert("\\*not emphasis\\* and \\# and {\\% hint %}");
    expect(texts(r.nodes[0])).toBe("*not emphasis* and # and {% hint %}");
    expect(r.out).toContain("{\\% hint %}");
  });
});

describe("links, images and references", () => {
  it("reports and resolves page links, anchors, mentions, images and external URLs", () => {
    const repo = new FakeRepository();
    const r = convert(
      'See [a](a.md), [b](b.md#part), [here](#local), [ext](https://x.dev), [m](c.md "mention") and ![i](../.gitbook/assets/i.png).',
      { resolve: repo.resolve },
      { pathFor: repo.pathFor },
    );
    const found = r.references.map((ref) => [ref.kind, ref.target, ref.ref?.kind]);
    expect(found).toEqual([
      ["link", "a.md", "page"],
      ["link", "b.md#part", "anchor"],
      ["link", "#local", "anchor"],
      ["link", "https://x.dev", "url"],
      ["mention", "c.md", "page"],
      ["image", "../.gitbook/assets/i.png", "file"],
    ]);
    for (const ref of r.references) {
      expect(ref.blockKey).toBe(r.document.nodes[0]!.key);
      expect(ref.inlineKey).toBeTruthy();
    }
    expect(r.out).toContain("[a](a.md)");
    expect(r.out).toContain("[b](b.md#part)");
    expect(r.out).toContain('[c.md](c.md "mention")');
  });

  it("keeps unresolved internal links as URLs", () => {
    const r = convert("[missing](nowhere/page.md)");
    const link = (r.nodes[0] as { nodes: Array<{ type?: string; data?: unknown }> }).nodes[1]!;
    expect(link).toMatchObject({ type: "link", data: { ref: { kind: "url", url: "nowhere/page.md" } } });
    expect(r.out).toBe("[missing](nowhere/page.md)\n");
  });

  it("resolves reference-style links and autolinks", () => {
    const r = convert("[docs][d] and <https://a.dev> and www.b.dev\n\n[d]: https://docs.dev\n");
    const links = (r.nodes[0] as { nodes: Array<{ type?: string; data?: { ref: unknown } }> }).nodes.filter((n) => n.type === "link");
    expect(links.map((l) => l.data!.ref)).toEqual([
      { kind: "url", url: "https://docs.dev" },
      { kind: "url", url: "https://a.dev" },
      { kind: "url", url: "http://www.b.dev" },
    ]);
  });

  it("makes an image paragraph an images block, with figure captions, sizes and dark variants", () => {
    const r = convert(
      '![Alt](a.png)\n\n<figure><img src="b.png" alt="B" width="50%"><figcaption><p>Caption <strong>here</strong></p></figcaption></figure>\n\n<figure><picture><source srcset="dark.png" media="(prefers-color-scheme: dark)"><img src="light.png" alt=""></picture><figcaption></figcaption></figure>\n',
    );
    expect(r.nodes.map((n) => n.type)).toEqual(["images", "images", "images"]);
    expect(r.nodes[0]).toMatchObject({
      nodes: [{ type: "image", data: { ref: { kind: "url", url: "a.png" }, alt: "Alt" }, fragments: [] }],
    });
    expect(r.nodes[1]).toMatchObject({ nodes: [{ data: { width: { unit: "%", value: 50 } }, fragments: [{ fragment: "caption" }] }] });
    expect(texts(r.nodes[1])).toBe("Caption here");
    expect(r.nodes[2]).toMatchObject({ nodes: [{ data: { ref: { url: "light.png" }, refDark: { url: "dark.png" } } }] });
  });

  it("turns an image inside a list item into an inline image (images blocks are not allowed there)", () => {
    const r = convert("* ![shot](s.png)\n");
    const item = (r.nodes[0] as { nodes: Array<{ nodes: Array<{ type: string; nodes: Array<{ type?: string }> }> }> }).nodes[0]!;
    expect(item.nodes[0]!.type).toBe("paragraph");
    expect(item.nodes[0]!.nodes.some((n) => n.type === "inline-image")).toBe(true);
  });

  it("reads GitBook's inline <picture> (an icon in a sentence, light and dark) as an inline image with both variants", () => {
    const r = convert(
      'Open the **Action menu** <picture><source srcset="assets/icon_dark.svg" media="(prefers-color-scheme: dark)"><img src="assets/icon_light.svg" alt="The Actions menu icon"></picture>.\n',
    );
    expect(r.warnings).toEqual([]);
    const paragraph = r.nodes[0] as { nodes: Array<{ type?: string; data?: unknown }> };
    expect(paragraph.nodes.find((n) => n.type === "inline-image")).toMatchObject({
      data: {
        ref: { kind: "url", url: "assets/icon_light.svg" },
        refDark: { kind: "url", url: "assets/icon_dark.svg" },
        alt: "The Actions menu icon",
      },
    });
    expect(texts(r.nodes[0])).toBe("Open the Action menu .");
    expect(r.references.map((x) => [x.kind, x.target])).toEqual([
      ["image", "assets/icon_light.svg"],
      ["image", "assets/icon_dark.svg"],
    ]);
    expect(r.out).toContain(
      '<picture><source srcset="assets/icon_dark.svg" media="(prefers-color-scheme: dark)"><img src="assets/icon_light.svg" alt="The Actions menu icon"></picture>',
    );
  });

  it("drops an inline <picture> that has no image, saying so", () => {
    const r = parseMarkdownPage('Text <picture><source srcset="d.png" media="(prefers-color-scheme: dark)"></picture> end\n');
    expect(r.warnings.join()).toMatch(/<picture> without an <img src> was dropped/);
    expect(texts(stripKeys(r.document).nodes[0])).toBe("Text  end");
  });
});

describe("GitBook blocks", () => {
  it("converts hints with style and icon", () => {
    const r = convert('{% hint style="danger" icon="fire" %}\nCareful **now**.\n{% endhint %}\n');
    expect(r.nodes[0]).toMatchObject({ type: "hint", data: { style: "danger", icon: "fire" } });
    expect(r.out).toBe('{% hint style="danger" icon="fire" %}\nCareful **now**.\n{% endhint %}\n');
  });

  it("splits a hint around a code block, which 0.146 does not allow inside hints, marking the parts so it is written back whole", () => {
    const source = '{% hint style="info" %}\nBefore\n\n```\ncode\n```\n\nAfter\n{% endhint %}\n';
    const r = convert(source);
    expect(r.nodes.map((n) => [n.type, (n as { partOf?: string }).partOf])).toEqual([
      ["hint", undefined],
      ["code", "hint"],
      ["hint", "hint"],
    ]);
    expect(r.warnings).toEqual([]);
    expect(r.out).toBe(source);
    // A hint that opens with code: an empty first piece, so the code still follows its hint.
    const first = convert('{% hint style="warning" %}\n```bash\nnpm i\n```\n{% endhint %}\n');
    expect(first.nodes).toMatchObject([
      { type: "hint", nodes: [] },
      { type: "code", partOf: "hint" },
    ]);
    expect(first.out).toBe('{% hint style="warning" %}\n```bash\nnpm i\n```\n{% endhint %}\n');
  });

  it("keeps tables in tabs, images with a size in list items and code in a hint in a list item where the file has them", () => {
    const tabs =
      '{% tabs %}\n{% tab title="A" %}\nIntro\n\n| x | y |\n| - | - |\n| 1 | 2 |\n\nAfter\n{% endtab %}\n\n{% tab title="B" %}\n| x |\n| - |\n| 3 |\n{% endtab %}\n{% endtabs %}\n';
    const t = convert(tabs);
    expect(t.nodes.map((n) => n.type)).toEqual(["tabs", "table", "tabs", "table"]);
    expect(t.warnings).toEqual([]);
    expect(t.out).toBe(tabs);
    const list = '1. One\n\n   <img src="https://example.com/a.png" alt="" width="300">\n2. Two\n3. Three\n';
    const l = convert(list);
    expect(l.nodes).toMatchObject([
      { type: "list-ordered", nodes: [{ type: "list-item" }] },
      { type: "images", partOf: "list-item" },
      { type: "list-ordered", data: { start: 2 }, partOf: "list-ordered" },
    ]);
    // One list of three items, the image in the first (Quire writes a spread list's items apart).
    expect(l.out).toBe(
      '1. One\n\n   <figure><img src="https://example.com/a.png" alt="" width="300"><figcaption></figcaption></figure>\n\n2. Two\n\n3. Three\n',
    );
    const nested = convert('* Item\n\n  {% hint style="info" %}\n  Code:\n\n  ```js\n  x()\n  ```\n  {% endhint %}\n* Next\n');
    expect(nested.out).toContain('  {% hint style="info" %}\n  Code:\n\n  ```js\n  x()\n  ```\n  {% endhint %}\n');
  });

  it("keeps an embed's caption as blocks marked as its parts, written back inside {% embed %}", () => {
    const source = '{% embed url="https://www.youtube.com/watch?v=abc" %}\nA caption with **bold**\n{% endembed %}\n';
    const r = convert(source);
    expect(r.warnings).toEqual([]);
    expect(r.nodes).toMatchObject([{ type: "embed" }, { type: "paragraph", partOf: "embed" }]);
    expect(r.out).toBe(source);
  });

  it("writes a marked block outside when its container no longer comes just before it (edited in between)", () => {
    const r = parseMarkdownPage('{% hint style="info" %}\nBefore\n\n```\ncode\n```\n{% endhint %}\n');
    const [hint, codeBlock] = r.document.nodes;
    const edited = {
      ...r.document,
      nodes: [
        hint!,
        { object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text: "New", marks: [] }] }] },
        codeBlock!,
      ],
    } as JSONDocument;
    expect(markdownFromDocument(edited)).toBe('{% hint style="info" %}\nBefore\n{% endhint %}\n\nNew\n\n```\ncode\n```\n');
  });

  it("converts tabs, and code blocks with title, overflow, line numbers and expandable", () => {
    const r = convert(
      '{% tabs %}\n{% tab title="JS" %}\n{% code title="a.js" overflow="wrap" lineNumbers="true" expandable="true" %}\n```js\nx()\n```\n{% endcode %}\n{% endtab %}\n\n{% tab title="Py" %}\nText\n{% endtab %}\n{% endtabs %}\n',
    );
    expect(r.nodes[0]).toMatchObject({
      type: "tabs",
      nodes: [
        {
          type: "tabs-item",
          data: { title: "JS" },
          nodes: [{ type: "code", data: { syntax: "js", title: "a.js", overflow: "wrap", lineNumbers: true, expandable: true } }],
        },
        { type: "tabs-item", data: { title: "Py" } },
      ],
    });
  });

  it("6: {% tabs %} opened twice and closed once: the extra opener is left out with a warning, no text and no content lost", () => {
    const r = convert(
      '{% tabs %}\n{% tabs %}\n{% tab title="A" %}\nOne\n{% endtab %}\n\n{% tab title="B" %}\nTwo\n{% endtab %}\n{% endtabs %}\n\nAfter.\n',
    );
    expect(r.nodes.map((n) => n.type)).toEqual(["tabs", "paragraph"]);
    expect(r.nodes[0]).toMatchObject({ nodes: [{ data: { title: "A" } }, { data: { title: "B" } }] });
    expect(texts(r.nodes[0])).toBe("OneTwo");
    expect(r.out).not.toMatch(/\{\\?% tabs %\}\s*\{% tabs/);
    expect(JSON.stringify(r.nodes)).not.toContain("{% tabs");
    expect(r.warnings).toEqual(["line 1: {% tabs %} is opened again before it is closed; the extra opener was ignored"]);
    // An opener that is not followed by another one stays text, as before.
    const lone = convert("{% tabs %}\n\nText.\n");
    expect(lone.warnings.join()).toMatch(/no matching closing tag/);
  });

  it("converts steppers, content-refs, legacy page-refs, embeds and files", () => {
    const repo = new FakeRepository();
    const r = convert(
      '{% stepper %}\n{% step %}\n### One\n{% endstep %}\n{% endstepper %}\n\n{% content-ref url="next.md" %}\n[next.md](next.md)\n{% endcontent-ref %}\n\n{% page-ref page="old.md" %}\n\n{% embed url="https://youtu.be/x" %}\n\n{% file src="../.gitbook/assets/a.pdf" %}\n',
      { resolve: repo.resolve },
      { pathFor: repo.pathFor },
    );
    expect(r.nodes.map((n) => n.type)).toEqual(["stepper", "content-ref", "content-ref", "embed", "file"]);
    expect(r.nodes[1]).toMatchObject({ data: { ref: { kind: "page" } } });
    expect(r.nodes[4]).toMatchObject({ data: { ref: { kind: "file" } } });
    expect(r.references.map((x) => x.kind)).toEqual(["content-ref", "content-ref", "embed", "file"]);
  });

  it("keeps a file that is not in the space as a link", () => {
    const r = convert('{% file src="https://cdn.example.com/a.pdf" %}\n');
    expect(r.nodes[0]).toMatchObject({
      type: "paragraph",
      nodes: [{}, { type: "link", data: { ref: { kind: "url", url: "https://cdn.example.com/a.pdf" } } }, {}],
    });
    expect(r.warnings.join()).toMatch(/not a file of this space/);
  });

  it("converts includes to reusable content when the resolver knows them", () => {
    const repo = new FakeRepository();
    const r = convert('{% include "../.gitbook/includes/footer.md" %}\n', { resolve: repo.resolve }, { pathFor: repo.pathFor });
    expect(r.nodes[0]).toMatchObject({ type: "reusable-content", data: { ref: { kind: "reusable-content" } } });
    expect(r.out).toBe('{% include "../.gitbook/includes/footer.md" %}\n');
    const unresolved = convert('{% include "../.gitbook/includes/footer.md" %}\n');
    expect(unresolved.nodes[0]!.type).toBe("paragraph");
    expect(unresolved.out).toBe('{% include "../.gitbook/includes/footer.md" %}\n');
  });

  it("converts OpenAPI and swagger blocks", () => {
    const r = convert(
      '{% openapi-operation spec="pets" path="/pets" method="GET" %}\n[OpenAPI pets](https://x/openapi.json)\n{% endopenapi-operation %}\n\n{% openapi-schemas spec="pets" schemas="Pet, Tag" grouped="true" %}\n{% endopenapi-schemas %}\n\n{% openapi src="https://x/openapi.json" path="/pet" method="post" %}\n[https://x/openapi.json](https://x/openapi.json)\n{% endopenapi %}\n\n{% swagger src="https://x/s.json" path="/a" method="get" %}\n{% endswagger %}\n',
    );
    expect(r.nodes).toMatchObject([
      { type: "openapi-operation", data: { ref: { kind: "openapi", spec: "pets" }, path: "/pets", method: "get" } },
      { type: "openapi-schemas", data: { schemas: ["Pet", "Tag"], grouped: true } },
      { type: "swagger", data: { ref: { kind: "url", url: "https://x/openapi.json" }, path: "/pet", method: "post" } },
      { type: "swagger", data: { path: "/a", method: "get" } },
    ]);
  });

  it("converts <details> expandables", () => {
    const r = convert("<details>\n\n<summary>More <code>info</code></summary>\n\nBody text\n\n* a list\n\n</details>\n");
    const exp = r.nodes[0] as Extract<DocumentBlock, { type: "expandable" }>;
    expect(exp.type).toBe("expandable");
    expect(texts(exp.fragments[0])).toBe("More info");
    expect(exp.fragments[1]!.nodes.map((n) => n.type)).toEqual(["paragraph", "list-unordered"]);
  });

  it("reads checkbox and number columns, column widths and code blocks in cells of an HTML table", () => {
    const r = convert(
      '<table><thead><tr><th>Input</th><th width="95">Fields</th><th width="112" data-type="checkbox">Required</th><th data-type="number">Max</th></tr></thead><tbody>' +
        '<tr><td><code>query</code></td><td><pre class="language-json"><code class="lang-json">{\n<strong>  "a": 1\n</strong>}\n</code></pre></td><td>true</td><td>10</td></tr>' +
        "<tr><td>variables</td><td>body</td><td>false</td><td>2.5</td></tr>" +
        "<tr><td>odd</td><td>body</td><td>maybe</td><td>many</td></tr>" +
        "</tbody></table>\n",
    );
    const table = r.nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    expect(Object.values(table.data.definition).map((d) => d.type)).toEqual(["text", "text", "checkbox", "number"]);
    expect(table.data.view).toMatchObject({ type: "grid", columnWidths: { c2: 95, c3: 112 } });
    expect(Object.values(table.data.records).map((row) => [row.values.c3, row.values.c4])).toEqual([
      [true, 10],
      [false, 2.5],
      [undefined, undefined],
    ]);
    const code = table.fragments.find((f) => f.fragment === "r1-c2")!.nodes[0] as Extract<DocumentBlock, { type: "code" }>;
    expect(code).toMatchObject({ type: "code", data: { syntax: "json" } });
    expect(code.nodes.map((line) => [texts(line), line.data.highlighted === true])).toEqual([
      ["{", false],
      ['  "a": 1', true],
      ["}", false],
    ]);
    expect(r.warnings).toEqual([
      expect.stringMatching(/"maybe" in the checkbox column "Required" is not a true or false; the cell was left empty/),
      expect.stringMatching(/"many" in the number column "Max" is not a number/),
    ]);
    expect(r.out).toContain('<th width="112" data-type="checkbox">Required</th>');
  });

  it("reads the paragraphs, lists and nested tables of an HTML table's cells, and writes them back", () => {
    // The shape of a GitBook-synced public repository's parameter table: a cell with a paragraph
    // (with a line break), then a table of its own; another with a list.
    const r = convert(
      '<table><thead><tr><th width="220">Parameter</th><th>Description</th></tr></thead><tbody>' +
        "<tr><td><code>customFonts</code></td><td><p>Fonts.<br>Each has:</p><table><thead><tr><th>Parameter</th><th>Description</th></tr></thead><tbody><tr><td><code>name</code></td><td>Shown in the list.</td></tr></tbody></table></td></tr>" +
        '<tr><td>kinds</td><td><ul><li>one</li><li><p>two</p><ol start="2"><li>deeper</li></ol></li></ul></td></tr>' +
        "</tbody></table>\n",
    );
    expect(r.warnings).toEqual([]);
    const table = r.nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    const cell = (name: string) => table.fragments.find((f) => f.fragment === name)!.nodes;
    expect(cell("r1-c2").map((b) => b.type)).toEqual(["paragraph", "table"]);
    expect(texts(cell("r1-c2")[0])).toBe("Fonts.\nEach has:");
    const nested = cell("r1-c2")[1] as Extract<DocumentBlock, { type: "table" }>;
    expect(Object.values(nested.data.definition).map((d) => d.title)).toEqual(["Parameter", "Description"]);
    expect(texts(nested)).toBe("nameShown in the list.");
    const list = cell("r2-c2")[0] as Extract<DocumentBlock, { type: "list-unordered" }>;
    expect(list.nodes.map((item) => item.nodes.map((b) => b.type))).toEqual([["paragraph"], ["paragraph", "list-ordered"]]);
    expect(list.nodes[1]!.nodes[1]).toMatchObject({ type: "list-ordered", data: { start: 2 } });
    expect(r.out).toContain('<td><ul><li>one</li><li><p>two</p><ol start="2"><li>deeper</li></ol></li></ul></td>');
  });

  it("converts cards tables with targets and covers", () => {
    const repo = new FakeRepository();
    const r = convert(
      '<table data-view="cards" data-card-size="large"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead><tbody><tr><td><strong>A</strong></td><td><a href="a.md">a.md</a></td><td><a href="../.gitbook/assets/a.png">a.png</a></td></tr></tbody></table>\n',
      { resolve: repo.resolve },
      { pathFor: repo.pathFor },
    );
    const table = r.nodes[0] as Extract<DocumentBlock, { type: "table" }>;
    expect(table.data.view).toEqual({ type: "cards", cardSize: "large", columns: ["c1"], targetDefinition: "c2", coverDefinition: "c3" });
    expect(table.data.records.r1!.values.c2).toMatchObject({ kind: "page" });
    expect(Array.isArray(table.data.records.r1!.values.c3)).toBe(true);
    expect(r.references.map((x) => [x.kind, x.target])).toEqual([
      ["card-target", "a.md"],
      ["card-cover", "../.gitbook/assets/a.png"],
    ]);
  });

  it("keeps a card whose target is a URL as a column of links (0.146 cannot store a URL value)", () => {
    const r = convert(
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td>A</td><td><a href="https://a.dev">https://a.dev</a></td></tr></tbody></table>\n',
    );
    expect(r.out).toContain('data-card-target data-type="content-ref"');
    expect(r.out).toContain('<a href="https://a.dev">https://a.dev</a>');
  });

  it("keeps GitBook's <h4> card titles as bold text (a heading cannot sit in a cell)", () => {
    const r = convert(
      '<table data-view="cards"><thead><tr><th></th><th></th></tr></thead><tbody><tr><td><h4>In the editor</h4></td><td>Write visually.</td></tr></tbody></table>\n',
    );
    expect(r.warnings).toEqual([]);
    expect(r.out).toContain("<strong>In the editor</strong>");
  });

  it("converts buttons, inline icons and expressions", () => {
    const r = convert(
      '<a href="start.md" class="button primary" data-icon="rocket">Start</a> <i class="fa-github">:github:</i> v<code class="expression">space.vars.version</code>\n',
    );
    const inlines = (r.nodes[0] as { nodes: Array<{ type?: string; data?: unknown }> }).nodes.filter((n) => n.type);
    expect(inlines).toMatchObject([
      { type: "button", data: { label: "Start", kind: "primary", icon: "rocket", ref: { kind: "url", url: "start.md" } } },
      { type: "icon", data: { icon: "github" } },
      { type: "expression", data: { expression: "space.vars.version" } },
    ]);
  });

  it("keeps unknown tags verbatim, with a warning", () => {
    const r = convert("{% gauge value=3 %}\n\nText\n");
    expect(texts(r.nodes[0])).toBe("{% gauge value=3 %}");
    expect(r.out).toBe("{% gauge value=3 %}\n\nText\n");
    expect(r.warnings.join()).toMatch(/unknown tag/);
  });

  it("passes constructs without a 0.146 node through as tag lines around normal blocks", () => {
    const md =
      "{% if visitor.claims.unsigned.beta %}\nBeta text\n{% endif %}\n\n{% columns %}\n{% column %}\nLeft\n{% endcolumn %}\n{% endcolumns %}\n";
    const r = convert(md);
    expect(r.nodes.map((n) => texts(n))).toEqual([
      "{% if visitor.claims.unsigned.beta %}",
      "Beta text",
      "{% endif %}",
      "{% columns %}",
      "{% column %}",
      "Left",
      "{% endcolumn %}",
      "{% endcolumns %}",
    ]);
    expect(r.out).toBe(md);
  });

  it("keeps an unclosed hint's tag as escaped text and the content that follows", () => {
    const r = convert('{% hint style="info" %}\nNever closed.\n\n## Heading\n');
    expect(r.nodes.map((n) => n.type)).toEqual(["paragraph", "paragraph", "heading-1"]);
    expect(texts(r.nodes[0])).toBe('{% hint style="info" %}');
    expect(r.out.startsWith('{\\% hint style="info" %}')).toBe(true);
    expect(r.warnings.join()).toMatch(/no matching closing tag/);
  });

  it("treats {% %} in fenced, indented and inline code as code", () => {
    const r = convert(
      '```\n{% hint style="info" %}\n{% endhint %}\n```\n\nPara\n\n    {% tabs %}\n    {% endtabs %}\n\nInline `{% endhint %}`.\n',
    );
    expect(r.nodes.map((n) => n.type)).toEqual(["code", "paragraph", "code", "paragraph"]);
    expect(texts(r.nodes[0])).toBe('{% hint style="info" %}{% endhint %}');
    expect(r.warnings).toEqual([]);
  });

  it("keeps a hint inside a list item in that item, and tags written without blank lines", () => {
    const r = convert('1. Step\n   {% hint style="info" %}\n   Inside\n   {% endhint %}\n2. Next\n');
    const item = (r.nodes[0] as { nodes: Array<{ nodes: DocumentBlock[] }> }).nodes[0]!;
    expect(item.nodes.map((n) => n.type)).toEqual(["paragraph", "hint"]);
    expect(r.nodes).toHaveLength(1);
  });

  it("keeps unmodelled HTML as an html code block with a warning", () => {
    const r = convert('<div class="x">\n  <span>hi</span>\n</div>\n');
    expect(r.nodes[0]).toMatchObject({ type: "code", data: { syntax: "html" } });
    expect(texts(r.nodes[0])).toContain("<span>hi</span>");
    expect(r.warnings.join()).toMatch(/HTML/);
  });

  it("reads <p align> as an aligned paragraph", () => {
    const r = convert('<p align="center">Centered <strong>text</strong></p>\n');
    expect(r.nodes[0]).toMatchObject({ type: "paragraph", data: { align: "center" } });
    expect(r.out).toBe('<p align="center">Centered <strong>text</strong></p>\n');
  });

  it("reads GitBook's <pre><code> code blocks (its form for highlighted lines) with their highlighted lines, and writes them alike", () => {
    const source =
      '<pre class="language-markdown" data-title="page.md" data-overflow="wrap" data-line-numbers><code class="lang-markdown">---\nhidden: true\n<strong>---\n</strong>a &lt; b &amp;&amp; c\n<strong>  two\n</strong><strong>  in a row\n</strong></code></pre>\n';
    const r = convert(source);
    expect(r.warnings).toEqual([]);
    expect(r.nodes[0]).toMatchObject({ type: "code", data: { syntax: "markdown", title: "page.md", overflow: "wrap", lineNumbers: true } });
    const lines = (r.nodes[0] as Extract<DocumentBlock, { type: "code" }>).nodes;
    expect(lines.map((line) => texts(line))).toEqual(["---", "hidden: true", "---", "a < b && c", "  two", "  in a row"]);
    expect(lines.map((line) => line.data.highlighted === true)).toEqual([false, false, true, false, true, true]);
    expect(r.out).toBe(
      '<pre class="language-markdown" data-title="page.md" data-overflow="wrap" data-line-numbers><code class="lang-markdown">---\nhidden: true\n<strong>---\n</strong>a &lt; b &amp;&amp; c\n<strong>  two\n</strong><strong>  in a row</strong>\n</code></pre>\n',
    );
    // A code block without highlighted lines is written as a fence.
    expect(convert("```js\nconst a = 1;\n```\n").out).toBe("```js\nconst a = 1;\n```\n");
  });

  it("keeps the text of other formatting inside <pre><code>, with a warning", () => {
    const r = convert('<pre><code>plain\n<em>emphasis</em> and <a href="x">a link</a>\n</code></pre>\n');
    expect((r.nodes[0] as { nodes: unknown[] }).nodes.map((line) => texts(line))).toEqual(["plain", "emphasis and a link"]);
    expect(r.warnings).toEqual([expect.stringMatching(/formatting inside an HTML code block/)]);
  });

  it("warns about a GitBook tag written inside a paragraph, unless it was escaped as text", () => {
    const stray = parseMarkdownPage("Text {% customer.name %} here\n");
    expect(stray.warnings).toEqual([expect.stringMatching(/\{% customer … %\} inside a paragraph is kept as text/)]);
    // GitBook escapes `{%` in text (a public repository: `_\{%customer.name%\}_`), as the serializer does.
    const escaped = convert("Instead of _\\{%customer.name%\\}_.\n");
    expect(escaped.warnings).toEqual([]);
    expect(texts(escaped.nodes[0])).toBe("Instead of {%customer.name%}.");
  });

  it("drops a commented-out passage (hidden from readers) with a warning instead of showing it", () => {
    const r = parseMarkdownPage("Before\n\n<!--\n## Author\n\nSomeone\n-->\n\nAfter\n");
    expect(stripKeys(r.document).nodes.map((n) => texts(n))).toEqual(["Before", "After"]);
    expect(r.warnings).toEqual([expect.stringMatching(/HTML comment \(hidden text\) was dropped/)]);
  });

  it("reads GitBook's aligned headings (<h2>/<h3>/<h4 align>) as headings with their alignment", () => {
    const r = convert(
      '<h3 align="center">How do you want <em>to</em> work?</h3>\n\n<h2 align="right" id="intro">Intro</h2>\n\n<h4 align="left">Plain</h4>\n',
    );
    expect(r.warnings).toEqual([]);
    expect(r.nodes[0]).toMatchObject({ type: "heading-2", data: { align: "center" } });
    expect(texts(r.nodes[0])).toBe("How do you want to work?");
    expect(r.nodes[1]).toMatchObject({ type: "heading-1", data: { align: "end", id: "intro" } });
    expect(r.nodes[2]).toMatchObject({ type: "heading-3", data: {} });
    expect(r.out).toContain('<h3 align="center">How do you want <em>to</em> work?</h3>');
    expect(r.out).toContain('<h2 align="right" id="intro">Intro</h2>');
    expect(r.out).toContain("#### Plain");
  });
});

describe("GitBook's <div> wrappers on lines of their own", () => {
  it("reads <div data-full-width> and <div align> around a figure (GitBook's older form) as a full-width or centred images block", () => {
    const wide = convert(
      'Before.\n\n<div data-full-width="true">\n\n<figure><img src="a.png" alt=""><figcaption><p>Wide</p></figcaption></figure>\n\n</div>\n\nAfter.\n',
    );
    expect(wide.warnings).toEqual([]);
    expect(wide.nodes.map((n) => n.type)).toEqual(["paragraph", "images", "paragraph"]);
    expect(wide.nodes[1]).toMatchObject({ data: { fullWidth: true }, nodes: [{ data: { ref: { url: "a.png" } } }] });
    expect(texts(wide.nodes[1])).toBe("Wide");
    expect(wide.frontmatter).toEqual({});
    // Written in GitBook's current form, on one line.
    expect(wide.out).toBe(
      'Before.\n\n<div data-full-width="true"><figure><img src="a.png" alt=""><figcaption><p>Wide</p></figcaption></figure></div>\n\nAfter.\n',
    );

    const centred = convert(
      '<div align="center">\n\n<figure><img src="b.png" alt="" width="563"><figcaption></figcaption></figure>\n\n</div>\n',
    );
    expect(centred.warnings).toEqual([]);
    expect(centred.nodes).toHaveLength(1);
    expect(centred.nodes[0]).toMatchObject({ type: "images", data: { align: "center" }, nodes: [{ data: { width: 563 } }] });
    expect(
      convert('<div data-full-width="false">\n\n<figure><img src="c.png" alt=""><figcaption></figcaption></figure>\n\n</div>\n').nodes,
    ).toMatchObject([{ type: "images", data: {} }]);
  });

  it("reads several images between <div> lines (separated by a line of one space) as one images block, <img> and <picture> too", () => {
    const r = convert(
      '<div data-full-width="true">\n\n<img src="a.png" alt="A" width="41%">\n\n \n\n<figure><img src="b.png" alt=""><figcaption></figcaption></figure>\n\n</div>\n\n<div>\n\n<picture><source srcset="d.svg" media="(prefers-color-scheme: dark)"><img src="l.svg" alt=""></picture>\n\n \n\n<img src="e.png" alt="">\n\n</div>\n',
    );
    expect(r.warnings).toEqual([]);
    expect(r.nodes).toMatchObject([
      {
        type: "images",
        data: { fullWidth: true },
        nodes: [{ data: { ref: { url: "a.png" }, alt: "A" } }, { data: { ref: { url: "b.png" } } }],
      },
      {
        type: "images",
        data: {},
        nodes: [{ data: { ref: { url: "l.svg" }, refDark: { url: "d.svg" } } }, { data: { ref: { url: "e.png" } } }],
      },
    ]);
    expect(r.references.map((x) => x.target)).toEqual(["a.png", "b.png", "l.svg", "d.svg", "e.png"]);
  });

  it("reads the content of a <div> wrapper around other blocks as blocks, giving them the alignment or full width they can take", () => {
    const r = convert(
      '<div align="center">\n\n## Welcome\n\nSome **text**\n\n* a list\n\n</div>\n\n<div data-full-width="true">\n\n```js\nx();\n```\n\n</div>\n\nEnd.\n',
    );
    expect(r.nodes.map((n) => n.type)).toEqual(["heading-1", "paragraph", "list-unordered", "code", "paragraph"]);
    expect(r.nodes[0]).toMatchObject({ data: { align: "center" } });
    expect(r.nodes[1]).toMatchObject({ data: { align: "center" } });
    expect(r.nodes[3]).toMatchObject({ data: { fullWidth: true } });
    expect(r.warnings).toEqual([expect.stringMatching(/line 1: align="center" of a <div> around other content than images was dropped/)]);
    expect(r.frontmatter).toEqual({});
  });

  it('makes a page whose whole body is in <div data-full-width="true"> full width (front matter layout.width: wide)', () => {
    const r = convert('# Page\n\n<div data-full-width="true">\n\nFirst.\n\n## Part\n\nSecond.\n\n</div>\n');
    expect(r.warnings).toEqual([]);
    expect(r.title).toBe("Page");
    expect(r.nodes.map((n) => n.type)).toEqual(["paragraph", "heading-1", "paragraph"]);
    expect(r.frontmatter.layout).toEqual({ width: "wide" });
    expect(r.out).toBe("---\nlayout:\n  width: wide\n---\n\n# Page\n\nFirst.\n\n## Part\n\nSecond.\n");
    // Front matter that says otherwise wins.
    expect(convert('---\nlayout:\n  width: default\n---\n\n<div data-full-width="true">\n\nText.\n\n</div>\n').frontmatter.layout).toEqual({
      width: "default",
    });
  });

  it("leaves a <div> that is not closed, or crosses a container, as it was read before", () => {
    const open = parseMarkdownPage('<div align="center">\n\nText\n');
    expect(stripKeys(open.document).nodes.map((n) => n.type)).toEqual(["paragraph", "paragraph"]);
    const crossing = parseMarkdownPage('<div align="center">\n\n{% hint style="info" %}\nIn.\n\n</div>\n\n{% endhint %}\n');
    // The hint is read as ever; the </div> in it is HTML code (which a hint cannot hold, so after it).
    expect(stripKeys(crossing.document).nodes.map((n) => n.type)).toEqual(["paragraph", "hint", "code"]);
    const close = parseMarkdownPage("Text\n\n</div>\n");
    expect(stripKeys(close.document).nodes.map((n) => n.type)).toEqual(["paragraph", "code"]);
  });
});

describe("front matter and body", () => {
  it("returns front matter and converts the body even when the YAML is invalid", () => {
    const r = convert("---\ndescription: a: b: c\n  - x\n---\n\n# T\n\nBody\n");
    expect(r.frontmatter).toEqual({});
    expect(r.warnings[0]).toMatch(/not valid YAML/);
    expect(texts(r.nodes[0])).toBe("Body");
  });

  it("serializes only the body for format=markdown", () => {
    const r = parseMarkdownPage("---\nicon: x\n---\n\n# Title\n\nBody\n");
    expect(markdownFromDocument(r.document)).toBe("Body\n");
  });

  it("writes an empty document as an empty string, and front matter alone without a body", () => {
    expect(convert("").out).toBe("");
    expect(convert("---\nhidden: true\n---\n").out).toBe("---\nhidden: true\n---\n");
  });

  it("normalizes CRLF and a byte-order mark", () => {
    const r = convert("\uFEFF# T\r\n\r\nA\r\nB\r\n");
    expect(r.title).toBe("T");
    expect(texts(r.nodes[0])).toBe("A B");
  });

  it("gives every block and keyed inline a key", () => {
    const r = parseMarkdownPage('Para [l](x)\n\n* a\n\n{% tabs %}\n{% tab title="t" %}\nx\n{% endtab %}\n{% endtabs %}\n');
    const missing: string[] = [];
    const visit = (n: { object?: string; key?: string; type?: string; nodes?: unknown[]; fragments?: unknown[] }) => {
      if ((n.object === "block" || n.object === "inline") && !n.key) missing.push(n.type ?? "?");
      for (const c of [...(n.nodes ?? []), ...(n.fragments ?? [])]) visit(c as typeof n);
    };
    for (const n of (r.document as JSONDocument).nodes) visit(n as never);
    expect(missing).toEqual([]);
  });
});
