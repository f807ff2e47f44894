/**
 * The live collaboration server: Hocuspocus (the Yjs protocol) on the Quire HTTP server's own port,
 * at /app/collab, without a listener of its own. What Hocuspocus leaves to its host is here: the
 * upgrade (path and Origin checked before it), the limits of a connection (message size, documents
 * per connection, the page's size, time to authenticate), the hooks that authenticate, load and
 * store through collab.service.ts, and closing the connections of members who lose access.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type Connection, type Document, Hocuspocus } from "@hocuspocus/server";
import * as decoding from "lib0/decoding";
import type { Logger } from "pino";
import { type WebSocket, WebSocketServer } from "ws";
import * as Y from "yjs";
import type { CollabConfig } from "../../config.js";
import type { Db, DialectName } from "../../db/database.js";
import { type AccessChange, onAccessChange } from "../../lib/access-changes.js";
import {
  type CollabDocumentName,
  collabAccess,
  loadCollabState,
  parseCollabDocumentName,
  persistCollabState,
  verifyCollabToken,
  writeCollabDocument,
} from "./collab.service.js";
import { CollabBridge } from "./collab-redis.adapter.js";

/** Close codes (4000-4999 are the application's). */
export const CLOSE = {
  /** Did not authenticate a document in time. */
  authTimeout: 4401,
  /** Lost access (membership, role, grant, change request merged or closed). */
  forbidden: 4403,
  /** More documents on one connection than allowed. */
  tooManyDocuments: 4409,
  /** The page's state grew beyond the limit. */
  tooLarge: 4413,
  /** The server is shutting down. */
  goingAway: 1001,
} as const;

/** What a connection's document was authenticated with (Hocuspocus' `context`). */
interface DocumentContext {
  userId: string;
  changeRequestId: string;
  spaceId: string;
  orgId: string;
  document: CollabDocumentName;
}

interface SocketState {
  ws: WebSocket;
  userId: string | undefined;
  /** Document names the socket has sent messages for. */
  names: Set<string>;
  /** Open documents, with what they were authenticated with. */
  open: Map<string, { connection: Connection; context: DocumentContext }>;
  closed: boolean;
}

export interface CollabServerOptions {
  db: Db;
  dialect: DialectName;
  secret: string;
  publicUrl: string;
  config: CollabConfig;
  log: Logger;
}

/** Rechecks after an access change: at once, and once the announcing transaction has surely committed. */
const RECHECK_DELAYS_MS = [0, 1000];
/** Every open connection is checked again this often (what no announcement covers: a deleted user). */
const SWEEP_EVERY_MS = 60_000;
const PATH = "/app/collab";

function closeReason(text: string): string {
  // A close frame's reason is at most 123 bytes.
  const bytes = Buffer.from(text);
  return bytes.length <= 123
    ? text
    : `${bytes
        .subarray(0, 120)
        .toString()
        .replace(/\uFFFD+$/, "")}...`;
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { code: status, message } });
  const reason = status === 403 ? "Forbidden" : status === 404 ? "Not Found" : "Service Unavailable";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** How long a document loaded ahead of its editor's connection stays loaded without one. */
export const WARM_MS = 30_000;

