/**
 * Applies a batch of content changes (POST .../change-requests/{cr}/content) to a change request's
 * content tree, in memory: insert_page, update_page (document, metadata, rename, move),
 * delete_page, revert_page (whole page or some blocks) and insert_files. Any invalid change rejects
 * the whole batch with a 400 naming it (`body.changes.3...`); nothing is stored here (the service
 * stores the documents and commits one revision).
 *
 * Page bodies come as Markdown (parsed with GitBook's syntax, front matter setting page metadata)
 * or as JSON documents. A block of a JSON document that comes with a key keeps it (the editor's
 * saves name every block: a moved block stays itself); a block without one, and every block of
 * Markdown, takes the key of the page's previous document where it is unchanged, moved or edited
 * in place, so that merges work block by block.
 *
 * Links in Markdown resolve to pages and files of the change request: `/pages/<id or path>`, Git
 * style paths (`/pages/guide.md`, `/pages/guide/README.md`, `/pages/README.md` = the first page),
 * paths relative to the page (`./other.md`, `../README.md`, folders), `./<ref>` for a page or file
 * inserted by the same batch, and `/files/<id>`. Links that resolve to nothing become plain text;
 * external URLs are kept.
 */

import { prepareDocument } from "../../content/document/off-thread.js";
import type { JSONDocument } from "../../content/document/types.js";
import { slugify } from "../../content/gitbook-repo/text.js";
import { type ContentLinkTable, contentLinkResolver } from "../../content/markdown/content-links.js";
import { type PageFrontmatter, pageMetadataFromFrontmatter } from "../../content/markdown/index.js";
import { convertMarkdown } from "../../content/markdown/off-thread.js";
import {
  type FileEntry,
  indexPages,
  MAX_PAGE_DEPTH,
  type PageNode,
  pageTreeDepth,
  type RevisionContent,
} from "../../content/revision/model.js";
import { canonicalJson, objectHash } from "../../content/store/canonical.js";
import { invalid } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { revertBlocks } from "./block-edits.model.js";
import type { ContentChangeResultValue, ContentChangeValue } from "./change-request-content.schemas.js";

export interface PreparedFile {
  entry: FileEntry;
  ref?: string;
  bytes: Buffer;
}

export interface ApplyInput {
  /** The change request's head content; not modified. */
  content: RevisionContent;
  changes: readonly ContentChangeValue[];
  /** Files of each insert_files change (already fetched or decoded), by change index. */
  files: ReadonlyMap<number, PreparedFile[]>;
  now: string;
  loadDocument(hash: string): Promise<JSONDocument>;
  /**
   * The stored JSON of a document, unparsed: the previous document of an updated page goes to the
   * worker thread that makes the new one as text, never parsed or cloned on the request thread.
   */
  loadDocumentJson(hash: string): Promise<string>;
  /** Content of a revision of the space (undefined: the change request's base); 400 when unknown. */
  loadRevision(revisionId: string | undefined, field: string): Promise<RevisionContent>;
  /** API address of a page of the change request. */
  pageLocation(pageId: string): string;
  /** Pages the change request deleted whose deletion collides with a primary edit: delete_page confirms it. */
  confirmableDeletions?: ReadonlySet<string>;
}

export interface ApplyOutput {
  content: RevisionContent;
  /** The new documents as canonical JSON, by object hash (ready to store). */
  documents: Map<string, string>;
  results: ContentChangeResultValue[];
  insertedFiles: FileEntry[];
  /** Pages whose own fields, document or existence the batch changed (or whose deletion it confirmed). */
  touched: Set<string>;
}

interface Located {
  page: PageNode;
  siblings: PageNode[];
  index: number;
  parent: PageNode | null;
}

type Touch = "created" | "updated" | "deleted";

const EMPTY_DOCUMENT: JSONDocument = { object: "document", data: {}, nodes: [] };

export async function applyContentChanges(input: ApplyInput): Promise<ApplyOutput> {
  return new ContentEditor(input).run();
}

class ContentEditor {
  private readonly content: RevisionContent;
  private readonly documents = new Map<string, string>();
  private readonly pageRefs = new Map<string, string>();
  private readonly fileRefs = new Map<string, string>();
  private readonly touches = new Map<string, { kind: Touch; ref?: string }>();
  private readonly existedBefore: Set<string>;
  private readonly insertedFiles: FileEntry[] = [];
  private readonly touched = new Set<string>();

