import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withCpuTime } from "../../../test/helpers/cpu-time.js";
import { all, dom, one, text as textOf } from "../../../test/helpers/html-dom.js";
import {
  block,
  code,
  doc,
  everyBlockDocument,
  everyBlockReusable,
  fileRef,
  h,
  inline,
  li,
  p,
  testEnv,
  text,
  urlRef,
} from "../../../test/helpers/render-documents.js";
import { contentAssets, documentReferences, renderDocument } from "./index.js";

const render = (document = doc(), env = testEnv()) => renderDocument(document, env);
const body = (...nodes: any[]) => dom(render(doc(...nodes)).html);

describe("renderDocument: text", () => {
  it("renders paragraphs with every mark", () => {
    const root = body(
      p(
        text("b", "bold"),
        text("i", "italic"),
        text("c", "code"),
        text("k", "keyboard"),
        text("s", "strikethrough"),
        text("up", "superscript"),
        text("down", "subscript"),
        text("both", "bold", "italic"),
        text("tinted", { type: "color", data: { text: "green", background: "$warning" } }),
      ),
    );
    expect(all(root, "strong").map(textOf)).toEqual(["b", "both"]);
    expect(all(root, "em").map(textOf)).toEqual(["i", "both"]);
    expect(textOf(one(root, "code.q-code-inline"))).toBe("c");
    expect(textOf(one(root, "kbd"))).toBe("k");
    expect(textOf(one(root, "s"))).toBe("s");
    expect(textOf(one(root, "sup"))).toBe("up");
    expect(textOf(one(root, "sub"))).toBe("down");
    // Bold wraps italic (canonical order: outer marks first).
    expect(render(doc(p(text("both", "bold", "italic")))).html).toContain("<strong><em>both</em></strong>");
    expect(one(root, "span.q-text-green").attrs.class).toBe("q-text-green q-bg-warning");
  });

  it("turns soft line breaks into <br> and aligns paragraphs", () => {
    const root = body(block("paragraph", { align: "center" }, [text("one\ntwo")]));
    expect(one(root, "p").attrs.class).toBe("q-align-center");
    expect(all(root, "br")).toHaveLength(1);
  });

  it("gives headings stable, unique anchors with a link to themselves, and an outline", () => {
    const result = render(
      doc(h(1, "Getting started!"), h(2, "Getting started"), h(3, "Déjà vu"), h(2, "Custom", { id: "my-anchor" }), h(2, "   ")),
    );
    const root = dom(result.html);
    // The page title is the page's <h1>: heading-1 is an <h2>, heading-2 an <h3>, heading-3 an <h4>.
    expect(all(root, "h2").map((el) => el.attrs.id)).toEqual(["getting-started"]);
    expect(all(root, "h3").map((el) => el.attrs.id)).toEqual(["getting-started-1", "my-anchor", "section"]);
    expect(one(root, "h4").attrs.id).toBe("déjà-vu");
    expect(all(root, "a.q-anchor")[0]!.attrs.href).toBe("#getting-started");
    expect(result.outline).toEqual([
      { id: "getting-started", title: "Getting started!", level: 1 },
      { id: "getting-started-1", title: "Getting started", level: 2 },
      { id: "déjà-vu", title: "Déjà vu", level: 3 },
      { id: "my-anchor", title: "Custom", level: 2 },
      { id: "section", title: "", level: 2 },
    ]);
  });

  it("keeps headings hidden in tabs and expandables out of the outline (they still get ids)", () => {
    const result = render(doc(h(2, "Visible"), block("tabs", {}, [block("tabs-item", { title: "A" }, [h(2, "In a tab")])])));
    expect(result.outline.map((e) => e.title)).toEqual(["Visible"]);
    expect(dom(result.html).children.length).toBeGreaterThan(0);
    expect(all(dom(result.html), "h3").map((el) => el.attrs.id)).toEqual(["visible", "in-a-tab"]);
  });

  it("renders links, mentions, buttons, emoji, icons, inline images and expressions", () => {
    const env = testEnv({ hiddenPages: ["secret"] }, { version: "2.4" });
    const root = dom(
      render(
        doc(
          p(
            inline("link", { ref: { kind: "page", page: "p1" } }, [text("page")]),
            inline("link", { ref: { kind: "page", page: "secret" } }, [text("hidden page")]),
            inline("link", { ref: { kind: "anchor", anchor: "here" } }, [text("same page")]),
            inline("mention", { ref: { kind: "user", user: "u1" } }),
            inline("button", { label: "Go", kind: "secondary", ref: urlRef("https://example.com") }),
            inline("emoji", { code: "1f468-200d-1f469" }),
            inline("icon", { icon: "star<x>", color: "red" }),
            inline("inline-image", { ref: fileRef("light"), alt: "tiny" }),
            inline("expression", { expression: "space.vars.version" }),
          ),
        ),
        env,
      ).html,
    );
    const links = all(root, "a");
    expect(links.map((a) => a.attrs.href)).toEqual(["/docs/p1", "#here", "/users/u1", "https://example.com"]);
    // A page the reader may not see: its text, no link.
    expect(textOf(root)).toContain("hidden page");
    expect(textOf(one(root, "a.q-mention"))).toBe("User u1");
    expect(one(root, "a.q-button").attrs.class).toBe("q-button q-button-secondary");
    expect(textOf(one(root, "span.q-emoji"))).toBe("👨‍👩");
    expect(one(root, "span.q-icon").attrs["data-icon"]).toBe("starx");
    expect(one(root, "img.q-inline-image").attrs).toMatchObject({ src: "/files/light.svg", alt: "tiny", loading: "lazy" });
    expect(textOf(one(root, "span.q-expression"))).toBe("2.4");
  });

  it("does not nest links: a button inside a link renders as text", () => {
    const root = body(
      p(inline("link", { ref: urlRef("https://a.example") }, [text("outer "), inline("mention", { ref: { kind: "user", user: "u" } })])),
    );
    expect(all(root, "a")).toHaveLength(1);
  });

  it("renders annotations as numbered notes at the end, linked both ways", () => {
    const annotation = {
      ...inline("annotation", {}, [text("term")]),
      fragments: [{ object: "fragment", type: "annotation-body", nodes: [p("Its meaning.")] }],
    };
    const root = body(p("A ", annotation, "."));
    const ref = one(root, "a.q-annotated");
    const note = one(root, "li.q-note");
    expect(ref.attrs.href).toBe(`#${note.attrs.id}`);
    expect(textOf(note)).toContain("Its meaning.");
    expect(one(note, "a.q-note-back").attrs.href).toBe(`#${ref.attrs.id}`);
  });
});

