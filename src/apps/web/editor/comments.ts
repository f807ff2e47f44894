/**
 * Inline comments: a comment on selected words. It is stored as a comment on the block (the
 * comments family, GitBook's comment target), with an anchor beside it: two Yjs relative positions
 * in the page's Y.Doc, which stay on the same characters whoever inserts or deletes around them,
 * and the quoted words. The words are highlighted while the comment is open; the threads of the
 * page (inline and block comments) are listed in the side panel, where they are resolved or
 * reopened. A change to the page's comments is announced to the other editors through the Y.Map
 * `comments` (comment id -> a counter), on which they fetch the threads again: the server stays
 * the only source of what a reader may see.
 */
import { type Editor, Extension } from "@tiptap/core";
import type { Node as PMNode } from "@tiptap/pm/model";
import { type EditorState, Plugin, PluginKey, TextSelection } from "@tiptap/pm/state";
import { Decoration, DecorationSet, type EditorView } from "@tiptap/pm/view";
import { absolutePositionToRelativePosition, relativePositionToAbsolutePosition, ySyncPluginKey } from "y-prosemirror";
import * as Y from "yjs";
import { el } from "./views.js";

export interface Thread {
  id: string;
  node: string | null;
  anchor: { quote: string; start: string; end: string } | null;
  status: string;
  postedBy: string;
  postedAt: string;
  body: string;
  replies: { id: string; postedBy: string; postedAt: string; body: string }[];
  mayReply: boolean;
}

export interface CommentsOptions {
  listUrl: string;
  postUrl: string;
  /** The address that resolves or reopens comment `id`. */
  resolveUrl: (id: string) => string;
  /** The address that posts a reply to comment `id`. */
  replyUrl: (id: string) => string;
  csrf: string;
  ydoc: Y.Doc;
  panel: HTMLElement;
}

/** Where the signals that the page's comments changed travel between editors. */
export const COMMENTS_MAP = "comments";

interface PluginState {
  threads: Thread[];
  active: string | undefined;
  decorations: DecorationSet;
}

const commentsKey = new PluginKey<PluginState>("quireComments");

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

// biome-ignore lint/suspicious/noExplicitAny: y-prosemirror's binding is not typed
type Binding = { mapping: any; type: Y.XmlFragment; doc: Y.Doc };
const bindingOf = (state: EditorState): Binding | undefined => ySyncPluginKey.getState(state)?.binding as Binding | undefined;

/**
 * The anchor of the selection `from`-`to`: the start is the position of the first character, the
 * end the position of the last one (a position is tied to the character after it), so words typed
 * just before or just after the selection are not taken into it.
 */
export function anchorOf(state: EditorState, from: number, to: number): { start: string; end: string } | undefined {
  const binding = bindingOf(state);
  if (!binding || to <= from) return undefined;
  const start = absolutePositionToRelativePosition(from, binding.type, binding.mapping);
  const end = absolutePositionToRelativePosition(to - 1, binding.type, binding.mapping);
  return { start: toBase64(Y.encodeRelativePosition(start)), end: toBase64(Y.encodeRelativePosition(end)) };
}

/** The range of an anchor in the document now; undefined when its text is gone. */
function rangeOf(state: EditorState, thread: Thread): { from: number; to: number } | undefined {
  const anchor = thread.anchor;
  if (!anchor) return undefined;
  const binding = bindingOf(state);
  if (binding) {
    try {
      const from = relativePositionToAbsolutePosition(
        binding.doc,
        binding.type,
        Y.decodeRelativePosition(fromBase64(anchor.start)),
        binding.mapping,
      );
      const last = relativePositionToAbsolutePosition(
        binding.doc,
        binding.type,
        Y.decodeRelativePosition(fromBase64(anchor.end)),
        binding.mapping,
      );
      if (from !== null && last !== null && last >= from && last + 1 <= state.doc.content.size) {
        const to = last + 1;
        if (state.doc.textBetween(from, to, " ", " ").trim()) return { from, to };
      }
    } catch {
      // Positions of another document (the page was loaded anew from its stored document): the quote below.
    }
  }
  return quoteIn(state.doc, thread.node, anchor.quote);
}

