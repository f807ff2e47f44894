/**
 * Live collaboration on a change request's page (docs/collaboration.md): the documents' names,
 * the signed tokens the editor connects with, who may edit, and the two writes of the server:
 * loading a document (its persisted Yjs state, else the page's document) and storing it (the state,
 * then the converged document into the change request through the same content operation as the
 * API's update_page).
 */
import type { JSONDocument } from "../../content/document/types.js";
import { editorStates } from "../../content/editor/lazy.js";
import type { Db, DialectName, Executor } from "../../db/database.js";
import type { ChangeRequestRow, UserRow } from "../../db/schema.js";
import { DomainError } from "../../lib/errors.js";
import { signText, verifyText } from "../../lib/signing.js";
import { nowIso } from "../../lib/time.js";
import { AccessCache } from "../../permissions/access.js";
import type { Actor } from "../../permissions/actor.js";
import { editChangeRequestContent } from "../change-request-content/change-request-content.service.js";
import { type LoadedChangeRequest, requireChangeRequest } from "../change-requests/change-requests.loader.js";
import { isWritable } from "../change-requests/change-requests.policy.js";
import { loadRevisionView, pageDocumentJson } from "../content/content.loader.js";
import { getUserById } from "../users/users.queries.js";
import {
  getCollabDocument,
  getCollabDocumentForUpdate,
  insertCollabDocumentIfAbsent,
  replaceCollabDocument,
  setCollabDocumentHash,
  spaceOfChangeRequest,
} from "./collab.queries.js";

// ---- names --------------------------------------------------------------------------------------

const NAME = /^change-requests\/([A-Za-z0-9_-]{1,64})\/pages\/([A-Za-z0-9_-]{1,100})$/;

export interface CollabDocumentName {
  name: string;
  changeRequestId: string;
  pageId: string;
}

export function collabDocumentName(changeRequestId: string, pageId: string): string {
  return `change-requests/${changeRequestId}/pages/${pageId}`;
}

/** The change request and page a document name names, or undefined when it is not one. */
export function parseCollabDocumentName(name: string): CollabDocumentName | undefined {
  const match = NAME.exec(name);
  return match ? { name, changeRequestId: match[1]!, pageId: match[2]! } : undefined;
}

// ---- tokens -------------------------------------------------------------------------------------

const TOKEN_PURPOSE = "quire collab token";

export interface CollabTokenClaims {
  userId: string;
  document: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** A token for one user and one document, valid `ttlSeconds` (the editor asks for a new one on reconnect). */
export function issueCollabToken(secret: string, input: { userId: string; document: string; ttlSeconds: number; now?: number }): string {
  const expiresAt = (input.now ?? Date.now()) + input.ttlSeconds * 1000;
  const text = Buffer.from(JSON.stringify({ u: input.userId, d: input.document, e: expiresAt })).toString("base64url");
  return signText(secret, TOKEN_PURPOSE, text);
}

/** The claims of a genuine, unexpired token; undefined otherwise. */
export function verifyCollabToken(secret: string, token: string, now = Date.now()): CollabTokenClaims | undefined {
  const text = verifyText(secret, TOKEN_PURPOSE, token);
  if (text === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(text, "base64url").toString()) as { u?: unknown; d?: unknown; e?: unknown };
    if (typeof claims.u !== "string" || typeof claims.d !== "string" || typeof claims.e !== "number") return undefined;
    if (claims.e <= now) return undefined;
    return { userId: claims.u, document: claims.d, expiresAt: claims.e };
  } catch {
    return undefined;
  }
}

// ---- access -------------------------------------------------------------------------------------

export type CollabAccess =
  | { allowed: true; actor: Actor; loaded: LoadedChangeRequest }
  | { allowed: false; reason: string; code: "not-found" | "forbidden" | "closed" };

/**
 * Whether the user may edit the document now: the change request exists in a live space they see,
 * they have the edit level on it, and it is still open (not merged or archived).
 */