describe("renderDocument: blocks", () => {
  it("renders bulleted, ordered (with start) and task lists", () => {
    const root = body(
      block("list-unordered", {}, [li(p("a")), li(p("b"))]),
      block("list-ordered", { start: 5 }, [li(p("five"))]),
      block("list-tasks", {}, [block("list-item", { checked: true }, [p("done")]), block("list-item", {}, [p("todo")])]),
    );
    expect(all(all(root, "ul.q-list")[0]!, "li")).toHaveLength(2);
    expect(one(root, "ol").attrs.start).toBe("5");
    const boxes = all(one(root, "ul.q-tasks"), "input");
    expect(boxes.map((b) => "checked" in b.attrs)).toEqual([true, false]);
    expect(boxes.every((b) => "disabled" in b.attrs)).toBe(true);
  });

  it("shows blocks a Markdown import moved out of a container inside it, and an embed's caption under it", () => {
    const root = body(
      block("hint", { style: "info" }, [p("Run:")]),
      { ...code("bash", "npm i"), partOf: "hint" },
      { ...block("hint", { style: "info" }, [p("Then go.")]), partOf: "hint" },
      { object: "block", type: "embed", isVoid: true, data: { url: "https://example.com/video" } },
      { ...p("The caption"), partOf: "embed" },
      // Not after its container: shown where it is.
      { ...p("Alone"), partOf: "hint" },
    );
    const hints = all(root, "div.q-hint");
    expect(hints).toHaveLength(1);
    expect(textOf(hints[0]!)).toContain("npm i");
    expect(textOf(hints[0]!)).toContain("Then go.");
    expect(textOf(one(one(root, "figure.q-captioned"), "figcaption.q-caption"))).toBe("The caption");
    expect(textOf(root)).toContain("Alone");
  });

  it("renders blockquotes, hints of every style and dividers", () => {
    const root = body(
      block("blockquote", {}, [p("quoted")]),
      ...["info", "success", "warning", "danger", "bogus", "toString"].map((style) => block("hint", { style }, [p(style)])),
      block("divider", {}),
    );
    expect(textOf(one(root, "blockquote.q-quote"))).toBe("quoted");
    expect(all(root, "div.q-hint").map((el) => el.attrs.class)).toEqual([
      "q-hint q-hint-info",
      "q-hint q-hint-success",
      "q-hint q-hint-warning",
      "q-hint q-hint-danger",
      "q-hint q-hint-info",
      "q-hint q-hint-info",
    ]);
    expect(all(root, "hr.q-divider")).toHaveLength(1);
  });

  it("highlights code on the server, keeping every line balanced and the text exact", () => {
    const source = 'const a = "x"; /* open\nstill comment */\nlet b = 2;';
    const result = render(doc(code("js", source, { title: "a.js", lineNumbers: true, overflow: "wrap", highlight: [2] })));
    const root = dom(result.html);
    const figure = one(root, "figure.q-code");
    expect(figure.attrs.class).toBe("q-code q-code-wrap q-code-numbered");
    // The header names the file and the language; the copy button sits there.
    const header = one(root, "figcaption.q-code-header");
    expect(textOf(one(header, "span.q-code-title"))).toBe("a.js");
    expect(textOf(one(header, "span.q-code-language"))).toBe("JavaScript");
    expect(all(header, "button.q-copy")).toHaveLength(1);
    expect(textOf(one(root, "code"))).toBe(source);
    const lines = all(root, "span.q-line");
    expect(lines).toHaveLength(3);
    // The comment spans two lines: each line holds its own balanced hljs-comment span.
    expect(all(lines[0]!, "span.hljs-comment")).toHaveLength(1);
    expect(all(lines[1]!, "span.hljs-comment")).toHaveLength(1);
    expect(all(lines[0]!, "span.hljs-keyword").length).toBeGreaterThan(0);
    expect(lines[2]!.attrs.class).toBe("q-line q-line-highlighted");
    expect(one(root, "button.q-copy").attrs.type).toBe("button");
    expect(one(root, "code").attrs.class).toBe("hljs q-code-lines language-js");
    expect(result.features.has("code")).toBe(true);
  });

  it("writes a code block without numbers or highlighted lines as text, one element for the block (a long page of code stays light)", () => {
    const source = 'const a = "x"; /* open\nstill comment */\nlet b = 2;';
    const root = dom(render(doc(code("js", source))).html);
    const element = one(root, "code");
    expect(element.attrs.class).toBe("hljs language-js");
    expect(textOf(element)).toBe(source);
    expect(all(root, "span.q-line")).toHaveLength(0);
    expect(all(root, "span.hljs-comment").length).toBeGreaterThan(0);
  });

  it("groups a published page's top-level blocks into sections at headings of level 1 and 2 (RenderEnv.sections)", () => {
    const document = doc(p("Intro."), h(1, "One"), p("First."), h(3, "Deeper"), p("Still first."), h(2, "Two"), code("sh", "a\nb\nc"));
    const root = dom(render(document, { ...testEnv(), sections: true }).html);
    const sections = all(root, "section.q-section");
    expect(sections).toHaveLength(3);
    expect(all(sections[0]!, "p").map(textOf)).toEqual(["Intro."]);
    expect(all(sections[1]!, "h2").length + all(sections[1]!, "h4").length).toBe(2);
    expect(all(sections[2]!, "figure.q-code")).toHaveLength(1);
    // An estimate of its height until it is first laid out: more for more lines of code.
    expect(sections[2]!.attrs.style).toMatch(/^--q-h:\d+rem$/);
    // Without the option (the editor's previews), no sections.
    expect(all(dom(render(document).html), "section")).toHaveLength(0);
  });

  it("labels a code block with its syntax (as written when unknown); without syntax or title, no header", () => {
    const labelled = dom(render(doc(code("zig", "const x = 1;"))).html);
    expect(textOf(one(one(labelled, "figcaption.q-code-header"), "span.q-code-language"))).toBe("zig");
    expect(all(labelled, "span.q-code-title")).toHaveLength(0);
    const bare = dom(render(doc(code(undefined, "plain text"))).html);
    expect(all(bare, "figcaption")).toHaveLength(0);
    expect(all(one(bare, "div.q-code-body"), "button.q-copy")).toHaveLength(1);
  });

  it("evaluates expressions inside code lines and keeps annotated text", () => {
    const line = block("code-line", {}, [
      text("version = "),
      inline("expression", { expression: "space.vars.version" }),
      text(" # "),
      { ...inline("annotation", {}, [text("note")]), fragments: [] },
    ]);
    const root = dom(render(doc(block("code", { syntax: "python" }, [line])), testEnv({}, { version: "2.4" })).html);
    expect(textOf(one(root, "code"))).toBe("version = 2.4 # note");
  });

  it("renders code of an unknown or missing language as escaped plain text", () => {
    const root = body(code("no-such-language", "a < b"), code(undefined, "plain"));
    expect(all(root, "code").map(textOf)).toEqual(["a < b", "plain"]);
    expect(all(root, "span.hljs-keyword")).toHaveLength(0);
  });

  it("marks collapsible code for content.js", () => {
    const root = body(code("text", "1\n2\n3\n4", { expandable: true, collapsedLineCount: 2 }));
    expect(one(root, "figure").attrs["data-collapsed-lines"]).toBe("2");
  });

  it("renders mermaid as its source in <pre class=mermaid>", () => {
    const result = render(doc(code("mermaid", "graph TD\n  A --> B")));
    expect(textOf(one(dom(result.html), "pre.mermaid"))).toBe("graph TD\n  A --> B");
    expect([...result.features]).toEqual(["mermaid"]);
  });

  it("renders math with KaTeX, block and inline, and shows a broken formula instead of throwing", () => {
    const result = render(
      doc(block("math", { formula: "\\frac{1}{2}" }), p(inline("inline-math", { formula: "x^2" })), block("math", { formula: "\\frac{" })),
    );
    const root = dom(result.html);
    expect(all(root, "div.q-math")).toHaveLength(2);
    expect(all(root, "span.katex-display")).toHaveLength(1);
    expect(all(one(root, "span.q-math-inline"), "span.katex")).toHaveLength(1);
    expect(textOf(all(root, "div.q-math")[1]!)).toContain("\\frac{");
    expect(result.features.has("math")).toBe(true);
  });

  it("renders images with their size, caption, dark variant, the first one near the top fetched at once and the others lazily", () => {
    const root = body(
      block("images", { align: "left" }, [
        block("image", { ref: fileRef("light"), refDark: fileRef("dark"), alt: "Alt" }, undefined, {
          fragments: [{ object: "fragment", fragment: "caption", nodes: [p("Cap ", text("tion", "bold"))] }],
        }),
        block("image", { ref: urlRef("https://cdn.example/x.png"), width: { unit: "%", value: 50 } }),
        block("image", { ref: fileRef("missing") }),
      ]),
    );
    expect(one(root, "div.q-images").attrs.class).toBe("q-images q-align-left");
    const [first, second] = all(root, "img");
    expect(first!.attrs).toMatchObject({ src: "/files/light.svg", alt: "Alt", width: "480", height: "200", fetchpriority: "high" });
    expect(first!.attrs.loading).toBeUndefined();
    expect(second!.attrs.loading).toBe("lazy");
    expect(second!.attrs.fetchpriority).toBeUndefined();
    expect(one(root, "source").attrs).toMatchObject({ srcset: "/files/dark.svg", media: "(prefers-color-scheme: dark)" });
    expect(textOf(one(root, "figcaption"))).toBe("Cap tion");
    expect(textOf(one(one(root, "figcaption"), "strong"))).toBe("tion");
    expect(second!.attrs).toMatchObject({ src: "https://cdn.example/x.png", style: "width:50%" });
    expect(textOf(one(root, "figure.q-unavailable"))).toContain("Image not available");
  });

  it("renders drawings as images and files as download links with name and size", () => {
    const root = body(
      block("drawing", { ref: fileRef("light") }),
      block("file", { ref: fileRef("report") }),
      block("file", { ref: fileRef("gone") }),
    );
    expect(one(one(root, "figure.q-drawing"), "img").attrs.src).toBe("/files/light.svg");
    const file = one(root, "a.q-file");
    expect(file.attrs).toMatchObject({ href: "/files/report.pdf", download: "Quarterly report.pdf" });
    expect(textOf(one(file, "span.q-file-size"))).toBe("2.3 MB");
    expect(textOf(one(root, "div.q-unavailable"))).toBe("File not available");
  });

  it("embeds CodePen, Figma, Google Slides and Spotify from validated ids only", () => {
    const result = render(
      doc(
        block("embed", { url: "https://codepen.io/quire/pen/abcDEF1" }),
        block("embed", { url: "https://www.figma.com/design/AbCdEfGhIjKlMnOp/My-file?node-id=1-2" }),
        block("embed", { url: "https://docs.google.com/presentation/d/1AbCdEfGhIjKlMnOpQrStUvWxYz_0123/edit#slide=id.p" }),
        block("embed", { url: "https://open.spotify.com/episode/0123456789abcdefABCDEF" }),
        block("embed", { url: "https://codepen.io/quire/pen/a%22b" }),
        block("embed", { url: "https://www.figma.com/design/short/x" }),
        block("embed", { url: "https://docs.google.com/document/d/1AbCdEfGhIjKlMnOpQrStUvWxYz_0123/edit" }),
      ),
    );
    const root = dom(result.html);
    expect(all(root, "iframe").map((f) => f.attrs.src)).toEqual([
      "https://codepen.io/quire/embed/abcDEF1?default-tab=result",
      `https://www.figma.com/embed?embed_host=quire&url=${encodeURIComponent("https://www.figma.com/design/AbCdEfGhIjKlMnOp")}`,
      "https://docs.google.com/presentation/d/1AbCdEfGhIjKlMnOpQrStUvWxYz_0123/embed",
      "https://open.spotify.com/embed/episode/0123456789abcdefABCDEF",
    ]);
    expect(all(root, "a.q-embed-link")).toHaveLength(3);
  });

  it("embeds YouTube, Vimeo and Loom in sandboxed iframes and links everything else", () => {
    const result = render(
      doc(
        block("embed", { url: "https://youtu.be/dQw4w9WgXcQ" }),
        block("embed", { url: "https://vimeo.com/76979871" }),
        block("embed", { url: "https://www.loom.com/share/0123456789abcdef0123456789abcdef" }),
        block("embed", { url: 'https://www.youtube.com/watch?v=bad"id' }),
        block("embed", { url: "https://twitter.com/x/status/1" }),
      ),
    );
    const root = dom(result.html);
    const frames = all(root, "iframe");
    expect(frames.map((f) => f.attrs.src)).toEqual([
      "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
      "https://player.vimeo.com/video/76979871",
      "https://www.loom.com/embed/0123456789abcdef0123456789abcdef",
    ]);
    expect(frames.every((f) => f.attrs.sandbox === "allow-scripts allow-same-origin allow-presentation allow-popups")).toBe(true);
    expect(all(root, "a.q-embed-link").map((a) => a.attrs.href)).toEqual([
      'https://www.youtube.com/watch?v=bad"id',
      "https://twitter.com/x/status/1",
    ]);
    expect(result.features.has("embed")).toBe(true);
  });

  it("renders tabs as radio buttons, labels and panels (working without script)", () => {
    const result = render(doc(block("tabs", {}, [block("tabs-item", { title: "One" }, [p("1")]), block("tabs-item", {}, [p("2")])])));
    const root = dom(result.html);
    const radios = all(root, "input.q-tab-radio");
    expect(radios).toHaveLength(2);
    expect(new Set(radios.map((r) => r.attrs.name)).size).toBe(1);
    expect(radios.map((r) => "checked" in r.attrs)).toEqual([true, false]);
    expect(all(root, "label.q-tab-label").map((l) => [l.attrs.for, textOf(l)])).toEqual([
      [radios[0]!.attrs.id, "One"],
      [radios[1]!.attrs.id, "Tab 2"],
    ]);
    expect(all(root, "div.q-tab-panel").map(textOf)).toEqual(["1", "2"]);
    expect(result.features.has("tabs")).toBe(true);
    // Two groups on one page never share a radio name.
    const two = dom(
      render(doc(block("tabs", {}, [block("tabs-item", {}, [p("a")])]), block("tabs", {}, [block("tabs-item", {}, [p("b")])]))).html,
    );
    expect(new Set(all(two, "input").map((r) => r.attrs.name)).size).toBe(2);
    // Two documents on one page keep apart with env.idPrefix (headings keep their anchors).
    const prefixed = dom(
      render(doc(h(2, "Title"), block("tabs", {}, [block("tabs-item", {}, [p("a")])])), { ...testEnv(), idPrefix: "side" }).html,
    );
    expect(one(prefixed, "input").attrs.name).toMatch(/^side-tabs-\d+$/);
    expect(one(prefixed, "h3").attrs.id).toBe("title");
  });

  it("names where a link goes when its text does not ('here', 'read more'): the page's title or the site's host, visually hidden", () => {
    const root = dom(
      render(
        doc(
          p(
            inline("link", { ref: urlRef("https://www.serpapi.com/users/sign_up") }, [text("here")]),
            inline("link", { ref: { kind: "page", page: "p1" } }, [text("Read more")]),
            inline("link", { ref: urlRef("https://example.com/guide") }, [text("the guide")]),
          ),
        ),
      ).html,
    );
    const [here, more, guide] = all(root, "a.q-link");
    expect(textOf(here!)).toBe("here (serpapi.com)");
    expect(one(here!, "span.q-visually-hidden").attrs.class).toBe("q-visually-hidden");
    expect(textOf(more!)).toBe("Read more (Page p1)");
    // A link that says where it goes is left as written.
    expect(textOf(guide!)).toBe("the guide");
    expect(all(guide!, "span")).toHaveLength(0);
  });

  it("shows the links of an expandable's title as their text: the summary is the control, and holds no other", () => {
    const root = body(
      block("expandable", {}, undefined, {
        fragments: [
          {
            object: "fragment",
            fragment: "expandable-title",
            type: "expandable-title",
            nodes: [p(text("Learn with "), inline("link", { ref: urlRef("https://training.example") }, [text("the course")]))],
          },
          { object: "fragment", fragment: "expandable-body", type: "expandable-body", nodes: [p("Body")] },
        ],
      }),
    );
    const summary = one(root, "summary");
    expect(textOf(summary)).toBe("Learn with the course");
    expect(all(summary, "a")).toHaveLength(0);
  });

  it("renders expandables as <details>, steppers as an ordered list, columns side by side", () => {
    const root = body(
      block("expandable", {}, undefined, {
        meta: { id: "faq" },
        fragments: [
          { object: "fragment", fragment: "expandable-title", type: "expandable-title", nodes: [p("Title")] },
          { object: "fragment", fragment: "expandable-body", type: "expandable-body", nodes: [p("Body")] },
        ],
      }),
      block("stepper", {}, [block("stepper-step", {}, [p("s1")]), block("stepper-step", {}, [p("s2")])]),
      block("columns", {}, [block("column", { width: { unit: "%", value: 30 } }, [p("left")]), block("column", {}, [p("right")])]),
    );
    const details = one(root, "details.q-expandable");
    expect(details.attrs.id).toBe("faq");
    expect(textOf(one(details, "summary"))).toBe("Title");
    expect(textOf(one(details, "div.q-expandable-body"))).toBe("Body");
    expect(all(one(root, "ol.q-stepper"), "li").map(textOf)).toEqual(["s1", "s2"]);
    const columns = all(root, "div.q-column");
    expect(columns.map(textOf)).toEqual(["left", "right"]);
    expect(columns[0]!.attrs.style).toBe("--q-col:30%");
  });

  it("shows conditional blocks by env.condition", () => {
    const seen: string[] = [];
    const env = {
      ...testEnv(),
      condition: (e: string) => {
        seen.push(e);
        return e === "yes";
      },
    };
    const root = dom(
      render(doc(block("if", { expression: "yes" }, [p("shown")]), block("if", { expression: "no" }, [p("hidden")])), env).html,
    );
    expect(textOf(root)).toBe("shown");
    expect(seen).toEqual(["yes", "no"]);
  });

  it("renders content refs as link cards, or as text when the target is not visible", () => {
    const env = testEnv({ hiddenPages: ["secret"] });
    const root = dom(
      render(
        doc(block("content-ref", { ref: { kind: "page", page: "p1" } }), block("content-ref", { ref: { kind: "page", page: "secret" } })),
        env,
      ).html,
    );
    const card = one(root, "a.q-card-link");
    expect(card.attrs.href).toBe("/docs/p1");
    expect(textOf(one(card, "span.q-card-title"))).toBe("Page p1");
    expect(all(root, "div.q-unavailable")).toHaveLength(1);
  });

  it("renders reusable content inline and guards against cycles", () => {
    const rc = (id: string) => block("reusable-content", { ref: { kind: "reusable-content", reusableContent: id } });
    const env = testEnv({ reusable: { a: doc(p("from a"), rc("b")), b: doc(p("from b"), rc("a")), self: doc(p("self"), rc("self")) } });
    const root = dom(render(doc(rc("a"), rc("self"), rc("missing")), env).html);
    expect(all(root, "p").map(textOf)).toEqual([
      "from a",
      "from b",
      "This reusable content includes itself and is shown only once.",
      "self",
      "This reusable content includes itself and is shown only once.",
    ]);
  });

  it("renders OpenAPI blocks as method, path, summary and a link", () => {
    const root = body(
      block("openapi-operation", { method: "delete", path: "/pets/{id}", ref: { kind: "openapi", spec: "petstore" } }),
      block("openapi-webhook", { name: "pet.created", method: "post", ref: { kind: "openapi", spec: "petstore" } }),
      block("openapi-schemas", { schemas: ["Pet"], ref: { kind: "openapi", spec: "petstore" } }),
      block("swagger", { method: "get", path: "/a", ref: urlRef("https://x.example/spec.json") }),
    );
    const [operation, webhook, swagger] = all(root, "a.q-openapi");
    expect(operation!.attrs.href).toBe("/api/petstore#delete-/pets/{id}");
    expect(textOf(one(operation!, "span.q-method"))).toBe("DELETE");
    expect(one(operation!, "span.q-method").attrs.class).toBe("q-method q-method-delete");
    expect(textOf(one(operation!, "code"))).toBe("/pets/{id}");
    expect(textOf(one(operation!, "span.q-openapi-summary"))).toBe("Summary of DELETE /pets/{id}");
    expect(textOf(webhook!)).toContain("pet.created");
    expect(swagger!.attrs.href).toBe("https://x.example/spec.json");
    expect(textOf(one(root, "div.q-openapi-schemas"))).toContain("Pet");
  });

  it("renders integration blocks as a link card to their URL, or a note without one", () => {
    const root = body(
      block("integration", { integration: "runkit", block: "notebook", props: {}, url: "https://runkit.com/e/1" }),
      block("integration", { integration: "mermaid", block: "diagram", props: { source: "x" } }),
    );
    const card = one(root, "a.q-integration");
    expect(card.attrs.href).toBe("https://runkit.com/e/1");
    expect(textOf(one(card, "span.q-card-hint"))).toBe("runkit / notebook");
    expect(textOf(one(root, "div.q-integration"))).toBe("Integration mermaid / diagram: interactive content is not available here.");
  });

  it("renders grid tables as a real <table> with every column type, rows in orderIndex order", () => {
    const document = everyBlockDocument();
    const table = document.nodes.find((n: any) => n.type === "table")!;
    const root = dom(render(doc(table)).html);
    expect(one(root, "div.q-table-wrap")).toBeTruthy();
    expect(all(root, "th").map(textOf)).toEqual(["Name", "Count", "Done", "Rating", "Tags", "Owner", "Files", "Link"]);
    const rows = all(one(root, "tbody"), "tr");
    expect(rows.map((r) => textOf(all(r, "td")[0]!))).toEqual(["First row", "Second row"]);
    const cells = all(rows[0]!, "td");
    expect(textOf(cells[1]!)).toBe("42");
    expect(cells[1]!.attrs.class).toBe("q-align-right");
    expect("checked" in one(cells[2]!, "input").attrs).toBe(true);
    expect(one(cells[3]!, "span.q-rating").attrs["aria-label"]).toBe("4 out of 5");
    expect(all(cells[4]!, "span.q-chip").map(textOf)).toEqual(["Alpha", "Beta"]);
    expect(one(cells[5]!, "a").attrs.href).toBe("/users/u1");
    expect(one(cells[6]!, "a").attrs.href).toBe("/files/report.pdf");
    expect(one(cells[7]!, "a").attrs.href).toBe("https://example.com");
  });

  it("applies the grid view's column widths and text alignments", () => {
    const table = block("table", {
      view: { type: "grid", columns: ["a", "b"], hideHeader: true, columnWidths: { a: 240 } },
      definition: {
        a: { id: "a", title: "A", type: "text", textAlignment: "center", verticalAlignment: "middle" },
        b: { id: "b", title: "B", type: "number" },
      },
      records: { r: { orderIndex: "a0", values: { b: 1 } } },
    });
    const root = dom(render(doc(table)).html);
    expect(all(root, "th")).toHaveLength(0);
    expect(all(root, "col").map((c) => c.attrs.style)).toEqual(["width:240px", undefined]);
    expect(all(root, "td").map((c) => c.attrs.class)).toEqual(["q-align-center q-valign-middle", "q-align-right"]);
  });

  it("renders the cards view as cards with cover and target link", () => {
    const table = everyBlockDocument().nodes.filter((n: any) => n.type === "table")[1]!;
    const root = dom(render(doc(table)).html);
    const cards = all(root, "div.q-card");
    expect(cards).toHaveLength(2);
    expect(one(cards[0]!, "img").attrs.src).toBe("/files/light.svg");
    expect(one(cards[0]!, "a.q-card-target").attrs.href).toBe("https://example.com");
    expect(textOf(one(cards[1]!, "div.q-card-body"))).toContain("Second row");
  });

  it("renders the text of unknown block and inline types, and tolerates malformed nodes", () => {
    const root = body(
      block("from-the-future", {}, [p("future text")]),
      p(inline("sparkle", {}, [text("inline future")])),
      { object: "block" },
      null,
      { object: "block", type: "paragraph", nodes: "not an array" },
      { object: "block", type: "list-ordered", data: { start: "x" }, nodes: [{ object: "text", leaves: [{ text: 5 }] }] },
      { object: "block", type: "table", data: { records: 3, definition: null } },
    );
    expect(textOf(root)).toContain("future text");
    expect(textOf(root)).toContain("inline future");
  });

  it("bounds nesting: 100,000 nested lists render without overflowing the stack", () => {
    let node: any = p("deepest");
    for (let i = 0; i < 100_000; i++) node = block("list-unordered", {}, [li(node)]);
    // CPU time: other processes on a loaded machine do not stretch it (test/helpers/cpu-time.ts).
    const { result, ms } = withCpuTime(() => render(doc(node)));
    expect(result.html).toContain("deepest");
    expect(ms).toBeLessThan(5_000);
  });

  it("renders every block type of the showcase document", () => {
    const result = render(everyBlockDocument(), testEnv({ reusable: everyBlockReusable() }, { version: "2.4" }));
    expect([...result.features].sort()).toEqual(["code", "embed", "math", "mermaid", "tabs"]);
    expect(result.html).toContain("From reusable content.");
    expect(result.html).not.toContain("Hidden by a condition.");
  });
});

