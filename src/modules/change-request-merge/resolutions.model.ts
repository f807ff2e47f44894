/**
 * Conflict resolution by editing. When a merge or update of a change request reports conflicts,
 * the primary revision it compared with is recorded (`conflicts_revision`: what the caller saw).
 * When the caller then edits a page of the change request that is in conflict with that revision,
 * the page gets a new merge base (`mergeContent`'s `pageBase`), stored per (change request, page):
 *
 *   the page's base, with every part that collided replaced by the primary's version of it.
 *
 * In the next merge or update, those parts are unchanged on the primary side relative to the base,
 * so the change request's version of them wins, while whatever else the primary changed in the
 * page (other blocks, other fields) still merges in as usual: a resolution settles the collisions
 * the caller saw, nothing more. If the primary changed the page again since that revision, the
 * new changes are merged (or reported) against the resolved base as any other change.
 *
 * What a page base cannot express stays a conflict, to be resolved another way: a page moved to
 * different places on both sides (move it in the change request to where the primary has it), a
 * page the primary deleted and the change request kept (delete it in the change request, or
 * re-create its content as a new page), two pages given the same path (rename one).
 */
import { type AnyNode, indexKeyedNodes } from "../../content/document/find.js";
import type { JSONDocument, MergeConflict } from "../../content/merge/index.js";
import { DEFAULT_LAYOUT, type PageMeta } from "../../content/revision/model.js";

export interface PageVersion {
  meta: PageMeta;
  document: JSONDocument;
}

export interface ResolvedBase {
  meta: PageMeta;
  /** The base document when it differs from the page's previous base (store it; `meta.documentHash` is left to the caller). */
  document?: JSONDocument;
  /** True when the base takes the primary's whole document (`meta.documentHash` is the primary's). */
  documentFromPrimary: boolean;
}

const CHILD_FIELDS = ["nodes", "fragments"] as const;

function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = target;
  for (const part of path.slice(0, -1)) {
    const next = current[part];
    if (next === null || typeof next !== "object" || Array.isArray(next)) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete current[last];
  else current[last] = structuredClone(value);
}

/** A list of children made only of keyed blocks or fragments (the merge aligns those by key). */
function isKeyedList(value: unknown): value is AnyNode[] {
  return (
    Array.isArray(value) &&
    value.every((n) => n && typeof n === "object" && (n.object === "block" || n.object === "fragment") && typeof n.key === "string")
  );
}

/** Sets a block's own fields (everything but its keyed children) to another version's. */
function copyOwnFields(target: AnyNode, source: AnyNode): void {
  for (const field of new Set([...Object.keys(target), ...Object.keys(source)])) {
    if ((CHILD_FIELDS as readonly string[]).includes(field) && (isKeyedList(target[field]) || isKeyedList(source[field]))) continue;
    if (source[field] === undefined) delete target[field];
    else target[field] = structuredClone(source[field]);
  }
}

/** Where a block sits in a document: its parent's key (null at the top) and the list and index. */
function placeOf(document: JSONDocument, key: string): { parent: string | null; slot: "nodes" | "fragments"; index: number } | undefined {
  let found: { parent: string | null; slot: "nodes" | "fragments"; index: number } | undefined;
  const walk = (list: AnyNode[], parent: string | null, slot: "nodes" | "fragments") =>
    list.forEach((node, index) => {
      if (found) return;
      if (node.key === key) found = { parent, slot, index };
      for (const field of CHILD_FIELDS) if (Array.isArray(node[field])) walk(node[field]!, node.key ?? parent, field);
    });
  walk(document.nodes as unknown as AnyNode[], null, "nodes");
  return found;
}

/**
 * The new base of a page whose conflicts (all `conflicts` concern this page) the caller resolved:
 * `base` with each collided part taken from `primary` (see the module comment).
 */
export function resolvedPageBase(base: PageVersion, primary: PageVersion, conflicts: readonly MergeConflict[]): ResolvedBase {
  const meta = structuredClone(base.meta) as unknown as Record<string, unknown>;
  const document = structuredClone(base.document) as unknown as Record<string, unknown> & JSONDocument;
  let documentChanged = false;
  let documentFromPrimary = false;

  for (const conflict of conflicts) {
    if (conflict.kind === "page" && conflict.field !== undefined) {
      if (conflict.field === "document") {
        documentFromPrimary = true;
        continue;
      }
      if (conflict.field.startsWith("document.")) {
        const path = conflict.field.slice("document.".length).split(".");
        setPath(document, path, getPath(primary.document, path));
        documentChanged = true;
        continue;
      }
      const path = conflict.field.split(".");
      if (path[0] === "layout" && path.length > 1 && meta.layout === undefined) meta.layout = { ...DEFAULT_LAYOUT };
      setPath(meta, path, getPath(primary.meta, path));
      continue;
    }
    if (conflict.blockKey === undefined) {
      // The change request deleted the page and the primary edited it: the primary's version
      // becomes the base, so that the deletion is the only change left (it wins).
      if (conflict.kind === "delete-edit") {
        for (const field of Object.keys(meta)) delete meta[field];
        Object.assign(meta, structuredClone(primary.meta));
      }
      continue;
    }
    const key = conflict.blockKey;
    const inBase = indexKeyedNodes(document).get(key);
    const inPrimary = indexKeyedNodes(primary.document).get(key);
    if (conflict.kind === "block" && inBase && inPrimary) {
      if (conflict.field) setPath(inBase.node, conflict.field.split("."), getPath(inPrimary.node, conflict.field.split(".")));
      else copyOwnFields(inBase.node, inPrimary.node);
      documentChanged = true;
    } else if (conflict.kind === "delete-edit" && inBase) {
      // Deleted by the primary: the base loses it too, so the change request's version is an addition.
      // Deleted by the change request: the base becomes the primary's version, so the deletion wins.
      if (!inPrimary) inBase.list.splice(inBase.index, 1);
      else copyOwnFields(inBase.node, inPrimary.node);
      documentChanged = true;
    } else if (conflict.kind === "move" && inBase && inPrimary) {
      const place = placeOf(primary.document, key);
      if (!place) continue;
      const parent = place.parent === null ? undefined : indexKeyedNodes(document).get(place.parent)?.node;
      if (place.parent !== null && !parent) continue;
      inBase.list.splice(inBase.index, 1);
      const list = parent ? ((parent[place.slot] ??= []) as AnyNode[]) : (document.nodes as unknown as AnyNode[]);
      list.splice(Math.min(place.index, list.length), 0, inBase.node);
      documentChanged = true;
    }
  }

  if (documentFromPrimary) {
    if (primary.meta.documentHash === undefined) delete meta.documentHash;
    else meta.documentHash = primary.meta.documentHash;
    return { meta: meta as unknown as PageMeta, documentFromPrimary: true };
  }
  return { meta: meta as unknown as PageMeta, ...(documentChanged ? { document } : {}), documentFromPrimary: false };
}
