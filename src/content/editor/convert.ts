/**
 * GitBook JSON documents to ProseMirror JSON and back, driven by the model table (model.ts).
 *
 * The law: `fromEditorDoc(toEditorDoc(d))` deep-equals `d` (key order aside) for every document,
 * valid or not (one nested too deeply for JSON.stringify is refused). What the editor cannot
 * express is carried so that it comes back unchanged:
 * - a node the table does not know, or that does not fit where it is, becomes an opaque atom;
 * - a block's inline content that does not come back identical from its ProseMirror form (marks
 *   in another order, a leaf split in two, keys on texts, ...) is kept whole in `inlineSource`
 *   and written back as long as the block's text, marks and inlines are unchanged; once edited,
 *   the block is written in the canonical form of ../document/nodes.ts, as the Markdown parser
 *   writes it.
 *
 * On the way out, nodes made in the editor (no `key`) get fresh keys, and a key met a second time
 * (a block copied and pasted) is replaced, keeping the first occurrence's key.
 *
 * Both directions are single passes (plus one comparison per text block), linear in the size of
 * the document. Neither mutates its input; the output shares `data`, `meta` and `extra` objects
 * with it, so copy before mutating those.
 */
import { invalid } from "../../lib/errors.js";
import { leaf, textNode } from "../document/nodes.js";
import type { DocumentMark, DocumentTextLeaf, JSONDocument } from "../document/types.js";
import {
  CONTEXT_TYPES,
  type Context,
  type Count,
  DOC,
  FRAGMENT_BY_PM,
  type FragmentRule,
  INLINE_SETS,
  type InlineSet,
  type JsonObject,
  LEAF_MARK_BY_PM,
  LEAF_MARK_BY_TYPE,
  LEAF_MARKS,
  type NodeRule,
  OPAQUE_BLOCK,
  OPAQUE_INLINE,
  RULE_BY_TYPE,
  RULES_BY_PM,
} from "./model.js";

/** ProseMirror's JSON form of a node (`Node.toJSON`). */
export interface EditorNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: EditorNode[];
  marks?: EditorMark[];
  text?: string;
}

export interface EditorMark {
  type: string;
  attrs?: Record<string, unknown>;
}

export interface FromEditorOptions {
  /** Makes a fresh block key (default: 12 random base62 characters, as the rest of the content engine). */
  newKey?: () => string;
}

/**
 * Blocks nested deeper than this are kept opaque: ProseMirror, y-prosemirror and the renderers
 * recurse, and no real document comes near (the Markdown parser stops far earlier).
 */
export const MAX_EDITOR_DEPTH = 200;

/**
 * Deepest JSON a node's attribute values (a table's data, an annotation's body) may have; a deeper
 * node is opaque, its JSON kept as text, since Yjs decodes attribute values recursively (it
 * overflowed the stack on a few thousand levels).
 */
export const MAX_ATTRIBUTE_DEPTH = 400;

// ---- small JSON helpers ------------------------------------------------------------------------

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values, object key order aside (`undefined` fields count as absent). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as JsonObject;
  const y = b as JsonObject;
  let count = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    count++;
    if (!sameJson(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) count--;
  return count === 0;
}

/** The fields of `node` other than `consumed`, or null when there are none. */
function rest(node: JsonObject, consumed: ReadonlySet<string>): JsonObject | null {
  let out: JsonObject | null = null;
  for (const k in node) {
    if (consumed.has(k) || node[k] === undefined) continue;
    out ??= {};
    out[k] = node[k];
  }
  return out;
}

const attrsOf = (node: EditorNode | EditorMark): Record<string, unknown> => node.attrs ?? {};

/** Attributes without the null ones (ProseMirror fills defaults; Yjs drops nulls anyway). */
function compact(attrs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) out[k] = attrs[k];
  return out;
}

// ---- GitBook -> ProseMirror --------------------------------------------------------------------

const BASE_FIELDS = ["object", "type", "key", "data", "meta"];
const CONSUMED = new Map<NodeRule, ReadonlySet<string>>();

