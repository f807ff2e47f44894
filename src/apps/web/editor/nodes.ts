/**
 * The browser's extensions: the document model's (src/content/editor, no views) extended with
 * HTML rendering and parsing (paste of HTML goes through these rules only: no attribute or element
 * the rules do not read survives), Markdown input rules and keyboard shortcuts, and node views.
 * A node without an editing UI yet shows what it holds, read-only, and is written back as it was.
 */
import {
  type AnyExtension,
  type Editor,
  markInputRule,
  markPasteRule,
  nodeInputRule,
  textblockTypeInputRule,
  wrappingInputRule,
} from "@tiptap/core";
import { Fragment, type Node as PMNode, type Schema } from "@tiptap/pm/model";
import { TextSelection } from "@tiptap/pm/state";
import type { ViewMutationRecord } from "@tiptap/pm/view";
import { editorExtensions } from "../../../content/editor/index.js";
import { conditionProblem } from "./condition.js";
import { InlineMathView } from "./inline-math.js";
import { openLinkDialog } from "./link.js";
import { renderMathPreview } from "./math.js";
import { BlockView, codeOfEmoji, dataOf, editorEnv, el, emojiOf, fieldInput, type Json, setData, type ViewContext } from "./views.js";

type Config = Record<string, unknown>;
/** What Tiptap binds `this` to in an extension's methods (the node or mark type, its editor). */
// biome-ignore lint/suspicious/noExplicitAny: a node's or a mark's type, as Tiptap's rule helpers take either
type This = { editor: Editor; type: any };
type ViewFactory = (props: { editor: Editor; node: PMNode; getPos: () => number | undefined }) => unknown;

const HINT_STYLES = ["info", "success", "warning", "danger"] as const;
const HINT_ICONS: Record<string, string> = { info: "ℹ", success: "✓", warning: "⚠", danger: "✖" };

