/**
 * Documents for the editor model's tests: one holding every node type, mark and content reference
 * with every optional field set (or none of them), and random ones drawn from a seed. All follow
 * the 0.146 spec (the tests check that too) and the Slate normal form stored documents have
 * (texts merged, one between and around every inline).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { normalizeInlines } from "../../src/content/document/nodes.js";
import type { JSONDocument } from "../../src/content/document/types.js";
import { FIXTURES_DIR, readFixtures } from "../fixtures/markdown/fake-repository.js";

type Any = any;

/** A small seeded generator (mulberry32): the same seed gives the same document. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds nodes; `full` sets every optional field, `keys` gives every keyed node a unique key. */
export class Builder {
  private n = 0;
  constructor(
    readonly full: boolean,
    readonly keys: boolean,
  ) {}

  private key(): Any {
    return this.keys ? { key: `key${(this.n++).toString(36).padStart(4, "0")}` } : {};
  }

  opt<T>(value: T): T | undefined {
    return this.full ? value : undefined;
  }

  /** `fields` without the undefined ones (optional fields left out). */
  clean(fields: Any): Any {
    const out: Any = {};
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
    return out;
  }

  mark(type: string): Any {
    return type === "color" ? { object: "mark", type, data: { text: "green", background: "$warning" } } : { object: "mark", type };
  }

  text(value: string, ...marks: string[]): Any {
    return { object: "text", leaves: [{ object: "leaf", text: value, marks: marks.map((m) => this.mark(m)) }] };
  }

  /** A text of several leaves (each [text, ...marks]). */
  leaves(...leaves: Array<[string, ...string[]]>): Any {
    return { object: "text", leaves: leaves.map(([t, ...m]) => ({ object: "leaf", text: t, marks: m.map((x) => this.mark(x)) })) };
  }

  /** Inline content in the content engine's normal form (what the Markdown parser writes). */
  inlines(...items: Any[]): Any[] {
    return normalizeInlines(items);
  }

  block(type: string, fields: Any): Any {
    return this.clean({ object: "block", type, ...this.key(), ...fields });
  }

  inline(type: string, fields: Any): Any {
    return this.clean({ object: "inline", type, ...this.key(), ...fields });
  }

  fragment(fields: Any): Any {
    return this.clean({ object: "fragment", ...this.key(), ...fields });
  }

  paragraph(...items: Any[]): Any {
    return this.block("paragraph", {
      isVoid: this.opt(false),
      data: this.opt({ align: "center" }),
      nodes: this.inlines(...(items.length ? items : [this.text("A paragraph.")])),
    });
  }

  heading(level: 1 | 2 | 3, title: string): Any {
    const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    return this.block(`heading-${level}`, {
      isVoid: this.opt(false),
      data: this.clean({ id: this.opt(id), align: this.opt("start") }),
      nodes: this.inlines(this.text(title)),
      meta: this.opt({ id }),
    });
  }

  list(type: "list-ordered" | "list-unordered" | "list-tasks", items: Any[][]): Any {
    return this.block(type, {
      isVoid: this.opt(false),
      data: type === "list-ordered" ? this.clean({ start: this.opt(3) }) : this.opt({}),
      nodes: items.map((children, i) =>
        this.block("list-item", {
          isVoid: this.opt(false),
          data: type === "list-tasks" ? { checked: i % 2 === 0 } : this.opt({}),
          nodes: children,
        }),
      ),
    });
  }

  code(lines: string[], fancy = false): Any {
    return this.block("code", {
      isVoid: this.opt(false),
      data: this.clean({
        syntax: this.opt("typescript"),
        title: this.opt("example.ts"),
        overflow: this.opt("wrap"),
        lineNumbers: this.opt(true),
        fullWidth: this.opt(false),
        expandable: this.opt(true),
        collapsedLineCount: this.opt(3),
      }),
      nodes: lines.map((line, i) =>
        this.block("code-line", {
          isVoid: this.opt(false),
          data: this.clean({ highlighted: this.opt(i === 0) }),
          nodes:
            fancy && i === 0
              ? this.inlines(
                  this.text(`${line} `),
                  this.inline("expression", { isVoid: true, data: { expression: "space.vars.version" } }),
                  this.annotation("note"),
                )
              : this.inlines(this.text(line)),
        }),
      ),
    });
  }

