/**
 * Errors of the Git layer. Every message is built from redacted text only (see url.ts), so an
 * error may be logged, stored on a job or shown to a user as it is.
 */

export type GitErrorCode =
  /** The remote URL is not allowed by policy (scheme, shape, or file:// while disabled). */
  | "url_refused"
  /** The ref is not of the form refs/heads/<branch> or refs/tags/<tag>. */
  | "ref_invalid"
  /** The remote has no such ref. */
  | "ref_not_found"
  /** No repository at that URL. */
  | "repo_not_found"
  /** The remote refused the credentials (or asked for credentials none were given). */
  | "auth_failed"
  /** The remote could not be reached or answered with an error (network, 5xx, TLS). */
  | "remote_unavailable"
  /** A size, count or time limit was exceeded; the message names it. */
  | "limit_exceeded"
  | "timeout"
  | "aborted"
  /** The remote branch moved while we prepared our commit (non-fast-forward): retry. */
  | "push_rejected"
  /** A path or symlink in the repository is unsafe (escapes, absolute, `..`, NUL, backslash, `.git`). */
  | "path_refused"
  /** The repository's objects failed git's integrity checks. */
  | "invalid_repository"
  /** Any other failure of the git program. */
  | "git_failed";

const RETRYABLE: ReadonlySet<GitErrorCode> = new Set(["remote_unavailable", "timeout", "push_rejected"]);

export class GitError extends Error {
  /** True when running the same operation again later may succeed (network, timeout, race). */
  readonly retryable: boolean;

  constructor(
    readonly code: GitErrorCode,
    message: string,
    /**
     * What happened, for the server log only (redacted like the message): the message of a remote
     * that could not be reached is the same whatever the reason, so that it tells the caller
     * nothing about which hosts and ports of the server's network exist or answer.
     */
    readonly detail?: string,
  ) {
    super(message);
    this.name = "GitError";
    this.retryable = RETRYABLE.has(code);
  }
}
