/**
 * The editor's document model: one table (NODE_RULES) that says, for every node type of GitBook's
 * JSON document (src/content/document/types.ts), which ProseMirror node holds it, where it may sit,
 * what its children are and which of its fields are fixed. The Tiptap schema (schema.ts) and both
 * directions of the conversion (convert.ts) are read off this table, so adding a node type is one
 * row here, not a case in three switches.
 *
 * How a GitBook node becomes a ProseMirror node (the same for every row):
 * - `key`, `data` and `meta` become attributes of the same names; every other field the row does
 *   not consume (an optional `isVoid`, a field of a later schema) goes into the `extra` attribute
 *   and is written back as it was. `key: false` means "had no key"; a null key (a node made in the
 *   editor) gets a fresh one on the way out.
 * - A block's `nodes` become its content; a void block's `fragments` become fragment nodes
 *   (FRAGMENT rows) so that captions, expandable bodies and table cells are edited in place.
 * - Inline content becomes text with marks. `link` and `annotation` are marks too (a link's
 *   inline images carry the link in their `link` attribute, since Yjs keeps no marks on inline
 *   nodes); an annotation's body is kept whole in its mark's `fragments` attribute.
 * - Anything the table does not know, or a known node that does not fit where it is or is not
 *   well formed, becomes an opaque atom holding its JSON as text, written back unchanged.
 *
 * Nesting follows @gitbook/api 0.146 (the contexts of ../document/nodes.ts): the editor cannot
 * build a document the content API's spec would refuse. `if` and `columns`, which 0.146 allows
 * only inside a table cell's fragment, are editable there and opaque anywhere else.
 */
import { type BlockContext, blockTypesAllowedIn } from "../document/nodes.js";

export type JsonObject = Record<string, unknown>;

/** Where a list of blocks lives; each context accepts the block types listed in CONTEXT_TYPES. */
export type Context =
  | Exclude<BlockContext, "annotation-body">
  | "list"
  | "images"
  | "tabs"
  | "stepper"
  | "columns"
  | "code"
  | "paragraphs"
  | "fragment";

/** How many blocks a context must hold (the spec's `minItems`/`maxItems`). */
export type Count = "any" | "some" | "one";

export type InlineSet = "text" | "code";

export type Content =
  | { kind: "none" }
  /** Inline content (`nodes` of texts and inlines): a text block. */
  | { kind: "inline"; inlines: InlineSet }
  /** `nodes` of blocks. */
  | { kind: "blocks"; context: Context; count: Count }
  /** `fragments`, matched against FRAGMENT rows: in this exact sequence, or any number of one kind. */
  | { kind: "fragments"; fragments: readonly FragmentRule[]; order: "sequence" | "repeat" }
  /** An inline holding inline content, kept as a mark on its text. */
  | { kind: "mark"; inner: "link" | "annotation" };

export interface NodeRule {
  /** GitBook's `type`. */
  type: string;
  object: "block" | "inline";
  /** The ProseMirror node (or mark, for `content.kind === "mark"`). */
  pm: string;
  /** Fixed attributes telling apart GitBook types that share a ProseMirror node (heading levels). */
  pmAttrs?: Readonly<Record<string, number>>;
  /** `isVoid` as the spec requires it; "optional": may be absent (kept in `extra` when present). */
  isVoid: boolean | "optional";
  /** "optional": `data` may be absent; otherwise the `data` a node made in the editor starts with. */
  data: "optional" | (() => JsonObject);
  content: Content;
  /** ProseMirror flags of the node (atom, isolating, ...): editing behaviour, not conversion. */
  flags?: { atom?: boolean; isolating?: boolean; defining?: boolean; code?: boolean; draggable?: boolean };
}

export interface FragmentRule {
  pm: string;
  /** The `fragment` this row matches and gives new fragments (any when absent). */
  fragment?: string;
  /** The `type` this row matches and gives new fragments (any when absent). */
  fragmentType?: string;
  context: Context;
  count: Count;
}

