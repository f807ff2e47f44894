/**
 * How the change-request pages show document content (the blocks of a diff, a conflict's versions,
 * comments, the edit preview): the published site's renderer (src/content/html) with an
 * environment for a signed-in member reviewing a change request. Links to pages open their app
 * page, files are signed download URLs, the space's reusable content is rendered inline,
 * expressions see the space's variables, and every conditional block is shown (a review covers
 * what any reader could see). The environment matches web.render.ts's (the browsing pages), which
 * renders one whole page; these pages render many documents (each block of a diff) with one.
 */
import type { ContentRef, DocumentBlock, JSONDocument } from "../../content/document/types.js";
import { documentReferences, type RenderEnv, type RenderedFile, renderDocument } from "../../content/html/index.js";
import { indexPages, type RevisionContent } from "../../content/revision/model.js";
import { loadDocuments } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { Deps } from "../../deps.js";
import { evaluate } from "../../expr/index.js";
import { downloadUrl } from "../files/files.urls.js";
import { html, raw, type SafeHtml } from "./web.html.js";
import { appAssets } from "./web.render.js";

export interface ContentView {
  /** One block, as it renders inside its page. */
  block(block: DocumentBlock, key: string): SafeHtml;
  /** A whole document (a conflict's version, a comment, the preview). */
  body(document: JSONDocument | undefined, idPrefix?: string): SafeHtml;
}

export interface ContentSource {
  orgId: string;
  spaceId: string;
  /** The contents the documents come from, the change request's head first: files, pages, reusable contents, variables. */
  contents: RevisionContent[];
  /** Every document that will be rendered, to load the reusable contents they include at once. */
  documents: Iterable<JSONDocument | undefined>;
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The renderer's environment for these contents, with the reusable contents the documents use loaded. */
export async function contentView(db: Executor, deps: Pick<Deps, "urls" | "secret">, source: ContentSource): Promise<ContentView> {
  const { orgId, spaceId, contents } = source;
  const head = contents[0];
  const wanted = new Set<string>();
  for (const document of source.documents) if (document) for (const id of documentReferences(document).reusableContents) wanted.add(id);
  const entries = new Map<string, string>();
  for (const content of contents)
    for (const r of content.reusableContents)
      if (wanted.has(r.id) && r.documentHash && !entries.has(r.id)) entries.set(r.id, r.documentHash);
  const loaded = entries.size > 0 ? await loadDocuments<JSONDocument>(db, [...entries.values()]) : new Map<string, JSONDocument>();
  const reusable = new Map<string, JSONDocument>();
  for (const [id, hash] of entries) {
    const document = loaded.get(hash);
    if (document) reusable.set(id, document);
  }
  const pageIds = new Set(head ? indexPages(head.pages).keys() : []);
  const files = new Map(contents.flatMap((c) => c.files).map((f) => [f.id, f] as const));
  const variables = Object.assign({}, ...[...contents].reverse().map((c) => c.variables)) as Record<string, string>;
  const app = (path: string) => `/app/o/${encodeURIComponent(orgId)}${path}`;
  const pageHref = (space: string | undefined, pageId: string) => {
    if (space && space !== spaceId) return app(`/s/${encodeURIComponent(space)}/p/${encodeURIComponent(pageId)}`);
    return pageIds.has(pageId) ? app(`/s/${encodeURIComponent(spaceId)}/p/${encodeURIComponent(pageId)}`) : undefined;
  };
  const file = (fileId: string): RenderedFile | undefined => {
    const entry = files.get(fileId);
    if (!entry) return undefined;
    return {
      url: downloadUrl(deps.urls.base, deps.secret, { blobHash: entry.blobHash, name: entry.name, contentType: entry.contentType }),
      name: entry.name,
      contentType: entry.contentType,
      size: entry.size,
      ...(entry.dimensions ? { width: entry.dimensions.width, height: entry.dimensions.height } : {}),
    };
  };
  const env: RenderEnv = {
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
          return { href: app(`/s/${encodeURIComponent(ref.space)}`) };
        case "collection":
          return { href: app(`/c/${encodeURIComponent(ref.collection)}`) };
        default:
          return undefined;
      }
    },
    file,
    reusableContent: (id, otherSpace) => (otherSpace && otherSpace !== spaceId ? undefined : reusable.get(id)),
    expression(expression) {
      try {
        return textOf(evaluate(expression, { space: { vars: variables }, page: { vars: {} } }));
      } catch {
        return "";
      }
    },
    condition: () => true,
  };
  const render = (document: JSONDocument, idPrefix: string) =>
    html`<div class="q-content">${raw(renderDocument(document, { ...env, idPrefix }).html)}</div>`;
  let count = 0;
  return {
    block: (block, key) => render({ object: "document", data: {}, nodes: [block] } as JSONDocument, `b-${key}-${count++}-`),
    body: (document, idPrefix) =>
      document && document.nodes.length > 0 ? render(document, idPrefix ?? `d${count++}-`) : html`<p class="muted">(empty)</p>`,
  };
}

/** The renderer's stylesheets and script, as the app serves them (web.render.ts, fingerprinted). */
export function contentStyle(): SafeHtml {
  const { prefix } = appAssets();
  return html`<link rel="stylesheet" href="${prefix}/content.css"><link rel="stylesheet" href="${prefix}/katex/katex.min.css"><script defer src="${prefix}/content.js"></script>`;
}