/** The fields a row turns into attributes or content; the others go to `extra`. */
function consumedFields(rule: NodeRule): ReadonlySet<string> {
  let set = CONSUMED.get(rule);
  if (!set) {
    const fields = [...BASE_FIELDS];
    if (rule.isVoid !== "optional") fields.push("isVoid");
    const kind = rule.content.kind;
    if (kind === "inline" || kind === "blocks" || kind === "mark") fields.push("nodes");
    if (kind === "fragments" || (kind === "mark" && rule.content.inner === "annotation")) fields.push("fragments");
    set = new Set(fields);
    CONSUMED.set(rule, set);
  }
  return set;
}

/** Whether the node has the shape its row converts: anything else is kept opaque. */
function fitsRule(node: JsonObject, rule: NodeRule): boolean {
  if (node.object !== rule.object) return false;
  if (node.key !== undefined && typeof node.key !== "string") return false;
  if (rule.isVoid !== "optional" && node.isVoid !== rule.isVoid) return false;
  if (node.data !== undefined ? !isObject(node.data) : rule.data !== "optional") return false;
  if (node.meta !== undefined && !isObject(node.meta)) return false;
  const kind = rule.content.kind;
  if ((kind === "inline" || kind === "blocks" || kind === "mark") && !Array.isArray(node.nodes)) return false;
  if ((kind === "fragments" || (kind === "mark" && rule.content.inner === "annotation")) && !Array.isArray(node.fragments)) return false;
  return true;
}

/** `key`, `data`, `meta`, `extra` of a node (and the fixed attributes of its row). */
function nodeAttrs(node: JsonObject, rule: NodeRule): Record<string, unknown> {
  return compact({
    ...rule.pmAttrs,
    key: node.key === undefined ? false : node.key,
    data: node.data ?? null,
    meta: node.meta ?? null,
    extra: rest(node, consumedFields(rule)),
  });
}

/**
 * JSON kept aside (an opaque node, a block's inline source) is held as its text: Yjs's encoding of
 * attribute values recurses, and one string is also cheaper for it than a tree of small values.
 */
const asText = (value: unknown): string => JSON.stringify(value) ?? "null";

const opaqueBlock = (raw: unknown): EditorNode => ({ type: OPAQUE_BLOCK, attrs: { raw: asText(raw) } });
const opaqueInline = (raw: unknown): EditorNode => ({ type: OPAQUE_INLINE, attrs: { raw: asText(raw) } });

/**
 * Whether the fields a node keeps as attribute values (everything but the `nodes` and `fragments`
 * the editor holds as content) nest deeper than MAX_ATTRIBUTE_DEPTH; such a node is kept opaque.
 */
function attributesTooDeep(node: JsonObject, rule: NodeRule): boolean {
  const content = rule.content.kind;
  for (const k in node) {
    if (k === "nodes" && content !== "none") continue;
    if (k === "fragments" && content === "fragments") continue;
    if (deeperThan(node[k], MAX_ATTRIBUTE_DEPTH)) return true;
  }
  return false;
}