  constructor(private readonly input: ApplyInput) {
    this.content = structuredClone(input.content);
    this.existedBefore = new Set(indexPages(this.content.pages).keys());
  }

  async run(): Promise<ApplyOutput> {
    this.registerRefs();
    for (const [i, change] of this.input.changes.entries()) {
      const at = `body.changes.${i}`;
      switch (change.operation) {
        case "insert_page":
          await this.insertPage(change, at);
          break;
        case "update_page":
          await this.updatePage(change, at);
          break;
        case "delete_page":
          this.deletePage(change, at);
          break;
        case "revert_page":
          await this.revertPage(change, at);
          break;
        case "insert_files":
          this.insertFiles(i, at);
          break;
      }
    }
    return {
      content: this.content,
      documents: this.documents,
      results: this.results(),
      insertedFiles: this.insertedFiles,
      touched: this.touched,
    };
  }

  /** Ids for every ref of the batch first, so that a page can link to one inserted after it. */
  private registerRefs(): void {
    for (const [i, change] of this.input.changes.entries()) {
      if (change.operation === "insert_page" && change.ref !== undefined) {
        if (this.pageRefs.has(change.ref) || this.fileRefs.has(change.ref))
          throw invalid(`body.changes.${i}.ref "${change.ref}" is used twice in the batch.`);
        this.pageRefs.set(change.ref, newId());
      }
      if (change.operation === "insert_files") {
        for (const [j, file] of (this.input.files.get(i) ?? []).entries()) {
          if (file.ref === undefined) continue;
          if (this.pageRefs.has(file.ref) || this.fileRefs.has(file.ref))
            throw invalid(`body.changes.${i}.files.${j}.ref "${file.ref}" is used twice in the batch.`);
          this.fileRefs.set(file.ref, file.entry.id);
        }
      }
    }
  }

  // ---- operations -------------------------------------------------------------------------------

  private async insertPage(change: ContentChangeValue, at: string): Promise<void> {
    const group = change.kind === "group";
    if (group && change.document) throw invalid(`${at}.document: a group has no document; leave it out, or insert a document page.`);
    if (group && !change.title) throw invalid(`${at}.title is required for a group.`);
    if (!group && !change.document) throw invalid(`${at}.document is required for insert_page.`);
    const id = change.ref !== undefined ? this.pageRefs.get(change.ref)! : newId();
    const parent = change.into ? this.requireParent(change.into, `${at}.into`) : null;
    if (parent) this.assertDepth(parent, 1, `${at}.into`);
    const siblings = parent ? parent.children : this.content.pages;
    const parentPath = parent ? this.pathOf(parent.id) : "";
    const body = change.document
      ? await this.readDocument(change.document, `${at}.document`, { pageId: id, directory: parentPath }, undefined)
      : undefined;
    const title = change.title ?? body?.title ?? "Untitled";
    if (change.slug !== undefined) this.assertSlugFree(change.slug, siblings, undefined, `${at}.slug`);
    const slug = change.slug ?? uniqueSlug(slugify(title), siblings);
    const page: PageNode = {
      id,
      kind: group ? "group" : "document",
      title,
      slug,
      createdAt: this.input.now,
      updatedAt: this.input.now,
      children: [],
    };
    if (body?.frontmatter) applyFrontmatter(page, body.frontmatter, body.resolveCover, true);
    applyMetadata(page, change);
    if (body) this.setDocument(page, body.document);
    siblings.splice(clampIndex(change.at, siblings.length), 0, page);
    this.touch(id, "created", change.ref);
  }

  private async updatePage(change: ContentChangeValue, at: string): Promise<void> {
    const located = this.requirePage(change.page, `${at}.page`, "update_page");
    const { page } = located;
    const before = JSON.stringify({ ...page, children: undefined });
    if (change.document) {
      if (page.kind !== "document") throw invalid(`${at}.document: page "${page.id}" is a ${page.kind}, it has no document.`);
      const previous = page.documentHash ? await this.input.loadDocumentJson(page.documentHash) : undefined;
      const directory = page.children.length > 0 ? this.pathOf(page.id) : located.parent ? this.pathOf(located.parent.id) : "";
      const body = await this.readDocument(change.document, `${at}.document`, { pageId: page.id, directory }, previous);
      if (body.title !== undefined && change.title === undefined) page.title = body.title;
      if (body.frontmatter) applyFrontmatter(page, body.frontmatter, body.resolveCover, false);
      this.setDocument(page, body.document);
    }
    applyMetadata(page, change);
    if (change.into !== undefined || change.at !== undefined) this.movePage(located, change, at);
    if (change.slug !== undefined) {
      const { siblings } = this.locate(page.id)!;
      this.assertSlugFree(change.slug, siblings, page.id, `${at}.slug`);
    }
    if (JSON.stringify({ ...page, children: undefined }) !== before) page.updatedAt = this.input.now;
    this.touch(page.id, "updated");
  }