/** Only addresses a reader may follow: a pasted `javascript:` link becomes plain text. */
export function safeUrl(value: string | null): string | undefined {
  if (!value) return undefined;
  const url = value.trim();
  if (/^(https?:|mailto:|#|\/)/i.test(url)) return url;
  return undefined;
}

const pageHref = (ref: Json | undefined): string => {
  if (!ref) return "#";
  if (ref.kind === "url" && typeof ref.url === "string") return safeUrl(ref.url) ?? "#";
  if (ref.kind === "anchor") return `#${String(ref.anchor ?? "")}`;
  return "#";
};

function refOf(data: Json): Json | undefined {
  return data.ref && typeof data.ref === "object" ? (data.ref as Json) : undefined;
}

function imageUrl(ref: Json | undefined): string | undefined {
  if (!ref) return undefined;
  if (ref.kind === "url" && typeof ref.url === "string")
    return safeUrl(ref.url) ?? (ref.url.startsWith("data:image/") ? ref.url : undefined);
  if (ref.kind === "file" && typeof ref.file === "string") return editorEnv().files[ref.file]?.url;
  return undefined;
}

/** A summary of what a node without an editing UI holds. */
function summaryOf(name: string, data: Json, raw?: unknown): string {
  const ref = refOf(data);
  switch (name) {
    case "file":
    case "drawing":
      return ref?.kind === "file" ? (editorEnv().files[String(ref.file)]?.name ?? String(ref.file)) : "";
    case "contentRef": {
      if (ref?.kind === "page") return editorEnv().pages.find((p) => p.id === ref.page)?.title ?? String(ref.page);
      if (ref?.kind === "url") return String(ref.url);
      return ref ? `${String(ref.kind)} ${String(Object.values(ref)[1] ?? "")}` : "";
    }
    case "opaqueBlock":
    case "opaqueInline": {
      try {
        const node = JSON.parse(String(raw)) as { type?: string };
        return `${node.type ?? "node"} (kept as it is)`;
      } catch {
        return "kept as it is";
      }
    }
    case "openapiOperation":
    case "openapiWebhook":
      return `${String(data.method ?? "").toUpperCase()} ${String(data.path ?? data.name ?? "")}`;
    case "integration":
      return String(data.integration ?? "");
    default:
      return "";
  }
}

const ATOM_LABELS: Record<string, string> = {
  file: "File",
  drawing: "Drawing",
  embed: "Embed",
  contentRef: "Card",
  reusableContent: "Reusable content",
  swagger: "OpenAPI",
  openapiOperation: "OpenAPI operation",
  openapiSchemas: "OpenAPI schemas",
  openapiWebhook: "OpenAPI webhook",
  integration: "Integration",
  mathBlock: "Math",
  opaqueBlock: "Block",
};

/** A block atom: its kind, a summary, and the inputs of the fields it can edit. */
class AtomView extends BlockView {
  private summary = el("span", { class: "qe-atom-summary" });
  private inputs: Array<{ input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement; read: (data: Json) => string }> = [];
  constructor(ctx: ViewContext) {
    super(ctx);
    const name = ctx.node.type.name;
    this.dom = el("div", { class: `qe-atom qe-atom-${name}`, "data-type": name });
    const head = this.control(
      el("div", { class: "qe-atom-head" }, el("span", { class: "qe-atom-kind" }, ATOM_LABELS[name] ?? name), this.summary),
    );
    this.dom.append(head);
    const at = () => this.ctx;
    if (name === "mathBlock") {
      const area = el("textarea", { class: "qe-math", "aria-label": "Formula (TeX)", placeholder: "E = mc^2", rows: "2" });
      area.addEventListener("change", () => setData(at(), { formula: area.value }));
      // The preview follows the typing; the document takes the formula when the field is left.
      area.addEventListener("input", () => void renderMathPreview(this.preview!, area.value, true));
      head.append(area);
      this.preview = this.control(el("div", { class: "qe-math-preview", "aria-label": "Preview", "aria-live": "polite" }));
      this.dom.append(this.preview);
      this.inputs.push({ input: area, read: (d) => String(d.formula ?? "") });
    } else if (name === "embed") {
      const input = fieldInput(at, "url", "Address to embed", { placeholder: "https://…" });
      head.append(input);
      this.inputs.push({ input, read: (d) => String(d.url ?? "") });
    } else if (name === "contentRef") {
      const select = el("select", { "aria-label": "Page of the card", class: "qe-field" });
      select.append(
        el("option", { value: "" }, "Page…"),
        ...editorEnv().pages.map((p) => el("option", { value: p.id }, `${p.title} (/${p.path})`)),
      );
      select.addEventListener("change", () => {
        if (select.value) setData(at(), { ref: { kind: "page", page: select.value } });
      });
      head.append(select);
      this.inputs.push({ input: select, read: (d) => (refOf(d)?.kind === "page" ? String(refOf(d)?.page) : "") });
    }
    this.refresh();
  }
  private preview?: HTMLElement;
  refresh(): void {
    const data = dataOf(this.ctx.node);
    this.summary.textContent = summaryOf(this.ctx.node.type.name, data, this.ctx.node.attrs.raw);
    for (const { input, read } of this.inputs) if (document.activeElement !== input) input.value = read(data);
    const area = this.inputs[0]?.input;
    const formula = area && document.activeElement === area ? area.value : String(data.formula ?? "");
    if (this.preview) void renderMathPreview(this.preview, formula, true);
  }
}

class HintView extends BlockView {
  private select = el("select", { "aria-label": "Hint style", class: "qe-hint-style" });
  private icon = el("span", { class: "q-hint-icon", "aria-hidden": "true" });
  constructor(ctx: ViewContext) {
    super(ctx);
    for (const style of HINT_STYLES) this.select.append(el("option", { value: style }, style));
    this.select.addEventListener("change", () => setData(this.ctx, { style: this.select.value }));
    this.contentDOM = el("div", { class: "q-hint-body" });
    this.dom = el(
      "div",
      { class: "q-hint", role: "note" },
      this.control(el("span", { class: "qe-hint-side" }, this.icon, this.select)),
      this.contentDOM,
    );
    this.refresh();
  }
  refresh(): void {
    const style = String(dataOf(this.ctx.node).style ?? "info");
    this.dom.className = `q-hint q-hint-${HINT_STYLES.includes(style as never) ? style : "info"}`;
    this.icon.textContent = HINT_ICONS[style] ?? "ℹ";
    this.select.value = style;
  }
}

class CodeView extends BlockView {
  private language = fieldInput(() => this.ctx, "syntax", "Language", { placeholder: "language", className: "qe-field qe-small" });
  private title = fieldInput(() => this.ctx, "title", "Title", { placeholder: "title", className: "qe-field" });
  private numbers = fieldInput(() => this.ctx, "lineNumbers", "Line numbers", { type: "checkbox", className: "" });
  private pre = el("pre", {});
  constructor(ctx: ViewContext) {
    super(ctx);
    this.contentDOM = el("code", { class: "hljs" });
    const bar = this.control(
      el("figcaption", { class: "q-code-title qe-code-bar" }, this.title, this.language, el("label", {}, this.numbers, " line numbers")),
    );
    this.dom = el("figure", { class: "q-code" }, bar, el("div", { class: "q-code-body" }, this.pre));
    this.pre.append(this.contentDOM);
    this.refresh();
  }
  refresh(): void {
    // The height the block keeps while out of sight (content.css: `content-visibility: auto` with
    // an intrinsic size of --q-lines lines, 10 when unset), as the site's renderer gives it: drawn
    // above the window with 10 lines' height, the block shrank to its own once laid out, and the
    // page below it jumped up as the writer scrolled up.
    const lines = String(this.ctx.node.childCount);
    if (this.pre.style.getPropertyValue("--q-lines") !== lines) this.pre.style.setProperty("--q-lines", lines);
    const data = dataOf(this.ctx.node);
    if (document.activeElement !== this.language) this.language.value = String(data.syntax ?? "");
    if (document.activeElement !== this.title) this.title.value = String(data.title ?? "");
    this.numbers.checked = data.lineNumbers === true;
    this.dom.classList.toggle("q-code-numbered", data.lineNumbers === true);
  }
}

/** An image file of the change request, or an address, as a `ref`. */
const imageFiles = () => Object.entries(editorEnv().files).filter(([, f]) => f.contentType.startsWith("image/"));

/**
 * An image: its alternative text, its width (a share of the page or pixels), its variant for dark
 * mode (an image of the change request's files, or one uploaded here; the site shows it to readers
 * in dark mode) and its caption (the image's caption fragment, added on demand).
 */
class ImageView extends BlockView {
  private img = el("img", { alt: "" });
  private darkImg = el("img", { alt: "", class: "qe-image-dark-preview" });
  // In dark mode the frame shows the dark variant, as the published site does.
  private darkSource = el("source", { media: "(prefers-color-scheme: dark)" });
  private missing = el("span", { class: "qe-image-missing" });
  private alt = fieldInput(() => this.ctx, "alt", "Alternative text", { placeholder: "alternative text" });
  private size = el("select", { "aria-label": "Width", class: "qe-field qe-small" });
  private pixels = el("input", {
    type: "number",
    min: "1",
    max: "10000",
    "aria-label": "Width in pixels",
    placeholder: "px",
    class: "qe-field qe-px",
  });
  private dark = el("select", { "aria-label": "Image in dark mode", class: "qe-field" });
  private captionButton = el("button", { type: "button", class: "qe-small-button" }, "Add caption");
  constructor(ctx: ViewContext) {
    super(ctx);
    for (const [value, label] of [
      ["", "natural size"],
      ["25%", "25%"],
      ["50%", "50%"],
      ["75%", "75%"],
      ["100%", "full width"],
      ["px", "pixels…"],
    ])
      this.size.append(el("option", { value: value! }, label!));
    this.size.addEventListener("change", () => {
      const value = this.size.value;
      if (value === "px") {
        this.pixels.hidden = false;
        this.pixels.focus();
        return;
      }
      setData(this.ctx, { width: value ? { unit: "%", value: Number.parseInt(value, 10) } : undefined });
    });
    this.pixels.addEventListener("change", () => {
      const value = Number.parseInt(this.pixels.value, 10);
      if (Number.isFinite(value) && value > 0 && value <= 10_000) setData(this.ctx, { width: value });
    });
    this.dark.addEventListener("change", () => {
      const value = this.dark.value;
      if (value === "upload") {
        this.dark.value = this.darkValue();
        editorEnv().pickFiles("image/*", (file) => setData(this.ctx, { refDark: { kind: "file", file: file.id } }));
        return;
      }
      // "keep": a variant given by address or by a file the page does not list; left as it is.
      if (value === "keep") return;
      setData(this.ctx, { refDark: value ? { kind: "file", file: value } : undefined });
    });
    this.captionButton.addEventListener("click", () => this.addCaption());
    this.contentDOM = el("div", { class: "qe-caption" });
    const controls = this.control(
      el(
        "div",
        { class: "qe-image-controls" },
        this.alt,
        this.size,
        this.pixels,
        el("label", { class: "qe-image-dark" }, "Dark mode ", this.dark),
        this.darkImg,
        this.captionButton,
      ),
    );
    this.dom = el(
      "figure",
      { class: "q-image" },
      this.control(el("div", { class: "qe-image-frame" }, el("picture", {}, this.darkSource, this.img), this.missing)),
      controls,
      this.contentDOM,
    );
    this.refresh();
  }
  /** The dark variant as the select shows it: a file id, "" for none, "keep" for any other. */
  private darkValue(): string {
    const ref = dataOf(this.ctx.node).refDark as Json | undefined;
    if (!ref) return "";
    return ref.kind === "file" && typeof ref.file === "string" && editorEnv().files[ref.file] ? ref.file : "keep";
  }
  private addCaption(): void {
    const pos = this.ctx.getPos();
    const { editor } = this.ctx;
    if (pos === undefined) return;
    const schema = editor.schema;
    const caption = schema.nodes.imageCaption!.create(null, schema.nodes.paragraph!.create());
    const at = pos + this.ctx.node.nodeSize - 1;
    const tr = editor.state.tr.insert(at, caption);
    tr.setSelection(TextSelection.near(tr.doc.resolve(at + 2)));
    editor.view.dispatch(tr.scrollIntoView());
    editor.view.focus();
  }
  refresh(): void {
    const data = dataOf(this.ctx.node);
    const url = imageUrl(refOf(data));
    this.img.hidden = !url;
    if (url && this.img.getAttribute("src") !== url) this.img.src = url;
    this.missing.textContent = url ? "" : "Image not available";
    this.img.alt = String(data.alt ?? "");
    const width = data.width as { unit?: string; value?: number } | number | undefined;
    const percent = typeof width === "object" && width?.unit === "%" ? `${width.value}%` : "";
    const px = typeof width === "number" ? width : typeof width === "object" && width?.unit === "px" ? Number(width.value) : undefined;
    this.img.style.width = percent || (px !== undefined ? `${px}px` : "");
    if (document.activeElement !== this.alt) this.alt.value = String(data.alt ?? "");
    this.size.value = px !== undefined ? "px" : percent;
    this.pixels.hidden = px === undefined && this.size.value !== "px";
    if (document.activeElement !== this.pixels) this.pixels.value = px !== undefined ? String(px) : "";
    // The dark variant: none, one of the change request's images, one picked here, or one kept as found.
    const darkValue = this.darkValue();
    this.dark.replaceChildren(
      el("option", { value: "" }, "same image"),
      ...imageFiles().map(([id, file]) => el("option", { value: id }, file.name)),
      ...(darkValue === "keep" ? [el("option", { value: "keep" }, "(an image set elsewhere)")] : []),
      el("option", { value: "upload" }, "upload an image…"),
    );
    this.dark.value = darkValue;
    const darkUrl = imageUrl(data.refDark as Json | undefined);
    this.darkImg.hidden = !darkUrl;
    if (darkUrl) this.darkSource.srcset = darkUrl;
    else this.darkSource.removeAttribute("srcset");
    if (darkUrl && this.darkImg.getAttribute("src") !== darkUrl) this.darkImg.src = darkUrl;
    this.captionButton.hidden = this.ctx.node.childCount > 0;
  }
}

/**
 * Columns: each column's blocks are edited in place; buttons add a column at the end and remove
 * the one holding the caret (the last one when the caret is elsewhere). One column is the least.
 */
class ColumnsView extends BlockView {
  private remove = el("button", { type: "button", class: "qe-small-button" }, "− column");
  constructor(ctx: ViewContext) {
    super(ctx);
    const add = el("button", { type: "button", class: "qe-small-button" }, "+ column");
    add.addEventListener("click", () => this.addColumn());
    this.remove.addEventListener("click", () => this.removeColumn());
    this.contentDOM = el("div", { class: "q-columns qe-columns" });
    this.dom = el(
      "div",
      { class: "qe-columns-block" },
      this.control(el("div", { class: "qe-columns-bar" }, add, this.remove)),
      this.contentDOM,
    );
    this.refresh();
  }
  private addColumn(): void {
    const pos = this.ctx.getPos();
    if (pos === undefined) return;
    const { editor } = this.ctx;
    const schema = editor.schema;
    const at = pos + this.ctx.node.nodeSize - 1;
    const tr = editor.state.tr.insert(at, schema.nodes.column!.create({ data: {} }, schema.nodes.paragraph!.create()));
    tr.setSelection(TextSelection.near(tr.doc.resolve(at + 2)));
    editor.view.dispatch(tr.scrollIntoView());
    editor.view.focus();
  }
  private removeColumn(): void {
    const pos = this.ctx.getPos();
    const node = this.ctx.node;
    if (pos === undefined || node.childCount <= 1) return;
    const { editor } = this.ctx;
    const { from } = editor.state.selection;
    const ranges: Array<{ from: number; to: number }> = [];
    node.forEach((column, offset) => {
      ranges.push({ from: pos + 1 + offset, to: pos + 1 + offset + column.nodeSize });
    });
    const target = ranges.find((r) => from > r.from && from < r.to) ?? ranges[ranges.length - 1]!;
    editor.view.dispatch(editor.state.tr.delete(target.from, target.to).scrollIntoView());
  }
  refresh(): void {
    this.remove.disabled = this.ctx.node.childCount <= 1;
    this.contentDOM!.style.gridTemplateColumns = `repeat(${Math.max(1, this.ctx.node.childCount)}, minmax(0, 1fr))`;
  }
}

/**
 * A conditional block: its blocks are shown to readers for whom the condition holds. The condition
 * is edited in a small settings popover and checked with the expression language before it is
 * stored; a condition that does not read says why and keeps the text (nothing is stored).
 */
class ConditionalView extends BlockView {
  private shown = el("code", { class: "qe-if-expression" });
  private popover = el("div", { class: "qe-popover qe-if-settings", role: "dialog", "aria-label": "Condition", hidden: "" });
  private input = el("input", { type: "text", class: "qe-field", "aria-label": "Condition", spellcheck: "false" });
  private problem = el("p", { class: "qe-if-problem", role: "alert" });
  constructor(ctx: ViewContext) {
    super(ctx);
    const settings = el(
      "button",
      { type: "button", class: "qe-small-button", "aria-label": "Condition settings", "aria-expanded": "false" },
      "⚙ Condition",
    );
    const apply = el("button", { type: "button", class: "primary qe-small-button" }, "Apply");
    const cancel = el("button", { type: "button", class: "qe-small-button" }, "Cancel");
    settings.addEventListener("click", () => (this.popover.hidden ? this.open() : this.close()));
    apply.addEventListener("click", () => this.apply());
    cancel.addEventListener("click", () => this.close());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.apply();
      } else if (event.key === "Escape") {
        event.preventDefault();
        this.close();
      }
    });
    this.input.addEventListener("input", () => {
      this.problem.textContent = "";
    });
    this.popover.append(
      el("label", { class: "qe-if-label" }, "Show these blocks when"),
      this.input,
      this.problem,
      el(
        "p",
        { class: "qe-if-help" },
        "A JavaScript expression over the reader's claims (visitor.claims) and the space's variables, such as visitor.claims.plan === \"pro\".",
      ),
      el("div", { class: "qe-comment-actions" }, apply, cancel),
    );
    this.settings = settings;
    this.contentDOM = el("div", { class: "qe-if-body" });
    this.dom = el(
      "div",
      { class: "qe-if" },
      this.control(el("div", { class: "qe-if-head" }, el("span", { class: "qe-if-badge" }, "If"), this.shown, settings, this.popover)),
      this.contentDOM,
    );
    this.refresh();
  }
  private settings: HTMLButtonElement;
  // Fixed to the viewport under its button: a table cell (where conditions sit) clips what overflows it.
  private place = () => {
    const rect = this.settings.getBoundingClientRect();
    this.popover.style.left = `${Math.max(8, Math.min(rect.left, window.innerWidth - this.popover.offsetWidth - 8))}px`;
    this.popover.style.top = `${rect.bottom + 4}px`;
  };
  private open(): void {
    this.input.value = String(dataOf(this.ctx.node).expression ?? "");
    this.problem.textContent = "";
    this.popover.hidden = false;
    this.place();
    window.addEventListener("scroll", this.place, true);
    window.addEventListener("resize", this.place);
    this.settings.setAttribute("aria-expanded", "true");
    this.input.focus();
  }
  private close(): void {
    this.popover.hidden = true;
    window.removeEventListener("scroll", this.place, true);
    window.removeEventListener("resize", this.place);
    this.settings.setAttribute("aria-expanded", "false");
  }
  destroy(): void {
    this.close();
  }
  private apply(): void {
    const expression = this.input.value;
    const problem = conditionProblem(expression);
    if (problem) {
      // The text stays for the writer to correct; nothing is stored.
      this.problem.textContent = problem;
      this.input.focus();
      return;
    }
    setData(this.ctx, { expression });
    this.close();
    this.ctx.editor.view.focus();
  }
  refresh(): void {
    const expression = String(dataOf(this.ctx.node).expression ?? "");
    this.shown.textContent = expression || "(no condition)";
    this.shown.classList.toggle("qe-if-invalid", conditionProblem(expression) !== undefined);
  }
}