  annotation(word: string): Any {
    return this.inline("annotation", {
      isVoid: false,
      data: this.opt({}),
      nodes: [this.text(word, "italic")],
      fragments: [
        this.fragment({
          fragment: this.opt("annotation-body"),
          type: "annotation-body",
          nodes: [this.paragraph(this.text("The note's "), this.text("body", "bold")), this.code(["x = 1"])],
        }),
      ],
    });
  }

  image(alt: string): Any {
    return this.block("image", {
      isVoid: true,
      data: this.clean({
        ref: { kind: "file", file: "file-light" },
        refDark: this.opt({ kind: "url", url: "https://example.com/dark.png" }),
        width: this.opt(320),
        height: this.opt({ unit: "%", value: 50 }),
        alt: this.opt(alt),
      }),
      fragments: this.full
        ? [this.fragment({ fragment: "caption", type: "caption", nodes: [this.paragraph(this.text("A caption"))] })]
        : [],
    });
  }

  images(): Any {
    return this.block("images", {
      isVoid: false,
      data: this.clean({ align: this.opt("left"), fullWidth: this.opt(true), withFrame: this.opt(true) }),
      nodes: [this.image("first"), this.image("second")],
    });
  }

  hint(style: string, children?: Any[]): Any {
    return this.block("hint", {
      isVoid: this.opt(false),
      data: this.clean({ style, icon: this.opt("star") }),
      nodes: children ?? [this.paragraph(this.text(`A ${style} hint.`))],
    });
  }

  quote(children?: Any[]): Any {
    return this.block("blockquote", {
      isVoid: this.opt(false),
      data: this.opt({}),
      nodes: children ?? [this.paragraph(this.text("Quoted."))],
    });
  }

  void(type: string, data: Any, meta?: Any): Any {
    return this.block(type, { isVoid: true, data, meta: meta ? this.opt(meta) : undefined });
  }

  expandable(body?: Any[]): Any {
    return this.block("expandable", {
      isVoid: true,
      data: {},
      fragments: [
        this.fragment({ fragment: "expandable-title", type: "expandable-title", nodes: [this.paragraph(this.text("Click me"))] }),
        this.fragment({ fragment: "expandable-body", type: "expandable-body", nodes: body ?? [this.paragraph(this.text("Hidden."))] }),
      ],
      meta: this.opt({ id: "click-me" }),
    });
  }

  tabs(children: Any[][]): Any {
    return this.block("tabs", {
      isVoid: this.opt(false),
      data: this.opt({ fullWidth: true }),
      nodes: children.map((nodes, i) =>
        this.block("tabs-item", {
          isVoid: this.opt(false),
          data: this.clean({ title: this.opt(`Tab ${i}`) }),
          nodes,
          meta: this.opt({ id: `tab-${i}` }),
        }),
      ),
    });
  }

  stepper(children: Any[][]): Any {
    return this.block("stepper", {
      isVoid: this.opt(false),
      data: this.opt({}),
      nodes: children.map((nodes) =>
        this.block("stepper-step", { isVoid: this.opt(false), data: this.clean({ icon: this.opt("rocket") }), nodes }),
      ),
    });
  }

  columns(children: Any[][]): Any {
    return this.block("columns", {
      isVoid: false,
      data: this.clean({ fullWidth: this.opt(true) }),
      nodes: children.map((nodes) =>
        this.block("column", {
          isVoid: this.opt(false),
          data: this.clean({ width: this.opt({ unit: "%", value: 50 }), verticalAlignment: this.opt("middle") }),
          nodes,
        }),
      ),
    });
  }

