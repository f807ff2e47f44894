/**
 * A document rendered in a worker thread (renderHtml over the inline threshold) gives the same HTML
 * as rendered inline, with the files and reusable contents it uses asked for over the port: only
 * those, reusable contents inside reusable contents included, and the files they show.
 */
import { afterAll, describe, expect, it } from "vitest";
import { closeWorkerThreads } from "../../workers/pool.js";
import type { JSONDocument } from "../document/types.js";
import { parseMarkdownPage } from "../markdown/index.js";
import {
  type HtmlEnvData,
  type HtmlRenderHost,
  INLINE_HTML_JSON_CHARS,
  type LinkTarget,
  type RenderedLink,
  renderHtml,
  renderHtmlNow,
} from "./off-thread.js";
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
const block = (type: string, data: unknown, nodes: unknown[]) => ({ object: "block", type, data, nodes });
const expression = (value: string) => ({
  object: "inline",
  type: "expression",
  isVoid: true,
  data: { expression: value },
  nodes: [text("")],
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

  it("renders for a site's reader in a worker thread as inline: links asked of the host once, conditions and expressions on the reader's claims", async () => {
    let markdown = "";
    for (let i = 0; markdown.length < 80_000; i++) markdown += `Paragraph ${i} of a long page, long enough to be a paragraph.\n\n`;
    const document = doc(
      paragraph(
        link({ kind: "page", page: "open" }, "an open page"),
        text(", "),
        link({ kind: "page", page: "closed" }, "a closed page"),
        text(", "),
        link({ kind: "anchor", page: "open", anchor: "a b" }, "an anchor"),
        text(", "),
        link({ kind: "space", space: "other" }, "another space"),
        text(", "),
        link({ kind: "page", page: "open", space: "other" }, "a page of another space"),
      ),
      block("if", { expression: 'visitor.claims.plan == "pro"' }, [paragraph(text("For pro readers"))]),
      block("if", { expression: 'visitor.claims.plan == "free"' }, [paragraph(text("For free readers"))]),
      paragraph(text("Plan: "), expression("visitor.claims.plan"), text(", product: "), expression("space.vars.product")),
      includes("rc1"),
      ...parseMarkdownPage(markdown).document.nodes,
    );
    const documentJson = JSON.stringify(document);
    expect(documentJson.length).toBeGreaterThan(INLINE_HTML_JSON_CHARS);
    const addresses: Record<string, RenderedLink> = {
      "page:/open": { href: "/s/site/open", title: "Open" },
      "page:other/open": { href: "/s/site/other/open", title: "Open elsewhere" },
      "page:/linked-from-rc": { href: "/s/site/linked", title: "Linked" },
      "space:other": { href: "/s/site/other", title: "Other" },
    };
    const readerHost = () => {
      const { host, asked } = hostOf(
        {},
        { rc1: doc(paragraph(link({ kind: "page", page: "linked-from-rc" }, "from the reusable content"))) },
      );
      const links: LinkTarget[][] = [];
      const withLinks: HtmlRenderHost = {
        ...host,
        async links(targets) {
          links.push([...targets]);
          return targets.map((t) => addresses[t.kind === "space" ? `space:${t.space}` : `page:${t.space ?? ""}/${t.page}`]);
        },
      };
      return { host: withLinks, asked, links };
    };
    const task = { documentJson, env: { reader: { space: { vars: { product: "Quire" } }, visitor: { claims: { plan: "pro" } } } } };
    const inThread = readerHost();
    const worker = await renderHtml(task, inThread.host);
    const inline = await renderHtmlNow(task, readerHost().host);

    expect(worker).toEqual(inline);
    // The start of the page: the rest is the filler that makes it large.
    const head = worker.html.slice(0, 1500);
    expect(head).toContain('href="/s/site/open"');
    expect(head).toContain('href="/s/site/open#a%20b"');
    expect(head).toContain('href="/s/site/other"');
    expect(head).toContain('href="/s/site/other/open"');
    expect(head).toContain('href="/s/site/linked"');
    expect(head).toContain("a closed page");
    expect(head).not.toContain('closed"');
    expect(head).toContain("For pro readers");
    expect(head).not.toContain("For free readers");
    expect(head).toContain('Plan: <span class="q-expression">pro</span>, product: <span class="q-expression">Quire</span>');
    expect(worker.outline).toEqual(inline.outline);
    // One question for every link, the reusable content's included.
    expect(inThread.links).toHaveLength(1);
    expect(inThread.links[0]!.map((t) => JSON.stringify(t)).sort()).toEqual(
      [
        { kind: "page", page: "closed" },
        { kind: "page", page: "linked-from-rc" },
        { kind: "page", page: "open" },
        { kind: "page", page: "open", space: "other" },
        { kind: "space", space: "other" },
      ]
        .map((t) => JSON.stringify(t))
        .sort(),
    );
  });
});
