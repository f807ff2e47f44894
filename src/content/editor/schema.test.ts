import { getAttributesFromExtensions } from "@tiptap/core";
import type { NodeType } from "@tiptap/pm/model";
import { describe, expect, it } from "vitest";
import { spec } from "../../../test/helpers/contract.js";
import { CONTEXT_TYPES, FRAGMENTS, LEAF_MARKS, NODE_RULES, RULE_BY_TYPE } from "./model.js";
import { editorExtensions, editorSchema } from "./schema.js";

type Any = any;
const schemas = spec.components.schemas as Record<string, Any>;

/** The `type` values a spec schema (a node, or a oneOf/allOf of nodes) stands for. */
function typesOf(schema: Any, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (schema.$ref) {
    const name = (schema.$ref as string).split("/").pop()!;
    if (seen.has(name)) return out;
    return typesOf(schemas[name], new Set([...seen, name]));
  }
  for (const list of [schema.oneOf, schema.anyOf]) for (const s of list ?? []) for (const t of typesOf(s, seen)) out.add(t);
  const own = schema.properties?.type?.enum ?? schema.allOf?.flatMap((s: Any) => [...typesOf(s, seen)]);
  for (const t of own ?? []) out.add(t);
  return out;
}

/** The child block types a spec schema accepts in `nodes` (of the node, or of its fragment `fragmentIndex`). */
function specChildren(schemaName: string, path: (s: Any) => Any): Set<string> {
  return typesOf(path(schemas[schemaName]));
}

/** The GitBook types a ProseMirror content rule accepts as a repeated child (opaque atoms aside). */
function pmChildren(type: NodeType): Set<string> {
  const out = new Set<string>();
  for (const rule of NODE_RULES) {
    if (rule.object !== "block") continue;
    const child = editorSchema().nodes[rule.pm]!;
    if (type.contentMatch.matchType(child)) out.add(rule.type);
  }
  return out;
}