class TabView extends BlockView {
  private title = fieldInput(() => this.ctx, "title", "Tab title", { placeholder: "Tab title", className: "qe-field qe-tab-title" });
  constructor(ctx: ViewContext) {
    super(ctx);
    this.contentDOM = el("div", { class: "q-tab-panel" });
    this.dom = el("div", { class: "qe-tab" }, this.control(el("div", { class: "q-tab-label" }, this.title)), this.contentDOM);
    this.refresh();
  }
  refresh(): void {
    if (document.activeElement !== this.title) this.title.value = String(dataOf(this.ctx.node).title ?? "");
  }
}

/** A list item: a checkbox in a task list (data.checked). */
class ListItemView extends BlockView {
  private box = el("input", { type: "checkbox", "aria-label": "Done" });
  constructor(ctx: ViewContext) {
    super(ctx);
    this.contentDOM = el("div", { class: "q-task-body" });
    this.box.addEventListener("change", () => setData(this.ctx, { checked: this.box.checked ? true : undefined }));
    this.dom = el("li", {}, this.control(el("span", { class: "qe-check" }, this.box)), this.contentDOM);
    this.refresh();
  }
  refresh(): void {
    const pos = this.ctx.getPos();
    const parent = pos === undefined ? undefined : this.ctx.editor.state.doc.resolve(pos).parent;
    const task = parent?.type.name === "taskList";
    const checked = dataOf(this.ctx.node).checked === true;
    this.dom.className = task ? `q-task${checked ? " q-task-done" : ""}` : "q-list-item";
    this.controls[0]!.hidden = !task;
    this.box.checked = checked;
  }
  override update(node: PMNode): boolean {
    // The item moves between lists (a list made a task list): look again at its parent.
    return super.update(node);
  }
}