export async function collabAccess(db: Executor, userId: string, document: CollabDocumentName): Promise<CollabAccess> {
  const user = await getUserById(db, userId);
  const spaceId = await spaceOfChangeRequest(db, document.changeRequestId);
  if (!user || !spaceId) return { allowed: false, code: "not-found", reason: "This change request no longer exists." };
  const actor: Actor = { user, tokenId: "collab", access: new AccessCache(db, user.id) };
  let loaded: LoadedChangeRequest;
  try {
    loaded = await requireChangeRequest(db, actor, spaceId, document.changeRequestId);
  } catch (error) {
    if (error instanceof DomainError) return { allowed: false, code: "not-found", reason: "You can no longer see this change request." };
    throw error;
  }
  if (!loaded.changeRequestPermissions.editContent) {
    const locked = loaded.space.editMode === "locked";
    return {
      allowed: false,
      code: "forbidden",
      reason: locked ? "The space is locked: its content cannot be edited." : "You no longer have the edit level on this space.",
    };
  }
  if (!isWritable(loaded.changeRequest)) {
    return {
      allowed: false,
      code: "closed",
      reason: `Change request #${loaded.changeRequest.number} is ${loaded.changeRequest.status}: it can no longer be edited.`,
    };
  }
  return { allowed: true, actor, loaded };
}

// ---- the edit page ------------------------------------------------------------------------------

export interface CollabSettings {
  enabled: boolean;
  tokenTtlSeconds: number;
}

