/**
 * Documents for the HTML renderer's tests and screenshots: small node builders, an environment
 * that resolves refs like a site would, and one document holding every block type.
 */

import type { ContentRef, JSONDocument } from "../../src/content/document/types.js";
import type { RenderEnv, RenderedFile } from "../../src/content/html/index.js";

type Any = any;

export const text = (value: string, ...marks: Array<string | { type: "color"; data: Any }>): Any => ({
  object: "text",
  leaves: [
    {
      object: "leaf",
      text: value,
      marks: marks.map((m) => (typeof m === "string" ? { object: "mark", type: m } : { object: "mark", ...m })),
    },
  ],
});
export const inline = (type: string, data: Any, nodes?: Any[]): Any => ({
  object: "inline",
  type,
  isVoid: nodes === undefined,
  data,
  ...(nodes ? { nodes } : {}),
});
export const block = (type: string, data: Any = {}, nodes?: Any[], extra: Any = {}): Any => ({
  object: "block",
  type,
  data,
  ...(nodes ? { nodes } : {}),
  ...extra,
});
export const p = (...nodes: Array<string | Any>): Any =>
  block(
    "paragraph",
    {},
    nodes.map((n) => (typeof n === "string" ? text(n) : n)),
  );
export const h = (level: 1 | 2 | 3, value: string, data: Any = {}): Any => block(`heading-${level}`, data, [text(value)]);
export const li = (...blocks: Any[]): Any => block("list-item", {}, blocks);
export const code = (syntax: string | undefined, source: string, data: Any = {}): Any =>
  block(
    "code",
    { ...(syntax ? { syntax } : {}), ...data },
    source.split("\n").map((line, i) => block("code-line", data.highlight?.includes(i) ? { highlighted: true } : {}, [text(line)])),
  );
export const doc = (...nodes: Any[]): JSONDocument => ({ object: "document", data: {}, nodes });
export const fileRef = (file: string): Any => ({ kind: "file", file });
export const urlRef = (url: string): Any => ({ kind: "url", url });

const PIXEL_LIGHT =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="200"><rect width="480" height="200" fill="#dbe7ff"/><text x="240" y="110" font-size="28" text-anchor="middle" font-family="sans-serif" fill="#234">light image</text></svg>`,
  );
const PIXEL_DARK =
  "data:image/svg+xml;utf8," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="200"><rect width="480" height="200" fill="#1d2b45"/><text x="240" y="110" font-size="28" text-anchor="middle" font-family="sans-serif" fill="#cde">dark image</text></svg>`,
  );

export interface TestEnvOptions {
  files?: Record<string, RenderedFile>;
  reusable?: Record<string, JSONDocument>;
  hiddenPages?: string[];
  /** File URLs are made absolute on this origin (screenshots serve them); data: URLs are refused by the renderer. */
  fileOrigin?: string;
}

/** An env like the site's: pages become /docs/<id>, files come from a table, expressions read `vars`. */
export function testEnv(options: TestEnvOptions = {}, vars: Record<string, string> = {}): RenderEnv & { calls: string[] } {
  const calls: string[] = [];
  const files: Record<string, RenderedFile> = {
    light: { url: `${options.fileOrigin ?? ""}/files/light.svg`, name: "light.svg", contentType: "image/svg+xml", width: 480, height: 200 },
    dark: { url: `${options.fileOrigin ?? ""}/files/dark.svg`, name: "dark.svg", contentType: "image/svg+xml", width: 480, height: 200 },
    report: {
      url: `${options.fileOrigin ?? ""}/files/report.pdf`,
      name: "Quarterly report.pdf",
      contentType: "application/pdf",
      size: 2_411_724,
    },
    ...options.files,
  };
  return {
    calls,
    link(ref: ContentRef) {
      calls.push(`link:${ref.kind}`);
      switch (ref.kind) {
        case "url":
          return { href: ref.url };
        case "page":
          return options.hiddenPages?.includes(ref.page) ? undefined : { href: `/docs/${ref.page}`, title: `Page ${ref.page}` };
        case "anchor":
          return ref.page ? { href: `/docs/${ref.page}#${ref.anchor}`, title: `Page ${ref.page}` } : undefined;
        case "user":
          return { href: `/users/${ref.user}`, title: `User ${ref.user}` };
        case "file": {
          const file = files[ref.file];
          return file ? { href: file.url, title: file.name } : undefined;
        }
        case "openapi":
          return { href: `/api/${ref.spec}`, title: ref.spec };
        default:
          return undefined;
      }
    },
    file: (id) => files[id],
    reusableContent: (id) => options.reusable?.[id],
    expression: (expression) => {
      const match = /^(?:space|page)\.vars\.(\w+)$/.exec(expression.trim());
      return match ? (vars[match[1]!] ?? "") : "";
    },
    condition: (expression) => expression.trim() !== "false" && !/visitor/.test(expression),
    operation: (spec, method, path) => ({ summary: `Summary of ${method.toUpperCase()} ${path}`, href: `/api/${spec}#${method}-${path}` }),
  };
}

