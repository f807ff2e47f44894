/**
 * Live collaboration against the real server on a real port: Hocuspocus providers (as the browser
 * editor uses them) over `ws`, on SQLite and PostgreSQL.
 */
import { HocuspocusProvider, HocuspocusProviderWebsocket } from "@hocuspocus/provider";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import * as Y from "yjs";
import { createTestContext, type TestContext, type TestUser } from "../../../test/helpers/app.js";
import { createChangeRequest, editContent, pageTexts } from "../../../test/helpers/change-requests.factories.js";
import { paragraphDoc } from "../../../test/helpers/content.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../test/helpers/web.js";
import { buildApp } from "../../app.js";
import { loadConfig } from "../../config.js";
import { EDITOR_FRAGMENT } from "../../content/editor/yjs.js";
import { getCollabDocument } from "./collab.queries.js";
import { collabDocumentName, issueCollabToken } from "./collab.service.js";

/**
 * `ws` with an error listener of its own: a provider destroyed while it reconnects closes a socket
 * that is still connecting, after removing its own listeners, and ws reports that as an error event.
 */
class QuietWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    this.on("error", () => {});
  }
}

const collab = { ...loadConfig({}).collab, debounceMs: 50, maxDebounceMs: 300, authTimeoutMs: 1500, maxDocumentsPerConnection: 2 };

async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The paragraphs' texts of a collaborative Y.Doc. */
function texts(doc: Y.Doc): string[] {
  return doc
    .getXmlFragment(EDITOR_FRAGMENT)
    .toArray()
    .map((node) =>
      node instanceof Y.XmlElement
        ? node
            .toArray()
            .map((child) => (child instanceof Y.XmlText ? child.toString() : ""))
            .join("")
        : "",
    );
}

/** Appends a paragraph as the editor's schema writes it. */
function appendParagraph(doc: Y.Doc, text: string): void {
  const fragment = doc.getXmlFragment(EDITOR_FRAGMENT);
  const paragraph = new Y.XmlElement("paragraph");
  paragraph.insert(0, [new Y.XmlText(text)]);
  fragment.insert(fragment.length, [paragraph]);
}

interface Client {
  provider: HocuspocusProvider;
  doc: Y.Doc;
  stateless: any[];
  closes: { code: number; reason: string }[];
  failures: string[];
  synced: Promise<void>;
}

function connect(url: string, name: string, token: string, socket?: HocuspocusProviderWebsocket): Client {
  const doc = new Y.Doc();
  const client = { doc, stateless: [] as any[], closes: [] as { code: number; reason: string }[], failures: [] as string[] } as Client;
  let resolveSynced!: () => void;
  client.synced = new Promise((resolve) => {
    resolveSynced = resolve;
  });
  client.provider = new HocuspocusProvider({
    ...(socket ? { websocketProvider: socket } : { url, WebSocketPolyfill: QuietWebSocket }),
    name,
    token,
    document: doc,
    onSynced: () => resolveSynced(),
    onStateless: ({ payload }: { payload: string }) => client.stateless.push(JSON.parse(payload)),
    onClose: ({ event }: { event: { code: number; reason: string } }) => client.closes.push({ code: event.code, reason: event.reason }),
    onAuthenticationFailed: ({ reason }: { reason: string }) => client.failures.push(reason),
  } as never);
  if (socket) client.provider.attach();
  return client;
}