/**
 * A table: its cells are the node's fragments, laid out by the table's records (rows, by
 * orderIndex) and view columns; buttons add and remove rows and columns (records, definitions
 * and fragments together).
 */
class TableView extends BlockView {
  private bar = el("div", { class: "qe-table-bar" });
  constructor(ctx: ViewContext) {
    super(ctx);
    this.contentDOM = el("div", { class: "qe-table-grid" });
    const button = (label: string, run: () => void) => {
      const b = el("button", { type: "button", class: "qe-small-button" }, label);
      b.addEventListener("click", run);
      return b;
    };
    this.bar.append(
      button("+ row", () => this.edit((t) => t.addRow())),
      button("− row", () => this.edit((t) => t.removeRow())),
      button("+ column", () => this.edit((t) => t.addColumn())),
      button("− column", () => this.edit((t) => t.removeColumn())),
    );
    this.dom = el("div", { class: "q-table-wrap qe-table" }, this.control(this.bar), this.contentDOM);
    this.refresh();
  }
  private edit(change: (table: TableModel) => void): void {
    const pos = this.ctx.getPos();
    if (pos === undefined) return;
    const node = this.ctx.editor.state.doc.nodeAt(pos);
    if (!node) return;
    const model = new TableModel(node, this.ctx.editor.schema);
    change(model);
    this.ctx.editor.view.dispatch(this.ctx.editor.state.tr.replaceWith(pos, pos + node.nodeSize, model.build()));
  }
  refresh(): void {
    const model = new TableModel(this.ctx.node, this.ctx.editor.schema);
    const columns = model.columns.length || 1;
    this.contentDOM!.style.gridTemplateColumns = `repeat(${columns}, minmax(6rem, 1fr))`;
    // ProseMirror draws (or redraws) the cells after this: they are placed once it has.
    queueMicrotask(() => this.placeCells());
  }
  /**
   * Cells stand at the row and column of their fragment's name in the records and columns: a
   * column that is not text (a number, a checkbox) has no fragment, and its place stays empty
   * rather than the next row's cell moving up into it. Fragments no record names go below.
   */
  private placeCells(): void {
    const model = new TableModel(this.ctx.node, this.ctx.editor.schema);
    const columns = model.columns.length || 1;
    const places = model.places();
    const rows = model.rows().length;
    let unplaced = 0;
    this.ctx.node.forEach((child, _offset, index) => {
      const dom = this.contentDOM!.children[index] as HTMLElement | undefined;
      if (!dom) return;
      const place = places.get(String(child.attrs.fragment)) ?? rows * columns + unplaced++;
      dom.style.gridRow = String(Math.floor(place / columns) + 1);
      dom.style.gridColumn = String((place % columns) + 1);
    });
  }
  override ignoreMutation(mutation: ViewMutationRecord): boolean {
    if (mutation.type === "attributes" && mutation.target instanceof HTMLElement && mutation.target.parentElement === this.contentDOM)
      return true;
    return super.ignoreMutation(mutation);
  }
}

