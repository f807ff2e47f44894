/**
 * API shapes of revision content: pages (document, group, link), files with signed download URLs,
 * reusable contents, and whole revisions.
 */

import {
  DEFAULT_LAYOUT,
  type FileEntry,
  type PageNode,
  type ReusableContentEntry,
  type RevisionContent,
} from "../../content/revision/model.js";
import type { RevisionGit } from "../../content/revision/revisions.queries.js";
import type { RevisionRow } from "../../db/schema.js";
import type { Urls } from "../../http/urls.js";
import { parseJson, parseJsonOrNull } from "../../lib/json.js";
import type { ChangeRequestResponse } from "../change-requests/change-requests.schemas.js";
import { downloadUrl } from "../files/files-urls.model.js";
import type { FileResponse, PageResponse } from "./content.schemas.js";

export interface ContentPresentContext {
  urls: Urls;
  secret: string;
  orgId: string;
  spaceId: string;
  /** false omits mutable `git` metadata (the `metadata` query parameter). */
  metadata: boolean;
}

function pageAppUrl(ctx: ContentPresentContext, pageId: string): string {
  return ctx.urls.app(`/o/${ctx.orgId}/s/${ctx.spaceId}/p/${pageId}`);
}

/** One page (with its subtree) at `path`; `body` adds the page's document or Markdown. */
export function presentPage(
  node: PageNode,
  path: string,
  ctx: ContentPresentContext,
  body?: { document: unknown } | { markdown: string },
): PageResponse {
  const pages = node.children.map((child) => presentPage(child, `${path}/${child.slug}`, ctx));
  const common = {
    id: node.id,
    title: node.title,
    ...(node.emoji ? { emoji: node.emoji } : {}),
    ...(node.icon ? { icon: node.icon } : {}),
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
  };
  if (node.kind === "link") {
    return {
      ...common,
      kind: "link",
      type: "link",
      target: node.target ?? { kind: "url", url: node.href ?? "" },
      ...(node.href ? { href: node.href } : {}),
      hidden: !!node.hidden,
    };
  }
  const flags = { hidden: !!node.hidden, noIndex: !!node.noIndex, noRobotsIndex: !!node.noRobotsIndex };
  if (node.kind === "group") {
    return { ...common, kind: "group", type: "group", slug: node.slug, path, ...flags, pages };
  }
  return {
    ...common,
    kind: "sheet",
    type: "document",
    urls: { app: pageAppUrl(ctx, node.id) },
    slug: node.slug,
    path,
    ...(node.description ? { description: node.description } : {}),
    pages,
    ...(ctx.metadata && node.git ? { git: node.git } : {}),
    layout: node.layout ?? DEFAULT_LAYOUT,
    ...(node.cover ? { cover: node.cover } : {}),
    ...(node.variables && Object.keys(node.variables).length ? { variables: node.variables } : {}),
    ...flags,
    ...(node.documentHash ? { documentId: node.documentHash } : {}),
    ...(body ?? {}),
  };
}

export function presentPages(pages: PageNode[], ctx: ContentPresentContext): PageResponse[] {
  return pages.map((page) => presentPage(page, page.slug, ctx));
}

export function presentFile(file: FileEntry, ctx: ContentPresentContext): FileResponse {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: downloadUrl(ctx.urls.base, ctx.secret, { blobHash: file.blobHash, name: file.name, contentType: file.contentType }),
    size: file.size,
    ...(file.dimensions ? { dimensions: file.dimensions } : {}),
    ...(ctx.metadata && file.git ? { git: file.git } : {}),
  };
}

export function presentReusableContent(entry: ReusableContentEntry, ctx: ContentPresentContext) {
  return {
    id: entry.id,
    title: entry.title,
    ...(ctx.metadata && entry.git ? { git: entry.git } : {}),
    ...(entry.documentHash ? { document: entry.documentHash } : {}),
  };
}

/** A whole revision; a `merge` revision names the change request it merged (`mergedFrom`). */
export function presentRevision(
  revision: RevisionRow,
  content: RevisionContent,
  ctx: ContentPresentContext,
  mergedFrom?: ChangeRequestResponse,
) {
  const git = parseJsonOrNull<RevisionGit>(revision.git, "revisions.git");
  return {
    object: "revision" as const,
    id: revision.id,
    type: revision.type as "edits" | "merge" | "rollback" | "update" | "computed",
    parents: parseJson<string[]>(revision.parents, "revisions.parents"),
    pages: presentPages(content.pages, ctx),
    files: content.files.map((f) => presentFile(f, ctx)),
    reusableContents: content.reusableContents.map((r) => presentReusableContent(r, ctx)),
    variables: content.variables,
    createdAt: revision.createdAt,
    ...(ctx.metadata && git ? { git: { ...git, createdByGitBook: git.createdByService } } : {}),
    urls: { app: ctx.urls.app(`/o/${ctx.orgId}/s/${ctx.spaceId}/revisions/${revision.id}`) },
    ...(mergedFrom ? { mergedFrom } : {}),
  };
}
