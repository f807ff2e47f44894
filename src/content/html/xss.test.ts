/**
 * Content is never trusted: markup in any field is shown as text, never parsed as markup, and no
 * URL the content supplies can run script. Each case parses the output as a browser would and
 * checks that no <script>, no event handler attribute and no script URL came out of it.
 */
import { describe, expect, it } from "vitest";
import { all, dom, type El, text as textOf } from "../../../test/helpers/html-dom.js";
import { block, code, doc, fileRef, h, inline, p, testEnv, text, urlRef } from "../../../test/helpers/render-documents.js";
import { renderDocument } from "./index.js";

const SCRIPT = `<script>window.pwned=1</script>`;
const IMG = `"><img src=x onerror=alert(1)>`;
const SCRIPT_URLS = [
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " java\tscript:alert(1)",
  "\u0001javascript:alert(1)",
  "vbscript:msgbox(1)",
  "data:text/html,<script>alert(1)</script>",
];

function assertInert(html: string): El {
  const root = dom(html);
  const stack: Array<El | string> = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node === "string") continue;
    expect(node.tag).not.toBe("script");
    // An <img src=x onerror=…> that escaped its string would be an img whose src is "x".
    if (node.tag === "img") expect(node.attrs.src).not.toBe("x");
    for (const [name, value] of Object.entries(node.attrs)) {
      expect(name.startsWith("on"), `event handler ${name}="${value}"`).toBe(false);
      if (["href", "src", "srcset", "action", "formaction", "xlink:href"].includes(name)) {
        expect(value.replace(/[\u0000-\u0020]/g, "").toLowerCase(), `${name}="${value}"`).not.toMatch(/^(javascript|vbscript|data):/);
      }
    }
    stack.push(...node.children);
  }
  return root;
}

const render = (...nodes: any[]) => renderDocument(doc(...nodes), testEnv()).html;

describe("escaping: markup in content is text", () => {
  it("in paragraph text and marks", () => {
    const root = assertInert(render(p(SCRIPT, text(IMG, "bold", "code"))));
    expect(textOf(root)).toBe(SCRIPT + IMG);
  });

  it("in a code block, highlighted or not", () => {
    const source = `</code></pre>${SCRIPT}\n${IMG}`;
    for (const syntax of ["html", "javascript", "unknown", undefined]) {
      const root = assertInert(render(code(syntax, source)));
      expect(textOf(all(root, "code")[0]!)).toBe(source);
    }
  });

  it("in a code block's title and syntax", () => {
    const root = assertInert(render(code(`"><script>x</script>`, "a", { title: SCRIPT })));
    expect(textOf(all(root, "span.q-code-title")[0]!)).toBe(SCRIPT);
    // The syntax is shown as written in the header's label: as text.
    expect(textOf(all(root, "span.q-code-language")[0]!)).toBe(`"><script>x</script>`);
  });

  it("in a mermaid source", () => {
    const source = `graph TD\n A[${SCRIPT}] --> B["</pre>${IMG}"]`;
    const root = assertInert(render(code("mermaid", source)));
    expect(textOf(all(root, "pre.mermaid")[0]!)).toBe(source);
  });

  it("in math formulas (KaTeX escapes them, and \\href stays text)", () => {
    const root = assertInert(
      render(
        block("math", { formula: `\\href{javascript:alert(1)}{x} ${SCRIPT}` }),
        p(inline("inline-math", { formula: `\\url{javascript:alert(1)} ${IMG}` })),
      ),
    );
    expect(all(root, "a")).toHaveLength(0);
  });

  it("in table cells, headers and select labels", () => {
    const table = block("table", {
      view: { type: "grid", columns: ["t", "s", "n"], hideHeader: false },
      definition: {
        t: { id: "t", title: SCRIPT, type: "text", textAlignment: "left" },
        s: { id: "s", title: "s", type: "select", multiple: false, options: [{ value: "v", label: IMG, color: "red" }] },
        n: { id: "n", title: "n", type: "whatever" },
      },
      records: { r: { orderIndex: "a0", values: { t: "frag", s: "v", n: SCRIPT } } },
    });
    table.fragments = [{ object: "fragment", fragment: "frag", nodes: [p(SCRIPT)] }];
    const root = assertInert(render(table));
    expect(textOf(root)).toContain(IMG);
  });

  it("in headings, custom anchors, tab titles, button labels, alt texts, file names and expressions", () => {
    const env = {
      ...testEnv({ files: { evil: { url: "/files/evil", name: IMG, contentType: "text/plain", size: 1 } } }),
      expression: () => SCRIPT,
    };
    const html = renderDocument(
      doc(
        h(1, SCRIPT),
        h(2, "x", { id: `" onmouseover="alert(1)` }),
        block("tabs", {}, [block("tabs-item", { title: SCRIPT }, [p("x")])]),
        p(inline("button", { label: IMG, kind: "primary", ref: urlRef("https://a.example") }), inline("expression", { expression: "x" })),
        block("images", {}, [block("image", { ref: fileRef("light"), alt: IMG })]),
        block("file", { ref: fileRef("evil") }),
      ),
      env,
    ).html;
    const root = assertInert(html);
    expect(textOf(root)).toContain(SCRIPT);
  });

  it("in attributes the renderer derives from content (colors, icons, methods, languages)", () => {
    const root = assertInert(
      render(
        p(
          text("c", { type: "color", data: { text: `red" onclick="x`, background: "$danger" } }),
          inline("icon", { icon: `a" onclick="x`, color: `"x` }),
        ),
        block("openapi-operation", { method: `get" onclick="x`, path: SCRIPT, ref: { kind: "openapi", spec: "s" } }),
        block("hint", { style: `info" onclick="x` }, [p("h")]),
        block("hint", { style: "toString" }, [p("h")]),
      ),
    );
    expect(textOf(root)).toContain(SCRIPT);
  });
});

