/**
 * Questions and answers over a MessagePort, between a render running in a worker thread (which
 * asks for files, images, reusable contents) and the request thread that has the database (which
 * answers). Each question carries an id; its answer comes back with the same id, or an error whose
 * message is thrown on the asking side.
 */
import type { MessagePort, TransferListItem } from "node:worker_threads";

type Answered<A> = A & { id: number };
type Failed = { id: number; error: string };

/** The asking side. `close()` once the work is over; questions still waiting then fail. */
export function askOver<Q extends object, A extends object>(port: MessagePort): { ask(question: Q): Promise<A>; close(): void } {
  let next = 0;
  const pending = new Map<number, { resolve: (answer: A) => void; reject: (error: Error) => void }>();
  port.on("message", (answer: Answered<A> | Failed) => {
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    if ("error" in answer) waiting.reject(new Error(answer.error));
    else waiting.resolve(answer);
  });
  port.on("close", () => {
    for (const waiting of pending.values()) waiting.reject(new Error("the render's channel closed"));
    pending.clear();
  });
  return {
    ask: (question) =>
      new Promise<A>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        port.postMessage({ ...question, id });
      }),
    close: () => port.close(),
  };
}

/**
 * The answering side: answers each question on `port` with `answer`, until the port closes. What
 * `transfer` lists is moved to the other thread, not copied.
 */
export function answerOn<Q extends object, A extends object>(
  port: MessagePort,
  answer: (question: Q) => Promise<{ answer: A; transfer?: TransferListItem[] }>,
): void {
  port.on("message", async (question: Q & { id: number }) => {
    let reply: Answered<A> | Failed;
    let transfer: TransferListItem[] = [];
    try {
      const result = await answer(question);
      reply = { ...result.answer, id: question.id };
      transfer = result.transfer ?? [];
    } catch (error) {
      reply = { id: question.id, error: error instanceof Error ? error.message : String(error) };
    }
    // Once the work is over (or aborted) the port is closed and the answer goes nowhere.
    port.postMessage(reply, transfer);
  });
}
