/**
 * GitBook-flavoured Markdown ↔ GitBook's JSON document: what Git sync imports and exports, and what
 * the API serves for `format=markdown`.
 */
export { parseMarkdownPage, type ParseMarkdownOptions, type ParsedMarkdownPage } from "./parse.js";
export { serializeMarkdownPage, markdownFromDocument, type MarkdownPage, type SerializeMarkdownOptions } from "./serialize.js";
export {
  parseFrontmatter,
  serializeFrontmatter,
  pageMetadataFromFrontmatter,
  frontmatterFromPageMetadata,
  DEFAULT_LAYOUT,
  type PageFrontmatter,
  type PageLayoutFrontmatter,
  type PageMetadata,
  type PageLayoutOptions,
  type VariableValue,
} from "./frontmatter.js";
export type { ContentReferenceFound, ReferenceKind, ReferenceResolver, ReferencePathResolver, ResolvedReference } from "./references.js";