const none: Content = { kind: "none" };
const blocks = (context: Context, count: Count = "any"): Content => ({ kind: "blocks", context, count });
const empty = () => ({});

export const FRAGMENTS = {
  caption: { pm: "imageCaption", fragment: "caption", context: "paragraphs", count: "any" },
  expandableTitle: {
    pm: "expandableTitle",
    fragment: "expandable-title",
    fragmentType: "expandable-title",
    context: "paragraphs",
    count: "one",
  },
  expandableBody: {
    pm: "expandableBody",
    fragment: "expandable-body",
    fragmentType: "expandable-body",
    context: "expandable-body",
    count: "some",
  },
  tableCell: { pm: "tableFragment", context: "fragment", count: "any" },
} as const satisfies Record<string, FragmentRule>;

export const FRAGMENT_RULES: readonly FragmentRule[] = Object.values(FRAGMENTS);

const atom = { atom: true, draggable: true } as const;

/** Every node type of the stored document model. */
export const NODE_RULES: readonly NodeRule[] = [
  // ---- text blocks
  {
    type: "paragraph",
    object: "block",
    pm: "paragraph",
    isVoid: "optional",
    data: "optional",
    content: { kind: "inline", inlines: "text" },
  },
  ...([1, 2, 3] as const).map(
    (level): NodeRule => ({
      type: `heading-${level}`,
      object: "block",
      pm: "heading",
      pmAttrs: { level },
      isVoid: "optional",
      data: empty,
      content: { kind: "inline", inlines: "text" },
      flags: { defining: true },
    }),
  ),
  // ---- lists, quotes, hints
  { type: "list-ordered", object: "block", pm: "orderedList", isVoid: "optional", data: empty, content: blocks("list") },
  { type: "list-unordered", object: "block", pm: "bulletList", isVoid: "optional", data: "optional", content: blocks("list") },
  { type: "list-tasks", object: "block", pm: "taskList", isVoid: "optional", data: "optional", content: blocks("list") },
  {
    type: "list-item",
    object: "block",
    pm: "listItem",
    isVoid: "optional",
    data: "optional",
    content: blocks("list-item"),
    flags: { defining: true },
  },
  { type: "blockquote", object: "block", pm: "blockquote", isVoid: "optional", data: "optional", content: blocks("blockquote") },
  {
    type: "hint",
    object: "block",
    pm: "hint",
    isVoid: "optional",
    data: () => ({ style: "info" }),
    content: blocks("hint"),
    flags: { defining: true },
  },
  { type: "divider", object: "block", pm: "divider", isVoid: true, data: empty, content: none, flags: atom },
  // ---- code and math
  {
    type: "code",
    object: "block",
    pm: "codeBlock",
    isVoid: "optional",
    data: empty,
    content: blocks("code"),
    flags: { code: true, defining: true, isolating: true },
  },
  {
    type: "code-line",
    object: "block",
    pm: "codeLine",
    isVoid: "optional",
    data: empty,
    content: { kind: "inline", inlines: "code" },
    flags: { code: true },
  },
  { type: "math", object: "block", pm: "mathBlock", isVoid: true, data: () => ({ formula: "" }), content: none, flags: atom },
  // ---- media
  { type: "images", object: "block", pm: "images", isVoid: false, data: empty, content: blocks("images"), flags: { isolating: true } },
  {
    type: "image",
    object: "block",
    pm: "image",
    isVoid: true,
    data: empty,
    content: { kind: "fragments", fragments: [FRAGMENTS.caption], order: "repeat" },
    flags: { isolating: true, draggable: true },
  },
  { type: "file", object: "block", pm: "file", isVoid: true, data: empty, content: none, flags: atom },
  { type: "drawing", object: "block", pm: "drawing", isVoid: true, data: empty, content: none, flags: atom },
  { type: "embed", object: "block", pm: "embed", isVoid: true, data: () => ({ url: "" }), content: none, flags: atom },
  // ---- structure
  {
    type: "expandable",
    object: "block",
    pm: "expandable",
    isVoid: true,
    data: empty,
    content: { kind: "fragments", fragments: [FRAGMENTS.expandableTitle, FRAGMENTS.expandableBody], order: "sequence" },
    flags: { isolating: true, defining: true },
  },
  { type: "tabs", object: "block", pm: "tabs", isVoid: "optional", data: "optional", content: blocks("tabs"), flags: { isolating: true } },
  {
    type: "tabs-item",
    object: "block",
    pm: "tabsItem",
    isVoid: "optional",
    data: empty,
    content: blocks("tabs-item"),
    flags: { isolating: true, defining: true },
  },
  {
    type: "stepper",
    object: "block",
    pm: "stepper",
    isVoid: "optional",
    data: "optional",
    content: blocks("stepper"),
    flags: { isolating: true },
  },
  {
    type: "stepper-step",
    object: "block",
    pm: "stepperStep",
    isVoid: "optional",
    data: empty,
    content: blocks("stepper-step"),
    flags: { isolating: true, defining: true },
  },
  { type: "columns", object: "block", pm: "columns", isVoid: false, data: empty, content: blocks("columns"), flags: { isolating: true } },
  {
    type: "column",
    object: "block",
    pm: "column",
    isVoid: "optional",
    data: empty,
    content: blocks("column"),
    flags: { isolating: true, defining: true },
  },
  {
    type: "if",
    object: "block",
    pm: "conditional",
    isVoid: "optional",
    data: () => ({ expression: "" }),
    content: blocks("document"),
    flags: { isolating: true },
  },
  {
    type: "table",
    object: "block",
    pm: "table",
    isVoid: true,
    data: () => ({ view: { type: "grid", columns: [], hideHeader: false }, records: {}, definition: {} }),
    content: { kind: "fragments", fragments: [FRAGMENTS.tableCell], order: "repeat" },
    flags: { isolating: true, draggable: true },
  },
  // ---- references, API blocks, integrations
  { type: "content-ref", object: "block", pm: "contentRef", isVoid: true, data: empty, content: none, flags: atom },
  { type: "reusable-content", object: "block", pm: "reusableContent", isVoid: true, data: empty, content: none, flags: atom },
  { type: "swagger", object: "block", pm: "swagger", isVoid: true, data: empty, content: none, flags: atom },
  { type: "openapi-operation", object: "block", pm: "openapiOperation", isVoid: true, data: empty, content: none, flags: atom },
  { type: "openapi-schemas", object: "block", pm: "openapiSchemas", isVoid: true, data: empty, content: none, flags: atom },
  { type: "openapi-webhook", object: "block", pm: "openapiWebhook", isVoid: true, data: empty, content: none, flags: atom },
  { type: "integration", object: "block", pm: "integration", isVoid: true, data: () => ({ props: {} }), content: none, flags: atom },
  // ---- inlines
  { type: "link", object: "inline", pm: "link", isVoid: "optional", data: empty, content: { kind: "mark", inner: "link" } },
  {
    type: "annotation",
    object: "inline",
    pm: "annotation",
    isVoid: false,
    data: "optional",
    content: { kind: "mark", inner: "annotation" },
  },
  { type: "emoji", object: "inline", pm: "emoji", isVoid: true, data: () => ({ code: "" }), content: none },
  { type: "icon", object: "inline", pm: "icon", isVoid: true, data: () => ({ icon: "" }), content: none },
  { type: "expression", object: "inline", pm: "expression", isVoid: true, data: () => ({ expression: "" }), content: none },
  { type: "inline-math", object: "inline", pm: "mathInline", isVoid: true, data: () => ({ formula: "" }), content: none },
  { type: "inline-image", object: "inline", pm: "inlineImage", isVoid: true, data: empty, content: none },
  { type: "mention", object: "inline", pm: "mention", isVoid: true, data: empty, content: none },
  { type: "button", object: "inline", pm: "button", isVoid: true, data: () => ({ label: "", kind: "primary" }), content: none },
];

