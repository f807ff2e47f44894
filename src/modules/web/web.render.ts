/**
 * Page bodies in the web app: the published site's renderer (src/content/html) with an environment
 * for a signed-in member. Links point into the app (a page opens its app page), files are signed
 * download URLs, reusable content of the space is rendered inline, expressions see the space's and
 * the page's variables. Conditional blocks are all shown: members review the content every reader
 * could be shown, not the view of one visitor.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ContentRef, JSONDocument } from "../../content/document/types.js";
import { contentAssets, documentReferences, type RenderEnv, type RenderedFile, renderDocument } from "../../content/html/index.js";
import type { FileEntry, PageNode, RevisionContent } from "../../content/revision/model.js";
import { loadDocuments } from "../../content/revision/storage.js";
import type { Executor } from "../../db/database.js";
import type { Deps } from "../../deps.js";
import { evaluate } from "../../expr/index.js";
import { downloadUrl } from "../files/files.urls.js";
import { appPath } from "./web.browse.views.js";
import { html, raw, type SafeHtml } from "./web.html.js";

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

function textOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A stored file as the renderer shows it: a signed download URL, its name, type, size and dimensions. */
function renderedFile(deps: Pick<Deps, "urls" | "secret">, file: FileEntry): RenderedFile {
  return {
    url: downloadUrl(deps.urls.base, deps.secret, { blobHash: file.blobHash, name: file.name, contentType: file.contentType }),
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    ...(file.dimensions ? { width: file.dimensions.width, height: file.dimensions.height } : {}),
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
 * content renders inline, and every conditional block is shown.
 */
export function appRenderEnv(deps: Pick<Deps, "urls" | "secret">, source: AppRenderSource): RenderEnv {
  const { orgId, spaceId, pageIds, files, reusable } = source;
  const context = { space: { vars: source.vars.space }, page: { vars: source.vars.page } };
  const pageHref = (space: string | undefined, pageId: string) => {
    if (space && space !== spaceId) return appPath.page(orgId, space, pageId);
    return pageIds.has(pageId) ? appPath.page(orgId, spaceId, pageId) : undefined;
  };
  const file = (fileId: string) => {
    const entry = files.get(fileId);
    return entry ? renderedFile(deps, entry) : undefined;
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
          return { href: appPath.space(orgId, ref.space) };
        case "collection":
          return { href: appPath.collection(orgId, ref.collection) };
        default:
          return undefined;
      }
    },
    file,
    reusableContent: (id, otherSpace) => (otherSpace && otherSpace !== spaceId ? undefined : reusable.get(id)),
    expression(expression) {
      try {
        return textOf(evaluate(expression, context));
      } catch {
        return "";
      }
    },
    condition: () => true,
  };
}

/** Renders a page's document for the app, loading the reusable contents it uses first. */
export async function renderAppPage(
  db: Executor,
  deps: Pick<Deps, "urls" | "secret">,
  source: AppPageSource,
  document: JSONDocument,
): Promise<RenderedAppPage> {
  const { orgId, spaceId, content, pageIds, page } = source;
  const wanted = documentReferences(document).reusableContents;
  const entries = content.reusableContents.filter((r) => r.documentHash && wanted.has(r.id));
  const documents =
    entries.length > 0
      ? await loadDocuments<JSONDocument>(
          db,
          entries.map((r) => r.documentHash as string),
        )
      : new Map<string, JSONDocument>();
  const reusable = new Map(
    entries.flatMap((r) => (documents.has(r.documentHash as string) ? [[r.id, documents.get(r.documentHash as string)!]] : [])),
  );
  const rendered = renderDocument(
    document,
    appRenderEnv(deps, {
      orgId,
      spaceId,
      pageIds,
      files: new Map(content.files.map((f) => [f.id, f])),
      reusable,
      vars: { space: content.variables, page: page.variables ?? {} },
    }),
  );
  const assets = appAssets();
  const href = (name: string) => `${assets.prefix}/${name}`;
  const head = html`<link rel="stylesheet" href="${href("content.css")}">${
    rendered.features.has("math") ? html`<link rel="stylesheet" href="${href("katex/katex.min.css")}">` : ""
  }${rendered.features.has("mermaid") ? html`<script defer src="${href("mermaid.min.js")}"></script>` : ""}<script defer src="${href("content.js")}"></script>`;
  return { body: html`<div class="q-content">${raw(rendered.html)}</div>`, head };
}

interface AppAssets {
  /** `/app/assets/<hash of every asset>`: a new deployment with other files gets new addresses. */
  prefix: string;
  files: Map<string, { body: Buffer; contentType: string }>;
}

let assetsCache: AppAssets | undefined;

/** The renderer's static files, read once and served under a fingerprinted prefix. */
export function appAssets(): AppAssets {
  if (assetsCache) return assetsCache;
  const hash = createHash("sha256");
  const files = new Map<string, { body: Buffer; contentType: string }>();
  for (const asset of contentAssets()) {
    const body = readFileSync(asset.path);
    hash.update(asset.name).update(body);
    files.set(asset.name, { body, contentType: asset.contentType });
  }
  assetsCache = { prefix: `/app/assets/${hash.digest("hex").slice(0, 16)}`, files };
  return assetsCache;
}
