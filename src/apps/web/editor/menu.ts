/** The "/" menu (@tiptap/suggestion): type "/" then a few letters, pick a block with the arrows and Enter, or click. */
import { type Editor, Extension, type Range } from "@tiptap/core";
import { PluginKey } from "@tiptap/pm/state";
import { Suggestion, type SuggestionProps } from "@tiptap/suggestion";
import { openEmojiPicker } from "./emoji.js";
import { openLinkDialog } from "./link.js";
import { newTable } from "./nodes.js";
import { editorEnv, el } from "./views.js";

interface MenuItem {
  title: string;
  hint: string;
  keywords: string;
  run(editor: Editor, range: Range): void;
  /** Where the block may go, when not everywhere: the menu lists it only there. */
  allowed?(editor: Editor): boolean;
}

/** In a paragraph right inside a table cell: where GitBook's 0.146 schema places columns and conditional blocks. */
const inTableCell = (editor: Editor) => {
  const { $from } = editor.state.selection;
  return $from.depth >= 2 && $from.node(-1).type.name === "tableFragment";
};

const para = { type: "paragraph" };
const insert = (content: Parameters<Editor["commands"]["insertContent"]>[0]) => (editor: Editor, range: Range) =>
  editor.chain().focus().deleteRange(range).insertContent(content).run();

export const MENU_ITEMS: MenuItem[] = [
  {
    title: "Text",
    hint: "A paragraph",
    keywords: "paragraph text",
    run: (e, r) => e.chain().focus().deleteRange(r).setNode("paragraph").run(),
  },
  ...[1, 2, 3].map(
    (level): MenuItem => ({
      title: `Heading ${level}`,
      hint: `${"#".repeat(level)} then a space`,
      keywords: `heading title h${level}`,
      run: (e, r) => e.chain().focus().deleteRange(r).setNode("heading", { level }).run(),
    }),
  ),
  {
    title: "Bulleted list",
    hint: "- then a space",
    keywords: "list bullet unordered",
    run: (e, r) => e.chain().focus().deleteRange(r).toggleList("bulletList", "listItem").run(),
  },
  {
    title: "Numbered list",
    hint: "1. then a space",
    keywords: "list numbered ordered",
    run: (e, r) => e.chain().focus().deleteRange(r).toggleList("orderedList", "listItem").run(),
  },
  {
    title: "Task list",
    hint: "[ ] then a space",
    keywords: "list task todo checkbox",
    run: (e, r) => e.chain().focus().deleteRange(r).toggleList("taskList", "listItem").run(),
  },
  {
    title: "Quote",
    hint: "> then a space",
    keywords: "quote blockquote",
    run: (e, r) => e.chain().focus().deleteRange(r).wrapIn("blockquote").run(),
  },
  ...(["info", "success", "warning", "danger"] as const).map(
    (style): MenuItem => ({
      title: `Hint: ${style}`,
      hint: "A highlighted note",
      keywords: `hint callout note ${style}`,
      run: insert({ type: "hint", attrs: { data: { style } }, content: [para] }),
    }),
  ),
  {
    title: "Code block",
    hint: "``` then a space",
    keywords: "code block pre snippet",
    run: insert({ type: "codeBlock", attrs: { data: {} }, content: [{ type: "codeLine" }] }),
  },
  { title: "Table", hint: "2 × 2, rows and columns can be added", keywords: "table grid", run: (e, r) => insert(newTable(e.schema))(e, r) },
  {
    title: "Tabs",
    hint: "Content in tabs",
    keywords: "tabs",
    run: insert({
      type: "tabs",
      content: [1, 2].map((n) => ({ type: "tabsItem", attrs: { data: { title: `Tab ${n}` } }, content: [para] })),
    }),
  },
  {
    title: "Expandable",
    hint: "A section readers open",
    keywords: "expandable details collapse toggle",
    run: insert({
      type: "expandable",
      content: [
        { type: "expandableTitle", content: [para] },
        { type: "expandableBody", content: [para] },
      ],
    }),
  },
  {
    title: "Stepper",
    hint: "Numbered steps",
    keywords: "stepper steps",
    run: insert({
      type: "stepper",
      content: [
        { type: "stepperStep", content: [para] },
        { type: "stepperStep", content: [para] },
      ],
    }),
  },
  {
    title: "Columns",
    hint: "Two columns side by side (in a table cell)",
    keywords: "columns layout side",
    allowed: inTableCell,
    run: insert({
      type: "columns",
      attrs: { data: {} },
      content: [1, 2].map(() => ({ type: "column", attrs: { data: {} }, content: [para] })),
    }),
  },
  {
    title: "Conditional",
    hint: "Shown when a condition holds (in a table cell)",
    keywords: "conditional if condition adaptive",
    allowed: inTableCell,
    run: insert({ type: "conditional", attrs: { data: { expression: "true" } }, content: [para] }),
  },
  { title: "Divider", hint: "--- then a space", keywords: "divider rule hr line", run: insert({ type: "divider" }) },
  {
    title: "Math",
    hint: "A TeX formula",
    keywords: "math formula tex latex",
    run: insert({ type: "mathBlock", attrs: { data: { formula: "" } } }),
  },
  {
    title: "Embed",
    hint: "A video or a page from another site",
    keywords: "embed video youtube iframe",
    run: insert({ type: "embed", attrs: { data: { url: "" } } }),
  },
  {
    title: "Card (page)",
    hint: "A link to a page as a card",
    keywords: "card content-ref page link",
    run: insert({ type: "contentRef", attrs: { data: { ref: { kind: "url", url: "" } } } }),
  },
  {
    title: "Image",
    hint: "Upload an image (or paste or drop one)",
    keywords: "image picture photo upload",
    run: (e, r) => {
      e.chain().focus().deleteRange(r).run();
      editorEnv().pickFiles("image/*");
    },
  },
  {
    title: "File",
    hint: "Upload a file",
    keywords: "file attachment upload",
    run: (e, r) => {
      e.chain().focus().deleteRange(r).run();
      editorEnv().pickFiles("*/*");
    },
  },
  {
    title: "Link",
    hint: "To a web address, a page or a heading (Ctrl/⌘-K)",
    keywords: "link url href anchor page",
    run: (e, r) => {
      e.chain().focus().deleteRange(r).run();
      openLinkDialog(e);
    },
  },
  {
    title: "Emoji",
    hint: "Pick an emoji for the text",
    keywords: "emoji smiley",
    run: (e, r) => {
      e.chain().focus().deleteRange(r).run();
      openEmojiPicker(e);
    },
  },
  {
    title: "Inline math",
    hint: "A TeX formula in the text",
    keywords: "math inline formula tex latex",
    run: (e, r) => {
      e.chain().focus().deleteRange(r).run();
      const at = e.state.selection.from;
      e.chain()
        .insertContent({ type: "mathInline", attrs: { data: { formula: "" } } })
        .setNodeSelection(at)
        .run();
    },
  },
];

