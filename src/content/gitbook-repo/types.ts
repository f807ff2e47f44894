/**
 * The GitBook repository format as plain data: what readRepository() finds in a tree, and what
 * writeRepository() lays out. Page paths are relative to the content root (`root` of .gitbook.yaml).
 */

/** Something that was skipped or guessed while reading; the import goes on. */
export interface RepositoryWarning {
  code:
    | "duplicate_page"
    | "unlisted_pages"
    | "missing_page"
    | "readme_not_listed"
    | "missing_readme"
    | "summary_item_ignored"
    | "summary_content_ignored"
    | "reference_outside_root"
    | "reference_unresolvable"
    | "folder_without_readme"
    | "invalid_front_matter"
    | "invalid_vars"
    | "invalid_redirect"
    | "page_too_large"
    | "unused_files";
  message: string;
  /** The paths concerned (root-relative), when there are several. */
  paths?: string[];
}

export interface DocumentPage {
  kind: "document";
  /** Markdown file, relative to the content root (e.g. "guides/README.md"). */
  path: string;
  /** Blob id of the file; null for a page that has no file (listed but missing, or an inferred folder). */
  oid: string | null;
  /** URL segment, from the file name (a folder's README takes the folder's name). */
  slug: string;
  title: string;
  /** Separate sidebar label, from `[Title](page.md "Label")`. */
  label?: string;
  /** The file's Markdown as it is in the repository (front matter included, BOM removed). */
  source: string;
  children: RepoPage[];
  /**
   * A SUMMARY.md item without a link (`* Title`): a page without content and without a file
   * (`path` is "", `oid` null), its children under it.
   */
  linkless?: boolean;
}

export interface GroupPage {
  kind: "group";
  title: string;
  slug: string;
  children: RepoPage[];
}

export interface LinkPage {
  kind: "link";
  title: string;
  href: string;
}

export type RepoPage = DocumentPage | GroupPage | LinkPage;

export interface RepoFile {
  /** Relative to the content root (e.g. ".gitbook/assets/image (1).png"). */
  path: string;
  oid: string;
  size: number;
  contentType: string;
  dimensions?: { width: number; height: number };
}

/** A reusable block: one Markdown file under .gitbook/includes/. */
export interface RepoReusableContent {
  path: string;
  oid: string;
  title: string;
  source: string;
}

export interface ContentConfig {
  /** Content root relative to the project directory, normalized ("" or "docs"). */
  root: string;
  /** First page, relative to the root. */
  readme: string;
  /** Table of contents, relative to the root. */
  summary: string;
}

export interface RepositoryContent {
  /** Repository path of the project directory ("" for the repository root). */
  projectDirectory: string;
  /** Repository path of the content root (project directory + config.root). */
  root: string;
  config: ContentConfig;
  /** Whether the tree had a .gitbook.yaml. */
  hasConfigFile: boolean;
  /** Whether the page tree came from a SUMMARY.md (false: inferred from folders). */
  hasSummary: boolean;
  pages: RepoPage[];
  files: RepoFile[];
  /**
   * Repository paths of files the pages link to that exist but are not imported: outside the root,
   * or Markdown files in it that are not pages (SUMMARY.md does not list them). A link to one
   * becomes the file's web address when the import knows it (`repoTreeURL`).
   */
  externalFiles: string[];
  reusableContents: RepoReusableContent[];
  /** Space variables from .gitbook/vars.yaml. */
  variables: Record<string, string>;
  /** Old path (no leading slash) -> file relative to the root, from .gitbook.yaml. */
  redirects: Record<string, string>;
  warnings: RepositoryWarning[];
}

export type RepositoryErrorCode =
  | "config_invalid"
  | "root_invalid"
  | "root_not_found"
  | "project_directory_invalid"
  | "project_directory_not_found"
  /** Pages nested deeper than MAX_PAGE_DEPTH (folders, or SUMMARY.md's lists). */
  | "page_tree_too_deep";

/** The repository cannot be read as GitBook content (as opposed to warnings, which do not stop it). */
export class RepositoryFormatError extends Error {
  constructor(
    readonly code: RepositoryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "RepositoryFormatError";
  }
}