/** The first place of `quote` in one text block of the block `key` (or of the page). */
function quoteIn(doc: PMNode, key: string | null, quote: string): { from: number; to: number } | undefined {
  let found: { from: number; to: number } | undefined;
  let scopeFrom = 0;
  let scopeTo = doc.content.size;
  if (key) {
    doc.descendants((node, pos) => {
      if (found || scopeFrom > 0) return false;
      if (node.attrs.key === key) {
        scopeFrom = pos;
        scopeTo = pos + node.nodeSize;
        return false;
      }
      return true;
    });
  }
  doc.nodesBetween(scopeFrom, scopeTo, (node, pos) => {
    if (found) return false;
    if (!node.isTextblock) return true;
    // One character per position, inline atoms as a placeholder, so that offsets are positions.
    let text = "";
    node.forEach((child) => {
      text += child.isText ? child.text! : "\uFFFC".repeat(child.nodeSize);
    });
    const at = text.indexOf(quote);
    if (at >= 0) found = { from: pos + 1 + at, to: pos + 1 + at + quote.length };
    return false;
  });
  return found;
}

function decorationsOf(state: EditorState, threads: Thread[], active: string | undefined): DecorationSet {
  const decorations: Decoration[] = [];
  for (const thread of threads) {
    if (thread.status !== "open") continue;
    const range = rangeOf(state, thread);
    if (!range) continue;
    decorations.push(
      Decoration.inline(
        range.from,
        range.to,
        { class: `qe-commented${thread.id === active ? " qe-commented-active" : ""}`, "data-comment": thread.id },
        { inclusiveStart: false, inclusiveEnd: false, commentId: thread.id },
      ),
    );
  }
  return DecorationSet.create(state.doc, decorations);
}

/** The key of the innermost keyed block around a position (the block a comment is on). */
function blockKeyAt(state: EditorState, pos: number): string | undefined {
  const $pos = state.doc.resolve(pos);
  for (let depth = $pos.depth; depth > 0; depth--) {
    const key = $pos.node(depth).attrs.key;
    if (typeof key === "string" && key) return key;
  }
  return undefined;
}

async function requestJson<T>(url: string, init: RequestInit & { csrf?: string } = {}): Promise<T> {
  const response = await fetch(url, {
    ...init,
    credentials: "same-origin",
    headers: {
      accept: "application/json",
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...(init.csrf ? { "x-csrf-token": init.csrf } : {}),
    },
  });
  const body = (await response.json().catch(() => ({}))) as T & { error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `The server answered ${response.status}.`);
  return body;
}

/**
 * The submit of a comment box: an empty text is refused with `empty`, the button is off while
 * `post` runs, and a text the server refuses stays in the box with the reason, to be sent again.
 */
function submitter(
  box: { area: HTMLTextAreaElement; error: HTMLElement; send: HTMLButtonElement },
  empty: string,
  post: (text: string) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const text = box.area.value.trim();
    if (!text) {
      box.error.textContent = empty;
      box.area.focus();
      return;
    }
    box.send.disabled = true;
    box.error.textContent = "";
    try {
      await post(text);
    } catch (e) {
      box.error.textContent = (e as Error).message;
      box.send.disabled = false;
    }
  };
}

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
};

/** The threads, the panel that lists them, the selection bubble and the composer. */
class Comments {
  threads: Thread[] = [];
  editor!: Editor;
  private bubble = el(
    "button",
    { type: "button", class: "qe-comment-bubble", hidden: "", "aria-label": "Comment on the selection" },
    "💬 Comment",
  );
  private composer?: HTMLElement;
  /** Replies being written, by comment id: they survive the panel being drawn again (another editor's comment arriving). */
  private drafts = new Map<string, string>();
  private loading: Promise<void> | undefined;
  private again = false;
  constructor(readonly options: CommentsOptions) {
    this.bubble.addEventListener("mousedown", (event) => event.preventDefault());
    this.bubble.addEventListener("click", () => this.compose());
    document.body.append(this.bubble);
    options.ydoc.getMap(COMMENTS_MAP).observe((event) => {
      if (!event.transaction.local) void this.load();
    });
    this.render();
  }

