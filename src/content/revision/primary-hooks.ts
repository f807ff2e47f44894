/**
 * Work that must follow a change of a space's primary content (a merge, a Git import, a template),
 * registered by the modules that do it (translations re-run when their source changes). Hooks run
 * inside the transaction that moves the primary revision, so what they enqueue exists exactly when
 * the change committed. The registry lives here, below the modules, so that content code calls
 * into modules without importing them (and without import cycles).
 */
import type { Executor } from "../../db/database.js";

export interface PrimaryContentChange {
  spaceId: string;
  /** The new primary revision. */
  revisionId: string;
  previousRevisionId: string;
}

export type PrimaryContentHook = (trx: Executor, change: PrimaryContentChange) => Promise<void>;

const hooks = new Set<PrimaryContentHook>();

/** Registers a hook (once per function); returns a function that removes it. */
export function onPrimaryContentChange(hook: PrimaryContentHook): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Runs every hook, in registration order, in the caller's transaction (a hook that throws aborts the change). */
export async function primaryContentChanged(trx: Executor, change: PrimaryContentChange): Promise<void> {
  for (const hook of hooks) await hook(trx, change);
}