  private deletePage(change: ContentChangeValue, at: string): void {
    if (!change.page) throw invalid(`${at}.page is required for delete_page.`);
    const id = this.pageRefs.get(change.page) ?? change.page;
    if (!this.locate(id) && this.input.confirmableDeletions?.has(id)) {
      // The change request already deleted it and the primary edited it: deleting it again
      // confirms the deletion (the conflict is resolved in favour of the change request).
      this.touched.add(id);
      this.touch(id, "deleted");
      return;
    }
    const located = this.requirePage(change.page, `${at}.page`, "delete_page");
    this.removeSubtree(located);
  }

  private async revertPage(change: ContentChangeValue, at: string): Promise<void> {
    if (!change.page) throw invalid(`${at}.page is required for revert_page.`);
    const id = this.pageRefs.get(change.page) ?? change.page;
    const revision = await this.input.loadRevision(change.revision, `${at}.revision`);
    const then = indexPages(revision.pages).get(id);
    const now = this.locate(id);
    if (change.block) {
      if (!now) throw invalid(`${at}.page: no page "${change.page}" in the change request to revert blocks of.`);
      if (now.page.kind !== "document") throw invalid(`${at}.block: page "${id}" is a ${now.page.kind}, it has no blocks.`);
      const current = now.page.documentHash ? await this.input.loadDocument(now.page.documentHash) : EMPTY_DOCUMENT;
      const old = then?.page.documentHash ? await this.input.loadDocument(then.page.documentHash) : EMPTY_DOCUMENT;
      this.setDocument(now.page, stored(revertBlocks(current, old, change.block, `${at}.block`, id)));
      now.page.updatedAt = this.input.now;
      this.touch(id, "updated");
      return;
    }
    if (!now && !then) throw invalid(`${at}.page: no page "${change.page}" in the change request or in the revision to revert to.`);
    if (now && !then) {
      // Created after that revision: reverting removes it.
      this.removeSubtree(now);
      return;
    }
    const { children: _children, ...meta } = then!.page;
    const parent = then!.parentId !== null ? this.locate(then!.parentId) : undefined;
    const siblings = parent && parent.page.kind !== "link" ? parent.page.children : this.content.pages;
    if (now) {
      for (const key of Object.keys(now.page)) if (key !== "children") delete (now.page as unknown as Record<string, unknown>)[key];
      Object.assign(now.page, structuredClone(meta));
      now.page.updatedAt = this.input.now;
      if (siblings !== now.siblings || now.index !== then!.index) {
        now.siblings.splice(now.index, 1);
        siblings.splice(clampIndex(then!.index, siblings.length), 0, now.page);
      }
      this.touch(id, "updated");
    } else {
      const restored: PageNode = { ...structuredClone(meta), updatedAt: this.input.now, children: [] };
      siblings.splice(clampIndex(then!.index, siblings.length), 0, restored);
      this.touch(id, "created");
    }
  }

  private insertFiles(index: number, at: string): void {
    const files = this.input.files.get(index);
    if (!files?.length) throw invalid(`${at}.files is required for insert_files.`);
    for (const file of files) {
      this.content.files.push(file.entry);
      this.insertedFiles.push(file.entry);
    }
  }

  // ---- tree helpers -----------------------------------------------------------------------------

  private locate(id: string): Located | undefined {
    const walk = (siblings: PageNode[], parent: PageNode | null): Located | undefined => {
      for (const [index, page] of siblings.entries()) {
        if (page.id === id) return { page, siblings, index, parent };
        const found = walk(page.children, page);
        if (found) return found;
      }
      return undefined;
    };
    return walk(this.content.pages, null);
  }

  private requirePage(idOrRef: string | undefined, field: string, operation: string): Located {
    if (!idOrRef) throw invalid(`${field} is required for ${operation}.`);
    const located = this.locate(this.pageRefs.get(idOrRef) ?? idOrRef);
    if (!located) throw invalid(`${field}: no page "${idOrRef}" in the change request.`);
    return located;
  }

