import { missing, notAllowed } from "../lib/errors.js";

/**
 * Enforces a permissions record computed by a policy: a caller who may not even view the object
 * gets 404 (its existence is not revealed), one who may view it but not act gets 403.
 */
export function authorize<P extends { view: boolean }>(
  permissions: P,
  action: keyof P & string,
  messages: { notFound: string; forbidden: string },
): void {
  if (!permissions.view) throw missing(messages.notFound);
  if (!permissions[action]) throw notAllowed(messages.forbidden);
}