  /** Fetches the threads; a signal arriving during a fetch fetches once more after it. */
  load(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.again = false;
          const body = await requestJson<{ comments: Thread[] }>(this.options.listUrl);
          this.setThreads(body.comments);
        } while (this.again);
      } catch (error) {
        this.panelError(`The comments could not be loaded: ${(error as Error).message}`);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private setThreads(threads: Thread[], active = commentsKey.getState(this.editor.state)?.active): void {
    this.threads = threads;
    this.editor.view.dispatch(this.editor.state.tr.setMeta(commentsKey, { threads, active }).setMeta("addToHistory", false));
    this.render();
  }

  /** Tells the other editors of the page to fetch the threads again. */
  private announce(id: string): void {
    const map = this.options.ydoc.getMap<number>(COMMENTS_MAP);
    map.set(id, (map.get(id) ?? 0) + 1);
  }

  /** The bubble over a selection of text (not inside code, where a highlight would hide the colours). */
  updateBubble(view: EditorView): void {
    const { selection } = view.state;
    const show =
      view.editable &&
      !this.composer &&
      selection instanceof TextSelection &&
      !selection.empty &&
      view.state.doc.textBetween(selection.from, selection.to, " ", " ").trim() !== "";
    if (!show) {
      // Only when it shows: writing the attribute again at every keystroke restyles the page.
      if (!this.bubble.hidden) this.bubble.hidden = true;
      return;
    }
    const end = view.coordsAtPos(selection.to);
    this.bubble.hidden = false;
    this.bubble.style.left = `${end.left + window.scrollX}px`;
    this.bubble.style.top = `${end.bottom + window.scrollY + 6}px`;
  }

  /** Opens the composer for the selection; false when there is no text selected. */
  compose(): boolean {
    const { state, view } = this.editor;
    const { from, to, empty } = state.selection;
    const quote = state.doc.textBetween(from, to, " ", " ");
    if (empty || !quote.trim()) return false;
    const anchor = anchorOf(state, from, to);
    if (!anchor) return false;
    const node = blockKeyAt(state, from);
    this.closeComposer();
    const area = el("textarea", { class: "qe-field", rows: "3", "aria-label": "Comment", placeholder: "Write a comment…" });
    const error = el("p", { class: "qe-comment-error", role: "alert" });
    const send = el("button", { type: "submit", class: "primary" }, "Comment");
    const cancel = el("button", { type: "button" }, "Cancel");
    const form = el(
      "form",
      { class: "qe-popover qe-comment-composer", role: "dialog", "aria-label": "New comment" },
      el("blockquote", { class: "qe-thread-quote" }, quote.length > 200 ? `${quote.slice(0, 200)}…` : quote),
      area,
      error,
      el("div", { class: "qe-comment-actions" }, send, cancel),
    );
    const coords = view.coordsAtPos(to);
    form.style.left = `${Math.max(8, Math.min(coords.left, window.innerWidth - 340)) + window.scrollX}px`;
    form.style.top = `${coords.bottom + window.scrollY + 8}px`;
    const submit = submitter({ area, error, send }, "Write something first.", async (text) => {
      const body = await requestJson<{ comment: Thread }>(this.options.postUrl, {
        method: "POST",
        csrf: this.options.csrf,
        body: JSON.stringify({ body: text, anchor: { quote: quote.slice(0, 2000), ...anchor }, ...(node ? { node } : {}) }),
      });
      this.closeComposer();
      this.setThreads([...this.threads.filter((t) => t.id !== body.comment.id), body.comment], body.comment.id);
      this.announce(body.comment.id);
      this.editor.commands.focus();
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void submit();
    });
    cancel.addEventListener("click", () => {
      this.closeComposer();
      this.editor.commands.focus();
    });
    form.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.closeComposer();
        this.editor.commands.focus();
      } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void submit();
      }
    });
    document.body.append(form);
    this.composer = form;
    this.bubble.hidden = true;
    area.focus();
    return true;
  }

  private closeComposer(): void {
    this.composer?.remove();
    this.composer = undefined;
  }

  private async setResolved(thread: Thread, resolved: boolean, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await requestJson(this.options.resolveUrl(thread.id), {
        method: "POST",
        csrf: this.options.csrf,
        body: JSON.stringify({ resolved }),
      });
      this.announce(thread.id);
      await this.load();
    } catch (e) {
      button.disabled = false;
      this.panelError((e as Error).message);
    }
  }

  /** Shows a thread as the active one: its words outlined and its entry in view. */
  activate(id: string | undefined, scroll: "text" | "panel" | undefined): void {
    this.editor.view.dispatch(this.editor.state.tr.setMeta(commentsKey, { threads: this.threads, active: id }));
    for (const item of this.options.panel.querySelectorAll<HTMLElement>(".qe-thread")) {
      item.classList.toggle("qe-thread-active", item.dataset.comment === id);
    }
    if (!id) return;
    if (scroll === "panel") this.options.panel.querySelector(`[data-comment="${CSS.escape(id)}"]`)?.scrollIntoView({ block: "nearest" });
    if (scroll === "text") {
      const thread = this.threads.find((t) => t.id === id);
      const range = thread && rangeOf(this.editor.state, thread);
      if (range) this.editor.chain().setTextSelection(range.from).scrollIntoView().run();
    }
  }

  private panelError(message: string): void {
    const line = this.options.panel.querySelector(".qe-comments-error");
    if (line) line.textContent = message;
  }

  private threadItem(thread: Thread): HTMLElement {
    const located = thread.anchor
      ? el("blockquote", { class: "qe-thread-quote" }, thread.anchor.quote)
      : el("p", { class: "qe-thread-on" }, thread.node ? "On a block of this page" : "On this page");
    const item = el(
      "li",
      { class: `qe-thread qe-thread-${thread.status}`, "data-comment": thread.id, tabindex: "0" },
      located,
      el("p", { class: "qe-thread-meta" }, el("strong", {}, thread.postedBy), ` · ${when(thread.postedAt)}`),
      el("div", { class: "qe-thread-body" }, thread.body),
    );
    for (const reply of thread.replies) {
      item.append(
        el(
          "div",
          { class: "qe-thread-reply" },
          el("p", { class: "qe-thread-meta" }, el("strong", {}, reply.postedBy), ` · ${when(reply.postedAt)}`),
          el("div", { class: "qe-thread-body" }, reply.body),
        ),
      );
    }
    if (thread.mayReply) {
      const resolved = thread.status === "resolved";
      const button = el("button", { type: "button", class: "qe-small-button" }, resolved ? "Reopen" : "Resolve");
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        void this.setResolved(thread, !resolved, button);
      });
      item.append(this.replyForm(thread), el("div", { class: "qe-comment-actions" }, button));
    }
    if (thread.anchor && thread.status === "open") item.addEventListener("click", () => this.activate(thread.id, "text"));
    return item;
  }

  /**
   * The reply box under a thread: Ctrl-Enter or "Reply" posts it; the thread comes back with the
   * reply and the other editors are told to fetch it. A refused reply keeps its text.
   */
  private replyForm(thread: Thread): HTMLElement {
    const area = el("textarea", {
      class: "qe-field qe-reply-field",
      rows: "1",
      "aria-label": `Reply to ${thread.postedBy}`,
      placeholder: "Reply…",
    }) as HTMLTextAreaElement;
    area.value = this.drafts.get(thread.id) ?? "";
    const error = el("p", { class: "qe-comment-error", role: "alert" });
    const send = el("button", { type: "submit", class: "qe-small-button" }, "Reply") as HTMLButtonElement;
    const form = el("form", { class: "qe-reply", "aria-label": `Reply to the comment of ${thread.postedBy}` }, area, error, send);
    // Clicks and keys in the box are the box's: not the thread's (which moves the caret to its words).
    form.addEventListener("click", (event) => event.stopPropagation());
    area.addEventListener("input", () => {
      if (area.value) this.drafts.set(thread.id, area.value);
      else this.drafts.delete(thread.id);
    });
    const submit = submitter({ area, error, send }, "Write a reply first.", async (text) => {
      const body = await requestJson<{ comment: Thread }>(this.options.replyUrl(thread.id), {
        method: "POST",
        csrf: this.options.csrf,
        body: JSON.stringify({ body: text }),
      });
      this.drafts.delete(thread.id);
      this.setThreads(this.threads.map((t) => (t.id === body.comment.id ? body.comment : t)));
      this.announce(thread.id);
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void submit();
    });
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void submit();
      }
    });
    return form;
  }

  render(): void {
    const panel = this.options.panel;
    const open = this.threads.filter((t) => t.status === "open");
    const resolved = this.threads.filter((t) => t.status !== "open");
    const children: Node[] = [
      el("h2", {}, `Comments${open.length ? ` (${open.length})` : ""}`),
      el("p", { class: "qe-comments-error", role: "alert" }),
    ];
    if (this.threads.length === 0) {
      children.push(
        el("p", { class: "muted" }, "No comments on this page. Select words and press Comment (Ctrl-Alt-M) to comment on them."),
      );
    }
    if (open.length) children.push(el("ol", { class: "qe-threads" }, ...open.map((t) => this.threadItem(t))));
    if (resolved.length) {
      children.push(
        el(
          "details",
          { class: "qe-resolved" },
          el("summary", {}, `Resolved (${resolved.length})`),
          el("ol", { class: "qe-threads" }, ...resolved.map((t) => this.threadItem(t))),
        ),
      );
    }
    const wasOpen = panel.querySelector("details.qe-resolved")?.hasAttribute("open");
    const active = document.activeElement;
    const replying =
      active instanceof HTMLTextAreaElement && active.classList.contains("qe-reply-field") && panel.contains(active)
        ? active.closest<HTMLElement>(".qe-thread")?.dataset.comment
        : undefined;
    panel.replaceChildren(...children);
    if (wasOpen) panel.querySelector("details.qe-resolved")?.setAttribute("open", "");
    if (replying) {
      // Drawn again while a reply was being typed (another editor's change): the box keeps the focus.
      const area = panel.querySelector<HTMLTextAreaElement>(`.qe-thread[data-comment="${CSS.escape(replying)}"] .qe-reply-field`);
      if (area) {
        area.focus();
        area.setSelectionRange(area.value.length, area.value.length);
      }
    }
  }
}