/**
 * The formatting marks of a leaf, in the order the document model writes them (canonicalMarks of
 * ../document/nodes.ts), which is also their ProseMirror rank. `color` alone has `data`.
 */
export const LEAF_MARKS: ReadonlyArray<{ type: string; pm: string; data?: () => JsonObject }> = [
  { type: "bold", pm: "bold" },
  { type: "italic", pm: "italic" },
  { type: "strikethrough", pm: "strike" },
  { type: "code", pm: "code" },
  { type: "keyboard", pm: "keyboard" },
  { type: "superscript", pm: "superscript" },
  { type: "subscript", pm: "subscript" },
  { type: "color", pm: "color", data: () => ({ text: "default", background: "default" }) },
];

/** The inline types each kind of inline content accepts (texts are always accepted). */
export const INLINE_SETS: Record<InlineSet | "link" | "annotation", ReadonlySet<string>> = {
  text: new Set(["link", "annotation", "emoji", "icon", "expression", "inline-math", "inline-image", "mention", "button"]),
  code: new Set(["annotation", "expression"]),
  link: new Set(["inline-image"]),
  annotation: new Set(),
};

/** ProseMirror names of the opaque atoms and the document. */
export const OPAQUE_BLOCK = "opaqueBlock";
export const OPAQUE_INLINE = "opaqueInline";
export const DOC = "doc";

