/**
 * The link dialog (Mod-K, or the "/" menu's "Link"): links the selected text to a web address, a
 * page of the space (searched by title or path; the path tells pages of the same title apart), or
 * a heading of a page. The link is stored as the document model stores it: the link mark's
 * `data.ref`, a GitBook content reference (`{kind: "url", url}`, `{kind: "page", page}`,
 * `{kind: "anchor", anchor, page?}`: no `page` for a heading of the page being edited).
 * In a link, the dialog edits it or removes it. Only http(s) and mailto addresses are taken.
 */
import { type Editor, getMarkRange } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import { AnchorAllocator } from "../../../content/document/anchor.js";
import { editorEnv, el, type Json } from "./views.js";

export type LinkRef = { kind: "url"; url: string } | { kind: "page"; page: string } | { kind: "anchor"; anchor: string; page?: string };

/** The address to store for what the writer typed, or why it is refused. */
export function checkLinkUrl(input: string): { url: string } | { error: string } {
  const value = input.trim();
  if (!value) return { error: "Type the address to link to, e.g. https://example.com." };
  if (/\s/.test(value)) return { error: "An address has no spaces: check what was typed." };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    // "example.com/page" is taken as https://example.com/page.
    if (/^[\w-]+(\.[\w-]+)+(?:[/?#:]|$)/.test(value)) return { url: `https://${value}` };
    return { error: "Type a full address starting with https://, or pick a page or a heading of the space instead." };
  }
  if (scheme === "mailto") return value.length > 7 ? { url: value } : { error: "Add the e-mail address after mailto:." };
  if (scheme !== "http" && scheme !== "https")
    return { error: `Links to "${scheme}:" addresses are not allowed: only http, https and mailto addresses can be linked.` };
  try {
    const url = new URL(value);
    if (!url.hostname) return { error: "That address has no site name." };
  } catch {
    return { error: "That is not a valid address." };
  }
  return { url: value };
}

interface Heading {
  anchor: string;
  title: string;
  level: number;
}

/** The headings of the document being edited, with the anchors the published page will give them. */
export function headingsOf(doc: PMNode): Heading[] {
  const anchors = new AnchorAllocator();
  const out: Heading[] = [];
  doc.descendants((node) => {
    if (node.type.name !== "heading") return !node.isTextblock;
    const data = (node.attrs.data ?? {}) as Json;
    const text = node.textContent.replace(/\s+/g, " ").trim();
    out.push({
      anchor: anchors.next(typeof data.id === "string" ? data.id : undefined, text),
      title: text,
      level: Number(node.attrs.level),
    });
    return false;
  });
  return out;
}

const anchorCache = new Map<string, Promise<Heading[]>>();

/** Another page's headings, from the server (its last saved state in the change request). */
function fetchHeadings(url: string): Promise<Heading[]> {
  let promise = anchorCache.get(url);
  if (!promise) {
    promise = fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } }).then(async (response) => {
      const body = (await response.json().catch(() => ({}))) as { anchors?: Heading[]; error?: { message?: string } };
      if (!response.ok) throw new Error(body.error?.message ?? `the server answered ${response.status}`);
      return body.anchors ?? [];
    });
    promise.catch(() => anchorCache.delete(url));
    anchorCache.set(url, promise);
  }
  return promise;
}

type Tab = "url" | "page" | "anchor";

let closeOpen: (() => void) | undefined;

