/**
 * What request logs may show of a URL. Signed download URLs (`?sig=`) and PDF links (`/pdf/<token>`)
 * are capabilities valid for one to two hours: anyone reading the log could use them. Their
 * signature and token are replaced by `[redacted]`; the rest of the URL stays for debugging.
 */
import type { FastifyRequest } from "fastify";

const REDACTED = "[redacted]";

/** Query parameters whose values grant access. */
const SECRET_PARAMETERS = new Set(["sig", "signature", "token", "key"]);

/** Path prefixes whose next segment is a capability. */
const CAPABILITY_PREFIXES = ["/pdf/"];

export function redactUrl(url: string): string {
  const query = url.indexOf("?");
  let path = query < 0 ? url : url.slice(0, query);
  for (const prefix of CAPABILITY_PREFIXES) {
    if (path.startsWith(prefix) && path.length > prefix.length) {
      const end = path.indexOf("/", prefix.length);
      path = `${prefix}${REDACTED}${end < 0 ? "" : path.slice(end)}`;
    }
  }
  if (query < 0) return path;
  const parts = url
    .slice(query + 1)
    .split("&")
    .map((part) => {
      const eq = part.indexOf("=");
      const name = eq < 0 ? part : part.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, " "));
      } catch {
        // A malformed name is logged as sent.
      }
      return eq >= 0 && SECRET_PARAMETERS.has(decoded.toLowerCase()) ? `${name}=${REDACTED}` : part;
    });
  return `${path}?${parts.join("&")}`;
}

/** The `req` serializer of request logs: Fastify's fields, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