  private requireParent(idOrRef: string, field: string): PageNode {
    const { page } = this.requirePage(idOrRef, field, "this change");
    if (page.kind === "link") throw invalid(`${field}: page "${page.id}" is a link; a link cannot have pages under it.`);
    return page;
  }

  /** Refuses to put `levels` levels of pages (a page and its subpages) under `parent` past MAX_PAGE_DEPTH. */
  private assertDepth(parent: PageNode, levels: number, field: string): void {
    const parentLevel = (indexPages(this.content.pages).get(parent.id)?.ancestors.length ?? 0) + 1;
    if (parentLevel + levels > MAX_PAGE_DEPTH) {
      throw invalid(
        `${field}: page "${parent.id}" is at level ${parentLevel}, and ${levels === 1 ? "a page" : `${levels} levels of pages`} under it would go past the ${MAX_PAGE_DEPTH} levels pages can be nested.`,
      );
    }
  }

  private pathOf(id: string): string {
    return indexPages(this.content.pages).get(id)?.path ?? "";
  }

  private movePage(located: Located, change: ContentChangeValue, at: string): void {
    let siblings = located.siblings;
    if (change.into !== undefined) {
      const parent = change.into === null ? null : this.requireParent(change.into, `${at}.into`);
      if (parent && (parent.id === located.page.id || contains(located.page, parent.id))) {
        throw invalid(`${at}.into: page "${located.page.id}" cannot move under itself or one of its subpages.`);
      }
      if (parent) this.assertDepth(parent, pageTreeDepth([located.page]), `${at}.into`);
      siblings = parent ? parent.children : this.content.pages;
    }
    located.siblings.splice(located.index, 1);
    siblings.splice(clampIndex(change.at, siblings.length), 0, located.page);
  }

  private removeSubtree(located: Located): void {
    located.siblings.splice(located.index, 1);
    const visit = (page: PageNode) => {
      this.touch(page.id, "deleted");
      page.children.forEach(visit);
    };
    visit(located.page);
  }

  private assertSlugFree(slug: string, siblings: PageNode[], self: string | undefined, field: string): void {
    if (slug === "") return;
    const other = siblings.find((p) => p.slug === slug && p.id !== self);
    if (other) throw invalid(`${field}: the slug "${slug}" is already used by page "${other.id}" at the same level; pick another.`);
  }

  private touch(id: string, kind: Touch, ref?: string): void {
    this.touched.add(id);
    const previous = this.touches.get(id);
    if (!previous) {
      this.touches.set(id, { kind, ...(ref !== undefined ? { ref } : {}) });
      return;
    }
    // One entry per page, in first-touch order, saying what happened to it overall.
    if (kind === "deleted") previous.kind = "deleted";
    else if (previous.kind === "deleted") previous.kind = this.existedBefore.has(id) ? "updated" : "created";
  }

  private results(): ContentChangeResultValue[] {
    const out: ContentChangeResultValue[] = [];
    for (const [id, { kind, ref }] of this.touches) {
      if (kind === "deleted") {
        if (this.existedBefore.has(id)) out.push({ object: "deleted_page", page: id });
        continue;
      }
      const created = kind === "created" || !this.existedBefore.has(id);
      out.push({
        object: created ? "created_page" : "updated_page",
        ...(created && ref !== undefined ? { ref } : {}),
        page: { object: "page", id, urls: { location: this.input.pageLocation(id) } },
      });
    }
    return out;
  }

  // ---- documents --------------------------------------------------------------------------------

  private setDocument(page: PageNode, document: StoredDocument): void {
    this.documents.set(document.hash, document.json);
    page.documentHash = document.hash;
  }

  private async readDocument(
    input: NonNullable<ContentChangeValue["document"]>,
    field: string,
    where: { pageId: string; directory: string },
    previousJson: string | undefined,
  ): Promise<{ document: StoredDocument; title?: string; frontmatter?: PageFrontmatter; resolveCover: (target: string) => ResolvedCover }> {
    const hasMarkdown = input.markdown !== undefined;
    const hasDocument = input.document !== undefined;
    if (hasMarkdown === hasDocument) throw invalid(`${field} must have exactly one of markdown or document.`);
    const links = this.linkTable(where.directory);
    const resolve = contentLinkResolver(links);
    const resolveCover = (target: string): ResolvedCover => {
      const ref = resolve(target, "cover");
      return ref?.kind === "file" ? ref : { kind: "url", url: target };
    };
    if (hasDocument) {
      const document = input.document as unknown as JSONDocument;
      if (document.object !== "document") throw invalid(`${field}.document.object must be "document".`);
      return { document: await prepareDocument(document, previousJson), resolveCover };
    }
    const parsed = await convertMarkdown({ markdown: input.markdown!, previousJson, links });
    return {
      document: { hash: parsed.hash, json: parsed.json },
      ...(parsed.title ? { title: parsed.title } : {}),
      ...(Object.keys(parsed.frontmatter).length > 0 ? { frontmatter: parsed.frontmatter } : {}),
      resolveCover,
    };
  }

