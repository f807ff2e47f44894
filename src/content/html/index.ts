/**
 * The document renderer: a stored page document to HTML, for the published site and the member
 * web app. Pure and synchronous; it never touches the database or HTTP (see RenderEnv).
 */
import type { JSONDocument } from "../document/types.js";
import { HtmlRenderer } from "./render.js";
import type { RenderEnv, RenderedDocument } from "./types.js";

export { type ContentAsset, contentAssets } from "./assets.js";
export { type DocumentReferences, documentReferences } from "./references.js";
export { escapeHtml, html, raw, SafeHtml } from "./safe-html.js";
export type { ContentFeature, OutlineEntry, RenderEnv, RenderedDocument, RenderedFile, RenderedOperation } from "./types.js";
export { EMBED_FRAME_ORIGINS, safeLinkUrl, safeMediaUrl } from "./urls.js";

export function renderDocument(document: JSONDocument, env: RenderEnv): RenderedDocument {
  return new HtmlRenderer(env).render(document);
}