export const SVG_FILES: Record<string, string> = {
  "/files/light.svg": decodeURIComponent(PIXEL_LIGHT.slice(PIXEL_LIGHT.indexOf(",") + 1)),
  "/files/dark.svg": decodeURIComponent(PIXEL_DARK.slice(PIXEL_DARK.indexOf(",") + 1)),
};

const tableBlock = (view: Any): Any =>
  block(
    "table",
    {
      view,
      definition: {
        name: { id: "name", title: "Name", type: "text", textAlignment: "left" },
        count: { id: "count", title: "Count", type: "number" },
        done: { id: "done", title: "Done", type: "checkbox" },
        stars: { id: "stars", title: "Rating", type: "rating", max: 5 },
        tags: {
          id: "tags",
          title: "Tags",
          type: "select",
          multiple: true,
          options: [
            { value: "a", label: "Alpha", color: "blue" },
            { value: "b", label: "Beta", color: "red" },
          ],
        },
        owner: { id: "owner", title: "Owner", type: "users", multiple: false },
        files: { id: "files", title: "Files", type: "files" },
        link: { id: "link", title: "Link", type: "content-ref" },
        cover: { id: "cover", title: "Cover", type: "image" },
      },
      records: {
        r2: {
          orderIndex: "a1",
          values: {
            name: "f2",
            count: 7,
            done: false,
            stars: 2,
            tags: ["b"],
            owner: ["u2"],
            files: [],
            link: { kind: "page", page: "p2" },
            cover: fileRef("dark"),
          },
        },
        r1: {
          orderIndex: "a0",
          values: {
            name: "f1",
            count: 42,
            done: true,
            stars: 4,
            tags: ["a", "b"],
            owner: ["u1"],
            files: ["report"],
            link: urlRef("https://example.com"),
            cover: fileRef("light"),
          },
        },
      },
    },
    undefined,
    {
      isVoid: true,
      fragments: [
        { object: "fragment", fragment: "f1", nodes: [p(text("First ", "bold"), "row")] },
        { object: "fragment", fragment: "f2", nodes: [p("Second row")] },
      ],
    },
  );

