/**
 * GitBook-flavoured Markdown ↔ GitBook's JSON document: what Git sync imports and exports, and what
 * the API serves for `format=markdown`.
 */

export {
  DEFAULT_LAYOUT,
  frontmatterFromPageMetadata,
  type PageFrontmatter,
  type PageLayoutFrontmatter,
  type PageLayoutOptions,
  type PageMetadata,
  pageMetadataFromFrontmatter,
  parseFrontmatter,
  serializeFrontmatter,
  type VariableValue,
} from "./frontmatter.js";
export { type ParsedMarkdownPage, type ParseMarkdownOptions, parseMarkdownPage } from "./parse.js";
export type { ContentReferenceFound, ReferenceKind, ReferencePathResolver, ReferenceResolver, ResolvedReference } from "./references.js";
export { type MarkdownPage, markdownFromDocument, type SerializeMarkdownOptions, serializeMarkdownPage } from "./serialize.js";