function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const k in v as JsonObject) {
      const child = (v as JsonObject)[k];
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

class ToEditor {
  blocks(nodes: unknown[], context: Context, depth: number): EditorNode[] {
    const out: EditorNode[] = [];
    for (const node of nodes) out.push(this.block(node, context, depth));
    return out;
  }

  /** A block in `context`, or an opaque atom when it cannot be one there. */
  block(node: unknown, context: Context, depth: number): EditorNode {
    const rule = isObject(node) && typeof node.type === "string" ? RULE_BY_TYPE.get(node.type) : undefined;
    if (
      !rule ||
      depth > MAX_EDITOR_DEPTH ||
      !CONTEXT_TYPES[context].has(rule.type) ||
      !fitsRule(node as JsonObject, rule) ||
      attributesTooDeep(node as JsonObject, rule)
    ) {
      return opaqueBlock(node);
    }
    return this.known(node as JsonObject, rule, depth) ?? opaqueBlock(node);
  }

  /** undefined when a fragment or a sole child does not fit (the whole block is then opaque). */
  private known(node: JsonObject, rule: NodeRule, depth: number): EditorNode | undefined {
    const out: EditorNode = { type: rule.pm, attrs: nodeAttrs(node, rule) };
    const content = rule.content;
    if (content.kind === "inline") {
      const nodes = node.nodes as unknown[];
      out.content = this.inlines(nodes, content.inlines);
      // The self-check of the module header: inline content that does not come back as it was is kept.
      if (!sameJson(inlinesFromEditor(out.content, content.inlines, SCRATCH), nodes)) out.attrs!.inlineSource = asText(nodes);
    } else if (content.kind === "blocks") {
      const children = this.counted(node.nodes as unknown[], content.context, content.count, depth);
      if (!children) return undefined;
      out.content = children;
    } else if (content.kind === "fragments") {
      const fragments = node.fragments as unknown[];
      const rules = content.order === "sequence" ? content.fragments : fragments.map(() => content.fragments[0]!);
      if (rules.length !== fragments.length) return undefined;
      const converted: EditorNode[] = [];
      for (let i = 0; i < fragments.length; i++) {
        const fragment = this.fragment(fragments[i], rules[i]!, depth + 1);
        if (!fragment) return undefined;
        converted.push(fragment);
      }
      out.content = converted;
    }
    if (out.content?.length === 0) delete out.content;
    return out;
  }

  private counted(nodes: unknown[], context: Context, count: Count, depth: number): EditorNode[] | undefined {
    if (count === "some" && nodes.length === 0) return undefined;
    if (count === "one") {
      if (nodes.length !== 1) return undefined;
      const only = this.block(nodes[0], context, depth + 1);
      return only.type === OPAQUE_BLOCK ? undefined : [only];
    }
    return this.blocks(nodes, context, depth + 1);
  }

  private fragment(node: unknown, rule: FragmentRule, depth: number): EditorNode | undefined {
    if (!isObject(node) || node.object !== "fragment" || !Array.isArray(node.nodes)) return undefined;
    if (node.key !== undefined && typeof node.key !== "string") return undefined;
    if (node.fragment !== undefined && typeof node.fragment !== "string") return undefined;
    if (node.type !== undefined && typeof node.type !== "string") return undefined;
    if (rule.fragment !== undefined && node.fragment !== rule.fragment) return undefined;
    if (rule.fragmentType !== undefined && node.type !== rule.fragmentType) return undefined;
    const children = this.counted(node.nodes, rule.context, rule.count, depth);
    if (!children) return undefined;
    const out: EditorNode = {
      type: rule.pm,
      attrs: compact({
        key: node.key === undefined ? false : node.key,
        // Absent is written as null, so a fragment of a row with a fixed name must have it (checked above).
        fragment: node.fragment ?? null,
        fragmentType: node.type ?? null,
        extra: rest(node, FRAGMENT_FIELDS),
      }),
    };
    if (children.length) out.content = children;
    return out;
  }

  inlines(nodes: unknown[], set: InlineSet): EditorNode[] {
    const out: EditorNode[] = [];
    for (const node of nodes) {
      if (!this.inline(node, INLINE_SETS[set], undefined, out)) out.push(opaqueInline(node));
    }
    return mergeTexts(out);
  }

  /**
   * Appends the ProseMirror form of one inline item (text, inline, link, annotation) to `out`;
   * false, appending nothing, when it has no such form here.
   */
  private inline(node: unknown, allowed: ReadonlySet<string>, around: EditorMark | undefined, out: EditorNode[]): boolean {
    if (!isObject(node)) return false;
    if (node.object === "text") return this.text(node, around, out);
    const rule = typeof node.type === "string" ? RULE_BY_TYPE.get(node.type) : undefined;
    if (rule?.object !== "inline" || !allowed.has(rule.type) || !fitsRule(node, rule) || attributesTooDeep(node, rule)) return false;
    const content = rule.content;
    if (content.kind === "mark") {
      const attrs = nodeAttrs(node, rule);
      delete attrs.meta;
      if (node.meta !== undefined) return false;
      if (content.inner === "annotation") attrs.fragments = node.fragments;
      const mark: EditorMark = { type: rule.pm, attrs };
      const inner: EditorNode[] = [];
      for (const child of node.nodes as unknown[]) if (!this.inline(child, INLINE_SETS[content.inner], mark, inner)) return false;
      // An empty link or annotation has no text to carry its mark.
      if (inner.length === 0) return false;
      for (const item of inner) out.push(item);
      return true;
    }
    const attrs = nodeAttrs(node, rule);
    if (around) attrs.link = around.attrs;
    out.push({ type: rule.pm, attrs });
    return true;
  }

  private text(node: JsonObject, around: EditorMark | undefined, out: EditorNode[]): boolean {
    // A key on a text (stored documents have none) is not kept here: the block's inline source keeps it.
    if (!Array.isArray(node.leaves)) return false;
    const start = out.length;
    for (const l of node.leaves) {
      const marks =
        isObject(l) && l.object === "leaf" && typeof l.text === "string" && Array.isArray(l.marks) ? leafMarks(l.marks) : undefined;
      if (!marks || rest(l as JsonObject, LEAF_FIELDS)) {
        out.length = start;
        return false;
      }
      if (l.text === "") continue;
      if (around) marks.unshift(around);
      out.push(marks.length ? { type: "text", text: l.text as string, marks } : { type: "text", text: l.text as string });
    }
    return true;
  }
}

/**
 * Neighbouring texts with the same marks as one text node, as ProseMirror holds them (leaves split
 * without a difference in marks, two annotations without keys or bodies that differ).
 */
function mergeTexts(items: EditorNode[]): EditorNode[] {
  const out: EditorNode[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last?.type === "text" && item.type === "text" && sameMarks(last.marks, item.marks)) {
      out[out.length - 1] = { ...last, text: last.text! + item.text! };
    } else out.push(item);
  }
  return out;
}

