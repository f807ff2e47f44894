/**
 * Several Quire processes serving one database: what the clients of one process send reaches the
 * clients of the others through Redis pub/sub (REDIS_URL). One channel per open document carries
 * its Yjs updates, awareness (cursors) and, when a process opens it, a request for what the others
 * have that the database does not yet (their last changes are written ~0.5-3 s later). One channel
 * carries access changes, so that every process closes the connections of a member who lost access.
 *
 * Written on the installed ioredis 6 rather than @hocuspocus/extension-redis (which needs ioredis 5
 * and Redlock): Quire persists every process's state merged (collab.service.ts), so no lock is needed.
 */
import { randomUUID } from "node:crypto";
import type { Document } from "@hocuspocus/server";
import { Redis } from "ioredis";
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import type { Logger } from "pino";
import { applyAwarenessUpdate, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import type { AccessChange } from "../../lib/access-changes.js";

/** The origin Hocuspocus recognizes as "from another process": such updates are not stored again by this one. */
export const REDIS_ORIGIN = "__hocuspocus__redis__origin__";

const PREFIX = "quire:collab:";
const ACCESS_CHANNEL = `${PREFIX}access`;

enum Kind {
  Update = 0,
  Awareness = 1,
  SyncRequest = 2,
}

interface Attached {
  document: Document;
  detach(): void;
}

export class CollabBridge {
  private readonly id = randomUUID();
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly attached = new Map<string, Attached>();

  constructor(private readonly options: { url: string; log: Logger; onAccessChange: (change: AccessChange) => void }) {
    const redisOptions = { lazyConnect: false, maxRetriesPerRequest: 3 };
    this.pub = new Redis(options.url, redisOptions);
    this.sub = new Redis(options.url, redisOptions);
    for (const client of [this.pub, this.sub]) {
      client.on("error", (err) => options.log.warn({ err }, "collab: Redis error (updates between processes wait for it)"));
    }
    this.sub.on("messageBuffer", (channel: Buffer, message: Buffer) => this.receive(channel.toString(), message));
    void this.sub.subscribe(ACCESS_CHANNEL).catch((err) => options.log.warn({ err }, "collab: Redis subscribe failed"));
  }

  /** Starts relaying the document's changes, and asks the other processes for what they have. */
  async attach(document: Document): Promise<void> {
    const channel = PREFIX + document.name;
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      if (origin !== REDIS_ORIGIN) this.publish(channel, Kind.Update, update);
    };
    const onAwareness = ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
      if (origin === REDIS_ORIGIN) return;
      const changed = [...added, ...updated, ...removed];
      if (changed.length > 0) this.publish(channel, Kind.Awareness, encodeAwarenessUpdate(document.awareness, changed));
    };
    document.on("update", onUpdate);
    document.awareness.on("update", onAwareness);
    this.attached.set(document.name, {
      document,
      detach: () => {
        document.off("update", onUpdate);
        document.awareness.off("update", onAwareness);
      },
    });
    await this.sub.subscribe(channel);
    this.publish(channel, Kind.SyncRequest, Y.encodeStateVector(document));
  }

  detach(name: string): void {
    const attached = this.attached.get(name);
    if (!attached) return;
    attached.detach();
    this.attached.delete(name);
    void this.sub.unsubscribe(PREFIX + name).catch(() => {});
  }

  publishAccessChange(change: AccessChange): void {
    void this.pub.publish(ACCESS_CHANNEL, JSON.stringify({ from: this.id, change })).catch(() => {});
  }

  private publish(channel: string, kind: Kind, payload: Uint8Array): void {
    const encoder = encoding.createEncoder();
    encoding.writeVarString(encoder, this.id);
    encoding.writeVarUint(encoder, kind);
    encoding.writeVarUint8Array(encoder, payload);
    void this.pub.publish(channel, Buffer.from(encoding.toUint8Array(encoder))).catch(() => {});
  }

  private receive(channel: string, message: Buffer): void {
    try {
      if (channel === ACCESS_CHANNEL) {
        const { from, change } = JSON.parse(message.toString()) as { from: string; change: AccessChange };
        if (from !== this.id) this.options.onAccessChange(change);
        return;
      }
      const attached = this.attached.get(channel.slice(PREFIX.length));
      if (!attached) return;
      const decoder = decoding.createDecoder(new Uint8Array(message));
      if (decoding.readVarString(decoder) === this.id) return;
      const kind = decoding.readVarUint(decoder) as Kind;
      const payload = decoding.readVarUint8Array(decoder);
      const { document } = attached;
      if (kind === Kind.Update) Y.applyUpdate(document, payload, REDIS_ORIGIN);
      else if (kind === Kind.Awareness) applyAwarenessUpdate(document.awareness, payload, REDIS_ORIGIN);
      else if (kind === Kind.SyncRequest) {
        // What the requester lacks, and who is here: sent as if they were new (harmless duplicates for the others).
        const missing = Y.encodeStateAsUpdate(document, payload);
        if (missing.byteLength > 2) this.publish(channel, Kind.Update, missing);
        const clients = [...document.awareness.getStates().keys()];
        if (clients.length > 0) this.publish(channel, Kind.Awareness, encodeAwarenessUpdate(document.awareness, clients));
      }
    } catch (err) {
      this.options.log.warn({ err, channel }, "collab: a Redis message could not be applied");
    }
  }

  async close(): Promise<void> {
    for (const name of [...this.attached.keys()]) this.detach(name);
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}