  /**
   * What links in a page whose Git directory is `directory` can point at. The parts that walk the
   * whole content are built on first use: a small page converted inline with no link to a path
   * never builds them.
   */
  private linkTable(directory: string): ContentLinkTable {
    const { pages, files } = this.content;
    let byPath: Map<string, string> | undefined;
    let pageIds: Set<string> | undefined;
    let fileIds: Set<string> | undefined;
    return {
      directory,
      firstPage: pages[0]?.id,
      get pagesByPath() {
        if (!byPath) {
          byPath = new Map();
          for (const [id, location] of indexPages(pages)) if (!byPath.has(location.path)) byPath.set(location.path, id);
        }
        return byPath;
      },
      get pageIds() {
        pageIds ??= new Set(indexPages(pages).keys());
        return pageIds;
      },
      get fileIds() {
        fileIds ??= new Set(files.map((f) => f.id));
        return fileIds;
      },
      pageRefs: this.pageRefs,
      fileRefs: this.fileRefs,
    };
  }
}

/** A document as it is stored: its object hash and canonical JSON. */
interface StoredDocument {
  hash: string;
  json: string;
}

function stored(document: JSONDocument): StoredDocument {
  const json = canonicalJson(document);
  return { hash: objectHash("document", json), json };
}

type ResolvedCover = { kind: "file"; file: string } | { kind: "url"; url: string };

function clampIndex(at: number | undefined, length: number): number {
  return at === undefined ? length : Math.min(at, length);
}

function uniqueSlug(slug: string, siblings: PageNode[]): string {
  const taken = new Set(siblings.map((p) => p.slug));
  if (!taken.has(slug)) return slug;
  for (let n = 2; ; n++) if (!taken.has(`${slug}-${n}`)) return `${slug}-${n}`;
}

function contains(page: PageNode, id: string): boolean {
  return page.children.some((child) => child.id === id || contains(child, id));
}

/** Explicit metadata of a change; null clears an optional field. */
function applyMetadata(page: PageNode, change: ContentChangeValue): void {
  if (change.title !== undefined) page.title = change.title;
  if (change.slug !== undefined) page.slug = change.slug;
  const optional = { emoji: change.emoji, icon: change.icon, description: change.description, condition: change.condition } as const;
  for (const [field, value] of Object.entries(optional)) {
    if (value === null) delete (page as unknown as Record<string, unknown>)[field];
    else if (value !== undefined) (page as unknown as Record<string, unknown>)[field] = value;
  }
  for (const field of ["hidden", "noIndex", "noRobotsIndex"] as const) {
    if (change[field] === true) page[field] = true;
    else if (change[field] === false) delete page[field];
  }
}

/**
 * Page fields set by Markdown front matter. A new page takes them all (with defaults); an edit
 * changes only the keys the front matter has.
 */
function applyFrontmatter(
  page: PageNode,
  frontmatter: PageFrontmatter,
  resolveCover: (target: string) => ResolvedCover,
  all: boolean,
): void {
  const meta = pageMetadataFromFrontmatter(frontmatter, resolveCover);
  const has = (key: keyof PageFrontmatter) => all || frontmatter[key] !== undefined;
  if (frontmatter.description !== undefined) page.description = frontmatter.description;
  if (frontmatter.icon !== undefined) page.icon = frontmatter.icon;
  if (frontmatter.layout !== undefined) page.layout = meta.layout;
  if (meta.cover) page.cover = meta.cover;
  if (meta.condition) page.condition = meta.condition.expression;
  if (meta.variables)
    page.variables = Object.fromEntries(Object.entries(meta.variables).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  for (const key of ["hidden", "noIndex", "noRobotsIndex"] as const) {
    if (!has(key)) continue;
    if (meta[key]) page[key] = true;
    else delete page[key];
  }
}
