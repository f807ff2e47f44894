/**
 * The Tiptap extensions of the editor, read off the model table (model.ts): nodes and marks with
 * their attributes and content rules, and no node views or HTML, so that `getSchema` runs in Node
 * (the server persisting a collaborative document) as in the browser, which adds views on top with
 * `Extension.extend`.
 *
 * Attributes are never rendered to HTML (`rendered: false`): they hold JSON objects. `key` and the
 * raw `inlineSource` are not copied when Tiptap splits a block (`keepOnSplit: false`), so the new
 * half gets a fresh key.
 */
import { type AnyExtension, getSchema, Mark, Node } from "@tiptap/core";
import type { Schema } from "@tiptap/pm/model";
import { invalid } from "../../lib/errors.js";
import {
  CONTEXT_TYPES,
  type Context,
  type Count,
  contextGroup,
  DOC,
  FRAGMENT_RULES,
  type FragmentRule,
  INLINE_SETS,
  LEAF_MARKS,
  NODE_RULES,
  type NodeRule,
  OPAQUE_BLOCK,
  OPAQUE_INLINE,
  RULE_BY_TYPE,
} from "./model.js";

interface AttributeSpec {
  default: unknown;
  keepOnSplit?: boolean;
}

const attr = (defaultValue: unknown = null, keepOnSplit = true): AttributeSpec & { rendered: false } => ({
  default: defaultValue,
  rendered: false,
  keepOnSplit,
});

/** Attributes every node of a row has: `key`, `data`, `meta`, `extra`. */
function nodeAttributes(rule: NodeRule): Record<string, AttributeSpec> {
  return {
    key: attr(null, false),
    data: attr(rule.data === "optional" ? null : rule.data()),
    meta: attr(),
    extra: attr(),
  };
}

const repeat: Record<Count, string> = { any: "*", some: "+", one: "" };

/** The content expression of a list of blocks in `context`; opaque blocks may sit anywhere a block may. */
function blocksContent(context: Context, count: Count): string {
  if (count === "one") return [...CONTEXT_TYPES[context]].map((type) => RULE_BY_TYPE.get(type)!.pm).join(" | ");
  return `(${contextGroup(context)} | ${OPAQUE_BLOCK})${repeat[count]}`;
}

const LEAF_MARK_NAMES = LEAF_MARKS.map((m) => m.pm).join(" ");

function inlineContent(set: "text" | "code"): { content: string; marks: string } {
  if (set === "text") return { content: "inline*", marks: "_" };
  const inlines = [...INLINE_SETS.code].map((type) => RULE_BY_TYPE.get(type)!).filter((rule) => rule.content.kind === "none");
  return {
    content: `(text | ${[...inlines.map((r) => r.pm), OPAQUE_INLINE].join(" | ")})*`,
    marks: `${LEAF_MARK_NAMES} annotation`,
  };
}

/** The groups (contexts) a block of these GitBook types belongs to. */
function groupsOf(types: readonly string[]): string {
  const groups: string[] = [];
  for (const [context, allowed] of Object.entries(CONTEXT_TYPES) as Array<[Context, ReadonlySet<string>]>) {
    if (types.some((t) => allowed.has(t))) groups.push(contextGroup(context));
  }
  return groups.join(" ");
}

function nodeExtension(rules: readonly NodeRule[]): AnyExtension {
  const rule = rules[0]!;
  const content = rule.content;
  const spec: Record<string, unknown> = { ...rule.flags };
  const attributes = nodeAttributes(rule);
  if (rule.pmAttrs) for (const [name, value] of Object.entries(rule.pmAttrs)) attributes[name] = attr(value);
  if (rule.object === "inline") {
    spec.inline = true;
    spec.group = "inline";
    spec.atom = true;
    spec.selectable = true;
    // An inline image inside a link: the link's mark attributes (Yjs keeps no marks on inline nodes).
    if (rule.type === "inline-image") attributes.link = attr();
  } else {
    spec.group = groupsOf(rules.map((r) => r.type));
    if (content.kind === "inline") {
      const { content: expression, marks } = inlineContent(content.inlines);
      spec.content = expression;
      spec.marks = marks;
      attributes.inlineSource = attr(null, false);
    } else if (content.kind === "blocks") {
      spec.content = blocksContent(content.context, content.count);
    } else if (content.kind === "fragments") {
      spec.content =
        content.order === "sequence"
          ? content.fragments.map((f) => f.pm).join(" ")
          : `(${content.fragments.map((f) => f.pm).join(" | ")})*`;
    }
  }
  return Node.create({
    name: rule.pm,
    ...spec,
    addAttributes: () => attributes,
  });
}