/** The WebSocket address of /app/collab under the public URL (wss for https). */
export function collabUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/app/collab`;
  url.search = "";
  url.hash = "";
  return url.toString();
}

const USER_COLORS = ["#d14343", "#c2410c", "#a16207", "#15803d", "#0f766e", "#0369a1", "#4338ca", "#7e22ce", "#be185d", "#4d7c0f"];

/** A stable color for the user's cursor (the same in every session). */
export function userColor(userId: string): string {
  let hash = 0;
  for (const char of userId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return USER_COLORS[hash % USER_COLORS.length]!;
}

/**
 * The data-* attributes of the editor's root element (the wire contract with the browser editor):
 * none when collaboration is off or the change request can no longer change (the editor then saves
 * over HTTP, and the server refuses that too).
 */
export function collabEditorAttributes(
  deps: { secret: string; config: { collab: CollabSettings } },
  input: {
    user: Pick<UserRow, "id" | "displayName">;
    changeRequest: Pick<ChangeRequestRow, "id" | "status">;
    pageId: string;
    publicUrl: string;
  },
): Record<string, string> {
  if (!deps.config.collab.enabled || !isWritable(input.changeRequest)) return {};
  const document = collabDocumentName(input.changeRequest.id, input.pageId);
  return {
    "data-collab-url": collabUrl(input.publicUrl),
    "data-collab-document": document,
    "data-collab-token": issueCollabToken(deps.secret, { userId: input.user.id, document, ttlSeconds: deps.config.collab.tokenTtlSeconds }),
    "data-user-name": input.user.displayName,
    "data-user-color": userColor(input.user.id),
  };
}

/**
 * Per server (its `deps`): what loads a page's collaboration document ahead of its editor's
 * connection (set by the collaboration routes when this process serves collaboration).
 */
const warmers = new WeakMap<object, (document: CollabDocumentName, userId: string) => void>();

export function setCollabWarmer(deps: object, warm: (document: CollabDocumentName, userId: string) => void): void {
  warmers.set(deps, warm);
}

/**
 * The edit page of `document` was just served to `userId`: its state is read and loaded while the
 * browser loads the editor's script, rather than once its connection comes (a second on a 1 MB page).
 */
export function warmCollabDocument(deps: object, document: string, userId: string): void {
  const name = parseCollabDocumentName(document);
  if (name) warmers.get(deps)?.(name, userId);
}

// ---- loading and storing ------------------------------------------------------------------------

/** The page's location and stored document JSON in the change request's head revision. */
async function currentPage(db: Executor, loaded: LoadedChangeRequest, pageId: string) {
  const view = await loadRevisionView(db, loaded.space, loaded.changeRequest.revisionId);
  const location = view.locations().get(pageId);
  if (location?.page.kind !== "document") return undefined;
  return { location, documentHash: location.page.documentHash ?? null, json: await pageDocumentJson(db, location) };
}

export type LoadedCollabState = { state: Uint8Array } | { missing: string };

/**
 * The document's Yjs state: the persisted one when the page has not changed outside the editor
 * since it was last written, else a new state made from the page's document and persisted at once,
 * so that every process (and every later load) starts from the same Yjs items: two processes
 * building their own from the page would each insert the whole page, and their clients would see
 * it twice once merged.
 */
export async function loadCollabState(db: Db, document: CollabDocumentName, loaded: LoadedChangeRequest): Promise<LoadedCollabState> {
  const page = await currentPage(db, loaded, document.pageId);
  if (!page) return { missing: "This page is not in the change request (deleted or moved out), or is not a document page." };
  const stored = await getCollabDocument(db, document.name);
  if (stored && (stored.documentHash === null || stored.documentHash === page.documentHash)) return { state: new Uint8Array(stored.state) };
  const state = await (await editorStates()).documentToYState(JSON.parse(page.json) as JSONDocument);
  const row = {
    name: document.name,
    changeRequestId: document.changeRequestId,
    pageId: document.pageId,
    state: Buffer.from(state),
    documentHash: page.documentHash,
    updatedAt: nowIso(),
  };
  if (stored) {
    // The page changed outside the editor: the editor starts again from what the page is now.
    await replaceCollabDocument(db, row);
    return { state };
  }
  if (await insertCollabDocumentIfAbsent(db, row)) return { state };
  // Another process made it first: use theirs.
  const theirs = await getCollabDocument(db, document.name);
  return { state: theirs ? new Uint8Array(theirs.state) : state };
}

/**
 * Persists the state, merged with the stored one (another process may have written updates this
 * one has not received yet: merging loses none of either).
 */
export async function persistCollabState(
  db: Db,
  dialect: DialectName,
  document: CollabDocumentName,
  state: Uint8Array,
  options: { merge: boolean },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const stored = await getCollabDocumentForUpdate(trx, document.name, dialect === "postgres");
    // One process holds every update of the documents it serves: its state already contains the
    // stored one (loaded from it). Several processes may each hold updates the other has not relayed yet.
    const merged = stored && options.merge ? await (await editorStates()).mergeYStates([new Uint8Array(stored.state), state]) : state;
    await replaceCollabDocument(trx, {
      name: document.name,
      changeRequestId: document.changeRequestId,
      pageId: document.pageId,
      state: Buffer.from(merged),
      documentHash: stored?.documentHash ?? null,
      updatedAt: nowIso(),
    });
    return merged.byteLength;
  });
}

export type StoreOutcome = { saved: true; revision: string; at: string } | { saved: false; message: string };

/**
 * Writes the converged document into the change request as `userId` (the member whose change
 * triggered the write): read from the state with the editor's schema check, refused with a message
 * for a person when the schema or the content engine refuses it, skipped when the page already
 * holds exactly this document.
 */
export async function writeCollabDocument(
  db: Db,
  input: { document: CollabDocumentName; state: Uint8Array; userId: string },
): Promise<StoreOutcome> {
  const read = await (await editorStates()).yStateToDocument(input.state);
  if ("refused" in read) return { saved: false, message: `The page cannot be saved: ${read.refused}` };
  const access = await collabAccess(db, input.userId, input.document);
  if (!access.allowed) return { saved: false, message: access.reason };
  const { loaded, actor } = access;
  const page = await currentPage(db, loaded, input.document.pageId);
  if (!page) return { saved: false, message: "This page is no longer in the change request: your text is kept in the editor only." };
  const document = read.document;
  if (document.nodes.length > 10_000) return { saved: false, message: "The page has more than 10,000 top-level blocks; split it." };
  if (read.json === page.json) {
    await setCollabDocumentHash(db, input.document.name, page.documentHash);
    return { saved: true, revision: loaded.changeRequest.revisionId, at: nowIso() };
  }
  try {
    const outcome = await editChangeRequestContent(db, {
      loaded,
      actor,
      changes: [{ operation: "update_page", page: input.document.pageId, document: { document: document as never } }],
      pageLocation: (pageId) => `/app/o/${loaded.space.orgId}/s/${loaded.space.id}/p/${pageId}`,
    });
    const written = await currentPage(db, { ...loaded, changeRequest: outcome.changeRequest }, input.document.pageId);
    await setCollabDocumentHash(db, input.document.name, written?.documentHash ?? null);
    return { saved: true, revision: outcome.changeRequest.revisionId, at: nowIso() };
  } catch (error) {
    if (error instanceof DomainError) return { saved: false, message: error.message };
    throw error;
  }
}