/** One document with every block and inline type the content engine stores. */
export function everyBlockDocument(): JSONDocument {
  return doc(
    h(1, "Every block"),
    p(
      "Plain, ",
      text("bold", "bold"),
      ", ",
      text("italic", "italic"),
      ", ",
      text("code", "code"),
      ", ",
      text("Ctrl+C", "keyboard"),
      ", ",
      text("struck", "strikethrough"),
      ", x",
      text("2", "superscript"),
      ", H",
      text("2", "subscript"),
      "O, ",
      text("green on yellow", { type: "color", data: { text: "green", background: "yellow" } }),
      ".",
    ),
    p(
      inline("link", { ref: urlRef("https://example.com") }, [text("an external link")]),
      ", ",
      inline("link", { ref: { kind: "page", page: "p2" } }, [text("a page")]),
      ", ",
      inline("mention", { ref: { kind: "user", user: "u1" } }),
      ", ",
      inline("emoji", { code: "1f680" }),
      " ",
      inline("icon", { icon: "star", color: "$primary" }),
      " version ",
      inline("expression", { expression: "space.vars.version" }),
      ", ",
      inline("inline-math", { formula: "e^{i\\pi}+1=0" }),
      ", ",
      {
        ...inline("annotation", {}, [text("annotated words")]),
        fragments: [{ object: "fragment", type: "annotation-body", nodes: [p("The note ", text("explains", "italic"), " the words.")] }],
      },
      " and an inline image ",
      inline("inline-image", { ref: fileRef("light"), size: "line", alt: "tiny" }),
      ".",
    ),
    p(
      inline("button", { label: "Get started", kind: "primary", ref: { kind: "page", page: "p2" } }),
      " ",
      inline("button", { label: "Learn more", kind: "secondary", ref: urlRef("https://example.com") }),
    ),
    h(2, "Lists"),
    block("list-unordered", {}, [li(p("One")), li(p("Two"), block("list-unordered", {}, [li(p("Nested"))]))]),
    block("list-ordered", { start: 3 }, [li(p("Third")), li(p("Fourth"))]),
    block("list-tasks", {}, [
      block("list-item", { checked: true }, [p("Done task")]),
      block("list-item", { checked: false }, [p("Open task")]),
    ]),
    block("blockquote", {}, [p("A quotation.")]),
    h(2, "Hints"),
    ...["info", "success", "warning", "danger"].map((style) => block("hint", { style }, [p(`A ${style} hint.`)])),
    h(2, "Code"),
    code(
      "typescript",
      'const greeting: string = "hello"; // say it\n/* a comment\n   over lines */\nexport function hi() {\n  return greeting;\n}',
      {
        title: "hello.ts",
        lineNumbers: true,
        highlight: [1],
      },
    ),
    code("mermaid", "graph TD\n  A[Start] --> B{Works?}\n  B -->|yes| C[Ship]"),
    block("math", { formula: "\\int_0^1 x^2\\,dx = \\frac{1}{3}" }, undefined, { isVoid: true }),
    block("divider", {}, undefined, { isVoid: true }),
    h(2, "Media"),
    block("images", { align: "center" }, [
      block("image", { ref: fileRef("light"), refDark: fileRef("dark"), alt: "An image" }, undefined, {
        isVoid: true,
        fragments: [{ object: "fragment", fragment: "caption", nodes: [p("A caption with ", text("bold", "bold"))] }],
      }),
    ]),
    block("drawing", { ref: fileRef("light") }, undefined, { isVoid: true }),
    block("file", { ref: fileRef("report") }, undefined, { isVoid: true }),
    block("embed", { url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" }, undefined, { isVoid: true }),
    block("embed", { url: "https://example.com/some/page" }, undefined, { isVoid: true }),
    h(2, "Containers"),
    block("tabs", {}, [
      block("tabs-item", { title: "JavaScript" }, [code("javascript", "console.log(1);")]),
      block("tabs-item", { title: "Python" }, [code("python", "print(1)")]),
    ]),
    block("tabs", {}, [
      block("tabs-item", { title: "JavaScript" }, [p("Second group, JavaScript.")]),
      block("tabs-item", { title: "Python" }, [h(3, "In the Python tab"), p("Second group, Python.")]),
    ]),
    code("text", "line 1\nline 2\nline 3\nline 4\nline 5\nline 6", { title: "Collapsible", expandable: true, collapsedLineCount: 2 }),
    block("expandable", {}, undefined, {
      isVoid: true,
      fragments: [
        { object: "fragment", fragment: "expandable-title", type: "expandable-title", nodes: [p("Click to expand")] },
        { object: "fragment", fragment: "expandable-body", type: "expandable-body", nodes: [p("Hidden body.")] },
      ],
    }),
    block("stepper", {}, [
      block("stepper-step", {}, [h(3, "Install"), p("Run the installer.")]),
      block("stepper-step", {}, [h(3, "Configure"), p("Edit the file.")]),
    ]),
    block(
      "columns",
      { fullWidth: false },
      [
        block("column", { width: { unit: "%", value: 50 } }, [p("Left column")]),
        block("column", { width: { unit: "%", value: 50 } }, [p("Right column")]),
      ],
      { isVoid: false },
    ),
    block("if", { expression: "true" }, [p("Shown by a condition.")]),
    block("if", { expression: "false" }, [p("Hidden by a condition.")]),
    h(2, "References"),
    block("content-ref", { ref: { kind: "page", page: "p2" } }, undefined, { isVoid: true }),
    block("content-ref", { ref: urlRef("https://example.com/guide") }, undefined, { isVoid: true }),
    block("reusable-content", { ref: { kind: "reusable-content", reusableContent: "rc1" } }, undefined, { isVoid: true }),
    block("openapi-operation", { method: "get", path: "/pets/{id}", ref: { kind: "openapi", spec: "petstore" } }, undefined, {
      isVoid: true,
    }),
    block("openapi-webhook", { name: "pet.created", method: "post", ref: { kind: "openapi", spec: "petstore" } }, undefined, {
      isVoid: true,
    }),
    block("openapi-schemas", { schemas: ["Pet", "Category"], ref: { kind: "openapi", spec: "petstore" } }, undefined, { isVoid: true }),
    block("swagger", { method: "post", path: "/pet", ref: urlRef("https://petstore.swagger.io/v2/swagger.json") }, undefined, {
      isVoid: true,
    }),
    block("integration", { integration: "runkit", block: "notebook", props: {}, url: "https://runkit.com/e/1" }, undefined, {
      isVoid: true,
    }),
    h(2, "Tables"),
    tableBlock({ type: "grid", columns: ["name", "count", "done", "stars", "tags", "owner", "files", "link"], hideHeader: false }),
    tableBlock({
      type: "cards",
      cardSize: "medium",
      columns: ["name", "tags", "cover", "link"],
      coverDefinition: "cover",
      targetDefinition: "link",
    }),
    block("future-block", {}, [p("Text of an unknown block")]),
  );
}

export function everyBlockReusable(): Record<string, JSONDocument> {
  return { rc1: doc(block("hint", { style: "info" }, [p("From reusable content.")])) };
}
