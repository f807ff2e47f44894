/** The editor's document model: the Tiptap schema and the conversions to and from stored documents. */

export {
  type EditorMark,
  type EditorNode,
  type FromEditorOptions,
  freshKey,
  fromEditorDoc,
  MAX_EDITOR_DEPTH,
  toEditorDoc,
} from "./convert.js";
export { NODE_RULES } from "./model.js";
export { checkEditorDoc, editorExtensions, editorSchema } from "./schema.js";
export {
  DOCUMENT_FIELDS_MAP,
  documentToYDoc,
  EDITOR_FRAGMENT,
  editorDocToYXmlFragment,
  type ReadOptions,
  readDocumentFromYDoc,
  writeDocumentToYDoc,
  yXmlFragmentToEditorDoc,
} from "./yjs.js";
