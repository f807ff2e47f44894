/**
 * How the change-request pages show document content (the blocks of a diff, a conflict's versions,
 * comments, the edit preview): the published site's renderer (src/content/html) with an
 * environment for a signed-in member reviewing a change request. Links to pages open their app
 * page, files are signed download URLs, the space's reusable content is rendered inline,
 * expressions see the space's variables, and every conditional block is shown (a review covers
 * what any reader could see): web.render.ts's appRenderEnv, shared with the browsing pages, which
 * render one whole page; these pages render many documents (each block of a diff) with one.
 */
import type { JSONDocument } from "../../../../content/document/types.js";
import { documentReferences, renderDocument } from "../../../../content/html/index.js";
import { html, raw } from "../../../../content/html/safe-html.js";
import { indexPages, type RevisionContent } from "../../../../content/revision/model.js";
import { loadDocuments } from "../../../../content/revision/storage.js";
import type { Executor } from "../../../../db/database.js";
import type { Deps } from "../../../../deps.js";
import { appRenderEnv } from "../../web.render.js";
import type { ContentView } from "./changes.views.js";

export interface ContentSource {
  orgId: string;
  spaceId: string;
  /** The contents the documents come from, the change request's head first: files, pages, reusable contents, variables. */
  contents: RevisionContent[];
  /** Every document that will be rendered, to load the reusable contents they include at once. */
  documents: Iterable<JSONDocument | undefined>;
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
  const env = appRenderEnv(deps, {
    orgId,
    spaceId,
    pageIds: new Set(head ? indexPages(head.pages).keys() : []),
    files: new Map(contents.flatMap((c) => c.files).map((f) => [f.id, f] as const)),
    reusable,
    vars: { space: Object.assign({}, ...[...contents].reverse().map((c) => c.variables)) as Record<string, string>, page: {} },
  });
  const render = (document: JSONDocument, idPrefix: string) =>
    html`<div class="q-content">${raw(renderDocument(document, { ...env, idPrefix }).html)}</div>`;
  let count = 0;
  return {
    block: (block, key) => render({ object: "document", data: {}, nodes: [block] } as JSONDocument, `b-${key}-${count++}-`),
    body: (document, idPrefix) =>
      document && document.nodes.length > 0 ? render(document, idPrefix ?? `d${count++}-`) : html`<p class="muted">(empty)</p>`,
  };
}
