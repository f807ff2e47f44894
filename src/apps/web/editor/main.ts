/**
 * The block editor of a change request's page (the edit view loads this bundle, nothing else
 * does). Tiptap over the document model's schema (src/content/editor), the document in a Y.Doc
 * bound by y-prosemirror: a local one saved over HTTP, or the collaboration server's through
 * Hocuspocus when the page carries `data-collab-url`.
 */
import { HocuspocusProvider } from "@hocuspocus/provider";
import { Editor, Extension } from "@tiptap/core";
import { Dropcursor, Gapcursor } from "@tiptap/extensions";
import { Plugin, type PluginView } from "@tiptap/pm/state";
import { redo, undo, yCursorPlugin, ySyncPlugin, yUndoPlugin } from "y-prosemirror";
import * as Y from "yjs";
import { DOCUMENT_FIELDS_MAP, EDITOR_FRAGMENT, editorDocToYXmlFragment, yXmlFragmentToEditorDoc } from "../../../content/editor/index.js";
import { inlineComments } from "./comments.js";
import { DragHandle } from "./handle.js";
import { CodeHighlight } from "./highlight.js";
import { assignMissingKeys, BlockKeys } from "./keys.js";
import { SlashMenu } from "./menu.js";
import { browserExtensions } from "./nodes.js";
import { sanitizePastedHtml } from "./sanitize.js";
import { HttpSaver, hashText, LocalCopy, StatusLine } from "./save.js";
import { pasteMarkdownPlugin, Uploader } from "./upload.js";
import { type EditorEnv, setEditorEnv } from "./views.js";
import { windowedExtensions, windowPlugin } from "./window.js";

declare global {
  interface Window {
    /** For tests and the bench: the running editor. */
    quireEditor?: { editor: Editor; ydoc: Y.Doc; snapshot(): unknown; saver?: HttpSaver; provider?: HocuspocusProvider };
  }
}

