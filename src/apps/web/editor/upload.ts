/**
 * Files into the page: pasted, dropped or picked files are uploaded into the change request's
 * files (the content operation's insert_files, through `<edit>/files.json`) with a progress bar;
 * an image becomes an image block, anything else a file block. A file above the limit is refused
 * here, with the limit said. Pasted plain text that reads as Markdown is converted by the server
 * (the same reader as the content operation) and inserted as blocks.
 */
import type { Editor } from "@tiptap/core";
import { Slice } from "@tiptap/pm/model";
import { Plugin } from "@tiptap/pm/state";
import type { StatusLine } from "./save.js";
import { type EditorEnv, el } from "./views.js";

export interface UploaderOptions {
  url: string;
  csrf: string;
  maxBytes: number;
  editor(): Editor;
  env: EditorEnv;
  root: HTMLElement;
}

interface Uploaded {
  id: string;
  name: string;
  contentType: string;
  url: string;
}

const megabytes = (bytes: number) => `${(bytes / 1048576).toFixed(bytes < 1048576 ? 2 : 1)} MB`;

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("The file could not be read."));
    reader.readAsDataURL(file);
  });
}

export class Uploader {
  private tray = el("div", { class: "qe-uploads", "aria-live": "polite" });
  constructor(private options: UploaderOptions) {
    options.root.before(this.tray);
  }

  /** Picked files are inserted at the cursor; with `use`, the one picked file is given to it instead. */
  pick(accept: string, use?: (file: Uploaded) => void): void {
    const input = el("input", { type: "file", accept, ...(use ? {} : { multiple: "" }) });
    input.addEventListener("change", () => {
      const files = [...(input.files ?? [])];
      if (use) void (files[0] && this.upload(files[0], undefined, use));
      else void this.uploadAll(files, undefined);
    });
    input.click();
  }

  async uploadAll(files: File[], at: number | undefined): Promise<void> {
    for (const file of files) await this.upload(file, at);
  }

  /** One file: checked against the limit, sent with its progress shown, then inserted where it was dropped (or at the cursor). */
  async upload(file: File, at: number | undefined, use?: (file: Uploaded) => void): Promise<void> {
    const row = el("div", { class: "qe-upload" }, el("span", {}, file.name));
    this.tray.append(row);
    if (file.size > this.options.maxBytes) {
      row.classList.add("qe-upload-error");
      row.setAttribute("role", "alert");
      row.append(
        ` is ${megabytes(file.size)}: files can be at most ${megabytes(this.options.maxBytes)}. Make it smaller (or link to it) and try again.`,
      );
      setTimeout(() => row.remove(), 20_000);
      return;
    }
    const bar = el("progress", { max: "100", value: "0", "aria-label": `Uploading ${file.name}` });
    row.append(" ", bar);
    try {
      const uploaded = await this.send(file, await base64Of(file), (fraction) => {
        bar.value = Math.round(fraction * 100);
      });
      this.options.env.files[uploaded.id] = { url: uploaded.url, name: uploaded.name, contentType: uploaded.contentType };
      if (use) use(uploaded);
      else this.insert(uploaded, at);
      row.remove();
    } catch (error) {
      row.classList.add("qe-upload-error");
      row.setAttribute("role", "alert");
      bar.remove();
      row.append(`: not uploaded. ${error instanceof Error ? error.message : String(error)}`);
      setTimeout(() => row.remove(), 20_000);
    }
  }

  private send(file: File, base64: string, progress: (fraction: number) => void): Promise<Uploaded> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", this.options.url);
      xhr.setRequestHeader("content-type", "application/json");
      xhr.setRequestHeader("x-csrf-token", this.options.csrf);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) progress(event.loaded / event.total);
      };
      xhr.onload = () => {
        const body = (() => {
          try {
            return JSON.parse(xhr.responseText) as { file?: Uploaded; error?: { message?: string } };
          } catch {
            return {};
          }
        })();
        if (xhr.status === 200 && body.file) resolve(body.file);
        else reject(new Error(body.error?.message ?? `The server answered ${xhr.status}.`));
      };
      xhr.onerror = () => reject(new Error("The connection failed; try again when you are back online."));
      xhr.send(JSON.stringify({ name: file.name, contentType: file.type || "application/octet-stream", base64 }));
    });
  }

  private insert(file: Uploaded, at: number | undefined): void {
    const editor = this.options.editor();
    const ref = { kind: "file", file: file.id };
    const block = file.contentType.startsWith("image/")
      ? { type: "images", attrs: { data: {} }, content: [{ type: "image", attrs: { data: { ref } } }] }
      : { type: "file", attrs: { data: { ref } } };
    const chain = editor.chain().focus();
    if (at !== undefined) chain.insertContentAt(at, block).run();
    else chain.insertContent(block).run();
  }

  plugin(): Plugin {
    return new Plugin({
      props: {
        handlePaste: (_view, event) => {
          const files = [...(event.clipboardData?.files ?? [])];
          if (!files.length) return false;
          void this.uploadAll(files, undefined);
          return true;
        },
        handleDrop: (view, event) => {
          const files = [...(event.dataTransfer?.files ?? [])];
          if (!files.length) return false;
          const at = view.posAtCoords({ left: event.clientX, top: event.clientY })?.pos;
          void this.uploadAll(files, at);
          return true;
        },
      },
    });
  }
}

/** Plain text that reads as Markdown: headings, lists, quotes, fences, emphasis, links. */
export function looksLikeMarkdown(text: string): boolean {
  return /^(#{1,6} |[-*+] |\d+\. |> |```|\|.*\|)/m.test(text) || /\*\*[^*\n]+\*\*|\[[^\]\n]+\]\([^)\n]+\)/.test(text);
}

export function pasteMarkdownPlugin(url: string, csrf: string, status: StatusLine): Plugin {
  return new Plugin({
    props: {
      handlePaste: (view, event) => {
        const data = event.clipboardData;
        if (!data || data.files.length || data.types.includes("text/html")) return false;
        const text = data.getData("text/plain");
        if (!text || !looksLikeMarkdown(text) || view.state.selection.$from.parent.type.spec.code) return false;
        const { from, to } = view.state.selection;
        void (async () => {
          try {
            const response = await fetch(url, {
              method: "POST",
              headers: { "content-type": "application/json", "x-csrf-token": csrf },
              body: JSON.stringify({ markdown: text }),
              credentials: "same-origin",
            });
            const body = (await response.json()) as { doc?: { content?: unknown[] }; error?: { message?: string } };
            if (!response.ok || !body.doc) throw new Error(body.error?.message ?? `The server answered ${response.status}.`);
            const doc = view.state.schema.nodeFromJSON({ ...body.doc, attrs: {} });
            view.dispatch(view.state.tr.replaceRange(from, to, new Slice(doc.content, 0, 0)).scrollIntoView());
          } catch {
            // The server could not read it: the text goes in as it is.
            view.dispatch(view.state.tr.insertText(text, from, to));
            status.show("saving");
          }
        })();
        return true;
      },
    },
  });
}