  table(kind: "grid" | "cards", cells: Any[][]): Any {
    const definition: Any = {
      name: { id: "name", title: "Name", type: "text", textAlignment: "left", ...(this.full ? { verticalAlignment: "top" } : {}) },
      count: { id: "count", title: "Count", type: "number" },
      done: { id: "done", title: "Done", type: "checkbox" },
      files: { id: "files", title: "Files", type: "files" },
      owner: { id: "owner", title: "Owner", type: "users", multiple: true },
      stars: { id: "stars", title: "Stars", type: "rating", max: 5 },
      tags: { id: "tags", title: "Tags", type: "select", multiple: true, options: [{ value: "a", label: "Alpha", color: "blue" }] },
      link: { id: "link", title: "Link", type: "content-ref" },
      cover: { id: "cover", title: "Cover", type: "image" },
    };
    const records: Any = {};
    cells.forEach((_, i) => {
      records[`r${i}`] = {
        orderIndex: `a${i}`,
        values: {
          name: `cell${i}`,
          count: i * 1.5,
          done: i % 2 === 0,
          files: ["file-light"],
          owner: ["user-1"],
          stars: null,
          tags: ["a"],
          // A URL or file reference here would match two of the spec's oneOf branches (content-ref and image).
          link: i % 2 ? { kind: "page", page: "page-1" } : this.clean({ kind: "anchor", anchor: "a", page: this.opt("page-1") }),
          cover: {
            ref: i % 2 ? { kind: "file", file: "file-light" } : { kind: "url", url: "https://example.com/c.png" },
            objectFit: "cover",
            alt: "Cover",
          },
        },
      };
    });
    const view =
      kind === "grid"
        ? this.clean({
            type: "grid",
            columns: Object.keys(definition),
            columnWidths: this.opt({ name: 40, count: 10 }),
            hideHeader: false,
            useNewSizing: this.opt(true),
          })
        : this.clean({
            type: "cards",
            cardSize: "medium",
            columns: ["name", "cover"],
            targetDefinition: this.opt("link"),
            coverDefinition: this.opt("cover"),
            coverDefinitionDark: this.opt("cover"),
            hideColumnTitle: this.opt(true),
          });
    return this.block("table", {
      isVoid: true,
      data: this.clean({ view, records, definition, fullWidth: this.opt(true) }),
      fragments: cells.map((nodes, i) => this.fragment({ fragment: `cell${i}`, type: this.opt("table-cell"), nodes })),
    });
  }

  ref(kind: string): Any {
    const refs: Record<string, Any> = {
      url: { kind: "url", url: "https://example.com/a?b=c#d" },
      file: { kind: "file", file: "file-light" },
      page: this.clean({ kind: "page", page: "page-1", space: this.opt("space-1") }),
      anchor: this.clean({ kind: "anchor", anchor: "intro", space: this.opt("space-1"), page: this.opt("page-1") }),
      user: { kind: "user", user: "user-1" },
      collection: { kind: "collection", collection: "collection-1" },
      space: { kind: "space", space: "space-1" },
      "reusable-content": this.clean({ kind: "reusable-content", reusableContent: "rc-1", space: this.opt("space-1") }),
      openapi: { kind: "openapi", spec: "petstore" },
    };
    return refs[kind];
  }
}

export const REF_KINDS = ["url", "file", "page", "anchor", "user", "collection", "space", "reusable-content", "openapi"];
export const MARK_TYPES = ["bold", "italic", "strikethrough", "code", "keyboard", "superscript", "subscript", "color"];

