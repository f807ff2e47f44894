/**
 * Who is signed in to the web app, as the same `Actor` the API's loaders and policies take (so a
 * page and the API answer the same 404 or 403), and the organization's SSO rule for the app.
 */
import type { FastifyRequest } from "fastify";
import type { Executor } from "../../db/database.js";
import type { UserRow } from "../../db/schema.js";
import type { Actor } from "../../http/authenticate.js";
import { notAllowed } from "../../lib/errors.js";
import { AccessCache } from "../../permissions/access.js";
import { type LoadedOrganization, requireOrganization } from "../organizations/organizations.loader.js";
import { webAccessAllowed } from "../saml/saml.policy.js";
import { getUserById } from "../users/users.queries.js";
import type { SignedInWith } from "./web.session.js";

export interface SignedIn {
  user: UserRow;
  via: SignedInWith;
  actor: Actor;
}

/** The signed-in user of the request's session, or undefined (a session whose user was deleted counts as signed out). */
export async function signedInOf(db: Executor, request: FastifyRequest): Promise<SignedIn | undefined> {
  const userId = request.session.get("userId");
  const via = request.session.get("signedInWith");
  if (!userId || !via) return undefined;
  const user = await getUserById(db, userId);
  if (!user) return undefined;
  // A session is not an API token: `tokenId` names the session kind, never a token row.
  return { user, via, actor: { user, tokenId: "web-session", access: new AccessCache(db, user.id) } };
}

/**
 * An organization the signed-in user may use in the app: 404 for outsiders (as the API), 403 for a
 * non-admin member of an SSO-only organization who did not sign in with its single sign-on.
 */
export async function requireWebOrganization(db: Executor, signedIn: SignedIn, orgId: string): Promise<LoadedOrganization> {
  const loaded = await requireOrganization(db, signedIn.actor, orgId);
  if (!webAccessAllowed(loaded.org, loaded.access.membership ?? undefined, signedIn.via)) {
    throw notAllowed(`${loaded.org.title} requires single sign-on: sign in with its identity provider (from the app's home page).`);
  }
  return loaded;
}