export class CollabServer {
  readonly hocuspocus: Hocuspocus;
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<SocketState>();
  private readonly byRequest = new WeakMap<IncomingMessage, SocketState>();
  /** Approximate bytes of each loaded document: its state when loaded or stored, plus what came since. */
  private readonly sizes = new Map<string, number>();
  private readonly bridge: CollabBridge | undefined;
  private readonly stopListening: () => void;
  private readonly sweep: NodeJS.Timeout;
  private readonly origin: string;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: CollabServerOptions) {
    const { config } = options;
    this.origin = new URL(options.publicUrl).origin;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes, perMessageDeflate: false });
    this.bridge = config.redisUrl
      ? new CollabBridge({ url: config.redisUrl, log: options.log, onAccessChange: (change) => this.recheck(change) })
      : undefined;
    this.hocuspocus = new Hocuspocus({
      quiet: true,
      debounce: config.debounceMs,
      maxDebounce: config.maxDebounceMs,
      onAuthenticate: (payload) => this.authenticate(payload),
      onLoadDocument: (payload) => this.load(payload),
      afterLoadDocument: async ({ document }) => this.bridge?.attach(document),
      afterUnloadDocument: async ({ documentName }) => {
        this.sizes.delete(documentName);
        this.bridge?.detach(documentName);
      },
      onStoreDocument: (payload) => this.store(payload),
      connected: async ({ request, connection, context, documentName }) => {
        const state = this.byRequest.get(request);
        if (!state) return;
        state.open.set(documentName, { connection, context: context as DocumentContext });
        connection.onClose(() => {
          if (state.open.get(documentName)?.connection === connection) state.open.delete(documentName);
        });
      },
    });
    this.stopListening = onAccessChange((change) => {
      this.recheck(change);
      this.bridge?.publishAccessChange(change);
    });
    this.sweep = setInterval(() => void this.recheckWhere(() => true), SWEEP_EVERY_MS);
    this.sweep.unref();
  }

  // ---- the upgrade ------------------------------------------------------------------------------

  /** Node's `upgrade` event of the HTTP server: /app/collab from this site's origin becomes a WebSocket. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refusal = this.upgradeRefusal(request);
    if (refusal) refuseUpgrade(socket, 403, refusal);
    else this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request));
  }

  private upgradeRefusal(request: IncomingMessage): string | undefined {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== PATH) return "WebSocket connections are accepted at /app/collab only.";
    const origin = request.headers.origin;
    // Browsers always send Origin: one from another site is a page there using its visitor's access.
    if (origin !== undefined && origin !== this.origin)
      return `Connections to the collaboration server are accepted from ${this.origin} only.`;
    if (!this.options.config.enabled) return "Live collaboration is off on this server (QUIRE_COLLAB=false).";
    return undefined;
  }

  private accept(ws: WebSocket, request: IncomingMessage): void {
    const state: SocketState = { ws, userId: undefined, names: new Set(), open: new Map(), closed: false };
    this.sockets.add(state);
    this.byRequest.set(request, state);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (state.open.size === 0 && state.userId === undefined) this.closeSocket(state, CLOSE.authTimeout, "Not authenticated in time.");
    }, this.options.config.authTimeoutMs);
    this.timers.add(timer);
    // ws reports a message over maxPayload (then closes with 1009) or a malformed frame as an error
    // event: unheard, it would end the process.
    ws.on("error", (err) => this.options.log.debug({ err }, "collab: WebSocket error"));
    ws.once("close", () => {
      state.closed = true;
      clearTimeout(timer);
      this.timers.delete(timer);
      this.sockets.delete(state);
    });
    // Limits are checked before Hocuspocus sees a message: a message over them never reaches it.
    const emit = ws.emit.bind(ws);
    ws.emit = ((event: string, ...args: unknown[]) => {
      if (event === "message" && !this.admit(state, args[0])) return false;
      return emit(event, ...args);
    }) as typeof ws.emit;
    this.hocuspocus.handleConnection(ws, request);
  }

  /** Whether a message within the limits: documents per connection, and the document's size. */
  private admit(state: SocketState, data: unknown): boolean {
    if (state.closed) return false;
    const bytes =
      data instanceof Uint8Array ? data : Array.isArray(data) ? Buffer.concat(data as Buffer[]) : new Uint8Array(data as ArrayBuffer);
    let name: string;
    try {
      name = decoding.readVarString(decoding.createDecoder(bytes));
    } catch {
      return true; // Hocuspocus closes the connection on a malformed message.
    }
    const { maxDocumentsPerConnection, maxStateBytes } = this.options.config;
    if (!state.names.has(name)) {
      if (state.names.size >= maxDocumentsPerConnection) {
        this.closeSocket(state, CLOSE.tooManyDocuments, `At most ${maxDocumentsPerConnection} documents per connection.`);
        return false;
      }
      state.names.add(name);
    }
    const size = this.sizes.get(name);
    if (size !== undefined) {
      const grown = size + bytes.byteLength;
      this.sizes.set(name, grown);
      if (grown > maxStateBytes) {
        this.closeSocket(state, CLOSE.tooLarge, `The page is over the ${Math.round(maxStateBytes / 1048576)} MB limit; split it.`);
        return false;
      }
    }
    return true;
  }

  // ---- hooks ------------------------------------------------------------------------------------

  private async authenticate(payload: { token: string; documentName: string; request: IncomingMessage }): Promise<DocumentContext> {
    const state = this.byRequest.get(payload.request);
    if (!state || state.closed) throw { reason: "The connection is closed." };
    const document = parseCollabDocumentName(payload.documentName);
    if (!document) throw { reason: "Unknown document: names are change-requests/<id>/pages/<id>." };
    const claims = verifyCollabToken(this.options.secret, payload.token);
    if (!claims) throw { reason: "The collab token is invalid or expired: ask GET /app/collab/token for a new one." };
    if (claims.document !== document.name) throw { reason: "The collab token is for another document." };
    if (state.userId !== undefined && state.userId !== claims.userId) throw { reason: "One connection serves one member." };
    const access = await collabAccess(this.options.db, claims.userId, document);
    if (!access.allowed) throw { reason: access.reason };
    state.userId = claims.userId;
    const { loaded } = access;
    return {
      userId: claims.userId,
      changeRequestId: loaded.changeRequest.id,
      spaceId: loaded.space.id,
      orgId: loaded.space.orgId,
      document,
    };
  }

  /**
   * Loads a document for the editor about to connect to it (its page was just served to `userId`):
   * the same load as a connection's, with that member's access checked, started while the browser
   * loads the editor's script. Unloaded again when no connection has come within `WARM_MS`.
   */
  warm(document: CollabDocumentName, userId: string): void {
    const { hocuspocus } = this;
    if (hocuspocus.documents.has(document.name) || hocuspocus.loadingDocuments.has(document.name)) return;
    void (async () => {
      const access = await collabAccess(this.options.db, userId, document);
      if (!access.allowed) return;
      const context: DocumentContext = {
        userId,
        changeRequestId: access.loaded.changeRequest.id,
        spaceId: access.loaded.space.id,
        orgId: access.loaded.space.orgId,
        document,
      };
      const loaded = await hocuspocus.createDocument(
        document.name,
        {},
        `warm-${userId}`,
        { isAuthenticated: true, readOnly: false },
        context,
      );
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        // Only this very document (one closed since and loaded anew is another), and only unused.
        if (hocuspocus.documents.get(document.name) === loaded && loaded.getConnectionsCount() === 0)
          void hocuspocus.unloadDocument(loaded);
      }, WARM_MS);
      timer.unref();
      this.timers.add(timer);
    })().catch((err: unknown) => this.options.log.debug({ err, document: document.name }, "collab: loading a document ahead failed"));
  }

  private async load(payload: { document: Document; documentName: string; context: DocumentContext }): Promise<void> {
    const access = await collabAccess(this.options.db, payload.context.userId, payload.context.document);
    if (!access.allowed) throw { reason: access.reason };
    const loaded = await loadCollabState(this.options.db, payload.context.document, access.loaded);
    if ("missing" in loaded) throw { reason: loaded.missing };
    Y.applyUpdate(payload.document, loaded.state);
    this.sizes.set(payload.documentName, loaded.state.byteLength);
  }

  private async store(payload: { document: Document; documentName: string; context: DocumentContext }): Promise<void> {
    const { document, context } = payload;
    const name = parseCollabDocumentName(payload.documentName);
    if (!name || !context?.userId) return;
    const state = Y.encodeStateAsUpdate(document);
    const { maxStateBytes } = this.options.config;
    if (state.byteLength > maxStateBytes) {
      document.broadcastStateless(
        JSON.stringify({
          type: "refused",
          message: `The page is over the ${Math.round(maxStateBytes / 1048576)} MB limit and cannot be saved; split it.`,
        }),
      );
      return;
    }
    try {
      const size = await persistCollabState(this.options.db, this.options.dialect, name, state, { merge: this.bridge !== undefined });
      this.sizes.set(payload.documentName, size);
      const outcome = await writeCollabDocument(this.options.db, { document: name, state, userId: context.userId });
      document.broadcastStateless(
        JSON.stringify(
          outcome.saved ? { type: "saved", revision: outcome.revision, at: outcome.at } : { type: "refused", message: outcome.message },
        ),
      );
    } catch (err) {
      this.options.log.error({ err, document: payload.documentName }, "collab: storing a document failed");
      document.broadcastStateless(
        JSON.stringify({
          type: "refused",
          message: "The server could not save the page just now; your text is kept and saving is tried again on the next change.",
        }),
      );
    }
  }

  // ---- access changes ---------------------------------------------------------------------------

  /** Checks again the connections an access change may concern; those that lost access are closed. */
  recheck(change: AccessChange): void {
    const concerned = (state: SocketState, context: DocumentContext): boolean => {
      switch (change.kind) {
        case "change-request":
          return context.changeRequestId === change.changeRequestId;
        case "space":
          return context.spaceId === change.spaceId;
        case "content":
          return context.orgId === change.orgId;
        case "organization":
          return context.orgId === change.orgId && (change.userId === undefined || state.userId === change.userId);
        case "user":
          return state.userId === change.userId;
      }
    };
    for (const delay of RECHECK_DELAYS_MS) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.recheckWhere(concerned);
      }, delay);
      this.timers.add(timer);
    }
  }

  private async recheckWhere(concerned: (state: SocketState, context: DocumentContext) => boolean): Promise<void> {
    for (const state of [...this.sockets]) {
      for (const [, { context }] of [...state.open]) {
        if (state.closed || !concerned(state, context)) continue;
        try {
          const access = await collabAccess(this.options.db, context.userId, context.document);
          if (!access.allowed) this.closeSocket(state, CLOSE.forbidden, access.reason);
        } catch (err) {
          this.options.log.error({ err }, "collab: checking access failed");
        }
      }
    }
  }

  /** Stops sending to and receiving from the socket at once, then closes it with `code`. */
  private closeSocket(state: SocketState, code: number, reason: string): void {
    if (state.closed) return;
    state.closed = true;
    for (const { connection } of state.open.values()) connection.close({ code, reason });
    state.open.clear();
    state.ws.close(code, closeReason(reason));
  }

  /** Connections open now (tests and metrics). */
  get connectionCount(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    this.stopListening();
    clearInterval(this.sweep);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const state of [...this.sockets]) this.closeSocket(state, CLOSE.goingAway, "The server is shutting down.");
    // Stores what is pending before the process goes (Hocuspocus runs the debounced stores now).
    const pending = [...this.hocuspocus.documents.values()].map((document) =>
      this.hocuspocus.debouncer.isDebounced(`onStoreDocument-${document.name}`)
        ? this.hocuspocus.debouncer.executeNow(`onStoreDocument-${document.name}`)
        : undefined,
    );
    await Promise.allSettled(pending);
    await this.bridge?.close();
    this.wss.close();
  }
}
