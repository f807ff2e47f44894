import type { JSONDocument } from "../document/types.js";
import { isNode } from "./nodes.js";

export interface DocumentReferences {
  files: Set<string>;
  pages: Set<string>;
  reusableContents: Set<string>;
  spaces: Set<string>;
}

/**
 * Everything a document points at, so a caller can load files, pages and reusable contents in bulk
 * before rendering. Walks every value (refs sit in `data`, in table records, in fragments) with an
 * explicit stack; the reusable contents' own references are theirs to walk once they are loaded.
 */
export function documentReferences(document: JSONDocument): DocumentReferences {
  const out: DocumentReferences = { files: new Set(), pages: new Set(), reusableContents: new Set(), spaces: new Set() };
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === "object" && item !== null) stack.push(item);
      continue;
    }
    if (!isNode(value)) continue;
    const record = value as Record<string, unknown>;
    collectRef(record, out);
    if (record.object === "block" && record.type === "table") collectTableFiles(record, out);
    for (const key in record) {
      const child = record[key];
      if (typeof child === "object" && child !== null) stack.push(child);
    }
  }
  return out;
}

function collectRef(value: Record<string, unknown>, out: DocumentReferences): void {
  const str = (key: string) => (typeof value[key] === "string" ? (value[key] as string) : undefined);
  const kind = str("kind");
  if (!kind) return;
  const space = str("space");
  switch (kind) {
    case "file":
      if (str("file")) out.files.add(str("file")!);
      break;
    case "page":
      if (str("page")) out.pages.add(str("page")!);
      if (space) out.spaces.add(space);
      break;
    case "anchor":
      if (str("page")) out.pages.add(str("page")!);
      if (space) out.spaces.add(space);
      break;
    case "reusable-content":
      if (str("reusableContent")) out.reusableContents.add(str("reusableContent")!);
      if (space) out.spaces.add(space);
      break;
    case "space":
      if (space) out.spaces.add(space);
      break;
  }
}

/** Files columns hold bare file ids, not refs. */
function collectTableFiles(table: Record<string, unknown>, out: DocumentReferences): void {
  const data = isNode(table.data) ? (table.data as Record<string, unknown>) : {};
  const definitions = isNode(data.definition) ? (data.definition as Record<string, { type?: unknown }>) : {};
  const fileColumns = Object.keys(definitions).filter((id) => isNode(definitions[id]) && definitions[id]!.type === "files");
  if (fileColumns.length === 0 || !isNode(data.records)) return;
  for (const record of Object.values(data.records as Record<string, { values?: Record<string, unknown> }>)) {
    if (!isNode(record) || !isNode(record.values)) continue;
    for (const column of fileColumns) {
      const ids = record.values[column];
      if (Array.isArray(ids)) for (const id of ids) if (typeof id === "string") out.files.add(id);
    }
  }
}