function sameMarks(a: EditorMark[] | undefined, b: EditorMark[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i]!.type !== y[i]!.type || !sameJson(x[i]!.attrs, y[i]!.attrs)) return false;
  return true;
}

const FRAGMENT_FIELDS: ReadonlySet<string> = new Set(["object", "key", "fragment", "type", "nodes"]);
const LEAF_FIELDS: ReadonlySet<string> = new Set(["object", "text", "marks"]);
const MARK_FIELDS: ReadonlySet<string> = new Set(["object", "type"]);
const COLOR_FIELDS: ReadonlySet<string> = new Set(["object", "type", "data"]);
const RANK = new Map(LEAF_MARKS.map((m, i) => [m.pm, i]));

/** A leaf's marks as ProseMirror marks in rank order; undefined when one is unknown or repeated. */
function leafMarks(marks: unknown[]): EditorMark[] | undefined {
  const out: EditorMark[] = [];
  const seen = new Set<string>();
  for (const mark of marks) {
    if (!isObject(mark) || mark.object !== "mark" || typeof mark.type !== "string") return undefined;
    const rule = LEAF_MARK_BY_TYPE.get(mark.type);
    if (!rule || seen.has(rule.pm)) return undefined;
    seen.add(rule.pm);
    if (rule.data && !isObject(mark.data)) return undefined;
    const attrs = compact({ ...(rule.data ? { data: mark.data } : {}), extra: rest(mark, rule.data ? COLOR_FIELDS : MARK_FIELDS) });
    out.push(Object.keys(attrs).length ? { type: rule.pm, attrs } : { type: rule.pm });
  }
  return out.sort((a, b) => RANK.get(a.type)! - RANK.get(b.type)!);
}

/** A stored document as ProseMirror JSON for the editor's schema (schema.ts). */
export function toEditorDoc(document: JSONDocument): EditorNode {
  const doc = document as unknown as JsonObject;
  if (!isObject(doc) || doc.object !== "document" || !Array.isArray(doc.nodes) || (doc.data !== undefined && !isObject(doc.data))) {
    throw invalid('The document must be an object with object: "document", a nodes array and an object as data.');
  }
  const out: EditorNode = {
    type: DOC,
    attrs: compact({ data: doc.data ?? null, extra: rest(doc, DOC_FIELDS) }),
  };
  let content: EditorNode[];
  try {
    content = new ToEditor().blocks(doc.nodes, "document", 0);
  } catch (error) {
    // JSON.stringify of an opaque subtree of thousands of levels (such a document cannot be stored either).
    if (error instanceof RangeError) throw invalid("The document nests too deeply to be edited.");
    throw error;
  }
  if (content.length) out.content = content;
  return out;
}

const DOC_FIELDS: ReadonlySet<string> = new Set(["object", "data", "nodes"]);

// ---- ProseMirror -> GitBook --------------------------------------------------------------------

interface OutState {
  /** Nodes made in the editor, to be given a fresh key once every existing key is known. */
  needsKey: JsonObject[] | null;
  /** Whether raw JSON taken from attributes is copied (the final pass may change keys inside it). */
  copy: boolean;
}

