/**
 * Saving without a Save button. Over HTTP (no collaboration): every change is kept in this
 * browser's localStorage at once and sent, debounced, as `PUT <edit>.json {"doc"}`; a refused save
 * shows the server's reason and keeps the text; a lost connection is retried with backoff. A copy
 * left by a page closed before its save is restored on the next load (nothing typed is lost).
 */

export type SaveState = "loading" | "saved" | "saving" | "offline" | "refused" | "unsaved";

export const OFFLINE_MESSAGE = "Offline — your changes are kept and will be sent when you reconnect";

export class StatusLine {
  constructor(private element: HTMLElement) {}
  show(state: SaveState, message?: string): void {
    const text =
      state === "saved"
        ? (message ?? "Saved")
        : state === "saving"
          ? "Saving…"
          : state === "offline"
            ? OFFLINE_MESSAGE
            : state === "refused"
              ? `Not saved: ${message ?? "the server refused the document."} Your text is kept here; change it and it is sent again.`
              : state === "unsaved"
                ? "Unsaved changes"
                : "Loading the editor…";
    // Unchanged, the line is left alone: a change to the page outside the editor lays the page out
    // again, and Chromium then reads the whole editor's text anew for the keyboard's input method
    // (tens of milliseconds per keystroke on a long page).
    if (this.element.dataset.state === state && this.element.textContent === text) return;
    this.element.dataset.state = state;
    this.element.textContent = text;
  }
}

interface StoredCopy {
  /** A hash of the document the page was opened with: the copy is restored over that one only. */
  base: string;
  doc: unknown;
  at: string;
}

export function hashText(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619) >>> 0;
    h2 = (Math.imul(h2, 31) + c) >>> 0;
  }
  return `${h1.toString(36)}.${h2.toString(36)}.${text.length}`;
}

export class LocalCopy {
  constructor(
    private key: string,
    private base: string,
  ) {}
  read(): StoredCopy | undefined {
    try {
      const text = localStorage.getItem(this.key);
      return text ? (JSON.parse(text) as StoredCopy) : undefined;
    } catch {
      return undefined;
    }
  }
  /** False when the browser's storage is full or off. */
  write(doc: unknown): boolean {
    try {
      localStorage.setItem(this.key, JSON.stringify({ base: this.base, doc, at: new Date().toISOString() } satisfies StoredCopy));
      return true;
    } catch {
      return false;
    }
  }
  clear(): void {
    try {
      localStorage.removeItem(this.key);
    } catch {
      // Storage off: nothing was kept.
    }
  }
  matchesBase(copy: StoredCopy): boolean {
    return copy.base === this.base;
  }
}

export interface HttpSaverOptions {
  url: string;
  csrf: string;
  /** The editor JSON now; with `keys`, new blocks are given their keys first. */
  snapshot(keys?: boolean): unknown;
  status: StatusLine;
  copy: LocalCopy;
}

/** The HTTP autosave: one request in flight at most, the latest document after it. */
export class HttpSaver {
  private version = 0;
  private savedVersion = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private copyTimer: ReturnType<typeof setTimeout> | undefined;
  private inFlight = false;
  private retryDelay = 1000;
  refusedVersion = -1;
  constructor(private options: HttpSaverOptions) {
    window.addEventListener("online", () => this.schedule(0));
    window.addEventListener("beforeunload", (event) => {
      if (this.version !== this.savedVersion) event.preventDefault();
    });
  }
  get pending(): boolean {
    return this.version !== this.savedVersion;
  }
  /** A change was made: keep a copy now, send it soon. */
  changed(): void {
    this.version++;
    // The copy is written outside the editor's transaction, and not on every keystroke of a burst.
    clearTimeout(this.copyTimer);
    this.copyTimer = setTimeout(() => {
      if (this.version !== this.savedVersion) this.options.copy.write(this.options.snapshot(false));
    }, 150);
    if (this.refusedVersion < 0) this.options.status.show("saving");
    this.schedule(600);
  }
  schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.save(), delay);
  }
  async save(): Promise<void> {
    if (this.inFlight || this.version === this.savedVersion) return;
    this.inFlight = true;
    const version = this.version;
    const doc = this.options.snapshot(true);
    this.options.copy.write(doc);
    this.options.status.show("saving");
    try {
      const response = await fetch(this.options.url, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-csrf-token": this.options.csrf },
        body: JSON.stringify({ doc }),
        credentials: "same-origin",
      });
      const body = (await response.json().catch(() => ({}))) as { error?: { message?: string }; at?: string };
      if (response.ok) {
        this.savedVersion = version;
        this.refusedVersion = -1;
        this.retryDelay = 1000;
        if (this.version === version) this.options.copy.clear();
        this.options.status.show(this.version === version ? "saved" : "saving");
      } else if (response.status >= 500 || response.status === 429) {
        this.offline();
      } else {
        // Refused (invalid document, access lost, change request merged): say why, keep the text, wait for the next change.
        this.refusedVersion = version;
        this.savedVersion = version;
        this.options.status.show("refused", body.error?.message ?? `The server answered ${response.status}.`);
      }
    } catch {
      this.offline();
    } finally {
      this.inFlight = false;
    }
    if (this.version !== this.savedVersion && this.refusedVersion < 0) this.schedule(0);
  }
  private offline(): void {
    this.options.status.show("offline");
    this.schedule(this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, 30_000);
  }
}
