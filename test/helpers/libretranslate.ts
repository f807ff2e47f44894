/**
 * A small LibreTranslate-compatible HTTP server on loopback for tests: `GET /languages` and
 * `POST /translate` as LibreTranslate's API documents them (`q` a string or an array, `source`,
 * `target`, `format`, `api_key`; `translatedText` in the same shape; errors as `{error}`). Its
 * "translation" is deterministic (`[es] text`), so tests can tell what went through it. It can be
 * told to fail or to hang from the Nth translate request on, and it records every request.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeLibreTranslate {
  url: string;
  /** Texts received by /translate, per request. */
  requests: string[][];
  /** From this (1-based) translate request on, answer 500 (or hang, with `hang`). */
  failFrom: number | undefined;
  hang: boolean;
  /** Resolves once `count` translate requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

const LANGUAGES = [
  { code: "en", name: "English", targets: ["en", "es", "fr", "pt-BR"] },
  { code: "es", name: "Spanish", targets: ["en", "es"] },
  { code: "fr", name: "French", targets: ["en", "fr"] },
  { code: "pt-BR", name: "Portuguese (Brazil)", targets: ["en", "pt-BR"] },
];

export async function startFakeLibreTranslate(options: { apiKey?: string } = {}): Promise<FakeLibreTranslate> {
  const hanging = new Set<http.ServerResponse>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const state: FakeLibreTranslate = {
    url: "",
    requests: [],
    failFrom: undefined,
    hang: false,
    waitForRequests: (count) =>
      state.requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/languages") return send(res, 200, LANGUAGES);
      if (req.method !== "POST" || req.url !== "/translate") return send(res, 404, { error: "Not Found" });
      let body: { q?: unknown; source?: string; target?: string; api_key?: string };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(res, 400, { error: "Invalid request: body is not JSON" });
      }
      if (options.apiKey && body.api_key !== options.apiKey) return send(res, 403, { error: "Invalid API key" });
      const source = LANGUAGES.find((l) => l.code === body.source);
      if (!source || !body.target || !source.targets.includes(body.target)) {
        return send(res, 400, { error: `${body.source} -> ${body.target} is not supported` });
      }
      const texts = Array.isArray(body.q) ? body.q : [body.q];
      if (!texts.every((t) => typeof t === "string")) return send(res, 400, { error: "Invalid request: q" });
      state.requests.push(texts as string[]);
      for (const waiter of waiters.splice(0)) {
        if (state.requests.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
      if (state.failFrom !== undefined && state.requests.length >= state.failFrom) {
        if (state.hang) {
          hanging.add(res);
          return;
        }
        return send(res, 500, { error: "Translation engine crashed" });
      }
      const translated = (texts as string[]).map((t) => `[${body.target}] ${t}`);
      return send(res, 200, { translatedText: Array.isArray(body.q) ? translated : translated[0] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