/** For the self-check: nothing is recorded or copied. */
const SCRATCH: OutState = { needsKey: null, copy: false };

const raw = (value: unknown, state: OutState) => (state.copy ? cloneJson(value) : value);

/** JSON kept as text (`asText`); a value that is not text (an editor that wrote the object itself) is copied. */
function fromText(value: unknown): unknown {
  if (typeof value !== "string") return cloneJson(value ?? null);
  try {
    return JSON.parse(value);
  } catch {
    throw invalid("The editor document has an opaque node whose JSON cannot be read.");
  }
}

/** A deep copy of JSON, with an explicit stack: opaque JSON may nest deeper than structuredClone's recursion goes. */
function cloneJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const copy = (v: object): JsonObject | unknown[] => (Array.isArray(v) ? new Array(v.length) : {});
  const root = copy(value);
  const stack: Array<[JsonObject, JsonObject]> = [[value as JsonObject, root as JsonObject]];
  while (stack.length) {
    const [from, to] = stack.pop()!;
    for (const k of Object.keys(from)) {
      const v = from[k];
      if (typeof v === "object" && v !== null) {
        const c = copy(v);
        to[k] = c;
        stack.push([v as JsonObject, c as JsonObject]);
      } else to[k] = v;
    }
  }
  return root;
}

function ruleOfEditorNode(node: EditorNode): NodeRule {
  const rules = RULES_BY_PM.get(node.type);
  // Rows sharing a node differ by fixed attributes; a missing one is the first row's (its default).
  const fixed = (k: string) => attrsOf(node)[k] ?? rules?.[0]?.pmAttrs?.[k];
  const rule = rules?.find((r) => Object.entries(r.pmAttrs ?? {}).every(([k, v]) => fixed(k) === v));
  if (!rule || rule.content.kind === "mark") {
    throw invalid(`The editor document has a node of type "${node.type}" that the document model does not know.`);
  }
  return rule;
}

/**
 * The key of a converted node: its own, none (`false`: it had none), or, for a node made in the
 * editor, a place held for the fresh key given once every existing key is known.
 */
function keyField(out: JsonObject, key: unknown, state: OutState): void {
  if (typeof key === "string") out.key = key;
  else if (key !== false && state.needsKey) {
    out.key = undefined;
    state.needsKey.push(out);
  }
}

/** object, type, key, isVoid, data: the head of a converted node, in the order stored documents have. */
function head(rule: NodeRule, attrs: Record<string, unknown>, state: OutState): JsonObject {
  const out: JsonObject = { object: rule.object, type: rule.type };
  keyField(out, attrs.key, state);
  if (rule.isVoid !== "optional") out.isVoid = rule.isVoid;
  // What is not an object (written by a client that does not follow the schema) is left for the default.
  const data = isObject(attrs.data) ? attrs.data : rule.data === "optional" ? null : rule.data();
  if (data !== null) out.data = data;
  return out;
}

/** meta and the fields kept in `extra`. */
function tail(out: JsonObject, attrs: Record<string, unknown>, state: OutState): JsonObject {
  if (isObject(attrs.meta)) out.meta = attrs.meta;
  if (isObject(attrs.extra)) for (const k in attrs.extra) if (!(k in out)) out[k] = raw(attrs.extra[k], state);
  return out;
}

function blockFromEditor(node: EditorNode, state: OutState): unknown {
  if (node.type === OPAQUE_BLOCK) return fromText(attrsOf(node).raw);
  const rule = ruleOfEditorNode(node);
  const attrs = attrsOf(node);
  const out = head(rule, attrs, state);
  const children = node.content ?? [];
  const content = rule.content;
  if (content.kind === "inline") {
    let nodes = inlinesFromEditor(children, content.inlines, state);
    const source = typeof attrs.inlineSource === "string" ? fromText(attrs.inlineSource) : undefined;
    if (
      Array.isArray(source) &&
      sameJson(nodes, inlinesFromEditor(new ToEditor().inlines(source, content.inlines), content.inlines, SCRATCH))
    ) {
      nodes = source;
    }
    out.nodes = nodes;
  } else if (content.kind === "blocks") {
    out.nodes = children.map((child) => blockFromEditor(child, state));
  } else if (content.kind === "fragments") {
    out.fragments = children.map((child) => fragmentFromEditor(child, state));
  }
  return tail(out, attrs, state);
}