function fragmentExtension(rule: FragmentRule): AnyExtension {
  return Node.create({
    name: rule.pm,
    content: blocksContent(rule.context, rule.count),
    isolating: true,
    addAttributes: () => ({
      key: attr(null, false),
      fragment: attr(rule.fragment ?? null),
      fragmentType: attr(rule.fragmentType ?? null),
      extra: attr(),
    }),
  });
}

const markAttributes = (extra: Record<string, AttributeSpec>) => () => ({ ...extra });

function markExtensions(): AnyExtension[] {
  const link = Mark.create({
    name: "link",
    inclusive: false,
    excludes: "link annotation",
    addAttributes: markAttributes({ key: attr(), data: attr({}), extra: attr() }),
  });
  const annotation = Mark.create({
    name: "annotation",
    inclusive: false,
    excludes: "link annotation",
    addAttributes: markAttributes({ key: attr(), data: attr(), fragments: attr(), extra: attr() }),
  });
  const leaves = LEAF_MARKS.map((m) =>
    Mark.create({
      name: m.pm,
      // `code` does not exclude the other marks: GitBook's leaves may be bold and code at once.
      addAttributes: markAttributes(m.data ? { data: attr(m.data()), extra: attr() } : { extra: attr() }),
    }),
  );
  // Extension order is mark rank: structural marks first, then the leaf marks in canonical order.
  return [link, annotation, ...leaves];
}

/** Every extension of the document model, in schema order (the first block group member is the default block). */
export function editorExtensions(): AnyExtension[] {
  const byPm = new Map<string, NodeRule[]>();
  for (const rule of NODE_RULES) {
    if (rule.content.kind === "mark") continue;
    byPm.set(rule.pm, [...(byPm.get(rule.pm) ?? []), rule]);
  }
  return [
    Node.create({
      name: DOC,
      topNode: true,
      content: blocksContent("document", "any"),
      addAttributes: () => ({ data: attr(), extra: attr() }),
    }),
    Node.create({ name: "text", group: "inline" }),
    ...[...byPm.values()].map(nodeExtension),
    ...FRAGMENT_RULES.map(fragmentExtension),
    Node.create({
      name: OPAQUE_BLOCK,
      group: Object.keys(CONTEXT_TYPES)
        .map((c) => contextGroup(c as Context))
        .join(" "),
      atom: true,
      draggable: true,
      addAttributes: () => ({ raw: attr() }),
    }),
    Node.create({ name: OPAQUE_INLINE, group: "inline", inline: true, atom: true, addAttributes: () => ({ raw: attr() }) }),
    ...markExtensions(),
  ];
}

let cached: Schema | undefined;

/** The ProseMirror schema of the document model (built once). */
export function editorSchema(): Schema {
  cached ??= getSchema(editorExtensions());
  return cached;
}

/**
 * Throws a domain error unless `editorDoc` is a document of the schema: known nodes and marks,
 * each container holding what it may. An editor following the schema writes nothing else; the
 * collaboration server checks what clients converged on before storing it (a client may ignore it).
 */
export function checkEditorDoc(editorDoc: unknown): void {
  try {
    editorSchema().nodeFromJSON(editorDoc).check();
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message))
      throw invalid("The editor document nests too deeply to be stored.");
    throw invalid(`The editor document does not follow the document model: ${error instanceof Error ? error.message : String(error)}`);
  }
}
