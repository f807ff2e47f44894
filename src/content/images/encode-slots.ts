/**
 * How many images a process encodes at once, whoever asks: a reader's request (files.routes.ts)
 * or a job (image-variants.jobs.ts). sharp runs each encoding on a thread of libuv's pool (4
 * threads unless UV_THREADPOOL_SIZE says otherwise), which the server shares with file reads,
 * compression and crypto: with at most ENCODE_SLOTS encodings at a time, the other threads stay free
 * and no other request waits behind an image.
 *
 * Readers come first: a free slot goes to the oldest waiting request before any waiting job. A
 * request waits a bounded time (and only while few others wait); a job waits as long as it takes.
 */

export const ENCODE_SLOTS = 2;
/** Requests that may wait for a slot at once; beyond that, a request is answered without waiting. */
const MAX_WAITING_REQUESTS = 16;

type Release = () => void;

export class EncodeSlots {
  private busy = 0;
  private readonly requests: Array<(release: Release) => void> = [];
  private readonly jobs: Array<(release: Release) => void> = [];

  constructor(private readonly size: number) {}

  /** A slot for a reader's request within `waitMs`, or undefined when none frees up in time (or too many wait). */
  forRequest(waitMs: number): Promise<Release | undefined> {
    if (this.busy < this.size) return Promise.resolve(this.take());
    if (waitMs <= 0 || this.requests.length >= MAX_WAITING_REQUESTS) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (release: Release) => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        const at = this.requests.indexOf(waiter);
        if (at >= 0) this.requests.splice(at, 1);
        resolve(undefined);
      }, waitMs);
      this.requests.push(waiter);
    });
  }

  /** A slot for a job, whenever one frees up (after the waiting requests). */
  forJob(): Promise<Release> {
    if (this.busy < this.size) return Promise.resolve(this.take());
    return new Promise((resolve) => this.jobs.push(resolve));
  }

  /** Encodings running now (for tests and logs). */
  get running(): number {
    return this.busy;
  }

  private take(): Release {
    this.busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      const next = this.requests.shift() ?? this.jobs.shift();
      if (next) next(this.take());
    };
  }
}

/** The process's slots (one libuv pool per process). */
export const encodeSlots = new EncodeSlots(ENCODE_SLOTS);
