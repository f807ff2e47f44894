import { EditorState, type Transaction } from "@tiptap/pm/state";
import { describe, expect, it } from "vitest";
import { ySyncPluginKey } from "y-prosemirror";
import { editorSchema } from "../../../content/editor/index.js";
import { blockKeysPlugin, nodesNeedingKeys } from "./keys.js";

const schema = editorSchema();
const paragraph = (text: string, key: string | null) => schema.nodes.paragraph!.create({ key }, text ? schema.text(text) : undefined);

function start(...blocks: Array<[string, string | null]>): EditorState {
  return EditorState.create({
    schema,
    doc: schema.nodes.doc!.create(
      null,
      blocks.map(([text, key]) => paragraph(text, key)),
    ),
    plugins: [blockKeysPlugin()],
  });
}
const keys = (state: EditorState) => {
  const out: Array<string | null> = [];
  state.doc.forEach((node) => {
    out.push(node.attrs.key as string | null);
  });
  return out;
};
const apply = (state: EditorState, make: (tr: Transaction) => Transaction) => state.apply(make(state.tr));

describe("block keys in the editor", () => {
  it("keys a block split off by Enter in the same update, and leaves the others as they were", () => {
    const state = start(["One.", "k1"], ["Two.", "k2"]);
    // The end of "Two.": doc(0) p(1..5) p(7..11).
    const after = apply(state, (tr) => tr.split(11));
    const [a, b, c] = keys(after);
    expect([a, b]).toEqual(["k1", "k2"]);
    expect(c).toMatch(/^[A-Za-z0-9]{12}$/);
  });

  it("does not touch keys while text is typed", () => {
    const state = start(["One.", "k1"]);
    const after = apply(state, (tr) => tr.insertText("x", 3));
    expect(after.doc.textContent).toBe("Onxe.");
    expect(keys(after)).toEqual(["k1"]);
  });

  it("gives a pasted block that repeats a key a fresh one, and keeps the first", () => {
    const state = start(["One.", "k1"], ["Two.", "k2"]);
    const after = apply(state, (tr) => tr.insert(state.doc.content.size, paragraph("One.", "k1")).setMeta("paste", true));
    const [a, b, c] = keys(after);
    expect([a, b]).toEqual(["k1", "k2"]);
    expect(c).not.toBe("k1");
    expect(c).toMatch(/^[A-Za-z0-9]{12}$/);
  });

  it("leaves a collaborator's change as it came (their client keys their blocks)", () => {
    const state = start(["One.", "k1"]);
    const after = apply(state, (tr) =>
      tr.insert(state.doc.content.size, paragraph("Theirs.", null)).setMeta(ySyncPluginKey, { isChangeOrigin: true }),
    );
    expect(keys(after)).toEqual(["k1", null]);
  });

  it("finds blocks without a key or with a repeated key; a node visited by two ranges is not its own duplicate", () => {
    const state = start(["One.", "k1"], ["Two.", null], ["Three.", "k1"]);
    expect(nodesNeedingKeys(state.doc)).toEqual([6, 12]);
    expect(
      nodesNeedingKeys(state.doc, [
        { from: 1, to: 2 },
        { from: 3, to: 4 },
      ]),
    ).toEqual([]);
  });
});
