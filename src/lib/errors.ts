/**
 * Domain errors: what the content and service layers throw when a request cannot be done, as typed
 * values that know nothing of HTTP. `src/http/error-handler.ts` maps each kind to a status code in
 * one place, so a service can be called from a route, a job or the command line alike.
 *
 * The message is shown to the caller as is: write it as a sentence a person can act on, naming the
 * field or the object (`No space with id "abc".`, `body.path must be unique within its section.`).
 */
export type DomainErrorKind =
  /** The input is wrong (400). */
  | "invalid"
  /** The caller may see the object but not do this (403). */
  | "forbidden"
  /** The object does not exist or the caller may not see it (404). */
  | "not-found"
  /** The request conflicts with the current state (409). */
  | "conflict"
  /** A precondition the caller set (a revision, an ETag) no longer holds (412). */
  | "precondition-failed"
  /** The input or the work it asks for is over a configured limit (413). */
  | "too-large"
  /** The work is refused for now because as much of it as the server allows is running; retry in a few seconds (429). */
  | "busy";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const invalid = (message: string) => new DomainError("invalid", message);
export const notAllowed = (message: string) => new DomainError("forbidden", message);
export const missing = (message: string) => new DomainError("not-found", message);
export const conflicting = (message: string) => new DomainError("conflict", message);
export const preconditionFailed = (message: string) => new DomainError("precondition-failed", message);
export const tooLarge = (message: string) => new DomainError("too-large", message);
export const busy = (message: string) => new DomainError("busy", message);

/** Seconds a client told "busy" waits before trying again (the `Retry-After` header). */
export const BUSY_RETRY_AFTER_SECONDS = 5;
