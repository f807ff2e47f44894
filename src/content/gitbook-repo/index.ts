/** GitBook's repository format (Git Sync): read a tree into pages and files, write them back. */
export { contentTypeOf, imageDimensions } from "./media.js";
export { ASSETS_DIR, CONFIG_FILE, INCLUDES_DIR, type ReadOptions, readRepository, VARS_FILE } from "./read.js";
export { extractReferences } from "./references.js";
export { formatSummary, parseSummary, type SummaryEntry, type SummaryNode } from "./summary.js";
export { relativePath, slugify } from "./text.js";
export type * from "./types.js";
export { RepositoryFormatError } from "./types.js";
export {
  planPagePaths,
  repositoryPaths,
  type WritableContent,
  type WritableFile,
  type WritablePage,
  type WritableReusableContent,
  type WriteOptions,
  writeRepository,
} from "./write.js";