function fragmentFromEditor(node: EditorNode, state: OutState): unknown {
  const rule = FRAGMENT_BY_PM.get(node.type);
  if (!rule) throw invalid(`The editor document has a fragment of type "${node.type}" that the document model does not know.`);
  const attrs = attrsOf(node);
  const out: JsonObject = { object: "fragment" };
  keyField(out, attrs.key, state);
  const fragment = attrs.fragment ?? rule.fragment ?? null;
  if (fragment !== null) out.fragment = fragment;
  const type = attrs.fragmentType ?? rule.fragmentType ?? null;
  if (type !== null) out.type = type;
  out.nodes = (node.content ?? []).map((child) => blockFromEditor(child, state));
  if (isObject(attrs.extra)) for (const k in attrs.extra) if (!(k in out)) out[k] = raw(attrs.extra[k], state);
  return out;
}

/** A piece of inline content: a leaf of text, or a node (converted inline, or opaque JSON as it was). */
type Piece = { leaf: DocumentTextLeaf } | { node: unknown };

/** The link or annotation mark a ProseMirror inline item belongs to. */
function structuralMark(item: EditorNode): EditorMark | undefined {
  if (item.type === "text") return item.marks?.find((m) => m.type === "link" || m.type === "annotation");
  if (item.type === "inlineImage" && isObject(item.attrs?.link)) return { type: "link", attrs: item.attrs.link };
  return undefined;
}

function sameMark(a: EditorMark | undefined, b: EditorMark | undefined): boolean {
  if (!a || !b) return a === b;
  if (a === b) return true;
  if (a.type !== b.type) return false;
  const x = attrsOf(a);
  const y = attrsOf(b);
  if (x === y) return true;
  // Absent and null are the same attribute (ProseMirror fills defaults, Yjs drops nulls).
  const same = (k: string) => sameJson(x[k] ?? null, y[k] ?? null);
  if (!same("key") || !same("data") || !same("extra")) return false;
  // Keyed marks are told apart by key and data, without comparing whole annotation bodies per text.
  return typeof x.key === "string" || same("fragments");
}

/** Inline content in the Slate normal form: texts merged, and one between and around every inline. */
function inlinesFromEditor(items: readonly EditorNode[], set: InlineSet | "link" | "annotation", state: OutState): unknown[] {
  const pieces: Piece[] = [];
  for (let i = 0; i < items.length; ) {
    const item = items[i]!;
    const mark = set === "link" || set === "annotation" ? undefined : structuralMark(item);
    if (!mark) {
      pieces.push(pieceFromEditor(item, state));
      i++;
      continue;
    }
    let j = i + 1;
    while (j < items.length && sameMark(structuralMark(items[j]!), mark)) j++;
    pieces.push({ node: markedInline(mark, items.slice(i, j), state) });
    i = j;
  }
  return assemble(pieces);
}

function markedInline(mark: EditorMark, items: EditorNode[], state: OutState): JsonObject {
  const rule = RULE_BY_TYPE.get(mark.type)!;
  const attrs = attrsOf(mark);
  const out = head(rule, attrs, state);
  if (rule.content.kind === "mark" && rule.content.inner === "annotation") {
    out.nodes = inlinesFromEditor(items, "annotation", state).filter((n) => (n as JsonObject).object === "text");
    if (Array.isArray(attrs.fragments)) out.fragments = raw(attrs.fragments, state);
    else {
      // An annotation made in the editor: an empty body, which the spec wants to hold a block.
      const body: JsonObject = { object: "fragment" };
      keyField(body, null, state);
      body.type = "annotation-body";
      body.nodes = [paragraphOf(state)];
      out.fragments = [body];
    }
  } else {
    out.nodes = inlinesFromEditor(items, "link", state);
  }
  return tail(out, attrs, state);
}

function paragraphOf(state: OutState): JsonObject {
  const paragraph: JsonObject = { object: "block", type: "paragraph" };
  keyField(paragraph, null, state);
  paragraph.nodes = [textNode([])];
  return paragraph;
}