/** Every node type, mark and content reference kind, every optional field set (`full`) or none. */
export function everyNodeDocument(options: { full: boolean; keys: boolean }): JSONDocument {
  const b = new Builder(options.full, options.keys);
  const link = (kind: string, ...nodes: Any[]) =>
    b.inline("link", { isVoid: b.opt(false), data: { ref: b.ref(kind) }, nodes: b.inlines(...nodes) });
  const inlineImage = () =>
    b.inline("inline-image", {
      isVoid: true,
      data: b.clean({
        ref: { kind: "url", url: "https://example.com/i.png" },
        refDark: b.opt({ kind: "file", file: "file-dark" }),
        caption: b.opt("An icon"),
        alt: b.opt("icon"),
        size: b.opt("line"),
      }),
    });
  const essentials = () => [
    b.paragraph(),
    b.heading(3, "Inner heading"),
    b.list("list-unordered", [[b.paragraph()]]),
    b.void("divider", {}),
  ];
  const marked = MARK_TYPES.map((m) => b.text(`${m} `, m));
  const tabChildren = () => [
    ...essentials(),
    b.void("content-ref", { ref: b.ref("page") }),
    b.code(["tab code"]),
    b.void("embed", b.clean({ url: "https://www.youtube.com/watch?v=x", fullWidth: b.opt(true) })),
    b.void("file", { ref: b.ref("file") }),
    b.images(),
    b.void("drawing", b.clean({ ref: b.opt(b.ref("file")) })),
    b.hint("success"),
    b.quote(),
    b.void("math", { formula: "a^2+b^2=c^2" }),
    b.void("integration", { integration: "runkit", block: "notebook", props: {} }),
  ];
  return {
    object: "document",
    data: options.full ? { schemaVersion: 1, from: "generator" } : {},
    nodes: [
      b.heading(1, "Every node"),
      b.heading(2, "Marks and inlines"),
      b.paragraph(...marked, b.leaves(["bold italic ", "bold", "italic"], ["all ", ...MARK_TYPES], ["line\nbreak", "bold"]), b.text("\n")),
      b.paragraph(
        b.text("Links: "),
        ...REF_KINDS.flatMap((kind) => [link(kind, b.text(`to ${kind}`, "bold")), b.text(", ")]),
        link("url", b.text("image "), inlineImage(), b.text(" inside")),
        b.text(" and "),
        link("page", inlineImage()),
      ),
      b.paragraph(
        b.inline("emoji", { isVoid: true, data: { code: "1f680" } }),
        b.inline("icon", { isVoid: true, data: b.clean({ icon: "star", color: b.opt("$primary") }) }),
        b.inline("expression", { isVoid: true, data: { expression: "space.vars.version" } }),
        b.inline("inline-math", { isVoid: true, data: { formula: "e^{i\\pi}" } }),
        inlineImage(),
        b.text("an "),
        b.annotation("annotated"),
        b.text(" word, "),
        ...REF_KINDS.map((kind) => b.inline("mention", { isVoid: true, data: { ref: b.ref(kind) } })),
        b.inline("button", {
          isVoid: true,
          data: b.clean({ label: "Go", kind: "primary", icon: b.opt("arrow-right"), ref: b.ref("url") }),
        }),
        b.inline("button", { isVoid: true, data: { label: "More", kind: "secondary", ref: b.ref("page") } }),
      ),
      b.paragraph(b.text("")),
      b.heading(3, "Lists"),
      b.list("list-ordered", [[b.paragraph(), b.list("list-unordered", [[b.paragraph()]])], [b.paragraph()]]),
      b.list("list-unordered", [
        [
          b.paragraph(),
          b.code(["in a list"]),
          b.hint("info"),
          b.quote(),
          b.void("math", { formula: "x" }),
          b.table("grid", [[b.paragraph()]]),
        ],
      ]),
      b.list("list-tasks", [[b.paragraph(b.text("done"))], [b.paragraph(b.text("open"))]]),
      b.list("list-unordered", []),
      b.quote([b.paragraph(), b.heading(2, "Quoted heading"), b.quote(), b.void("divider", {})]),
      ...["info", "warning", "danger", "success"].map((style) => b.hint(style, essentials())),
      b.code(["const a = 1;", "", "console.log(a);"], true),
      b.code([]),
      b.void("math", { formula: "\\int_0^1 x\\,dx" }),
      b.images(),
      b.void("file", { ref: b.ref("file") }),
      b.void("drawing", b.clean({ ref: b.opt(b.ref("file")) })),
      b.void("embed", b.clean({ url: "https://example.com/embed", fullWidth: b.opt(false) })),
      b.expandable([
        ...essentials(),
        b.images(),
        b.code(["in expandable"]),
        b.table("cards", [[b.paragraph()]]),
        b.hint("warning"),
        b.quote(),
        b.void("reusable-content", { ref: b.ref("reusable-content") }),
      ]),
      b.tabs([tabChildren(), [b.paragraph()]]),
      b.stepper([tabChildren(), [b.paragraph()]]),
      b.table("grid", [
        [b.paragraph(b.text("cell "), b.text("bold", "bold"))],
        [
          b.block("if", {
            isVoid: b.opt(false),
            data: { expression: "visitor.claims.plan == 'pro'" },
            nodes: [b.paragraph(), b.hint("info")],
          }),
        ],
        [
          b.columns([
            [
              b.paragraph(),
              b.images(),
              b.code(["c"]),
              b.hint("info"),
              b.void("content-ref", { ref: b.ref("url") }),
              b.void("drawing", {}),
              b.void("embed", { url: "https://x" }),
              b.void("file", { ref: b.ref("file") }),
              b.void("integration", { integration: "i", block: "b", props: { a: {} } }),
              b.void("math", { formula: "y" }),
              b.quote(),
              b.table("grid", []),
            ],
            [b.paragraph()],
          ]),
        ],
        [],
      ]),
      b.table("cards", [[b.paragraph()]]),
      ...REF_KINDS.map((kind) => b.void("content-ref", { ref: b.ref(kind) })),
      b.void("reusable-content", { ref: b.ref("reusable-content") }, { token: "token-1" }),
      b.void("swagger", b.clean({ ref: b.ref("url"), path: "/pets", method: "get", expanded: b.opt(true), fullWidth: b.opt(true) }), {
        id: "get-pets",
      }),
      b.void("swagger", { ref: b.ref("file"), path: "/pets", method: "post" }),
      b.void("openapi-operation", { ref: b.ref("openapi"), path: "/pets/{id}", method: "get" }, { id: "op" }),
      b.void("openapi-schemas", b.clean({ ref: b.ref("openapi"), schemas: ["Pet", "Tag"], grouped: b.opt(false) }), { id: "schemas" }),
      b.void("openapi-webhook", { ref: b.ref("openapi"), name: "pet.created", method: "post" }, { id: "hook" }),
      b.void(
        "integration",
        b.clean({
          integration: "github",
          block: "repo",
          // Scalars in props match two of the spec's oneOf branches (PlainObject has no type); objects only.
          props: { nested: { deeper: {} }, other: {} },
          url: b.opt("https://github.com/a/b"),
          fullWidth: b.opt(true),
        }),
      ),
      b.void("divider", {}),
    ],
  } as JSONDocument;
}

