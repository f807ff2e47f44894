/**
 * A document rendered to HTML for the member web app (a page, the editor's preview) or for a
 * published site's reader off the thread that answers requests: rendering costs ~0.07 ms per KB of the document's JSON (~600 ms for a
 * 9 MB page, bench/document-costs.bench.ts), and parsing the JSON as much again. Small documents
 * are rendered inline.
 *
 * The renderer's environment travels as plain data (HtmlEnvData). What needs the database or the
 * server's secret, the reusable contents a document includes and the signed URLs of the files it
 * shows, is asked for once the document is read, over a MessagePort (`host`), as the PDF renderer
 * does (pdf/render-port.ts): only the files and contents the document uses are loaded and signed.
 */
import type { MessagePort } from "node:worker_threads";
import { evaluate } from "../../expr/index.js";
import { answerOn, askOver } from "../../lib/port-questions.js";
import { conditionHoldsIn, expressionTextIn } from "../document/for-reader.js";
import type { ContentRef, JSONDocument } from "../document/types.js";
import { runInWorker } from "../run-in-worker.js";
import { renderDocument } from "./index.js";
import { documentReferences } from "./references.js";
import type { ContentFeature, OutlineEntry, RenderEnv, RenderedFile } from "./types.js";

/**
 * Below this many characters of document JSON the document is rendered inline. Measured
 * (bench/document-costs.bench.ts, 2 cores shared with other work): parsing and rendering a 78 KB
 * document inline takes ~5 ms, the same in a warm worker thread ~7 ms in all (the JSON copied
 * there, the HTML back); 300 KB takes ~30 ms inline. Under 64 KB the request thread is held a
 * few ms at most.
 */
export const INLINE_HTML_JSON_CHARS = 64 * 1024;

/** Levels of reusable contents inside reusable contents loaded (the renderer shows up to 4). */
const MAX_REUSABLE_LEVELS = 4;

/** What the renderer's links and expressions need, as plain data (a member's view: every conditional block shown). */
export interface HtmlEnvData {
  spaceId: string;
  /** Pages of the space that exist: links to others render as their text. */
  pageIds: readonly string[];
  /** Addresses, with `{space}`, `{page}`, `{collection}` standing for the (encoded) ids. */
  hrefs: { page: string; space: string; collection: string };
  /** What expressions see. */
  vars: { space: Record<string, string>; page: Record<string, string> };
}

/**
 * A published site's reader (src/apps/site): expressions and conditional blocks see the
 * reader's context (their claims, the space's and page's variables); links to pages and spaces are
 * asked of the host, which alone knows which pages this reader may open and at what address.
 */
export interface ReaderEnvData {
  reader: Record<string, unknown>;
}

/** A page or a space a document links to, as the host is asked about it. */
export type LinkTarget = { kind: "page"; page: string; space?: string | undefined } | { kind: "space"; space: string };

export interface RenderedLink {
  href: string;
  title?: string | undefined;
}

/** The database's side of a render: the files and reusable contents a document uses. */
export interface HtmlRenderHost {
  /** For a reader's render: each target's address and title, in the order asked (undefined: the reader may not open it). */
  links?(targets: readonly LinkTarget[]): Promise<(RenderedLink | undefined)[]>;
  /** Files by id as the renderer shows them; ids that are no file of the content are left out. */
  files(ids: readonly string[]): Promise<Map<string, RenderedFile>>;
  /** Stored JSON of reusable contents of the space, by id; unknown ids are left out. */
  reusableContents(ids: readonly string[]): Promise<Map<string, string>>;
}

export interface HtmlRender {
  /** The document's stored JSON. */
  documentJson: string;
  env: HtmlEnvData | ReaderEnvData;
  idPrefix?: string | undefined;
  /** Top-level blocks grouped into sections (RenderEnv.sections): a published page. */
  sections?: boolean | undefined;
}

export interface RenderedHtml {
  html: string;
  outline: OutlineEntry[];
  features: ContentFeature[];
  /** Top-level blocks of the document (0: it is empty). */
  blocks: number;
}

const fill = (template: string, ids: Record<string, string>) =>
  template.replace(/\{(space|page|collection)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? ""));