interface TableRecord {
  orderIndex: string;
  values: Record<string, unknown>;
}

/** The table's data as rows and columns, and its edits. */
class TableModel {
  data: Json;
  records: Record<string, TableRecord>;
  definition: Record<string, Json>;
  columns: string[];
  fragments: PMNode[] = [];
  constructor(
    node: PMNode,
    private schema: Schema,
  ) {
    this.nodeAttrs = node.attrs;
    this.data = structuredClone(dataOf(node));
    this.records = (this.data.records as Record<string, TableRecord>) ?? {};
    this.definition = (this.data.definition as Record<string, Json>) ?? {};
    const view = (this.data.view as Json) ?? {};
    this.columns = Array.isArray(view.columns) ? (view.columns as string[]) : [];
    node.forEach((child) => {
      this.fragments.push(child);
    });
  }
  rows(): string[] {
    return Object.keys(this.records).sort((a, b) => (this.records[a]!.orderIndex < this.records[b]!.orderIndex ? -1 : 1));
  }
  places(): Map<string, number> {
    const places = new Map<string, number>();
    this.rows().forEach((row, r) => {
      this.columns.forEach((column, c) => {
        const value = this.records[row]!.values[column];
        if (typeof value === "string") places.set(value, r * this.columns.length + c);
      });
    });
    return places;
  }
  private fresh(prefix: string, taken: (id: string) => boolean): string {
    for (let n = 1; ; n++) if (!taken(`${prefix}${n}`)) return `${prefix}${n}`;
  }
  private cell(name: string): PMNode {
    return this.schema.nodes.tableFragment!.create({ fragment: name }, this.schema.nodes.paragraph!.create());
  }
  private isText(column: string): boolean {
    return (this.definition[column]?.type ?? "text") === "text";
  }
  addRow(): void {
    const rows = this.rows();
    const id = this.fresh("r", (x) => x in this.records);
    const last = rows.length ? this.records[rows[rows.length - 1]!]!.orderIndex : "a";
    const values: Record<string, unknown> = {};
    for (const column of this.columns) {
      if (!this.isText(column)) continue;
      const name = `${id}-${column}`;
      values[column] = name;
      this.fragments.push(this.cell(name));
    }
    this.records[id] = { orderIndex: `${last}V`, values };
  }
  removeRow(): void {
    const rows = this.rows();
    if (rows.length <= 1) return;
    const row = rows[rows.length - 1]!;
    const names = new Set(Object.values(this.records[row]!.values).filter((v): v is string => typeof v === "string"));
    delete this.records[row];
    this.fragments = this.fragments.filter((f) => !names.has(String(f.attrs.fragment)));
  }
  addColumn(): void {
    const id = this.fresh("c", (x) => x in this.definition);
    this.definition[id] = { id, title: "", type: "text", textAlignment: "left" };
    this.columns.push(id);
    for (const row of this.rows()) {
      const name = `${row}-${id}`;
      this.records[row]!.values[id] = name;
      this.fragments.push(this.cell(name));
    }
  }
  removeColumn(): void {
    if (this.columns.length <= 1) return;
    const column = this.columns.pop()!;
    delete this.definition[column];
    const names = new Set<string>();
    for (const row of Object.values(this.records)) {
      const value = row.values[column];
      if (typeof value === "string") names.add(value);
      delete row.values[column];
    }
    this.fragments = this.fragments.filter((f) => !names.has(String(f.attrs.fragment)));
  }
  build(): PMNode[] {
    const view = { ...((this.data.view as Json) ?? {}), columns: this.columns };
    const data = { ...this.data, records: this.records, definition: this.definition, view };
    const node = this.schema.nodes.table!;
    return [node.create({ ...this.nodeAttrs, data }, this.fragments)];
  }
  nodeAttrs: Json;
}