/** The block types each context accepts under the 0.146 spec, for the random documents. */
const ESSENTIALS = ["paragraph", "heading", "list", "divider"];
const CONTEXTS: Record<string, string[]> = {
  document: [
    ...ESSENTIALS,
    "blockquote",
    "hint",
    "images",
    "file",
    "drawing",
    "embed",
    "code",
    "math",
    "expandable",
    "tabs",
    "table",
    "swagger",
    "openapi",
    "content-ref",
    "integration",
    "reusable-content",
    "stepper",
  ],
  hint: ESSENTIALS,
  blockquote: [...ESSENTIALS, "blockquote"],
  "list-item": [...ESSENTIALS, "code", "hint", "blockquote", "math", "table"],
  tab: [...ESSENTIALS, "content-ref", "code", "embed", "file", "images", "drawing", "hint", "blockquote", "math", "integration"],
  "expandable-body": [...ESSENTIALS, "images", "code", "table", "hint", "blockquote", "reusable-content"],
  column: [
    ...ESSENTIALS,
    "images",
    "code",
    "hint",
    "content-ref",
    "drawing",
    "embed",
    "file",
    "integration",
    "math",
    "blockquote",
    "table",
  ],
  fragment: [...ESSENTIALS, "blockquote", "hint", "code", "if", "columns", "images", "table"],
};