/** The renderer's environment from plain data, the files and the loaded reusable contents. */
export function dataRenderEnv(
  data: HtmlEnvData,
  file: (fileId: string) => RenderedFile | undefined,
  reusable: (id: string) => JSONDocument | undefined,
): RenderEnv {
  const { spaceId, hrefs } = data;
  const pageIds = new Set(data.pageIds);
  const context = { space: { vars: data.vars.space }, page: { vars: data.vars.page } };
  const pageHref = (space: string | undefined, page: string) => {
    if (space && space !== spaceId) return fill(hrefs.page, { space, page });
    return pageIds.has(page) ? fill(hrefs.page, { space: spaceId, page }) : undefined;
  };
  return {
    link(ref: ContentRef) {
      switch (ref.kind) {
        case "url":
          return { href: ref.url };
        case "page": {
          const href = pageHref(ref.space, ref.page);
          return href ? { href } : undefined;
        }
        case "anchor": {
          if (!ref.page) return { href: `#${ref.anchor}` };
          const href = pageHref(ref.space, ref.page);
          return href ? { href: `${href}#${encodeURIComponent(ref.anchor)}` } : undefined;
        }
        case "file": {
          const found = file(ref.file);
          return found ? { href: found.url, title: found.name } : undefined;
        }
        case "space":
          return { href: fill(hrefs.space, { space: ref.space }) };
        case "collection":
          return { href: fill(hrefs.collection, { collection: ref.collection }) };
        default:
          return undefined;
      }
    },
    file,
    reusableContent: (id, otherSpace) => (otherSpace && otherSpace !== spaceId ? undefined : reusable(id)),
    expression(expression) {
      try {
        const value = evaluate(expression, context);
        if (value === undefined || value === null) return "";
        return typeof value === "object" ? JSON.stringify(value) : String(value);
      } catch {
        return "";
      }
    },
    condition: () => true,
  };
}

const targetKey = (target: LinkTarget) => (target.kind === "space" ? `space:${target.space}` : `page:${target.space ?? ""}/${target.page}`);

/** Every page and space the documents link to (links, mentions, cards, anchors into other pages). */
function linkTargets(documents: readonly unknown[]): LinkTarget[] {
  const found = new Map<string, LinkTarget>();
  const stack: unknown[] = [...documents];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === "object" && item !== null) stack.push(item);
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    const record = value as Record<string, unknown>;
    const space = typeof record.space === "string" ? record.space : undefined;
    let target: LinkTarget | undefined;
    if ((record.kind === "page" || record.kind === "anchor") && typeof record.page === "string")
      target = { kind: "page", page: record.page, ...(space ? { space } : {}) };
    else if (record.kind === "space" && space) target = { kind: "space", space };
    if (target) found.set(targetKey(target), target);
    for (const key in record) {
      const child = record[key];
      if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return [...found.values()];
}

/** A reader's environment: what the host answered for the links, files and reusable contents, and the reader's context. */
function readerRenderEnv(
  data: ReaderEnvData,
  links: ReadonlyMap<string, RenderedLink | undefined>,
  file: (fileId: string) => RenderedFile | undefined,
  reusable: (id: string) => JSONDocument | undefined,
): RenderEnv {
  const context = data.reader;
  return {
    link(ref: ContentRef) {
      switch (ref.kind) {
        case "url":
          return { href: ref.url };
        case "page":
          return links.get(targetKey({ kind: "page", page: ref.page, space: ref.space }));
        case "anchor": {
          if (!ref.page) return { href: `#${ref.anchor}` };
          const target = links.get(targetKey({ kind: "page", page: ref.page, space: ref.space }));
          return target ? { href: `${target.href}#${encodeURIComponent(ref.anchor)}` } : undefined;
        }
        case "file": {
          const found = file(ref.file);
          return found ? { href: found.url, title: found.name } : undefined;
        }
        case "space":
          return links.get(targetKey({ kind: "space", space: ref.space }));
        default:
          return undefined;
      }
    },
    file,
    reusableContent: (id) => reusable(id),
    expression: (expression) => expressionTextIn(expression, context),
    condition: (expression) => conditionHoldsIn(expression, context),
  };
}