function pieceFromEditor(item: EditorNode, state: OutState): Piece {
  if (item.type === "text") return { leaf: leafFromEditor(item) };
  if (item.type === OPAQUE_INLINE) return { node: fromText(attrsOf(item).raw) };
  const rule = ruleOfEditorNode(item);
  const attrs = attrsOf(item);
  return { node: tail(head(rule, attrs, state), attrs, state) };
}

function leafFromEditor(item: EditorNode): DocumentTextLeaf {
  const marks: DocumentMark[] = [];
  for (const mark of item.marks ?? []) {
    const rule = LEAF_MARK_BY_PM.get(mark.type);
    if (!rule) continue;
    const attrs = attrsOf(mark);
    const out: JsonObject = { object: "mark", type: rule.type };
    if (rule.data) out.data = attrs.data ?? rule.data();
    if (isObject(attrs.extra)) for (const k in attrs.extra) if (!(k in out)) out[k] = attrs.extra[k];
    marks.push(out as unknown as DocumentMark);
  }
  return leaf(typeof item.text === "string" ? item.text : "", marks);
}

function assemble(pieces: readonly Piece[]): unknown[] {
  const out: unknown[] = [];
  let leaves: DocumentTextLeaf[] = [];
  for (const piece of pieces) {
    if ("leaf" in piece) {
      leaves.push(piece.leaf);
      continue;
    }
    out.push(textNode(leaves));
    leaves = [];
    out.push(piece.node);
  }
  out.push(textNode(leaves));
  return out;
}

/**
 * The document an editor's ProseMirror JSON stands for. Nodes made in the editor get fresh keys;
 * repeated keys (after a copy and paste) are replaced, keeping the first occurrence's.
 */
export function fromEditorDoc(editorDoc: EditorNode, options: FromEditorOptions = {}): JSONDocument {
  if (!isObject(editorDoc) || editorDoc.type !== DOC) throw invalid(`The editor document must be a "${DOC}" node.`);
  const state: OutState = { needsKey: [], copy: true };
  const attrs = attrsOf(editorDoc);
  const out: JsonObject = { object: "document", data: isObject(attrs.data) ? attrs.data : {} };
  try {
    out.nodes = (editorDoc.content ?? []).map((node) => blockFromEditor(node, state));
  } catch (error) {
    // An editor document nested thousands of levels deep (the schema allows none: a client that ignores it).
    if (error instanceof RangeError) throw invalid("The editor document nests too deeply to be stored.");
    throw error;
  }
  if (isObject(attrs.extra)) for (const k in attrs.extra) if (!(k in out)) out[k] = raw(attrs.extra[k], state);
  assignKeys(out, state.needsKey!, options.newKey ?? freshKey);
  return out as unknown as JSONDocument;
}

// ---- keys ----------------------------------------------------------------------------------------

const KEYED = new Set(["block", "inline", "fragment"]);

/**
 * Every keyed node in document order (children before fragments, as ../document/keys.ts walks),
 * with an explicit stack: opaque JSON may nest deeper than the call stack allows.
 */
function keyedNodes(root: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (!isObject(node)) continue;
    if (KEYED.has(node.object as string)) out.push(node);
    const lists = [node.fragments, node.nodes];
    for (const list of lists) if (Array.isArray(list)) for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]);
  }
  return out;
}

function assignKeys(document: JsonObject, needsKey: JsonObject[], newKey: () => string): void {
  const fresh = new Set(needsKey);
  const seen = new Set<string>();
  const rekey: JsonObject[] = [];
  for (const node of keyedNodes(document)) {
    if (fresh.has(node)) rekey.push(node);
    else if (typeof node.key === "string") {
      if (seen.has(node.key)) rekey.push(node);
      else seen.add(node.key);
    }
  }
  for (const node of rekey) {
    let key = newKey();
    while (seen.has(key)) key = newKey();
    seen.add(key);
    node.key = key;
  }
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A block key like ../document/keys.ts's newKey (12 base62 characters), from Web Crypto, which the
 * browser and Node share (keys.ts uses node:crypto, which the browser lacks).
 */
export function freshKey(): string {
  const bytes = new Uint8Array(24);
  let out = "";
  while (out.length < 12) {
    globalThis.crypto.getRandomValues(bytes);
    // Rejection sampling keeps the distribution uniform (256 is not a multiple of 62).
    for (const byte of bytes) if (byte < 248 && out.length < 12) out += ALPHABET[byte % 62];
  }
  return out;
}