const ALL_BLOCK_TYPES = new Set(NODE_RULES.filter((r) => r.object === "block").map((r) => r.type));

export const CONTEXT_TYPES: Record<Context, ReadonlySet<string>> = {
  document: blockTypesAllowedIn("document"),
  hint: blockTypesAllowedIn("hint"),
  blockquote: blockTypesAllowedIn("blockquote"),
  "list-item": blockTypesAllowedIn("list-item"),
  "tabs-item": blockTypesAllowedIn("tabs-item"),
  "stepper-step": blockTypesAllowedIn("stepper-step"),
  "expandable-body": blockTypesAllowedIn("expandable-body"),
  column: blockTypesAllowedIn("column"),
  list: new Set(["list-item"]),
  images: new Set(["image"]),
  tabs: new Set(["tabs-item"]),
  stepper: new Set(["stepper-step"]),
  columns: new Set(["column"]),
  code: new Set(["code-line"]),
  paragraphs: new Set(["paragraph"]),
  // `DocumentFragment.nodes` (a table cell) is any `DocumentBlock`.
  fragment: ALL_BLOCK_TYPES,
};

/** The ProseMirror group naming a context, e.g. "list-item" -> "ctxListItem". */
export function contextGroup(context: Context): string {
  return `ctx${context.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}`;
}

export const RULE_BY_TYPE: ReadonlyMap<string, NodeRule> = new Map(NODE_RULES.map((r) => [r.type, r]));

/** Rows by ProseMirror name; heading's three rows share one name and differ by `pmAttrs`. */
export const RULES_BY_PM: ReadonlyMap<string, readonly NodeRule[]> = (() => {
  const map = new Map<string, NodeRule[]>();
  for (const rule of NODE_RULES) map.set(rule.pm, [...(map.get(rule.pm) ?? []), rule]);
  return map;
})();

export const FRAGMENT_BY_PM: ReadonlyMap<string, FragmentRule> = new Map(FRAGMENT_RULES.map((r) => [r.pm, r]));
export const LEAF_MARK_BY_TYPE = new Map(LEAF_MARKS.map((m) => [m.type, m]));
export const LEAF_MARK_BY_PM = new Map(LEAF_MARKS.map((m) => [m.pm, m]));
