/**
 * Inline math in the text: shown rendered (KaTeX, as on the site). Selecting it (a click, or the
 * "/" menu's "Inline math") opens a small editor under it: the TeX source and its preview, kept
 * in step while typing; Enter or leaving the field keeps the formula, Escape leaves it as it was.
 */
import type { Editor } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import { TextSelection } from "@tiptap/pm/state";
import type { NodeView } from "@tiptap/pm/view";
import { renderMathPreview } from "./math.js";
import { dataOf, el } from "./views.js";

export class InlineMathView implements NodeView {
  dom: HTMLElement;
  private rendered = el("span", { class: "qe-math-rendered" });
  private popup?: HTMLElement;
  private node: PMNode;
  private editor: Editor;
  private getPos: () => number | undefined;

  constructor(props: { editor: Editor; node: PMNode; getPos: () => number | undefined }) {
    this.node = props.node;
    this.editor = props.editor;
    this.getPos = props.getPos;
    this.dom = el("span", {
      class: "q-math-inline qe-inline qe-inline-math",
      "data-type": "mathInline",
      title: "Inline math: click to edit",
    });
    this.dom.contentEditable = "false";
    this.dom.append(this.rendered);
    this.show();
  }

  private formula(): string {
    return String(dataOf(this.node).formula ?? "");
  }

  private show(): void {
    const formula = this.formula();
    if (formula.trim()) void renderMathPreview(this.rendered, formula, false);
    else this.rendered.replaceChildren(el("span", { class: "qe-math-empty" }, "formula"));
  }

  update(node: PMNode): boolean {
    if (node.type !== this.node.type) return false;
    this.node = node;
    this.show();
    return true;
  }

  selectNode(): void {
    this.dom.classList.add("ProseMirror-selectednode");
    if (this.editor.isEditable) this.open();
  }

  deselectNode(): void {
    this.dom.classList.remove("ProseMirror-selectednode");
    this.close();
  }

  stopEvent(event: Event): boolean {
    return Boolean(this.popup && event.target instanceof Node && this.popup.contains(event.target));
  }

  ignoreMutation(): boolean {
    return true;
  }

  destroy(): void {
    this.close();
  }

  private open(): void {
    if (this.popup) return;
    const input = el("input", { type: "text", class: "qe-field qe-math-source", "aria-label": "Formula (TeX)", placeholder: "x^2" });
    input.value = this.formula();
    const preview = el("div", { class: "qe-math-preview", "aria-live": "polite" });
    const popup = el("div", { class: "qe-popover qe-math-popover", role: "dialog", "aria-label": "Inline math" }, input, preview);
    this.popup = popup;
    const rect = this.dom.getBoundingClientRect();
    popup.style.left = `${rect.left + window.scrollX}px`;
    popup.style.top = `${rect.bottom + window.scrollY + 4}px`;
    document.body.append(popup);
    void renderMathPreview(preview, input.value, false);
    let done = false;
    const finish = (keep: boolean) => {
      if (done) return;
      done = true;
      this.close();
      if (keep && input.value !== this.formula()) this.save(input.value);
      this.leave();
    };
    input.addEventListener("input", () => void renderMathPreview(preview, input.value, false));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        finish(true);
      } else if (event.key === "Escape") {
        event.preventDefault();
        finish(false);
      }
    });
    // Leaving the field keeps the formula (closing the popup, which blurs it too, does not).
    input.addEventListener("blur", () => {
      if (this.popup === popup) finish(true);
    });
    queueMicrotask(() => input.focus());
  }

  private save(formula: string): void {
    const pos = this.getPos();
    if (pos === undefined) return;
    const { state, view } = this.editor;
    view.dispatch(state.tr.setNodeMarkup(pos, undefined, { ...this.node.attrs, data: { ...dataOf(this.node), formula } }));
  }

  /** Back to the text, the caret after the formula. */
  private leave(): void {
    this.close();
    const pos = this.getPos();
    if (pos === undefined) return;
    const { state, view } = this.editor;
    const after = Math.min(pos + this.node.nodeSize, state.doc.content.size);
    view.dispatch(state.tr.setSelection(TextSelection.near(state.doc.resolve(after))));
    view.focus();
  }

  private close(): void {
    const popup = this.popup;
    this.popup = undefined;
    popup?.remove();
  }
}
