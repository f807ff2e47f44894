/**
 * A document rendered in a worker thread (renderHtml over the inline threshold) gives the same HTML
 * as rendered inline, with the files and reusable contents it uses asked for over the port: only
 * those, reusable contents inside reusable contents included, and the files they show.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeWorkerThreads } from "../../workers/pool.js";
import type { JSONDocument } from "../document/types.js";
import { parseMarkdownPage } from "../markdown/index.js";
import { type HtmlEnvData, type HtmlRenderHost, INLINE_HTML_JSON_CHARS, renderHtml, renderHtmlNow } from "./off-thread.js";
import type { RenderedFile } from "./types.js";

afterAll(() => closeWorkerThreads());

const text = (value: string) => ({ object: "text", leaves: [{ object: "leaf", text: value, marks: [] }] });
const paragraph = (...nodes: unknown[]) => ({ object: "block", type: "paragraph", data: {}, nodes });
const link = (ref: unknown, label: string) => ({ object: "inline", type: "link", data: { ref }, nodes: [text(label)] });
const includes = (id: string) => ({
  object: "block",
  type: "reusable-content",
  isVoid: true,
  data: { ref: { kind: "reusable-content", reusableContent: id } },
  nodes: [],
});
const doc = (...nodes: unknown[]) => ({ object: "document", data: {}, nodes }) as unknown as JSONDocument;

const env: HtmlEnvData = {
  spaceId: "space1",
  pageIds: ["page1"],
  hrefs: { page: "/app/s/{space}/p/{page}", space: "/app/s/{space}", collection: "/app/c/{collection}" },
  vars: { space: { product: "Quire" }, page: {} },
};

/** A host over fixed files and reusable contents, recording what it is asked. */
function hostOf(files: Record<string, RenderedFile>, reusable: Record<string, JSONDocument>) {
  const asked = { files: [] as string[][], reusableContents: [] as string[][] };
  const host: HtmlRenderHost = {
    async files(ids) {
      asked.files.push([...ids].sort());
      return new Map(ids.flatMap((id) => (files[id] ? [[id, files[id]!] as const] : [])));
    },
    async reusableContents(ids) {
      asked.reusableContents.push([...ids].sort());
      return new Map(ids.flatMap((id) => (reusable[id] ? [[id, JSON.stringify(reusable[id])] as const] : [])));
    },
  };
  return { host, asked };
}

describe("renderHtml", () => {
  it("renders a large document in a worker thread as inline, asking only for the files and reusable contents it uses", async () => {
    let markdown = "";
    for (let i = 0; markdown.length < 20_000; i++)
      markdown += `## Part ${i}\n\nA paragraph about part ${i}, long enough to be a paragraph.\n\n`;
    const body = parseMarkdownPage(markdown).document;
    const document = doc(
      paragraph(link({ kind: "page", page: "page1" }, "a page"), text(" and "), link({ kind: "page", page: "gone" }, "a missing page")),
      paragraph(link({ kind: "file", file: "f1" }, "the file")),
      includes("rc1"),
      ...body.nodes,
    );
    const documentJson = JSON.stringify(document);
    expect(documentJson.length).toBeGreaterThan(INLINE_HTML_JSON_CHARS);
    const files: Record<string, RenderedFile> = {
      f1: { url: "/files/f1?sig=1", name: "one.pdf", contentType: "application/pdf" },
      f2: { url: "/files/f2?sig=2", name: "two.pdf", contentType: "application/pdf" },
      unused: { url: "/files/unused", name: "unused.pdf", contentType: "application/pdf" },
    };
    const reusable = {
      rc1: doc(paragraph(text("From rc1")), includes("rc2")),
      rc2: doc(paragraph(text("From rc2, "), link({ kind: "file", file: "f2" }, "the second file"))),
      unused: doc(paragraph(text("Never asked for"))),
    };

    const inThread = hostOf(files, reusable);
    const worker = await renderHtml({ documentJson, env, idPrefix: "x-" }, inThread.host);
    const inline = await renderHtmlNow({ documentJson, env, idPrefix: "x-" }, hostOf(files, reusable).host);

    expect(worker).toEqual(inline);
    expect(worker.blocks).toBe(document.nodes.length);
    expect(worker.html).toContain('href="/app/s/space1/p/page1"');
    expect(worker.html).not.toContain("gone");
    expect(worker.html).toContain("/files/f1?sig=1");
    expect(worker.html).toContain("From rc1");
    expect(worker.html).toContain("From rc2");
    expect(worker.html).toContain("/files/f2?sig=2");
    expect(worker.html).toContain(`id="part-${Math.floor(body.nodes.length / 2) - 1}"`);
    expect(inThread.asked).toEqual({ reusableContents: [["rc1"], ["rc2"]], files: [["f1", "f2"]] });
  });

  it("renders a small document inline, with no question when it uses no file or reusable content", async () => {
    const { host, asked } = hostOf({}, {});
    const rendered = await renderHtml({ documentJson: JSON.stringify(doc(paragraph(text("Hello")))), env }, host);
    expect(rendered).toMatchObject({ html: "<p>Hello</p>", blocks: 1 });
    expect(asked).toEqual({ files: [], reusableContents: [] });
  });
});
