/** The Git layer: safe remote access (fetch one ref, read it, commit and push) over the git program. */
export { GitError, type GitErrorCode } from "./errors.js";
export { DEFAULT_GIT_LIMITS, type GitLimits } from "./operation.js";
export { assertSafePath, isWithin, resolveRelative, symlinkTarget, unsafePathReason } from "./paths.js";
export { type CommitAndPushOptions, commitAndPush, type ExportChanges, type PushResult } from "./push.js";
export {
  assertValidRef,
  type CommitInfo,
  type FetchOptions,
  fetchRef,
  type GitPerson,
  LocalRepo,
  withFetchedRef,
} from "./repo.js";
export {
  type BlobReader,
  blobOid,
  MODE_EXECUTABLE,
  MODE_FILE,
  MODE_SUBMODULE,
  MODE_SYMLINK,
  memoryTree,
  type TreeEntry,
  VirtualTree,
} from "./tree.js";
export { createRedactor, parseRemoteUrl, type RemoteUrl, redactUrl } from "./url.js";