describe("live collaboration", () => {
  let ctx: TestContext;
  let base: string;
  let wsUrl: string;
  let owner: TestUser;
  let editor: TestUser;
  let reader: TestUser;
  let spaceId: string;
  let changeRequestId: string;
  let changeRequestNumber: number;
  let orgId: string;
  let pageId: string;
  let name: string;
  const clients: Client[] = [];
  const open = (who: TestUser, documentName = name) => {
    const client = connect(
      wsUrl,
      documentName,
      issueCollabToken(ctx.deps.secret, { userId: who.id, document: documentName, ttlSeconds: 600 }),
    );
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    ctx = await createTestContext({ config: { collab } });
    const setup = await createOrgWithSpace(ctx);
    owner = setup.owner;
    editor = setup.members.edit;
    reader = setup.members.read;
    spaceId = setup.space.id;
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Live" });
    changeRequestId = cr.id;
    changeRequestNumber = cr.number;
    orgId = setup.org.id;
    const edited = await editContent(ctx, owner, spaceId, cr.id, [
      { operation: "insert_page", title: "Guide", document: { document: paragraphDoc(["Hello"]) } },
    ]);
    pageId = edited.changes[0]!.page.id;
    name = collabDocumentName(changeRequestId, pageId);
    base = await ctx.listen();
    wsUrl = `${base.replace("http:", "ws:")}/app/collab`;
  });

  afterAll(async () => {
    for (const client of clients) client.provider.destroy();
    await ctx.close();
  });

  const crPrefix = () => `/v1/spaces/${spaceId}/change-requests/${changeRequestId}`;

  it("issues a token to the signed-in member who may edit, and refuses the others", async () => {
    const web = await WebClient.signedIn(ctx, editor);
    const url = `/app/collab/token?document=${encodeURIComponent(name)}`;
    const ok = await ctx.app.inject({ method: "GET", url, headers: { cookie: web.cookieHeader(url) ?? "" } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(JSON.parse(ok.body).token).toMatch(/\./);
    expect((await ctx.app.inject({ method: "GET", url })).statusCode).toBe(401);
    const forged = await ctx.app.inject({ method: "GET", url, headers: { cookie: "quire_app_session=abc.def" } });
    expect(forged.statusCode).toBe(401);
    const readerWeb = await WebClient.signedIn(ctx, reader);
    const refused = await ctx.app.inject({ method: "GET", url, headers: { cookie: readerWeb.cookieHeader(url) ?? "" } });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body).error.message).toMatch(/edit level/);
    const other = `/app/collab/token?document=${encodeURIComponent(collabDocumentName("nochangerequest1", pageId))}`;
    expect((await ctx.app.inject({ method: "GET", url: other, headers: { cookie: web.cookieHeader(url) ?? "" } })).statusCode).toBe(404);
    const bad = `/app/collab/token?document=${encodeURIComponent("spaces/x")}`;
    expect((await ctx.app.inject({ method: "GET", url: bad, headers: { cookie: web.cookieHeader(url) ?? "" } })).statusCode).toBe(404);
  });

  it("loads a page's document when its edit page is served, before the editor connects", async () => {
    const edited = await editContent(ctx, owner, spaceId, changeRequestId, [
      { operation: "insert_page", title: "Ahead", document: { document: paragraphDoc(["Loaded ahead"]) } },
    ]);
    const aheadId = edited.changes[0]!.page.id as string;
    const aheadName = collabDocumentName(changeRequestId, aheadId);
    // A page no editor has opened has no collaboration state yet: loading makes and stores it.
    expect(await getCollabDocument(ctx.db, aheadName)).toBeUndefined();
    const web = await WebClient.signedIn(ctx, editor);
    const page = await web.get(`/app/o/${orgId}/s/${spaceId}/~/changes/${changeRequestNumber}/p/${aheadId}/edit`);
    expect(page.status, page.text).toBe(200);
    await waitFor("the state stored without a connection", () => getCollabDocument(ctx.db, aheadName));
    const client = open(editor, aheadName);
    await client.synced;
    expect(texts(client.doc)).toEqual(["Loaded ahead"]);
    client.provider.destroy();
  });

  it("refuses other paths and foreign origins before upgrading", async () => {
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.on("open", () => {
          ws.close();
          resolve(101);
        });
        ws.on("error", () => {});
      });
    expect(await status(`${base.replace("http:", "ws:")}/app/other`)).toBe(403);
    expect(await status(wsUrl, { origin: "https://evil.example" })).toBe(403);
    expect(await status(wsUrl, { origin: "http://quire.test" })).toBe(101);
  });

  it("syncs two editors, saves the converged page into the change request and says so", async () => {
    const a = open(owner);
    const b = open(editor);
    await Promise.all([a.synced, b.synced]);
    expect(texts(a.doc)).toEqual(["Hello"]);
    appendParagraph(a.doc, "From A");
    appendParagraph(b.doc, "From B");
    await waitFor("both edits in both documents", () => texts(a.doc).length === 3 && texts(b.doc).length === 3);
    expect(texts(a.doc)).toEqual(texts(b.doc));
    const saved = await waitFor("a saved message", () => a.stateless.find((m) => m.type === "saved"));
    expect(saved.revision).toEqual(expect.any(String));
    const page = await waitFor("the page in the change request", async () => {
      const got = await pageTexts(ctx, owner, crPrefix(), pageId);
      return got.length === 3 ? got : undefined;
    });
    expect(page).toEqual(texts(a.doc));
    a.provider.destroy();
    b.provider.destroy();
  });

  it("refuses a bad token and a token for another document", async () => {
    const bad = connect(wsUrl, name, "not-a-token");
    clients.push(bad);
    await waitFor("authentication refused", () => bad.failures.length > 0);
    expect(bad.failures[0]).toMatch(/invalid or expired/);
    const other = connect(wsUrl, name, issueCollabToken(ctx.deps.secret, { userId: owner.id, document: `${name}x`, ttlSeconds: 600 }));
    clients.push(other);
    await waitFor("authentication refused", () => other.failures.length > 0);
    expect(other.failures[0]).toMatch(/another document/);
    const readerClient = open(reader);
    await waitFor("authentication refused", () => readerClient.failures.length > 0);
    expect(readerClient.failures[0]).toMatch(/edit level/);
    bad.provider.destroy();
    other.provider.destroy();
    readerClient.provider.destroy();
  });

  it("tells the editors when the schema refuses the document, and keeps their text", async () => {
    const a = open(owner);
    await a.synced;
    a.doc.getXmlFragment(EDITOR_FRAGMENT).insert(0, [new Y.XmlElement("script")]);
    const refused = await waitFor("a refused message", () => a.stateless.find((m) => m.type === "refused"));
    expect(refused.message).toMatch(/cannot be saved/);
    expect(a.doc.getXmlFragment(EDITOR_FRAGMENT).length).toBeGreaterThan(1);
    a.doc.getXmlFragment(EDITOR_FRAGMENT).delete(0, 1);
    await waitFor("saved again", () => a.stateless.filter((m) => m.type === "saved").length > 0);
    a.provider.destroy();
  });

  it("merges the edits of a provider that was offline", async () => {
    const a = open(owner);
    const b = open(editor);
    await Promise.all([a.synced, b.synced]);
    a.provider.configuration.websocketProvider.disconnect();
    appendParagraph(a.doc, "Offline A");
    appendParagraph(b.doc, "Online B");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(texts(b.doc)).not.toContain("Offline A");
    await a.provider.configuration.websocketProvider.connect();
    await waitFor("convergence", () => texts(a.doc).includes("Online B") && texts(b.doc).includes("Offline A"));
    expect(texts(a.doc)).toEqual(texts(b.doc));
    await waitFor("the page holds both", async () => {
      const got = await pageTexts(ctx, owner, crPrefix(), pageId);
      return got.includes("Offline A") && got.includes("Online B");
    });
    a.provider.destroy();
    b.provider.destroy();
  });

  it("closes unauthenticated connections after the timeout and limits documents per connection", async () => {
    const silent = new WebSocket(wsUrl);
    const code = await new Promise<number>((resolve) => silent.on("close", (c) => resolve(c)));
    expect(code).toBe(4401);

    const socket = new HocuspocusProviderWebsocket({ url: wsUrl, WebSocketPolyfill: QuietWebSocket } as never);
    const token = (document: string) => issueCollabToken(ctx.deps.secret, { userId: owner.id, document, ttlSeconds: 600 });
    const closes: number[] = [];
    socket.on("close", ({ event }: { event: { code: number } }) => closes.push(event.code));
    const names = [name, collabDocumentName(changeRequestId, "page2"), collabDocumentName(changeRequestId, "page3")];
    const many = names.map((n) => connect(wsUrl, n, token(n), socket));
    clients.push(...many);
    await waitFor("the socket closed for too many documents", () => closes.includes(4409));
    for (const client of many) client.provider.destroy();
    socket.destroy();
  });

  it("closes the connection of a member whose role no longer allows editing (4403), and on merge", async () => {
    const b = open(editor);
    await b.synced;
    const res = await ctx
      .as(owner)
      .patch(`/v1/orgs/${(await ctx.as(owner).get(`/v1/spaces/${spaceId}`)).body.organization}/members/${editor.id}`, {
        role: "read",
      });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    await waitFor("a 4403 close", () => b.closes.find((c) => c.code === 4403));
    expect(b.closes.find((c) => c.code === 4403)!.reason).toMatch(/edit level/);
    b.provider.destroy();

    const a = open(owner);
    await a.synced;
    const merged = await ctx.as(owner).post(`${crPrefix()}/merge`);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    await waitFor("a 4403 close on merge", () => a.closes.find((c) => c.code === 4403));
    expect(a.closes.find((c) => c.code === 4403)!.reason).toMatch(/merged/);
    a.provider.destroy();
    const late = open(owner);
    await waitFor("refused after the merge", () => late.failures.length > 0);
    expect(late.failures[0]).toMatch(/merged/);
    late.provider.destroy();
  });
});