describe("URLs: script URLs are refused and the text shown", () => {
  for (const url of SCRIPT_URLS) {
    it(`in a link, button, content ref and embed: ${JSON.stringify(url)}`, () => {
      const root = assertInert(
        render(
          p(inline("link", { ref: urlRef(url) }, [text("click me")])),
          p(inline("button", { label: "button", kind: "primary", ref: urlRef(url) })),
          block("content-ref", { ref: urlRef(url) }),
          block("embed", { url }),
          block("integration", { integration: "i", block: "b", props: {}, url }),
        ),
      );
      expect(all(root, "a")).toHaveLength(0);
      expect(all(root, "iframe")).toHaveLength(0);
      expect(textOf(root)).toContain("click me");
    });

    it(`in an image, inline image and table image: ${JSON.stringify(url)}`, () => {
      const table = block("table", {
        view: { type: "grid", columns: ["i"], hideHeader: true },
        definition: { i: { id: "i", title: "i", type: "image" } },
        records: { r: { orderIndex: "a0", values: { i: urlRef(url) } } },
      });
      const root = assertInert(
        render(
          block("images", {}, [block("image", { ref: urlRef(url), refDark: urlRef(url) })]),
          p(inline("inline-image", { ref: urlRef(url), alt: "alt" })),
          table,
        ),
      );
      expect(all(root, "img")).toHaveLength(0);
    });
  }

  it("refuses script URLs even when the env hands them back", () => {
    const env = {
      ...testEnv(),
      link: () => ({ href: "javascript:alert(1)", title: "t" }),
      file: () => ({ url: "javascript:alert(1)", name: "f", contentType: "x" }),
    };
    const root = assertInert(
      renderDocument(
        doc(
          p(inline("link", { ref: { kind: "page", page: "p" } }, [text("x")])),
          block("file", { ref: fileRef("f") }),
          block("drawing", { ref: fileRef("f") }),
        ),
        env,
      ).html,
    );
    expect(all(root, "a")).toHaveLength(0);
  });

  it("keeps a dark image URL one srcset candidate", () => {
    const root = assertInert(
      render(
        block("images", {}, [
          block("image", {
            ref: urlRef("https://a.example/x.png"),
            refDark: urlRef("https://a.example/d d.png 2x, https://evil.example/y.png"),
          }),
        ]),
      ),
    );
    expect(all(root, "source")[0]!.attrs.srcset).toBe("https://a.example/d%20d.png%202x%2C%20https://evil.example/y.png");
  });

  it("keeps web, mail, phone and relative links", () => {
    const urls = [
      "https://a.example/x?y=1&z=2",
      "http://b.example",
      "mailto:me@example.com",
      "tel:+3312345678",
      "/docs/page",
      "#anchor",
      "../up",
    ];
    const root = assertInert(render(p(...urls.map((url) => inline("link", { ref: urlRef(url) }, [text(url)])))));
    expect(all(root, "a").map((a) => a.attrs.href)).toEqual(urls);
  });
});
