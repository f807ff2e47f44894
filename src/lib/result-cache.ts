/**
 * Answers kept by key, within a size in bytes (least recently used dropped first), and computed
 * once for callers asking for the same key at the same time: a burst of identical costly requests
 * (a search, a large page as Markdown) costs one computation. A failed computation is not kept.
 */
import { LRUCache } from "lru-cache";

export class ResultCache<T extends NonNullable<unknown>> {
  private readonly kept: LRUCache<string, T>;
  private readonly running = new Map<string, Promise<T>>();

  constructor(
    maxBytes: number,
    private readonly sizeOf: (value: T) => number,
  ) {
    this.kept = new LRUCache<string, T>({ maxSize: maxBytes, sizeCalculation: (value) => Math.max(1, sizeOf(value)) });
  }

  /** The answer for `key`: kept, being computed, or computed now by `compute`. */
  async get(key: string, compute: () => Promise<T>): Promise<T> {
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const running = this.running.get(key);
    if (running) return running;
    const promise = compute().then(
      (value) => {
        this.running.delete(key);
        // An answer larger than the whole cache is returned, not kept.
        if (this.sizeOf(value) <= this.kept.maxSize) this.kept.set(key, value);
        return value;
      },
      (error: unknown) => {
        this.running.delete(key);
        throw error;
      },
    );
    this.running.set(key, promise);
    return promise;
  }

  clear(): void {
    this.kept.clear();
  }
}
