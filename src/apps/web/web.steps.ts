/**
 * The steps a request of the web app starts from, each written once: who is signed in (as the
 * same `Actor` the API's loaders and policies take, so that a page and the API answer the same 404
 * or 403), sending a visitor without a session to sign in, the organization in the address with
 * its SSO rule, a space or a change request of that organization, and sending a page in the
 * app's layout. Handlers get them through their kind (web.kinds.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { SafeHtml } from "../../content/html/safe-html.js";
import type { Executor } from "../../db/database.js";
import type { OrganizationRow, UserRow } from "../../db/schema.js";
import type { Deps } from "../../deps.js";
import type { SignedInWith } from "../../http/member-session.js";
import { missing, notAllowed } from "../../lib/errors.js";
import { type LoadedChangeRequest, requireChangeRequest } from "../../modules/change-requests/change-requests.loader.js";
import { type LoadedOrganization, requireOrganization } from "../../modules/organizations/organizations.loader.js";
import { listOrganizationsOfUser } from "../../modules/organizations/organizations.queries.js";
import { webAccessAllowed } from "../../modules/saml/saml.policy.js";
import { type LoadedSpace, requireLiveSpace, requireSpace, spaceNotFound } from "../../modules/spaces/spaces.loader.js";
import { getUserById } from "../../modules/users/users.queries.js";
import { AccessCache, type OrgAccess } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { type PageOptions, page } from "./layout.views.js";
import { appPath } from "./web.paths.js";
import { safeNext } from "./web.session.js";

export interface SignedIn {
  user: UserRow;
  via: SignedInWith;
  actor: Actor;
}

/** What a page or form of a signed-in member starts from. */
export interface MemberContext {
  deps: Deps;
  signedIn: SignedIn;
  /** The signed-in member as the API's loaders and policies take a caller. */
  actor: Actor;
  /** The CSRF token for the page's forms (made on first use: a form that redirects needs none). */
  csrf(): string;
}

/** ... of an organization: the one in the address, checked (the member's, admitting how they signed in). */
export interface OrgContext extends MemberContext {
  org: OrganizationRow;
  access: OrgAccess;
}

/** ... of a change request of that organization, loaded as the API loads it. */
export interface ChangeRequestContext extends OrgContext {
  loaded: LoadedChangeRequest;
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

export function memberContext(deps: Deps, signedIn: SignedIn, reply: FastifyReply): MemberContext {
  let token: string | undefined;
  return { deps, signedIn, actor: signedIn.actor, csrf: () => (token ??= reply.generateCsrf()) };
}

/**
 * Sends a visitor without a session to sign in, then back where they were going; a form posted
 * without a session goes back to the change request it was on.
 */
export function toSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (request.routeOptions.config.json) {
    return reply.status(401).send({ error: { code: 401, message: "You are signed out: sign in again in another tab, then retry." } });
  }
  const next = request.method === "GET" ? request.url : request.url.replace(/\/~\/changes\/([0-9]+)\/.*$/, "/~/changes/$1");
  return reply.redirect(`/app/login?next=${encodeURIComponent(safeNext(next))}`, 303);
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

/**
 * A space of the organization in the address that the member may view: another organization's
 * space is a 404, as one that does not exist. `live` refuses a deleted space, as the API's writes do.
 */
export async function requireOrgSpace(ctx: OrgContext, spaceId: string, options: { live?: boolean } = {}): Promise<LoadedSpace> {
  const loaded = await (options.live ? requireLiveSpace : requireSpace)(ctx.deps.db, ctx.actor, spaceId);
  if (loaded.space.orgId !== ctx.org.id) throw spaceNotFound(spaceId);
  return loaded;
}

/** A change request of the organization in the address, loaded as the API loads it (404 for what the member may not see). */
export async function requireOrgChangeRequest(ctx: OrgContext, spaceId: string, number: string): Promise<LoadedChangeRequest> {
  const loaded = await requireChangeRequest(ctx.deps.db, ctx.actor, spaceId, number);
  if (loaded.space.orgId !== ctx.org.id) throw missing(`No change request #${number} in this organization.`);
  return loaded;
}

/** The first breadcrumb of an organization's pages. */
export function orgCrumb(ctx: OrgContext): { label: string; href: string } {
  return { label: ctx.org.title, href: appPath.org(ctx.org.id) };
}

export function sendHtml(reply: FastifyReply, status: number, markup: string): FastifyReply {
  return reply.status(status).type("text/html; charset=utf-8").send(markup);
}

/** A page of an organization as the layout frames it: the switcher shows the member's organizations. */
export interface OrgPage extends Pick<PageOptions, "crumbs" | "wide" | "head" | "search"> {
  title: string;
  body: SafeHtml;
  status?: number;
}

export async function sendOrgPage(reply: FastifyReply, ctx: OrgContext, content: OrgPage): Promise<FastifyReply> {
  const { title, body, status, ...options } = content;
  const orgs = (await listOrganizationsOfUser(ctx.deps.db, ctx.actor.user.id, { limit: 100 })).rows.map((o) => ({
    id: o.id,
    title: o.title,
  }));
  const org = { id: ctx.org.id, title: ctx.org.title };
  return sendHtml(reply, status ?? 200, page(title, body, { user: ctx.signedIn.user, csrf: ctx.csrf(), orgs, org, ...options }));
}
