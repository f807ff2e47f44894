/**
 * Content for tests, committed directly as a new primary revision (the API's own ways to write
 * content, Git import and change requests, have their own tests).
 */

import { commitRevision } from "../../src/content/revision/commit.js";
import type { FileEntry, PageNode, ReusableContentEntry, RevisionContent } from "../../src/content/revision/model.js";
import { insertRevision, movePrimaryRevision } from "../../src/content/revision/revisions.queries.js";
import { saveDocument } from "../../src/content/revision/storage.js";
import { requestSearchIndex } from "../../src/content/search/search-index.jobs.js";
import { putBlob } from "../../src/content/store/blobs.queries.js";
import { type PreparedObject, prepareObject, putObjects } from "../../src/content/store/objects.queries.js";
import { randomBase62 } from "../../src/lib/ids.js";
import type { TestContext } from "./app.js";

export interface TestPage {
  id?: string;
  title: string;
  slug?: string;
  kind?: PageNode["kind"];
  /** Paragraph texts of the page body. */
  paragraphs?: string[];
  href?: string;
  children?: TestPage[];
  extra?: Partial<PageNode>;
}

export function paragraphDoc(texts: string[]) {
  return {
    object: "document",
    data: {},
    nodes: texts.map((text) => ({
      object: "block",
      type: "paragraph",
      key: randomBase62(8),
      nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
    })),
  };
}

async function buildPages(ctx: TestContext, pages: TestPage[]): Promise<PageNode[]> {
  const now = new Date().toISOString();
  const out: PageNode[] = [];
  for (const page of pages) {
    const kind = page.kind ?? "document";
    const node: PageNode = {
      id: page.id ?? randomBase62(20),
      kind,
      title: page.title,
      slug:
        page.slug ??
        page.title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, ""),
      createdAt: now,
      updatedAt: now,
      children: await buildPages(ctx, page.children ?? []),
      ...(kind === "document" && page.paragraphs ? { documentHash: await saveDocument(ctx.db, paragraphDoc(page.paragraphs)) } : {}),
      ...(kind === "link"
        ? { href: page.href ?? "https://example.com", target: { kind: "url", url: page.href ?? "https://example.com" } }
        : {}),
      ...page.extra,
    };
    out.push(node);
  }
  return out;
}

export async function testFile(
  ctx: TestContext,
  name: string,
  bytes: Buffer,
  contentType: string,
  extra: Partial<FileEntry> = {},
): Promise<FileEntry> {
  const { hash, size } = await putBlob(ctx.db, bytes);
  return { id: randomBase62(20), name, contentType, size, blobHash: hash, ...extra };
}

/** Commits a new primary revision of the space with these pages and files; returns its id and content. */
export async function commitContent(
  ctx: TestContext,
  spaceId: string,
  input: { pages: TestPage[]; files?: FileEntry[]; variables?: Record<string, string>; reusableContents?: ReusableContentEntry[] },
): Promise<{ revisionId: string; content: RevisionContent }> {
  const space = await ctx.db.selectFrom("spaces").select(["revisionId"]).where("id", "=", spaceId).executeTakeFirstOrThrow();
  const content: RevisionContent = {
    pages: await buildPages(ctx, input.pages),
    files: input.files ?? [],
    reusableContents: input.reusableContents ?? [],
    variables: input.variables ?? {},
  };
  const revision = await ctx.db.transaction().execute(async (trx) => {
    const created = await commitRevision(trx, {
      spaceId,
      parents: [space.revisionId],
      type: "edits",
      content,
      createdBy: null,
      movePrimaryFrom: space.revisionId,
    });
    await requestSearchIndex(trx, spaceId);
    return created;
  });
  return { revisionId: revision.id, content };
}

/**
 * Makes a chain of `depth` pages (each the only child of the one above) the space's primary
 * content, stored object by object as Quire stored trees before their depth was bounded (the
 * store now refuses to write one deeper than MAX_PAGE_DEPTH). Pages have ids `deep-1`,
 * `deep-2`... and, with `gitPath`, the Git path an import of folders would give them.
 */
export async function storeLegacyPageChain(
  ctx: TestContext,
  spaceId: string,
  depth: number,
  gitPath?: (level: number) => string,
): Promise<string[]> {
  const now = new Date().toISOString();
  const objects: PreparedObject[] = [];
  let below: string | undefined;
  const ids: string[] = [];
  for (let level = depth; level >= 1; level--) {
    const id = `deep-${level}`;
    ids.unshift(id);
    const entry = {
      id,
      kind: "document",
      title: `Level ${level}`,
      slug: `level-${level}`,
      createdAt: now,
      updatedAt: now,
      ...(gitPath ? { git: { oid: "0".repeat(40), path: gitPath(level) } } : {}),
      ...(below ? { children: below } : {}),
    };
    const object = prepareObject("pages", { entries: [entry] });
    objects.push(object);
    below = object.hash;
  }
  const files = prepareObject("files", { entries: [] });
  const reusable = prepareObject("reusable-contents", { entries: [] });
  const root = prepareObject("root", { pages: below, files: files.hash, reusableContents: reusable.hash, variables: {} });
  await putObjects(ctx.db, [...objects, files, reusable, root]);
  const space = await ctx.db.selectFrom("spaces").select("revisionId").where("id", "=", spaceId).executeTakeFirstOrThrow();
  const row = await insertRevision(ctx.db, { spaceId, parents: [space.revisionId], type: "edits", treeHash: root.hash, createdBy: null });
  if (!(await movePrimaryRevision(ctx.db, spaceId, space.revisionId, row.id))) throw new Error("the space's content moved meanwhile");
  return ids;
}
