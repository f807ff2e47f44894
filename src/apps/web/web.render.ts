/**
 * Page bodies in the web app: the published site's renderer (src/content/html) with an environment
 * for a signed-in member. Links point into the app (a page opens its app page), files are signed
 * download URLs, reusable content of the space is rendered inline, expressions see the space's and
 * the page's variables. Conditional blocks are all shown: members review the content every reader
 * could be shown, not the view of one visitor.
 */
import type { JSONDocument } from "../../content/document/types.js";
import type { RenderEnv, RenderedFile } from "../../content/html/index.js";
import { dataRenderEnv, type HtmlEnvData, type HtmlRenderHost, type RenderedHtml, renderHtml } from "../../content/html/off-thread.js";
import { html, raw, type SafeHtml } from "../../content/html/safe-html.js";
import type { FileEntry, PageNode, RevisionContent } from "../../content/revision/model.js";
import { loadDocumentsJson } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { Deps } from "../../deps.js";
import { downloadUrl } from "../../modules/files/files-urls.model.js";
import { appAssets } from "./web.assets.js";
import { appPath } from "./web.paths.js";

export interface AppPageSource {
  orgId: string;
  spaceId: string;
  content: RevisionContent;
  /** Page ids of the revision, to link only to pages that exist. */
  pageIds: ReadonlySet<string>;
  page: PageNode;
}

export interface RenderedAppPage {
  body: SafeHtml;
  /** Stylesheets and scripts the body needs, for <head>. */
  head: SafeHtml;
}

/** A stored file as the renderer shows it: a signed download URL, its name, type, size and dimensions. */
export function renderedFile(deps: Pick<Deps, "urls" | "secret">, file: FileEntry): RenderedFile {
  return {
    url: downloadUrl(deps.urls.base, deps.secret, { blobHash: file.blobHash, name: file.name, contentType: file.contentType }),
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    ...(file.dimensions ? { width: file.dimensions.width, height: file.dimensions.height } : {}),
  };
}

/** Stands for an id in an address template (letters and underscores: encodeURIComponent keeps them). */
const ID = { space: "__space__", page: "__page__", collection: "__collection__" };

/**
 * What the renderer's links and expressions need in the app, as plain data: page links open their
 * app page, and expressions see the space's and the page's variables.
 */
export function appEnvData(source: {
  orgId: string;
  spaceId: string;
  pageIds: Iterable<string>;
  vars: { space: Record<string, string>; page: Record<string, string> };
}): HtmlEnvData {
  const template = (address: string) => address.replace(/__(space|page|collection)__/g, "{$1}");
  return {
    spaceId: source.spaceId,
    pageIds: [...source.pageIds],
    hrefs: {
      page: template(appPath.page(source.orgId, ID.space, ID.page)),
      space: template(appPath.space(source.orgId, ID.space)),
      collection: template(appPath.collection(source.orgId, ID.collection)),
    },
    vars: source.vars,
  };
}

export interface AppRenderSource {
  orgId: string;
  spaceId: string;
  /** Page ids of the revision, to link only to pages that exist. */
  pageIds: ReadonlySet<string>;
  files: ReadonlyMap<string, FileEntry>;
  /** The space's reusable contents the documents use, loaded. */
  reusable: ReadonlyMap<string, JSONDocument>;
  /** What expressions see. */
  vars: { space: Record<string, string>; page: Record<string, string> };
}

/**
 * The renderer's environment for a signed-in member, shared by the browsing and the change-request
 * pages: page links open their app page, files are signed download URLs, the space's reusable
 * content renders inline, and every conditional block is shown. The same as a render in a worker
 * thread gets (appRenderHost, html/off-thread.ts).
 */
export function appRenderEnv(deps: Pick<Deps, "urls" | "secret">, source: AppRenderSource): RenderEnv {
  const { files, reusable } = source;
  return dataRenderEnv(
    appEnvData(source),
    (fileId) => {
      const entry = files.get(fileId);
      return entry ? renderedFile(deps, entry) : undefined;
    },
    (id) => reusable.get(id),
  );
}

/**
 * The database's side of a render for the app: the files of the contents (the first holding an id
 * wins) with signed URLs, and the stored JSON of their reusable contents.
 */
export function appRenderHost(db: Executor, deps: Pick<Deps, "urls" | "secret">, contents: readonly RevisionContent[]): HtmlRenderHost {
  return {
    async files(ids) {
      const wanted = new Set(ids);
      const found = new Map<string, RenderedFile>();
      for (const content of contents)
        for (const file of content.files) if (wanted.has(file.id) && !found.has(file.id)) found.set(file.id, renderedFile(deps, file));
      return found;
    },
    async reusableContents(ids) {
      const wanted = new Set(ids);
      const hashes = new Map<string, string>();
      for (const content of contents)
        for (const r of content.reusableContents)
          if (wanted.has(r.id) && r.documentHash && !hashes.has(r.id)) hashes.set(r.id, r.documentHash);
      const stored = hashes.size > 0 ? await loadDocumentsJson(db, hashes.values()) : new Map<string, string>();
      const out = new Map<string, string>();
      for (const [id, hash] of hashes) {
        const json = stored.get(hash);
        if (json !== undefined) out.set(id, json);
      }
      return out;
    },
  };
}

/**
 * Renders a document (its stored JSON) for the app, in a worker thread when it is large; `page`
 * gives the page's variables to expressions.
 */
export async function renderAppDocument(
  db: Executor,
  deps: Pick<Deps, "urls" | "secret">,
  source: { orgId: string; spaceId: string; content: RevisionContent; pageIds: ReadonlySet<string>; pageVars: Record<string, string> },
  documentJson: string,
  idPrefix?: string,
): Promise<RenderedHtml> {
  const env = appEnvData({
    orgId: source.orgId,
    spaceId: source.spaceId,
    pageIds: source.pageIds,
    vars: { space: source.content.variables, page: source.pageVars },
  });
  return renderHtml({ documentJson, env, idPrefix }, appRenderHost(db, deps, [source.content]));
}

/** Renders a page's document (its stored JSON) for the app, with the stylesheets and scripts it needs. */
export async function renderAppPage(
  db: Executor,
  deps: Pick<Deps, "urls" | "secret">,
  source: AppPageSource,
  documentJson: string,
): Promise<RenderedAppPage> {
  const { orgId, spaceId, content, pageIds, page } = source;
  const rendered = await renderAppDocument(db, deps, { orgId, spaceId, content, pageIds, pageVars: page.variables ?? {} }, documentJson);
  const features = new Set(rendered.features);
  const assets = appAssets();
  const href = (name: string) => `${assets.prefix}/${name}`;
  const head = html`<link rel="stylesheet" href="${href("content.css")}">${
    features.has("math") ? html`<link rel="stylesheet" href="${href("katex/katex.min.css")}">` : ""
  }${features.has("mermaid") ? html`<script defer src="${href("mermaid.min.js")}"></script>` : ""}<script defer src="${href("content.js")}"></script>`;
  return { body: html`<div class="q-content">${raw(rendered.html)}</div>`, head };
}
