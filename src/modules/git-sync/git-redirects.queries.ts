/**
 * The `.gitbook.yaml` redirects of a space's last Git import (table git_redirects): replaced as a
 * whole by each import, read by the published site for a path no page has, and written back into
 * `.gitbook.yaml` by each export.
 */

import { indexPages, type PageNode } from "../../content/revision/model.js";
import type { Executor } from "../../db/database.js";

/** "/old/page.md/" and "old/page" name the same old address. */
export function redirectPath(path: string): string {
  return path
    .trim()
    .replace(/^\/+|\/+$/g, "")
    .replace(/\.md$/i, "");
}

/**
 * The redirects an import keeps: each old path to the page imported from its target file. A
 * target that is no page of the import (a missing file, an image) is reported, not kept.
 */
export function redirectsToPages(
  redirects: Readonly<Record<string, string>>,
  pages: readonly PageNode[],
): { kept: { fromPath: string; pageId: string }[]; unresolved: string[] } {
  const pageByGitPath = new Map<string, string>();
  for (const { page } of indexPages(pages as PageNode[]).values()) if (page.git?.path) pageByGitPath.set(page.git.path, page.id);
  const kept = new Map<string, string>();
  const unresolved: string[] = [];
  for (const [from, target] of Object.entries(redirects)) {
    const pageId = pageByGitPath.get(target);
    const fromPath = redirectPath(from);
    if (pageId && fromPath) kept.set(fromPath, pageId);
    else unresolved.push(`.gitbook.yaml: the redirect "${from}" leads to "${target}", which is no page of this import; ignored`);
  }
  return { kept: [...kept].map(([fromPath, pageId]) => ({ fromPath, pageId })), unresolved };
}

export async function replaceGitRedirects(db: Executor, spaceId: string, redirects: readonly { fromPath: string; pageId: string }[]) {
  await db.deleteFrom("gitRedirects").where("spaceId", "=", spaceId).execute();
  // Batches keep each insert under the databases' limits on bound parameters.
  for (let i = 0; i < redirects.length; i += 500) {
    await db
      .insertInto("gitRedirects")
      .values(redirects.slice(i, i + 500).map((r) => ({ spaceId, fromPath: r.fromPath, pageId: r.pageId })))
      .execute();
  }
}

/** The page an old path of the space redirects to, by its last import's `.gitbook.yaml`. */
export async function findGitRedirect(db: Executor, spaceId: string, path: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("gitRedirects")
    .select("pageId")
    .where("spaceId", "=", spaceId)
    .where("fromPath", "=", redirectPath(path))
    .executeTakeFirst();
  return row?.pageId;
}

/** Every redirect the space keeps, by old path: what an export writes back. */
export async function listGitRedirects(db: Executor, spaceId: string): Promise<{ fromPath: string; pageId: string }[]> {
  return db.selectFrom("gitRedirects").select(["fromPath", "pageId"]).where("spaceId", "=", spaceId).orderBy("fromPath").execute();
}