function json<T>(text: string | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * `plugin` with its view's updates run 50 ms after the last one rather than in the keystroke. For
 * y-prosemirror's cursor plugin: telling the others where the caret is turns it into a Yjs position
 * by walking the page's blocks from the first (twice, for anchor and head), milliseconds on a long
 * page that need not come before the frame showing the letter typed.
 */
function afterTypingPauses(plugin: Plugin): Plugin {
  const makeView = plugin.spec.view;
  if (!makeView) return plugin;
  return new Plugin({
    ...plugin.spec,
    view: (editorView) => {
      const inner: PluginView = makeView(editorView);
      let timer: ReturnType<typeof setTimeout> | undefined;
      return {
        update: (view, previous) => {
          clearTimeout(timer);
          timer = setTimeout(() => inner.update?.(view, previous), 50);
        },
        destroy: () => {
          clearTimeout(timer);
          inner.destroy?.();
        },
      };
    },
  });
}

/** Keys for the blocks that lack one or repeat one (a document saved without them), out of the undo history. */
function assignKeys(editor: Editor): void {
  const tr = assignMissingKeys(editor.state.tr);
  if (tr) editor.view.dispatch(tr);
}

function start(root: HTMLElement): void {
  performance.mark("quire-editor-start");
  const status = new StatusLine(document.getElementById("qe-status") ?? root);
  const data = root.dataset;
  const env: EditorEnv = {
    files: json(data.files, {}),
    pages: json(data.pages, []),
    ...(data.pageId ? { pageId: data.pageId } : {}),
    anchorsUrl: (pageId) => (data.anchorsUrl ?? "").replace(":pageId", encodeURIComponent(pageId)),
    pickFiles: (accept, use) => uploader.pick(accept, use),
  };
  setEditorEnv(env);
  const ydoc = new Y.Doc();
  const fragment = ydoc.getXmlFragment(EDITOR_FRAGMENT);
  const collabUrl = data.collabUrl;
  let provider: HocuspocusProvider | undefined;
  let docAttrs: Record<string, unknown> = {};

  const documentText = data.document ?? "";
  const copy = new LocalCopy(data.storageKey ?? "quire-editor", hashText(documentText));
  if (!collabUrl) {
    const initial = json<{ type: "doc"; attrs?: Record<string, unknown> } | undefined>(documentText, undefined) ?? { type: "doc" };
    docAttrs = initial.attrs ?? {};
    const stored = copy.read();
    // A copy kept by an earlier visit whose save did not go through: restored over the same document.
    const startFrom = stored && copy.matchesBase(stored) ? (stored.doc as typeof initial) : initial;
    ydoc.transact(() => {
      const fields = ydoc.getMap<unknown>(DOCUMENT_FIELDS_MAP);
      for (const [name, value] of Object.entries(docAttrs)) fields.set(name, value);
      editorDocToYXmlFragment(startFrom as never, fragment);
    });
    if (stored && startFrom === stored.doc) queueMicrotask(() => saver?.changed());
    else if (stored) {
      status.show("unsaved");
      offerRestore(root, stored.at, () => {
        editor.commands.setContent(stored.doc as never);
      });
    }
  }

  let assigning = false;
  /** The editor JSON now; `keys`: new blocks get their keys first (before a save, outside any other transaction). */
  performance.mark("quire-editor-ydoc");
  const snapshot = (keys = true) => {
    if (keys) {
      assigning = true;
      try {
        assignKeys(editor);
      } finally {
        assigning = false;
      }
    }
    const doc = yXmlFragmentToEditorDoc(fragment);
    return Object.keys(docAttrs).length ? { ...doc, attrs: docAttrs } : doc;
  };

  const YjsBinding = Extension.create({
    name: "yjsBinding",
    priority: 1000,
    addProseMirrorPlugins() {
      const plugins: Plugin[] = [ySyncPlugin(fragment), yUndoPlugin()];
      if (provider) plugins.push(afterTypingPauses(yCursorPlugin(provider.awareness!)));
      return plugins;
    },
    addKeyboardShortcuts() {
      return {
        "Mod-z": () => undo(this.editor.state),
        "Mod-y": () => redo(this.editor.state),
        "Shift-Mod-z": () => redo(this.editor.state),
      };
    },
  });

  if (collabUrl) {
    let firstToken = true;
    const name = data.collabDocument ?? "";
    provider = new HocuspocusProvider({
      url: collabUrl,
      name,
      document: ydoc,
      // The page's token first; a fresh one on every reconnection (it lives ~10 minutes).
      token: async () => {
        if (firstToken) {
          firstToken = false;
          return data.collabToken ?? "";
        }
        const response = await fetch(`/app/collab/token?document=${encodeURIComponent(name)}`, { credentials: "same-origin" });
        const body = (await response.json().catch(() => ({}))) as { token?: string };
        return body.token ?? "";
      },
      onStatus: ({ status: state }) => {
        if (state === "disconnected") status.show("offline");
      },
      onSynced: () => {
        performance.mark("quire-editor-synced");
        editor.setEditable(true);
        if (!provider?.hasUnsyncedChanges) status.show("saved", "Up to date");
      },
      onUnsyncedChanges: ({ number }) => {
        if (number > 0) status.show("saving");
      },
      onAuthenticationFailed: ({ reason }) => status.show("refused", `the server refused the connection (${reason}). Reload the page.`),
      onClose: ({ event }) => {
        if (event.code === 4403) status.show("refused", event.reason || "you may no longer edit this page.");
      },
      onStateless: ({ payload }) => {
        const message = json<{ type?: string; message?: string; at?: string }>(payload, {});
        if (message.type === "saved") status.show("saved");
        else if (message.type === "refused") status.show("refused", message.message);
      },
    });
    provider.awareness?.setLocalStateField("user", { name: data.userName ?? "", color: data.userColor ?? "#888" });
  }

  const panel = document.getElementById("qe-comments");
  const comments =
    panel && data.commentsUrl
      ? inlineComments({
          listUrl: data.commentsUrl,
          postUrl: data.commentsUrl,
          resolveUrl: (id) => (data.resolveCommentUrl ?? "").replace(":commentId", encodeURIComponent(id)),
          replyUrl: (id) => (data.replyCommentUrl ?? "").replace(":commentId", encodeURIComponent(id)),
          csrf: data.csrf ?? "",
          ydoc,
          panel,
        })
      : undefined;

  const uploader: Uploader = new Uploader({
    url: data.uploadUrl ?? "",
    csrf: data.csrf ?? "",
    maxBytes: Number(data.maxUpload ?? 1048576),
    editor: () => editor,
    env,
    root,
  });

  const editor: Editor = new Editor({
    element: root,
    editable: !collabUrl,
    extensions: [
      ...windowedExtensions(browserExtensions()),
      YjsBinding,
      Extension.create({ name: "window", addProseMirrorPlugins: () => [windowPlugin()] }),
      BlockKeys,
      SlashMenu,
      CodeHighlight,
      DragHandle,
      ...(comments ? [comments.extension] : []),
      Dropcursor.configure({ color: "var(--accent, #0969da)", width: 2 }),
      Gapcursor,
      Extension.create({
        name: "pasteAndDrop",
        addProseMirrorPlugins: () => [pasteMarkdownPlugin(data.markdownUrl ?? "", data.csrf ?? "", status), uploader.plugin()],
      }),
    ],
    editorProps: {
      attributes: { class: "qe-editor", "aria-label": "Page content", spellcheck: "true" },
      transformPastedHTML: sanitizePastedHtml,
    },
    enableContentCheck: false,
  });

  performance.mark("quire-editor-view");
  comments?.start(editor);
  let saver: HttpSaver | undefined;
  if (!collabUrl) {
    saver = new HttpSaver({ url: data.saveUrl ?? "", csrf: data.csrf ?? "", snapshot, status, copy });
    ydoc.on("update", (_update: Uint8Array, origin: unknown) => {
      // Only the editor's changes (ySync's binding) are the writer's; the load above is not.
      if (origin !== null && origin !== undefined && !assigning) saver?.changed();
    });
    status.show(saver.pending ? "saving" : "saved", "All changes saved");
  }
  root.dataset.ready = "true";
  window.quireEditor = { editor, ydoc, snapshot, ...(saver ? { saver } : {}), ...(provider ? { provider } : {}) };
}

function offerRestore(root: HTMLElement, at: string, restore: () => void): void {
  const bar = document.createElement("div");
  bar.className = "qe-restore";
  bar.setAttribute("role", "alert");
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Restore them";
  button.addEventListener("click", () => {
    restore();
    bar.remove();
  });
  bar.append(`Changes made in this browser on ${new Date(at).toLocaleString()} were not saved, and the page has changed since. `, button);
  root.before(bar);
}

const root = document.getElementById("quire-editor");
if (root) start(root);
