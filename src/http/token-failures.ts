/**
 * Requests with a bad API token (unknown, revoked, or a malformed `Bearer` header) are failed
 * sign-ins in the audit log, as failed SAML, OpenID Connect and sign-in link attempts are. The
 * token is a secret even when wrong (a typo of a live one, a token of another system), so an entry
 * keeps only a fingerprint: the first 12 hex digits of its SHA-256, which is how Quire stores
 * tokens (`api_tokens.token_hash` starts with it for a revoked token) and gives nothing to replay.
 *
 * Bounded, so that a client cannot flood the log: failures are counted per address (an IPv6
 * address by its /64, which one client usually holds whole) and per minute. The first failure of
 * an address in a minute is written at once, with its details; the others of that minute are
 * counted and written as one summary entry (`repeated`) once the minute is over. At most
 * `MAX_ADDRESSES` addresses are followed per minute; failures from further addresses are counted
 * together in one summary without an address. So one process writes at most
 * 2 × MAX_ADDRESSES + 1 entries a minute, however many requests it refuses.
 */
import { hash } from "node:crypto";
import { isIPv4 } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { type AuditEntry, AuditScope, flushAudit } from "../db/audit.js";
import type { Db } from "../db/database.js";

export type TokenFailureReason = "unknown" | "revoked" | "malformed";

export interface TokenFailure {
  reason: TokenFailureReason;
  /** The token as sent (only its fingerprint is kept). */
  token?: string;
  /** A revoked token's id and holder: the entry goes to the holder's organizations. */
  tokenId?: string;
  userId?: string;
  address: string;
  userAgent?: string | null;
  requestId?: string;
}

export const WINDOW_MS = 60_000;
export const MAX_ADDRESSES = 100;
const OVERFLOW = "*";

interface Bucket {
  window: number;
  address: string | null;
  userId: string | undefined;
  count: number;
  reasons: Partial<Record<TokenFailureReason, number>>;
}

/** The fingerprint an entry keeps of a token: not the token, not enough to find it. */
export function tokenFingerprint(token: string): string {
  return hash("sha256", token, "hex").slice(0, 12);
}

/** The address failures are counted under: an IPv4 address as is, an IPv6 address by its /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIPv4(address) || !address.includes(":")) return address;
  const [head = "", tail] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

export class TokenFailureAudit {
  /** Summaries owed, by window and address (and holder, for revoked tokens). */
  private buckets = new Map<string, Bucket>();
  /** The addresses followed in each minute not yet flushed. */
  private addresses = new Map<number, Set<string>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes summaries of past minutes every minute (the timer does not keep the process alive). */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), WINDOW_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes every summary owed, the current minute's too (the process is closing). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush(true);
  }

  /** Counts a failure; the first of its address in this minute is written before this returns. */
  async note(failure: TokenFailure): Promise<void> {
    const window = Math.floor(this.now() / WINDOW_MS);
    const address = addressKey(failure.address);
    let addresses = this.addresses.get(window);
    if (!addresses) this.addresses.set(window, (addresses = new Set()));
    const followed = addresses.has(address) || addresses.size < MAX_ADDRESSES;
    if (followed) addresses.add(address);
    const holder = failure.userId;
    const key = `${window} ${followed ? address : OVERFLOW} ${holder ?? ""}`;
    const bucket = this.buckets.get(key);
    if (bucket) {
      bucket.count++;
      bucket.reasons[failure.reason] = (bucket.reasons[failure.reason] ?? 0) + 1;
      return;
    }
    // A followed address's first failure is written now, so its bucket counts only those after it.
    this.buckets.set(key, {
      window,
      address: followed ? address : null,
      userId: holder,
      count: followed ? 0 : 1,
      reasons: followed ? {} : { [failure.reason]: 1 },
    });
    if (!followed) return;
    await this.write(
      {
        action: "sign_in.failed",
        target: failure.tokenId ? { type: "api-token", id: failure.tokenId } : { type: "sign-in", id: "api-token" },
        payload: {
          method: "api_token",
          reason: failure.reason,
          fingerprint: failure.token ? tokenFingerprint(failure.token) : null,
          ...(holder ? { userId: holder } : {}),
        },
      },
      { address: failure.address, userAgent: failure.userAgent ?? null, requestId: failure.requestId ?? null },
    );
  }

  /** Writes the summaries of minutes that are over (all of them with `all`). */
  async flush(all = false): Promise<void> {
    const current = Math.floor(this.now() / WINDOW_MS);
    for (const window of this.addresses.keys()) if (all || window < current) this.addresses.delete(window);
    for (const [key, bucket] of this.buckets) {
      if (!all && bucket.window >= current) continue;
      this.buckets.delete(key);
      if (bucket.count === 0) continue;
      const from = new Date(bucket.window * WINDOW_MS).toISOString();
      const to = new Date((bucket.window + 1) * WINDOW_MS).toISOString();
      await this.write(
        {
          action: "sign_in.failed",
          target: { type: "sign-in", id: "api-token" },
          payload: {
            method: "api_token",
            repeated: bucket.count,
            reasons: bucket.reasons,
            from,
            to,
            ...(bucket.address === null ? { addresses: `more than ${MAX_ADDRESSES}` } : {}),
            ...(bucket.userId ? { userId: bucket.userId } : {}),
          },
        },
        { address: bucket.address, userAgent: null, requestId: null },
      );
    }
  }

  private async write(entry: AuditEntry, origin: { address: string | null; userAgent: string | null; requestId: string | null }) {
    const scope = new AuditScope({ source: "api", ...origin });
    scope.record(entry);
    try {
      await flushAudit(this.db, scope);
    } catch (error) {
      // The refusal stands either way; a lost entry is logged, not turned into a 500.
      this.log.error({ err: error }, "could not record a failed API token sign-in in the audit log");
    }
  }
}