export function filterItems(query: string): MenuItem[] {
  const q = query.toLowerCase().trim();
  if (!q) return MENU_ITEMS;
  // Titles starting with the query first ("link" picks Link before the Card it also names), then the others.
  const rank = (item: MenuItem) => (item.title.toLowerCase().startsWith(q) ? 0 : item.title.toLowerCase().includes(q) ? 1 : 2);
  return MENU_ITEMS.filter((item) => item.title.toLowerCase().includes(q) || item.keywords.includes(q))
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ item }) => item);
}

/** The menu's list, positioned under the "/". */
class MenuList {
  dom = el("div", { class: "qe-menu", role: "listbox", "aria-label": "Insert a block" });
  private selected = 0;
  private props!: SuggestionProps<MenuItem>;
  update(props: SuggestionProps<MenuItem>): void {
    this.props = props;
    this.selected = Math.min(this.selected, Math.max(0, props.items.length - 1));
    this.render();
    const rect = props.clientRect?.();
    if (rect) {
      this.dom.style.left = `${rect.left + window.scrollX}px`;
      this.dom.style.top = `${rect.bottom + window.scrollY + 4}px`;
    }
  }
  private render(): void {
    this.dom.replaceChildren(
      ...(this.props.items.length
        ? this.props.items.map((item, index) => {
            const option = el(
              "button",
              { type: "button", role: "option", class: "qe-menu-item", "aria-selected": String(index === this.selected) },
              el("span", { class: "qe-menu-title" }, item.title),
              el("span", { class: "qe-menu-hint" }, item.hint),
            );
            option.addEventListener("mousedown", (event) => {
              event.preventDefault();
              this.props.command(item);
            });
            return option;
          })
        : [el("div", { class: "qe-menu-empty" }, "No block matches")]),
    );
  }
  key(event: KeyboardEvent): boolean {
    const count = this.props.items.length;
    if (event.key === "ArrowDown" && count) this.selected = (this.selected + 1) % count;
    else if (event.key === "ArrowUp" && count) this.selected = (this.selected + count - 1) % count;
    else if (event.key === "Enter" || event.key === "Tab") {
      const item = this.props.items[this.selected];
      if (item) this.props.command(item);
      return Boolean(item);
    } else return false;
    this.render();
    return true;
  }
}

export const SlashMenu = Extension.create({
  name: "slashMenu",
  addProseMirrorPlugins() {
    return [
      Suggestion<MenuItem>({
        editor: this.editor,
        char: "/",
        pluginKey: new PluginKey("slashMenu"),
        allowSpaces: false,
        startOfLine: false,
        items: ({ query, editor }) => filterItems(query).filter((item) => !item.allowed || item.allowed(editor)),
        command: ({ editor, range, props }) => props.run(editor, range),
        allow: ({ state, range }) => !state.doc.resolve(range.from).parent.type.spec.code,
        render: () => {
          let list: MenuList | undefined;
          return {
            onStart(props) {
              list = new MenuList();
              document.body.append(list.dom);
              list.update(props);
            },
            onUpdate(props) {
              list?.update(props);
            },
            onKeyDown({ event }) {
              if (event.key === "Escape") {
                list?.dom.remove();
                list = undefined;
                return true;
              }
              return list?.key(event) ?? false;
            },
            onExit() {
              list?.dom.remove();
              list = undefined;
            },
          };
        },
      }),
    ];
  },
});
