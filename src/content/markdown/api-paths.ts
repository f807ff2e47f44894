/**
 * Links in Markdown meant to be edited and sent back (the API's `format=markdown`, the web app's
 * page editor) use the paths the content-editing operations resolve again: `/pages/<id>`,
 * `/files/<id>`, `/reusable-contents/<id>`. Other references keep what the converter writes.
 */
import type { ContentRef } from "../document/types.js";

export function editablePathFor(ref: ContentRef): string | undefined {
  switch (ref.kind) {
    case "page":
      return `/pages/${ref.page}`;
    case "anchor":
      return ref.page ? `/pages/${ref.page}#${ref.anchor}` : `#${ref.anchor}`;
    case "file":
      return `/files/${ref.file}`;
    case "reusable-content":
      return `/reusable-contents/${ref.reusableContent}`;
    default:
      return undefined;
  }
}

/** The editable address of a file, ending with its name as GitBook's Markdown does: `/files/<id>/<name>`. */
export function editableFilePath(file: { id: string; name: string }): string {
  return `/files/${file.id}/${encodeURIComponent(file.name)}`;
}
