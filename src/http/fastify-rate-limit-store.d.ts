/** @fastify/rate-limit's in-memory store, which the package uses but does not type. */
declare module "@fastify/rate-limit/store/LocalStore.js" {
  type StoreCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;
  export default class LocalStore {
    /** Counts of at most `cache` keys (least recently used out first). */
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
    incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
    read(key: string, callback: StoreCallback, timeWindow: number, max: number): void;
  }
}
