/** A script of the app's pages (a `.client.ts` text), revalidated on each use so that a new version is picked up at once. */
import { publicHandler, type WebHandler } from "../../web.kinds.js";

export function clientScript(source: string): WebHandler {
  return publicHandler({}, async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(source),
  );
}
