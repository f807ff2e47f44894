/**
 * Server-sent events (`text/event-stream`) as GitBook's streamed operations send them and its
 * client reads them: each event a JSON `data` line, named events for `error` and `done`. The
 * reply is taken over (`hijack`): headers are written here, events as they come.
 */
import type { FastifyReply } from "fastify";

export interface EventStream {
  /** Sends one event (`event:` line only when named). */
  send(data: unknown, event?: string): void;
  /** Ends the stream with a `done` event. */
  done(): void;
  /** Ends the stream with an `error` event, `{error: {code, message}}` as every error body. */
  fail(code: number, message: string): void;
  /** Aborted when the client goes away: work for it stops. */
  signal: AbortSignal;
}

export function openEventStream(reply: FastifyReply, headers: Record<string, string> = {}): EventStream {
  const controller = new AbortController();
  reply.hijack();
  const raw = reply.raw;
  raw.on("close", () => controller.abort(new Error("The client closed the connection.")));
  raw.writeHead(200, {
    // What hooks set before the handler (the rate limit's headers): a hijacked reply would drop them.
    ...(reply.getHeaders() as Record<string, string | number | string[]>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    // Proxies that buffer (nginx) would hold the answer until its end.
    "x-accel-buffering": "no",
    ...headers,
  });
  let ended = false;
  const write = (text: string) => {
    if (!ended && !raw.destroyed) raw.write(text);
  };
  const end = () => {
    if (ended) return;
    ended = true;
    raw.end();
  };
  return {
    send(data, event) {
      write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
    },
    done() {
      write("event: done\ndata: {}\n\n");
      end();
    },
    fail(code, message) {
      write(`event: error\ndata: ${JSON.stringify({ error: { code, message } })}\n\n`);
      end();
    },
    signal: controller.signal,
  };
}