describe("restart and several processes", () => {
  let ctx: TestContext;
  const apps: FastifyInstance[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({ config: { collab } });
  });
  afterAll(async () => {
    for (const client of clients) client.provider.destroy();
    for (const app of apps) await app.close().catch(() => {});
    await ctx.close();
  });

  async function startApp(redisUrl?: string): Promise<{ app: FastifyInstance; url: string }> {
    const app = await buildApp({ ...ctx.deps, config: { ...ctx.config, collab: { ...collab, redisUrl } } });
    await app.listen({ port: 0, host: "127.0.0.1" });
    apps.push(app);
    const address = app.server.address() as { port: number };
    return { app, url: `ws://127.0.0.1:${address.port}/app/collab` };
  }

  it("keeps the document across a restart, and relays between two processes through Redis", async () => {
    const setup = await createOrgWithSpace(ctx);
    const cr = await createChangeRequest(ctx, setup.owner, setup.space.id, { subject: "Restart" });
    const edited = await editContent(ctx, setup.owner, setup.space.id, cr.id, [
      { operation: "insert_page", title: "P", document: { document: paragraphDoc(["Start"]) } },
    ]);
    const name = collabDocumentName(cr.id, edited.changes[0]!.page.id);
    const token = issueCollabToken(ctx.deps.secret, { userId: setup.owner.id, document: name, ttlSeconds: 600 });

    const first = await startApp();
    const a = connect(first.url, name, token);
    clients.push(a);
    await a.synced;
    appendParagraph(a.doc, "Before restart");
    await waitFor("saved", () => a.stateless.some((m) => m.type === "saved"));
    a.provider.destroy();
    await first.app.close();

    const redisUrl = process.env.QUIRE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
    const one = await startApp(redisUrl);
    const two = await startApp(redisUrl);
    const b = connect(one.url, name, token);
    const c = connect(two.url, name, token);
    clients.push(b, c);
    await Promise.all([b.synced, c.synced]);
    expect(texts(b.doc)).toEqual(["Start", "Before restart"]);
    expect(texts(c.doc)).toEqual(["Start", "Before restart"]);
    appendParagraph(b.doc, "Via process one");
    await waitFor("the update on the other process", () => texts(c.doc).includes("Via process one"));
    appendParagraph(c.doc, "Via process two");
    await waitFor("and back", () => texts(b.doc).includes("Via process two"));
    b.provider.setAwarenessField("user", { name: "B", color: "#000" });
    await waitFor("B's cursor on the other process", () =>
      [...c.provider.awareness!.getStates().values()].some((s) => (s as { user?: { name: string } }).user?.name === "B"),
    );
  });
});