/** The render itself, the same on either thread. */
export async function renderHtmlNow(task: HtmlRender, host: HtmlRenderHost): Promise<RenderedHtml> {
  const document = JSON.parse(task.documentJson) as JSONDocument;
  const references = documentReferences(document);
  const fileIds = new Set(references.files);
  // Reusable contents may include others (the renderer goes a few levels deep): one question per level.
  const reusable = new Map<string, JSONDocument>();
  const asked = new Set<string>();
  let wanted = [...references.reusableContents];
  for (let level = 0; wanted.length > 0 && level < MAX_REUSABLE_LEVELS; level++) {
    for (const id of wanted) asked.add(id);
    const next = new Set<string>();
    for (const [id, json] of await host.reusableContents(wanted)) {
      const included = JSON.parse(json) as JSONDocument;
      reusable.set(id, included);
      // Its files are shown inside this document too.
      const inner = documentReferences(included);
      for (const fileId of inner.files) fileIds.add(fileId);
      for (const other of inner.reusableContents) if (!asked.has(other)) next.add(other);
    }
    wanted = [...next];
  }
  const files = fileIds.size > 0 ? await host.files([...fileIds]) : new Map<string, RenderedFile>();
  let env: RenderEnv;
  if ("reader" in task.env) {
    const targets = linkTargets([document, ...reusable.values()]);
    const answers = targets.length > 0 && host.links ? await host.links(targets) : [];
    const links = new Map(targets.map((target, i) => [targetKey(target), answers[i]]));
    env = readerRenderEnv(
      task.env,
      links,
      (id) => files.get(id),
      (id) => reusable.get(id),
    );
  } else {
    env = dataRenderEnv(
      task.env,
      (id) => files.get(id),
      (id) => reusable.get(id),
    );
  }
  const rendered = renderDocument(document, {
    ...env,
    ...(task.idPrefix !== undefined ? { idPrefix: task.idPrefix } : {}),
    ...(task.sections ? { sections: true } : {}),
  });
  return { html: rendered.html, outline: rendered.outline, features: [...rendered.features], blocks: document.nodes.length };
}

/**
 * Renders the document, in a worker thread when its JSON is large enough to be worth it; the
 * document is never parsed on this thread then.
 */
export async function renderHtml(task: HtmlRender, host: HtmlRenderHost): Promise<RenderedHtml> {
  if (task.documentJson.length < INLINE_HTML_JSON_CHARS) return renderHtmlNow(task, host);
  const { MessageChannel } = await import("node:worker_threads");
  const channel = new MessageChannel();
  serveHtmlHost(channel.port1, host);
  try {
    return await runInWorker("renderHtml", { ...task, host: channel.port2 }, { transferList: [channel.port2] });
  } finally {
    channel.port1.close();
  }
}

// ---- the port between the render and the database's side ------------------------------------------

type HostQuestion = { files: string[] } | { reusableContents: string[] } | { links: LinkTarget[] };
type HostAnswer = { files: Map<string, RenderedFile> } | { reusableContents: Map<string, string> } | { links: (RenderedLink | null)[] };

/** The database's side: answers each question on `port` from `host`, until the port closes. */
function serveHtmlHost(port: MessagePort, host: HtmlRenderHost): void {
  answerOn<HostQuestion, HostAnswer>(port, async (question) => ({
    answer:
      "files" in question
        ? { files: await host.files(question.files) }
        : "links" in question
          ? { links: (host.links ? await host.links(question.links) : []).map((link) => link ?? null) }
          : { reusableContents: await host.reusableContents(question.reusableContents) },
  }));
}

/** The renderer's side (in the worker thread): asks over `port`. `close()` once the render is over. */
export function htmlHostOver(port: MessagePort): HtmlRenderHost & { close(): void } {
  const { ask, close } = askOver<HostQuestion, HostAnswer>(port);
  return {
    files: async (ids) => {
      const answer = await ask({ files: [...ids] });
      return "files" in answer ? answer.files : new Map();
    },
    reusableContents: async (ids) => {
      const answer = await ask({ reusableContents: [...ids] });
      return "reusableContents" in answer ? answer.reusableContents : new Map();
    },
    links: async (targets) => {
      const answer = await ask({ links: [...targets] });
      return "links" in answer ? answer.links.map((link) => link ?? undefined) : [];
    },
    close,
  };
}
