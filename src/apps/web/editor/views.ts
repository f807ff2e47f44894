/**
 * Node views of the block editor: the blocks' look is the published site's (the renderer's `q-*`
 * classes, content.css), with controls for what a block's `data` holds (a hint's style, a code
 * block's language, an image's alt text...). Controls sit in `contenteditable=false` parts the
 * editor ignores; a change there replaces the node's `data` in one transaction.
 */
import type { Editor } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import type { NodeView, ViewMutationRecord } from "@tiptap/pm/view";

export type Json = Record<string, unknown>;

export interface ViewContext {
  editor: Editor;
  getPos: () => number | undefined;
  node: PMNode;
}

export interface EditorEnv {
  files: Record<string, { url: string; name: string; contentType: string }>;
  pages: Array<{ id: string; title: string; path: string }>;
  /** The page being edited. */
  pageId?: string;
  /** Where the headings of a page of the change request are listed (the link dialog). */
  anchorsUrl(pageId: string): string;
  /** Opens the file picker and inserts what was uploaded, or gives it to `use` (one file). */
  pickFiles(accept: string, use?: (file: { id: string; name: string; url: string; contentType: string }) => void): void;
}

let envRef: EditorEnv | undefined;
export function setEditorEnv(env: EditorEnv): void {
  envRef = env;
}
export function editorEnv(): EditorEnv {
  return envRef ?? { files: {}, pages: [], pickFiles: () => {}, anchorsUrl: () => "" };
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  for (const child of children) element.append(child);
  return element;
}

export const dataOf = (node: PMNode): Json => (node.attrs.data && typeof node.attrs.data === "object" ? (node.attrs.data as Json) : {});

/** Replaces fields of the node's `data` (undefined removes one). */
export function setData(ctx: ViewContext, fields: Json): void {
  const pos = ctx.getPos();
  if (pos === undefined) return;
  const node = ctx.editor.state.doc.nodeAt(pos);
  if (!node) return;
  const data: Json = { ...dataOf(node) };
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) delete data[name];
    else data[name] = value;
  }
  ctx.editor.view.dispatch(ctx.editor.state.tr.setNodeMarkup(pos, undefined, { ...node.attrs, data }));
}

/** A node view of a block: `dom` with an optional editable `contentDOM`, controls ignored by the editor. */
export abstract class BlockView implements NodeView {
  dom!: HTMLElement;
  contentDOM?: HTMLElement;
  protected controls: HTMLElement[] = [];
  constructor(protected ctx: ViewContext) {}

  protected control<T extends HTMLElement>(element: T): T {
    element.contentEditable = "false";
    this.controls.push(element);
    return element;
  }

  private inControls(target: EventTarget | Node | null): boolean {
    return this.controls.some((c) => target instanceof Node && c.contains(target));
  }

  stopEvent(event: Event): boolean {
    return this.inControls(event.target);
  }

  ignoreMutation(mutation: ViewMutationRecord): boolean {
    if (mutation.type === "selection") return false;
    return this.inControls(mutation.target);
  }

  update(node: PMNode): boolean {
    if (node.type !== this.ctx.node.type) return false;
    this.ctx.node = node;
    this.refresh();
    return true;
  }

  /** Shows the node's current `data` in the controls. */
  abstract refresh(): void;
}

export function emojiOf(code: string): string {
  try {
    return code
      .split("-")
      .map((part) => String.fromCodePoint(Number.parseInt(part, 16)))
      .join("");
  } catch {
    return code;
  }
}

export function codeOfEmoji(text: string): string {
  return [...text].map((char) => char.codePointAt(0)!.toString(16)).join("-");
}

/** An input kept in step with one field of `data`. */
export function fieldInput(
  ctx: () => ViewContext,
  field: string,
  label: string,
  options: { placeholder?: string; type?: string; className?: string } = {},
): HTMLInputElement {
  const input = el("input", {
    type: options.type ?? "text",
    "aria-label": label,
    placeholder: options.placeholder ?? label,
    class: options.className ?? "qe-field",
  });
  input.addEventListener("change", () => {
    const value = input.type === "checkbox" ? input.checked : input.value;
    setData(ctx(), { [field]: value === "" ? undefined : value });
  });
  return input;
}