describe("the editor schema", () => {
  const schema = editorSchema();

  it("is built without a DOM (this runs in Node) and has a node or mark for every row", () => {
    expect(typeof (globalThis as Any).document).toBe("undefined");
    for (const rule of NODE_RULES) {
      if (rule.content.kind === "mark") expect(schema.marks[rule.pm], rule.type).toBeDefined();
      else expect(schema.nodes[rule.pm], rule.type).toBeDefined();
    }
    for (const fragment of Object.values(FRAGMENTS)) expect(schema.nodes[fragment.pm]).toBeDefined();
    for (const mark of LEAF_MARKS) expect(schema.marks[mark.pm]).toBeDefined();
  });

  it("holds every block, inline and mark type of the 0.146 spec, and no other", () => {
    const blocks = NODE_RULES.filter((r) => r.object === "block").map((r) => r.type);
    const inlines = NODE_RULES.filter((r) => r.object === "inline").map((r) => r.type);
    expect(new Set(blocks)).toEqual(typesOf(schemas.DocumentBlock));
    expect(new Set(inlines)).toEqual(typesOf(schemas.DocumentInline));
    expect(new Set(LEAF_MARKS.map((m) => m.type))).toEqual(typesOf(schemas.DocumentTextMark));
  });

  it("nests blocks as the spec does: each container accepts exactly the block types its schema lists", () => {
    const nodesOf = (s: Any) => s.properties.nodes.items;
    const fragmentNodes = (s: Any, i = 0) => {
      const items = s.properties.fragments.items;
      const branch = items.oneOf ? items.oneOf[i] : items;
      return (branch.allOf?.[1] ?? branch).properties?.nodes?.items ?? schemas.DocumentFragment.properties.nodes.items;
    };
    const cases: Array<[string, Set<string>]> = [
      ["doc", specChildren("JSONDocument", nodesOf)],
      ["hint", specChildren("DocumentBlockHint", nodesOf)],
      ["blockquote", specChildren("DocumentBlockQuote", nodesOf)],
      ["listItem", specChildren("DocumentBlockListItem", nodesOf)],
      ["orderedList", specChildren("DocumentBlockListOrdered", nodesOf)],
      ["bulletList", specChildren("DocumentBlockListUnordered", nodesOf)],
      ["taskList", specChildren("DocumentBlockListTasks", nodesOf)],
      ["codeBlock", specChildren("DocumentBlockCode", nodesOf)],
      ["images", specChildren("DocumentBlockImages", nodesOf)],
      ["tabs", specChildren("DocumentBlockTabs", nodesOf)],
      ["tabsItem", specChildren("DocumentBlockTabsItem", nodesOf)],
      ["stepper", specChildren("DocumentBlockStepper", nodesOf)],
      ["stepperStep", specChildren("DocumentBlockStepperStep", nodesOf)],
      ["columns", specChildren("DocumentBlockColumns", nodesOf)],
      ["column", specChildren("DocumentBlockColumn", nodesOf)],
      ["conditional", specChildren("DocumentBlockIf", nodesOf)],
      ["imageCaption", specChildren("DocumentBlockImage", (s) => fragmentNodes(s))],
      ["expandableTitle", specChildren("DocumentBlockExpandable", (s) => fragmentNodes(s, 0))],
      ["expandableBody", specChildren("DocumentBlockExpandable", (s) => fragmentNodes(s, 1))],
      ["tableFragment", specChildren("DocumentBlockTable", (s) => fragmentNodes(s))],
    ];
    for (const [pm, expected] of cases) expect(pmChildren(schema.nodes[pm]!), pm).toEqual(expected);
  });

  it("lets opaque atoms sit wherever a list of blocks or inline content is", () => {
    for (const type of Object.values(schema.nodes)) {
      if (type.isTextblock) expect(type.contentMatch.matchType(schema.nodes.opaqueInline!), type.name).toBeTruthy();
      else if (!type.isLeaf && !["image", "expandable", "table", "expandableTitle"].includes(type.name)) {
        expect(type.contentMatch.matchType(schema.nodes.opaqueBlock!), type.name).toBeTruthy();
      }
    }
  });

  it("code lines take text, expressions and annotations, not links", () => {
    const codeLine = schema.nodes.codeLine!;
    expect(codeLine.allowsMarkType(schema.marks.annotation!)).toBe(true);
    expect(codeLine.allowsMarkType(schema.marks.link!)).toBe(false);
    expect(codeLine.contentMatch.matchType(schema.nodes.expression!)).toBeTruthy();
    expect(codeLine.contentMatch.matchType(schema.nodes.emoji!)).toBeFalsy();
  });

  it("a link and an annotation cannot cover the same text (the document model nests neither in the other)", () => {
    const link = schema.marks.link!.create({ data: { ref: { kind: "url", url: "x" } } });
    const annotation = schema.marks.annotation!.create({});
    expect(annotation.addToSet([link]).map((m) => m.type.name)).toEqual(["annotation"]);
    // code does not exclude the other marks: a leaf may be bold and code at once.
    const bold = schema.marks.bold!.create();
    expect(
      schema.marks
        .code!.create()
        .addToSet([bold])
        .map((m) => m.type.name),
    ).toEqual(["bold", "code"]);
  });

  it("a block's key and inline source are not copied to the second half of a split, and no attribute is rendered to HTML", () => {
    const attributes = getAttributesFromExtensions(editorExtensions());
    const keyed = attributes.filter((a) => a.name === "key");
    expect(keyed.length).toBeGreaterThan(30);
    for (const a of attributes) {
      expect(a.attribute.rendered, `${a.type}.${a.name}`).toBe(false);
      // Marks go with their text when a block splits: a link split in two gets a new key on the way out.
      const ofNode = schema.nodes[a.type] !== undefined;
      if (ofNode && (a.name === "key" || a.name === "inlineSource")) expect(a.attribute.keepOnSplit, `${a.type}.${a.name}`).toBe(false);
    }
  });

  it("contexts name only block types of the table", () => {
    for (const [context, types] of Object.entries(CONTEXT_TYPES))
      for (const t of types) expect(RULE_BY_TYPE.get(t), `${context}: ${t}`).toBeDefined();
  });
});
