/**
 * Who may do what changed: the services that change memberships, roles, grants, a space's edit
 * mode or a change request's status announce it here, and whoever holds access open for a while
 * (the live collaboration server, src/modules/collab) listens and checks again. A registry in
 * lib/ because those services sit beside or below the listener: they must not import it.
 *
 * Announcements are made inside the caller's transaction, so a listener cannot assume the change
 * is committed when it hears of it (see collab's recheck schedule).
 */

export type AccessChange =
  /** Memberships, roles or teams of an organization (one user's, or anyone's). */
  | { kind: "organization"; orgId: string; userId?: string }
  /** Grants, edit mode or existence of a space. */
  | { kind: "space"; spaceId: string }
  /** Grants on content of an organization (a collection's apply to its spaces). */
  | { kind: "content"; orgId: string }
  /** A change request's status (merged, archived, reopened). */
  | { kind: "change-request"; changeRequestId: string }
  /** A user's sessions or credentials. */
  | { kind: "user"; userId: string };

type Listener = (change: AccessChange) => void;

const listeners = new Set<Listener>();

/** Listens to access changes; returns the function that stops listening. */
export function onAccessChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells every listener; a listener that throws never fails the caller's write. */
export function announceAccessChange(change: AccessChange): void {
  for (const listener of listeners) {
    try {
      listener(change);
    } catch {
      // A listener's own problem; the write that announced it stands.
    }
  }
}