/** The dialog for the selection (or the link the caret is in). */
export function openLinkDialog(editor: Editor): boolean {
  if (!editor.isEditable) return false;
  closeOpen?.();
  const env = editorEnv();
  const { state } = editor;
  const linkType = state.schema.marks.link!;
  let { from, to } = state.selection;
  // In a link (or on one): the whole link is edited. `inside`: a position just before text of that link.
  let existing: ReturnType<typeof linkType.create> | undefined;
  let inside = from;
  if (state.selection.empty) {
    const $from = state.doc.resolve(from);
    existing = linkType.isInSet($from.nodeAfter?.marks ?? []) ?? undefined;
    if (!existing) {
      existing = linkType.isInSet($from.nodeBefore?.marks ?? []) ?? undefined;
      inside = from - 1;
    }
  } else {
    state.doc.nodesBetween(from, to, (node, pos) => {
      const mark = existing ? undefined : linkType.isInSet(node.marks);
      if (mark) {
        existing = mark;
        inside = Math.max(pos, from);
      }
    });
  }
  if (existing) {
    const range = getMarkRange(state.doc.resolve(inside), linkType, existing.attrs);
    if (range) ({ from, to } = range);
  }
  const current = ((existing?.attrs.data as Json | undefined)?.ref ?? undefined) as LinkRef | undefined;
  const needsText = from === to;
  const thisPage = env.pageId;

  const dialog = el("div", { class: "qe-popover qe-link-dialog", role: "dialog", "aria-label": existing ? "Edit the link" : "Add a link" });
  const coords = editor.view.coordsAtPos(from);
  dialog.style.left = `${Math.max(4, Math.min(coords.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - 360))}px`;
  dialog.style.top = `${coords.bottom + window.scrollY + 6}px`;

  const tabs = el("div", { class: "qe-link-tabs", role: "tablist" });
  const body = el("div", { class: "qe-link-body" });
  const error = el("p", { class: "qe-link-error", role: "alert", hidden: "" });
  const textInput = el("input", {
    type: "text",
    class: "qe-field",
    "aria-label": "Text of the link",
    placeholder: "Text to show (optional)",
  });
  const actions = el("div", { class: "qe-link-actions" });
  dialog.append(tabs, needsText ? textInput : "", body, error, actions);

  let tab: Tab = current?.kind === "page" ? "page" : current?.kind === "anchor" ? "anchor" : "url";
  const showError = (message: string) => {
    error.textContent = message;
    error.hidden = false;
  };

  const close = (refocus: boolean) => {
    // Focus first, synchronously (Tiptap's focus command waits for the next animation frame): keys
    // typed right after closing reach the editor, not the page's body.
    if (refocus) editor.view.focus();
    dialog.remove();
    document.removeEventListener("mousedown", outside, true);
    closeOpen = undefined;
    if (refocus) editor.commands.focus();
  };
  const outside = (event: MouseEvent) => {
    if (!(event.target instanceof Node && dialog.contains(event.target))) close(false);
  };

  /** Sets the link on the range (or inserts its text first, when nothing was selected). */
  const apply = (ref: LinkRef, label: string) => {
    const data = { ...((existing?.attrs.data as Json | undefined) ?? {}), ref };
    const attrs = { ...(existing?.attrs ?? {}), data };
    close(true);
    const chain = editor.chain().focus();
    if (needsText) {
      const text = textInput.value.trim() || label;
      chain.insertContentAt(from, { type: "text", text, marks: [{ type: "link", attrs }] }).run();
    } else chain.setTextSelection({ from, to }).setMark("link", attrs).setTextSelection(to).run();
  };

  const urlPane = () => {
    const input = el("input", { type: "url", class: "qe-field", "aria-label": "Web address", placeholder: "https://…" });
    if (current?.kind === "url") input.value = current.url;
    const submit = () => {
      const checked = checkLinkUrl(input.value);
      if ("error" in checked) {
        showError(checked.error);
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      apply({ kind: "url", url: checked.url }, checked.url.replace(/^mailto:/, ""));
    };
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        submit();
      }
    });
    const button = el("button", { type: "button", class: "primary qe-small-button" }, "Link");
    button.addEventListener("click", submit);
    body.replaceChildren(el("div", { class: "qe-link-row" }, input, button));
    return input;
  };

  /** A searchable list; `choose` gets the picked item. */
  const list = <T>(label: string, items: () => T[], text: (item: T) => [string, string], choose: (item: T) => void, initial = "") => {
    const search = el("input", { type: "search", class: "qe-field", "aria-label": label, placeholder: `${label}…` });
    search.value = initial;
    const options = el("div", { class: "qe-link-list", role: "listbox", "aria-label": `${label.replace(/^Search /, "")} found` });
    let shown: T[] = [];
    let selected = 0;
    const render = () => {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      shown = items().filter((item) => {
        const [title, detail] = text(item);
        const hay = `${title} ${detail}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      });
      selected = Math.min(selected, Math.max(0, shown.length - 1));
      options.replaceChildren(
        ...(shown.length
          ? shown.map((item, index) => {
              const [title, detail] = text(item);
              const option = el(
                "button",
                { type: "button", role: "option", class: "qe-menu-item", "aria-selected": String(index === selected) },
                el("span", { class: "qe-menu-title" }, title || "(untitled)"),
                el("span", { class: "qe-menu-hint" }, detail),
              );
              option.addEventListener("mousedown", (event) => {
                event.preventDefault();
                choose(item);
              });
              return option;
            })
          : [el("div", { class: "qe-menu-empty" }, "Nothing matches")]),
      );
      options.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: "nearest" });
    };
    search.addEventListener("input", () => {
      selected = 0;
      render();
    });
    search.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (shown.length) selected = (selected + (event.key === "ArrowDown" ? 1 : shown.length - 1)) % shown.length;
        render();
      } else if (event.key === "Enter") {
        event.preventDefault();
        const item = shown[selected];
        if (item) choose(item);
      }
    });
    render();
    return { search, options, render };
  };

  const pageLabel = (id: string | undefined) => {
    const page = env.pages.find((p) => p.id === id);
    return page ? `${page.title} (/${page.path})` : "";
  };

  const pagePane = () => {
    const pages = list(
      "Search pages",
      () => env.pages,
      (p) => [p.title, `/${p.path}`],
      (p) => apply({ kind: "page", page: p.id }, p.title),
    );
    body.replaceChildren(pages.search, pages.options);
    return pages.search;
  };

  const anchorPane = () => {
    // First the page (this one unless the link says otherwise), then its headings.
    const select = el("select", { class: "qe-field", "aria-label": "Page of the heading" });
    for (const p of env.pages)
      select.append(el("option", { value: p.id }, p.id === thisPage ? `This page: ${p.title}` : `${p.title} (/${p.path})`));
    if (!env.pages.some((p) => p.id === thisPage)) select.prepend(el("option", { value: thisPage ?? "" }, "This page"));
    select.value = current?.kind === "anchor" ? (current.page ?? thisPage ?? "") : (thisPage ?? "");
    let headings: Heading[] = [];
    const status = el("p", { class: "qe-menu-empty" });
    const headingList = list(
      "Search headings",
      () => headings,
      (h) => [h.title, `${"#".repeat(h.level)} #${h.anchor}`],
      (h) => {
        const page = select.value && select.value !== thisPage ? select.value : undefined;
        apply(page ? { kind: "anchor", anchor: h.anchor, page } : { kind: "anchor", anchor: h.anchor }, h.title);
      },
    );
    const load = () => {
      status.hidden = true;
      if (!select.value || select.value === thisPage) {
        headings = headingsOf(editor.state.doc);
        headingList.render();
        if (!headings.length) {
          status.textContent = "This page has no heading yet.";
          status.hidden = false;
        }
        return;
      }
      headings = [];
      headingList.render();
      status.textContent = "Loading the headings…";
      status.hidden = false;
      const wanted = select.value;
      fetchHeadings(env.anchorsUrl(wanted))
        .then((found) => {
          if (select.value !== wanted) return;
          headings = found;
          headingList.render();
          status.textContent = found.length ? "" : `${pageLabel(wanted)} has no heading.`;
          status.hidden = found.length > 0;
        })
        .catch((reason: unknown) => {
          if (select.value !== wanted) return;
          status.textContent = `The headings could not be loaded: ${reason instanceof Error ? reason.message : String(reason)}`;
        });
    };
    select.addEventListener("change", load);
    body.replaceChildren(select, headingList.search, status, headingList.options);
    load();
    return headingList.search;
  };

  const tabButtons: Record<Tab, HTMLButtonElement> = {
    url: el("button", { type: "button", role: "tab", class: "qe-link-tab" }, "Web address"),
    page: el("button", { type: "button", role: "tab", class: "qe-link-tab" }, "Page"),
    anchor: el("button", { type: "button", role: "tab", class: "qe-link-tab" }, "Heading"),
  };
  const show = (next: Tab) => {
    tab = next;
    error.hidden = true;
    for (const [name, button] of Object.entries(tabButtons)) button.setAttribute("aria-selected", String(name === tab));
    const focus = tab === "url" ? urlPane() : tab === "page" ? pagePane() : anchorPane();
    focus.focus();
  };
  for (const [name, button] of Object.entries(tabButtons)) {
    button.addEventListener("click", () => show(name as Tab));
    tabs.append(button);
  }

  if (existing) {
    const remove = el("button", { type: "button", class: "qe-small-button qe-link-remove" }, "Remove link");
    remove.addEventListener("click", () => {
      close(false);
      editor.chain().focus().setTextSelection({ from, to }).unsetMark("link").setTextSelection(to).run();
    });
    actions.append(remove);
  }
  const cancel = el("button", { type: "button", class: "qe-small-button" }, "Cancel");
  cancel.addEventListener("click", () => close(true));
  actions.append(cancel);
  dialog.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close(true);
    }
  });

  document.body.append(dialog);
  document.addEventListener("mousedown", outside, true);
  closeOpen = () => close(false);
  show(tab);
  return true;
}