/** A new table of `columns` text columns and `rows` rows. */
export function newTable(schema: Schema, rows = 2, columns = 2): Json {
  const definition: Json = {};
  const ids = Array.from({ length: columns }, (_, i) => `c${i + 1}`);
  for (const id of ids) definition[id] = { id, title: "", type: "text", textAlignment: "left" };
  const records: Json = {};
  const content: Json[] = [];
  for (let r = 1; r <= rows; r++) {
    const values: Json = {};
    for (const id of ids) {
      values[id] = `r${r}-${id}`;
      content.push({ type: "tableFragment", attrs: { fragment: `r${r}-${id}` }, content: [{ type: "paragraph" }] });
    }
    records[`r${r}`] = { orderIndex: `a${r}`, values };
  }
  void schema;
  return { type: "table", attrs: { data: { view: { type: "grid", columns: ids, hideHeader: false }, records, definition } }, content };
}

/** An inline atom: shown as on the site, its one field edited by a click (a prompt). */
function inlineAtom(name: string): ViewFactory {
  if (name === "mathInline") return (props) => new InlineMathView(props);
  return ({ node }) => {
    const data = dataOf(node);
    const span = el("span", { class: `qe-inline qe-inline-${name}`, "data-type": name });
    switch (name) {
      case "emoji":
        span.className = "q-emoji";
        span.textContent = emojiOf(String(data.code ?? ""));
        break;
      case "inlineImage": {
        const url = imageUrl(refOf(data));
        if (url) span.append(el("img", { src: url, alt: String(data.alt ?? ""), class: "q-inline-image" }));
        else span.textContent = "[image]";
        break;
      }
      case "expression":
        span.className = "q-expression qe-inline";
        span.textContent = `{{ ${String(data.expression ?? "")} }}`;
        break;
      case "button":
        span.textContent = String(data.label ?? "button");
        break;
      case "mention":
        span.className = "q-mention";
        span.textContent = `@${String(refOf(data)?.user ?? "")}`;
        break;
      case "opaqueInline":
        span.textContent = summaryOf(name, data, node.attrs.raw);
        break;
      default:
        span.textContent = String(data.icon ?? name);
    }
    span.contentEditable = "false";
    return { dom: span, ignoreMutation: () => true };
  };
}

const blockView =
  (View: new (ctx: ViewContext) => BlockView): ViewFactory =>
  ({ editor, node, getPos }) =>
    new View({ editor, node, getPos });

/** Pasted <pre> text: one code line per line. */
function codeLinesOf(dom: HTMLElement, schema: Schema): Fragment {
  const lines = (dom.textContent ?? "").replace(/\n$/, "").split("\n");
  return Fragment.from(lines.map((line) => schema.nodes.codeLine!.create(null, line ? schema.text(line) : null)));
}

/** Enter in a code block: a new line; on a second empty last line, out of the block. */
function codeEnter(editor: Editor): boolean {
  const { state } = editor;
  const { $from, empty } = state.selection;
  if (!empty || $from.parent.type.name !== "codeLine") return false;
  const code = $from.node(-1);
  const index = $from.index(-1);
  if ($from.parent.content.size === 0 && index === code.childCount - 1 && index > 0 && code.child(index - 1).content.size === 0) {
    const lineStart = $from.before();
    const previousStart = lineStart - code.child(index - 1).nodeSize;
    const after = $from.after(-1);
    const tr = state.tr.insert(after, state.schema.nodes.paragraph!.create());
    tr.delete(previousStart, lineStart + $from.parent.nodeSize);
    tr.setSelection(TextSelection.near(tr.doc.resolve(tr.mapping.map(after) + 1)));
    editor.view.dispatch(tr.scrollIntoView());
    return true;
  }
  return editor.commands.splitBlock();
}