/** A random spec-valid document: nesting, node types, optional fields and inline content drawn from `seed`. */
export function randomDocument(seed: number, size = 25): JSONDocument {
  const random = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const b = new Builder(random() < 0.5, random() < 0.8);
  const words = ["alpha", "beta", "gamma", "delta", "\n", "ünïcödé", "emoji 🚀", "tab\tstop", " spaced "];
  const inlineItem = (): Any => {
    const r = random();
    if (r < 0.55) {
      const marks = MARK_TYPES.filter(() => random() < 0.15);
      return b.text(pick(words), ...marks);
    }
    if (r < 0.65)
      return b.inline("link", {
        data: { ref: b.ref(pick(REF_KINDS)) },
        nodes: b.inlines(b.text(pick(words), ...MARK_TYPES.filter(() => random() < 0.2))),
      });
    if (r < 0.7) return b.annotation(pick(["word", "note"]));
    if (r < 0.75) return b.inline("emoji", { isVoid: true, data: { code: "1f600" } });
    if (r < 0.8) return b.inline("expression", { isVoid: true, data: { expression: "page.vars.x" } });
    if (r < 0.85) return b.inline("inline-math", { isVoid: true, data: { formula: "x^2" } });
    if (r < 0.9) return b.inline("mention", { isVoid: true, data: { ref: b.ref("user") } });
    if (r < 0.95) return b.inline("icon", { isVoid: true, data: { icon: "star" } });
    return b.inline("button", { isVoid: true, data: { label: "Go", kind: "primary", ref: b.ref("url") } });
  };
  const inlines = () => Array.from({ length: Math.floor(random() * 6) }, inlineItem);
  let budget = size;
  const blocks = (context: string, depth: number, min = 0): Any[] => {
    const count = Math.max(min, Math.floor(random() * (depth === 0 ? size : 4)));
    return Array.from({ length: count }, () => block(context, depth));
  };
  const block = (context: string, depth: number): Any => {
    budget--;
    const deep = depth > 3 || budget < 0;
    const type = deep ? "paragraph" : pick(CONTEXTS[context]!);
    switch (type) {
      case "paragraph":
        return b.paragraph(...inlines());
      case "heading":
        return b.heading(pick([1, 2, 3] as const), pick(words).trim() || "Title");
      case "list":
        return b.list(
          pick(["list-ordered", "list-unordered", "list-tasks"] as const),
          Array.from({ length: 1 + Math.floor(random() * 3) }, () => blocks("list-item", depth + 1)),
        );
      case "divider":
        return b.void("divider", {});
      case "blockquote":
        return b.quote(blocks("blockquote", depth + 1));
      case "hint":
        return b.hint(pick(["info", "warning", "danger", "success"]), blocks("hint", depth + 1));
      case "code":
        return b.code(
          Array.from({ length: Math.floor(random() * 4) }, () => pick(words)),
          random() < 0.3,
        );
      case "images":
        return b.images();
      case "file":
        return b.void("file", { ref: b.ref("file") });
      case "drawing":
        return b.void("drawing", {});
      case "embed":
        return b.void("embed", { url: "https://example.com" });
      case "math":
        return b.void("math", { formula: "1+1" });
      case "expandable":
        return b.expandable(blocks("expandable-body", depth + 1, 1));
      case "tabs":
        return b.tabs(Array.from({ length: 1 + Math.floor(random() * 3) }, () => blocks("tab", depth + 1)));
      case "stepper":
        return b.stepper(Array.from({ length: 1 + Math.floor(random() * 3) }, () => blocks("tab", depth + 1)));
      case "table":
        return b.table(
          pick(["grid", "cards"] as const),
          Array.from({ length: Math.floor(random() * 3) }, () => blocks("fragment", depth + 1)),
        );
      case "if":
        return b.block("if", { data: { expression: "true" }, nodes: blocks("document", depth + 1) });
      case "columns":
        return b.columns(Array.from({ length: 1 + Math.floor(random() * 2) }, () => blocks("column", depth + 1)));
      case "swagger":
        return b.void("swagger", { ref: b.ref("url"), path: "/a", method: "get" });
      case "openapi":
        return b.void(pick(["openapi-operation", "openapi-webhook"]), { ref: b.ref("openapi"), path: "/a", name: "n", method: "get" });
      case "content-ref":
        return b.void("content-ref", { ref: b.ref(pick(REF_KINDS)) });
      case "integration":
        return b.void("integration", { integration: "x", block: "y", props: { n: {} } });
      case "reusable-content":
        return b.void("reusable-content", { ref: b.ref("reusable-content") });
      default:
        throw new Error(`no generator for ${type}`);
    }
  };
  return { object: "document", data: {}, nodes: blocks("document", 0) } as JSONDocument;
}

/** Every Markdown file the project's tests use: the Markdown fixtures and the pages of the Git fixtures. */
export function markdownFixtures(): Array<{ name: string; markdown: string }> {
  const gitRoot = join(FIXTURES_DIR, "..", "git");
  const found: Array<{ name: string; markdown: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(".md"))
        found.push({ name: `git/${relative(gitRoot, full)}`, markdown: readFileSync(full, "utf8") });
    }
  };
  walk(gitRoot);
  return [...readFixtures().map((f) => ({ name: `markdown/${f.name}`, markdown: f.markdown })), ...found];
}