describe("documentReferences", () => {
  it("collects files, pages, reusable contents and spaces from every place a document holds them", () => {
    const refs = documentReferences(
      doc(
        p(inline("link", { ref: { kind: "page", page: "p1", space: "s1" } }, [text("x")])),
        p(inline("link", { ref: { kind: "anchor", anchor: "a", page: "p2" } }, [text("x")])),
        block("images", {}, [block("image", { ref: fileRef("f1"), refDark: fileRef("f2") })]),
        block("reusable-content", { ref: { kind: "reusable-content", reusableContent: "rc1", space: "s2" } }),
        block("content-ref", { ref: { kind: "space", space: "s3" } }),
        everyBlockDocument().nodes.find((n: any) => n.type === "table"),
      ),
    );
    expect([...refs.files].sort()).toEqual(["dark", "f1", "f2", "light", "report"]);
    expect([...refs.pages].sort()).toEqual(["p1", "p2"]);
    expect([...refs.reusableContents]).toEqual(["rc1"]);
    expect([...refs.spaces].sort()).toEqual(["s1", "s2", "s3"]);
  });
});

describe("contentAssets", () => {
  it("lists files that exist, with content types", () => {
    const assets = contentAssets();
    const names = assets.map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(["content.css", "content.js", "katex/katex.min.css", "mermaid.min.js"]));
    expect(names.some((n) => /^katex\/fonts\/KaTeX_Main-Regular\.woff2$/.test(n))).toBe(true);
    for (const asset of assets) expect(existsSync(asset.path), asset.path).toBe(true);
    expect(assets.find((a) => a.name === "content.css")!.contentType).toMatch(/^text\/css/);
  });
});