/** Per node or mark: rendering, parsing, input rules, shortcuts, views. */
function extensionsConfig(): Record<string, (parent: AnyExtension) => Config> {
  return {
    paragraph: () => ({
      parseHTML: () => [{ tag: "p" }],
      renderHTML: () => ["p", 0],
      addKeyboardShortcuts(this: This) {
        return { "Mod-Alt-0": () => this.editor.commands.setNode("paragraph") };
      },
    }),
    heading: () => ({
      parseHTML: () => [
        { tag: "h1", attrs: { level: 1 } },
        { tag: "h2", attrs: { level: 2 } },
        { tag: "h3", attrs: { level: 3 } },
        { tag: "h4", attrs: { level: 3 } },
        { tag: "h5", attrs: { level: 3 } },
        { tag: "h6", attrs: { level: 3 } },
      ],
      renderHTML: ({ node }: { node: PMNode }) => [`h${Number(node.attrs.level) + 1}`, { class: `q-heading q-h${node.attrs.level}` }, 0],
      addInputRules(this: This) {
        return [1, 2, 3].map((level) =>
          textblockTypeInputRule({ find: new RegExp(`^(#{${level}})\\s$`), type: this.type, getAttributes: { level } }),
        );
      },
      addKeyboardShortcuts(this: This) {
        const set = (level: number) => () => this.editor.commands.setNode("heading", { level });
        return { "Mod-Alt-1": set(1), "Mod-Alt-2": set(2), "Mod-Alt-3": set(3) };
      },
    }),
    bulletList: () => ({
      parseHTML: () => [{ tag: "ul", priority: 40 }],
      renderHTML: () => ["ul", { class: "q-list" }, 0],
      addInputRules(this: This) {
        return [wrappingInputRule({ find: /^\s*([-+*])\s$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-Shift-8": () => this.editor.commands.toggleList("bulletList", "listItem") };
      },
    }),
    orderedList: () => ({
      parseHTML: () => [{ tag: "ol" }],
      renderHTML: () => ["ol", { class: "q-list" }, 0],
      addInputRules(this: This) {
        return [wrappingInputRule({ find: /^(\d+)\.\s$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-Shift-7": () => this.editor.commands.toggleList("orderedList", "listItem") };
      },
    }),
    taskList: () => ({
      parseHTML: () => [
        { tag: 'ul[data-type="taskList"]', priority: 60 },
        { tag: "ul.q-tasks", priority: 60 },
      ],
      renderHTML: () => ["ul", { class: "q-list q-tasks", "data-type": "taskList" }, 0],
      addInputRules(this: This) {
        return [wrappingInputRule({ find: /^\s*\[( |x)?\]\s$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-Shift-9": () => this.editor.commands.toggleList("taskList", "listItem") };
      },
    }),
    listItem: () => ({
      parseHTML: () => [{ tag: "li" }],
      renderHTML: () => ["li", 0],
      addNodeView: () => blockView(ListItemView),
      addKeyboardShortcuts(this: This) {
        return {
          Enter: () => this.editor.commands.splitListItem("listItem"),
          Tab: () => this.editor.commands.sinkListItem("listItem"),
          "Shift-Tab": () => this.editor.commands.liftListItem("listItem"),
        };
      },
    }),
    blockquote: () => ({
      parseHTML: () => [{ tag: "blockquote" }],
      renderHTML: () => ["blockquote", { class: "q-quote" }, 0],
      addInputRules(this: This) {
        return [wrappingInputRule({ find: /^\s*>\s$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-Shift-b": () => this.editor.commands.toggleWrap("blockquote") };
      },
    }),
    hint: () => ({
      parseHTML: () => [
        {
          tag: "div.q-hint",
          getAttrs: (dom: HTMLElement) => {
            const style = HINT_STYLES.find((s) => dom.classList.contains(`q-hint-${s}`)) ?? "info";
            return { data: { style } };
          },
          contentElement: ".q-hint-body",
        },
      ],
      renderHTML: ({ node }: { node: PMNode }) => ["div", { class: `q-hint q-hint-${String(dataOf(node).style ?? "info")}` }, 0],
      addNodeView: () => blockView(HintView),
    }),
    divider: () => ({
      parseHTML: () => [{ tag: "hr" }],
      renderHTML: () => ["hr", { class: "q-divider" }],
      addInputRules(this: This) {
        return [nodeInputRule({ find: /^(?:---|___|\*\*\*)\s$/, type: this.type })];
      },
    }),
    codeBlock: () => ({
      parseHTML: () => [
        {
          tag: "pre",
          preserveWhitespace: "full",
          getContent: (dom: HTMLElement, schema: Schema) => codeLinesOf(dom, schema),
          getAttrs: (dom: HTMLElement) => {
            const language = /language-([\w+#-]+)/.exec(dom.querySelector("code")?.className ?? "")?.[1];
            return { data: language ? { syntax: language } : {} };
          },
        },
      ],
      renderHTML: () => ["figure", { class: "q-code" }, ["pre", ["code", 0]]],
      addNodeView: () => blockView(CodeView),
      addInputRules(this: This) {
        return [
          textblockTypeInputRule({
            find: /^```([\w+#-]*)[\s\n]$/,
            type: this.type,
            getAttributes: (match: RegExpMatchArray) => ({ data: match[1] ? { syntax: match[1] } : {} }),
          }),
        ];
      },
    }),
    codeLine: () => ({
      parseHTML: () => [{ tag: "div.q-line", preserveWhitespace: "full" }],
      renderHTML: () => ["div", { class: "q-line" }, 0],
      addKeyboardShortcuts(this: This) {
        return {
          Enter: () => codeEnter(this.editor),
          Tab: () => this.editor.commands.insertContent("  "),
        };
      },
    }),
    images: () => ({
      parseHTML: () => [{ tag: "div.q-images" }],
      renderHTML: () => ["div", { class: "q-images q-align-center" }, 0],
    }),
    image: () => ({
      parseHTML: () => [
        {
          tag: "img[src]",
          getAttrs: (dom: HTMLElement) => {
            const src = dom.getAttribute("src");
            const url = safeUrl(src);
            if (!url || !/^https?:/i.test(url)) return false;
            const alt = dom.getAttribute("alt");
            return { data: { ref: { kind: "url", url }, ...(alt ? { alt } : {}) } };
          },
        },
      ],
      renderHTML: () => ["figure", { class: "q-image" }, 0],
      addNodeView: () => blockView(ImageView),
    }),
    imageCaption: () => ({ renderHTML: () => ["figcaption", 0] }),
    expandable: () => ({
      parseHTML: () => [{ tag: "details" }],
      renderHTML: () => ["div", { class: "q-expandable qe-expandable" }, 0],
    }),
    expandableTitle: () => ({
      parseHTML: () => [{ tag: "summary" }],
      renderHTML: () => ["div", { class: "qe-expandable-title" }, 0],
    }),
    expandableBody: () => ({ renderHTML: () => ["div", { class: "q-expandable-body" }, 0] }),
    tabs: () => ({ renderHTML: () => ["div", { class: "qe-tabs" }, 0] }),
    tabsItem: () => ({ renderHTML: () => ["div", { class: "qe-tab" }, 0], addNodeView: () => blockView(TabView) }),
    stepper: () => ({ renderHTML: () => ["ol", { class: "q-stepper" }, 0] }),
    stepperStep: () => ({ renderHTML: () => ["li", { class: "q-step" }, 0] }),
    columns: () => ({ renderHTML: () => ["div", { class: "q-columns" }, 0], addNodeView: () => blockView(ColumnsView) }),
    column: () => ({ renderHTML: () => ["div", { class: "q-column" }, 0] }),
    conditional: () => ({
      renderHTML: ({ node }: { node: PMNode }) => ["div", { class: "qe-if", "data-expression": String(dataOf(node).expression ?? "") }, 0],
      addNodeView: () => blockView(ConditionalView),
    }),
    table: () => ({ renderHTML: () => ["div", { class: "q-table-wrap" }, 0], addNodeView: () => blockView(TableView) }),
    tableFragment: () => ({
      renderHTML: () => ["div", { class: "qe-cell" }, 0],
      // The table places its cells (grid row and column in their style): not an edit to read back.
      addNodeView: () => () => {
        const dom = el("div", { class: "qe-cell" });
        return {
          dom,
          contentDOM: dom,
          ignoreMutation: (mutation: ViewMutationRecord) => mutation.type === "attributes" && mutation.attributeName === "style",
        };
      },
    }),
    ...Object.fromEntries(
      [
        "mathBlock",
        "file",
        "drawing",
        "embed",
        "contentRef",
        "reusableContent",
        "swagger",
        "openapiOperation",
        "openapiSchemas",
        "openapiWebhook",
        "integration",
        "opaqueBlock",
      ].map((name) => [name, () => ({ renderHTML: () => ["div", { class: "qe-atom" }], addNodeView: () => blockView(AtomView) })]),
    ),
    ...Object.fromEntries(
      ["emoji", "icon", "expression", "mathInline", "inlineImage", "mention", "button", "opaqueInline"].map((name) => [
        name,
        () => ({ renderHTML: () => ["span", { class: "qe-inline" }], addNodeView: () => inlineAtom(name) }),
      ]),
    ),
    // ---- marks
    bold: () => ({
      parseHTML: () => [
        { tag: "strong" },
        { tag: "b", getAttrs: (dom: HTMLElement) => dom.style.fontWeight !== "normal" && null },
        { style: "font-weight=700" },
        { style: "font-weight=bold" },
      ],
      renderHTML: () => ["strong", 0],
      addInputRules(this: This) {
        return [markInputRule({ find: /(?:^|\s)(\*\*(?!\s+\*\*)((?:[^*]+))\*\*(?!\s+\*\*))$/, type: this.type })];
      },
      addPasteRules(this: This) {
        return [markPasteRule({ find: /(?:^|\s)(\*\*(?!\s+\*\*)((?:[^*]+))\*\*(?!\s+\*\*))/g, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-b": () => this.editor.commands.toggleMark("bold") };
      },
    }),
    italic: () => ({
      parseHTML: () => [{ tag: "em" }, { tag: "i" }, { style: "font-style=italic" }],
      renderHTML: () => ["em", 0],
      addInputRules(this: This) {
        return [markInputRule({ find: /(?:^|\s)(\*(?!\s+\*)((?:[^*]+))\*(?!\s+\*))$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-i": () => this.editor.commands.toggleMark("italic") };
      },
    }),
    strike: () => ({
      parseHTML: () => [{ tag: "s" }, { tag: "del" }, { tag: "strike" }],
      renderHTML: () => ["s", 0],
      addInputRules(this: This) {
        return [markInputRule({ find: /(?:^|\s)(~~(?!\s+~~)((?:[^~]+))~~(?!\s+~~))$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-Shift-s": () => this.editor.commands.toggleMark("strike") };
      },
    }),
    code: () => ({
      parseHTML: () => [{ tag: "code" }],
      renderHTML: () => ["code", { class: "q-code-inline" }, 0],
      addInputRules(this: This) {
        return [markInputRule({ find: /(?:^|\s)(`(?!\s+`)((?:[^`]+))`(?!\s+`))$/, type: this.type })];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-e": () => this.editor.commands.toggleMark("code") };
      },
    }),
    keyboard: () => ({ parseHTML: () => [{ tag: "kbd" }], renderHTML: () => ["kbd", 0] }),
    superscript: () => ({ parseHTML: () => [{ tag: "sup" }], renderHTML: () => ["sup", 0] }),
    subscript: () => ({ parseHTML: () => [{ tag: "sub" }], renderHTML: () => ["sub", 0] }),
    color: () => ({
      renderHTML: ({ mark }: { mark: { attrs: Json } }) => {
        const data = (mark.attrs.data as Json) ?? {};
        return ["span", { class: `qe-color`, "data-text": String(data.text ?? ""), "data-background": String(data.background ?? "") }, 0];
      },
    }),
    link: () => ({
      parseHTML: () => [
        {
          tag: "a[href]",
          getAttrs: (dom: HTMLElement) => {
            const href = safeUrl(dom.getAttribute("href"));
            if (!href) return false;
            if (href.startsWith("#")) return { data: { ref: { kind: "anchor", anchor: href.slice(1) } } };
            return { data: { ref: { kind: "url", url: href } } };
          },
        },
      ],
      renderHTML: ({ mark }: { mark: { attrs: Json } }) => {
        const ref = refOf((mark.attrs.data as Json) ?? {});
        const linked = ref?.kind === "page" || (ref?.kind === "anchor" && ref.page) ? ref.page : undefined;
        const page = linked ? editorEnv().pages.find((p) => p.id === linked) : undefined;
        const title =
          ref?.kind === "url"
            ? String(ref.url)
            : ref?.kind === "page"
              ? `Page: ${page?.title ?? String(ref.page)}`
              : ref?.kind === "anchor"
                ? `Heading #${String(ref.anchor)}${ref.page ? ` of ${page?.title ?? String(ref.page)}` : ""}`
                : String(ref?.kind ?? "");
        return ["a", { class: "q-link", href: pageHref(ref), title, "data-ref": String(ref?.kind ?? "") }, 0];
      },
      addKeyboardShortcuts(this: This) {
        return { "Mod-k": () => openLinkDialog(this.editor) };
      },
    }),
    annotation: () => ({ renderHTML: () => ["span", { class: "q-annotated" }, 0] }),
  };
}

/** The document model's extensions with the browser's rendering, parsing, rules and views. */
export function browserExtensions(): AnyExtension[] {
  const config = extensionsConfig();
  return editorExtensions().map((extension) => {
    const make = config[extension.name];
    return make ? (extension.extend(make(extension) as never) as AnyExtension) : extension;
  });
}

export { codeOfEmoji };