/** The editor extension: highlights, the bubble, Mod-Alt-M, and clicks on highlighted words. */
export function inlineComments(options: CommentsOptions): { extension: Extension; start(editor: Editor): void } {
  const comments = new Comments(options);
  const extension = Extension.create({
    name: "inlineComments",
    addKeyboardShortcuts() {
      return { "Mod-Alt-m": () => comments.compose() };
    },
    addProseMirrorPlugins() {
      return [
        new Plugin<PluginState>({
          key: commentsKey,
          state: {
            init: (_, state) => ({ threads: [], active: undefined, decorations: DecorationSet.create(state.doc, []) }),
            apply(tr, value, _old, state) {
              const meta = tr.getMeta(commentsKey) as { threads: Thread[]; active: string | undefined } | undefined;
              if (meta) return { threads: meta.threads, active: meta.active, decorations: decorationsOf(state, meta.threads, meta.active) };
              // A change from another editor replaces the whole document in one step: the
              // anchors are found again (y-prosemirror's mapping already holds the new nodes).
              if (tr.getMeta(ySyncPluginKey)) return { ...value, decorations: decorationsOf(state, value.threads, value.active) };
              if (tr.docChanged) return { ...value, decorations: value.decorations.map(tr.mapping, tr.doc) };
              return value;
            },
          },
          props: {
            decorations: (state) => commentsKey.getState(state)?.decorations,
            handleClick: (view, pos) => {
              const found = commentsKey.getState(view.state)?.decorations.find(pos, pos);
              const id = found?.[0]?.spec.commentId as string | undefined;
              if (id) comments.activate(id, "panel");
              return false;
            },
          },
          view: () => ({
            update: (view) => comments.updateBubble(view),
            destroy: () => undefined,
          }),
        }),
      ];
    },
  });
  return {
    extension,
    start(editor) {
      comments.editor = editor;
      void comments.load();
    },
  };
}