describe("size limits and a locked space", () => {
  let ctx: TestContext;
  let wsUrl: string;
  let owner: TestUser;
  let spaceId: string;
  let name: string;
  const clients: Client[] = [];
  const open = () => {
    const client = connect(wsUrl, name, issueCollabToken(ctx.deps.secret, { userId: owner.id, document: name, ttlSeconds: 600 }));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    ctx = await createTestContext({ config: { collab: { ...collab, maxMessageBytes: 8 * 1024, maxStateBytes: 32 * 1024 } } });
    const setup = await createOrgWithSpace(ctx);
    owner = setup.owner;
    spaceId = setup.space.id;
    const cr = await createChangeRequest(ctx, owner, spaceId, { subject: "Limits" });
    const edited = await editContent(ctx, owner, spaceId, cr.id, [
      { operation: "insert_page", title: "P", document: { document: paragraphDoc(["Small"]) } },
    ]);
    name = collabDocumentName(cr.id, edited.changes[0]!.page.id);
    wsUrl = `${(await ctx.listen()).replace("http:", "ws:")}/app/collab`;
  });
  afterAll(async () => {
    for (const client of clients) client.provider.destroy();
    await ctx.close();
  });

  it("closes a connection that sends a message over the limit (1009)", async () => {
    const a = open();
    await a.synced;
    appendParagraph(a.doc, "x".repeat(20 * 1024));
    await waitFor("a 1009 close", () => a.closes.find((c) => c.code === 1009));
    a.provider.destroy();
  });

  it("closes connections once the page's state is over the limit (4413)", async () => {
    const a = open();
    await a.synced;
    for (let i = 0; i < 12; i++) {
      appendParagraph(a.doc, `${i} ${"y".repeat(4 * 1024)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor("a 4413 close", () => a.closes.find((c) => c.code === 4413));
    expect(a.closes.find((c) => c.code === 4413)!.reason).toMatch(/limit/);
    a.provider.destroy();
  });

  it("closes the connections of a space that gets locked (4403)", async () => {
    const fresh = await createChangeRequest(ctx, owner, spaceId, { subject: "Lock" });
    const edited = await editContent(ctx, owner, spaceId, fresh.id, [
      { operation: "insert_page", title: "L", document: { document: paragraphDoc(["Lock me"]) } },
    ]);
    name = collabDocumentName(fresh.id, edited.changes[0]!.page.id);
    const a = open();
    await a.synced;
    const res = await ctx.as(owner).patch(`/v1/spaces/${spaceId}`, { editMode: "locked" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await waitFor("a 4403 close", () => a.closes.find((c) => c.code === 4403));
    expect(a.closes.find((c) => c.code === 4403)!.reason).toMatch(/locked/);
    a.provider.destroy();
  });
});
