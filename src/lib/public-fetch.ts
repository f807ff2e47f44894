/**
 * Fetching a file from a URL a user gave, without letting the user reach the server's own network
 * (SSRF): only http(s), no credentials in the URL, and every address the connection would use,
 * for the first request and each redirect, must be a public unicast address. The check runs in the
 * socket's own DNS lookup, so the address checked is the address connected to (a DNS answer cannot
 * change between the check and the connection). Size and time are bounded.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

export class FetchRefused extends Error {
  constructor(
    message: string,
    /** True when the fetch was abandoned because the server did not answer in time. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

// Special-purpose ranges (IANA registries for IPv4 and IPv6): none of them is a public host.
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  BLOCKED.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible addresses (::7f00:1 is ::127.0.0.1).
  ["::", 96],
  // IPv4-translated (SIIT).
  ["::ffff:0:0:0", 96],
  // Local-use NAT64 (the well-known prefix 64:ff9b::/96 is judged by the IPv4 address it carries).
  ["64:ff9b:1::", 48],
  ["100::", 64],
  // Teredo, benchmarking, ORCHID... (2001::/23), documentation.
  ["2001::", 23],
  ["2001:db8::", 32],
  // 6to4: it carries any IPv4 address, loopback included, and is deprecated.
  ["2002::", 16],
  ["3fff::", 20],
  ["5f00::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  BLOCKED.addSubnet(network, prefix, "ipv6");

/** The eight 16-bit groups of an IPv6 address (one `isIP` accepted, without a zone). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.map((group) => Number.parseInt(group, 16));
}

const embeddedIpv4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * True for an address a public host can have (not private, loopback, link-local, reserved...).
 * Only canonical IP text is an address here: other spellings of IPv4 (`2130706433`, `0177.0.0.1`,
 * `0x7f.1`) are not, and URLs reach this function normalized by the WHATWG parser (`127.0.0.1`).
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED.check(address, "ipv4");
  if (family !== 6) return false;
  // A zone (fe80::1%eth0) only ever qualifies a link-local address.
  if (address.includes("%")) return false;
  const groups = ipv6Groups(address);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // IPv4-mapped (::ffff:a.b.c.d) and the well-known NAT64 prefix (64:ff9b::a.b.c.d): the connection
  // reaches the IPv4 address they carry, which must be public itself.
  if (zeros(0, 5) && groups[5] === 0xffff) return isPublicAddress(embeddedIpv4(groups[6]!, groups[7]!));
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return isPublicAddress(embeddedIpv4(groups[6]!, groups[7]!));
  return !BLOCKED.check(address, "ipv6");
}

/**
 * An address policy: public addresses, plus those inside the networks an operator allowed
 * (`QUIRE_FETCH_ALLOW_NETWORKS`, CIDR notation, validated by the configuration).
 */
export function allowingNetworks(networks: readonly string[]): (address: string) => boolean {
  if (networks.length === 0) return isPublicAddress;
  const allowed = new BlockList();
  for (const network of networks) {
    const [address = "", prefix] = network.split("/");
    allowed.addSubnet(address, Number(prefix), isIP(address) === 6 ? "ipv6" : "ipv4");
  }
  return (address) => {
    if (isPublicAddress(address)) return true;
    const family = isIP(address);
    if (family === 0) return false;
    return allowed.check(address, family === 6 ? "ipv6" : "ipv4");
  };
}

export interface PublicFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  /** Which addresses may be connected to (tests allow loopback); default: public ones only. */
  isAllowed?: (address: string) => boolean;
}

export interface FetchedFile {
  bytes: Buffer;
  contentType: string | undefined;
}

/** GETs `url` (following at most `maxRedirects` redirects, each checked); throws FetchRefused with a reason. */
export async function fetchPublicFile(url: string, options: PublicFetchOptions): Promise<FetchedFile> {
  const allowed = options.isAllowed ?? isPublicAddress;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const target = checkUrl(current, allowed);
    const response = await request(target, allowed, options.maxBytes, signal);
    if (response.location === undefined) return response.file;
    if (redirects >= (options.maxRedirects ?? 3)) throw new FetchRefused(`too many redirects (more than ${options.maxRedirects ?? 3})`);
    current = new URL(response.location, target).toString();
  }
}

function checkUrl(raw: string, allowed: (address: string) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefused("it is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new FetchRefused(`only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new FetchRefused("URLs with credentials are not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !allowed(host)) throw new FetchRefused(`${host} is not a public address`);
  if (/^localhost$|\.localhost$|\.local$|\.internal$/i.test(host)) throw new FetchRefused(`${host} is not a public host name`);
  return url;
}

function safeLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find((a) => !allowed(a.address));
      if (refused || addresses.length === 0) {
        return callback(new FetchRefused(`${hostname} resolves to ${refused?.address ?? "nothing"}, which is not a public address`), "", 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function request(
  url: URL,
  allowed: (address: string) => boolean,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ file: FetchedFile; location?: undefined } | { file?: undefined; location: string }> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, { lookup: safeLookup(allowed), signal, headers: { "user-agent": "Quire", accept: "*/*" } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return resolve({ location: res.headers.location });
      }
      if (status < 200 || status >= 300) {
        res.resume();
        return reject(new FetchRefused(`the server answered ${status}`));
      }
      const declared = Number(res.headers["content-length"] ?? Number.NaN);
      if (declared > maxBytes) {
        res.destroy();
        return reject(new FetchRefused(`the file is larger than ${maxBytes} bytes`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          res.destroy();
          reject(new FetchRefused(`the file is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () =>
        resolve({ file: { bytes: Buffer.concat(chunks), contentType: res.headers["content-type"]?.split(";")[0]?.trim() || undefined } }),
      );
      res.on("error", (error) => reject(signal.aborted ? new FetchRefused("the server did not answer in time", true) : error));
    });
    req.on("error", (error) => {
      if (error instanceof FetchRefused) return reject(error);
      if (signal.aborted) return reject(new FetchRefused("the server did not answer in time", true));
      reject(new FetchRefused(`it could not be fetched (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    });
  });
}

/**
 * A `fetch` for protocol clients (openid-client's `customFetch`) under the same address policy:
 * every connection is checked in the socket's own DNS lookup, redirects are never followed (they
 * come back as responses, which such clients refuse), the answer is bounded in size and time.
 */
export function policyFetch(options: PublicFetchOptions): (url: string, init?: RequestInit) => Promise<Response> {
  const allowed = options.isAllowed ?? isPublicAddress;
  return async (raw, init = {}) => {
    const url = checkUrl(raw, allowed);
    const signal = init.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(options.timeoutMs)])
      : AbortSignal.timeout(options.timeoutMs);
    const headers: Record<string, string> = { "user-agent": "Quire" };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body === undefined || init.body === null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    if (body) headers["content-length"] = String(body.length);
    const client = url.protocol === "https:" ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const req = client.request(url, { method: init.method ?? "GET", headers, lookup: safeLookup(allowed), signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            reject(new FetchRefused(`the answer is larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) answerHeaders.append(name, one);
          }
          const status = res.statusCode ?? 502;
          const noBody = status === 204 || status === 304;
          resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers: answerHeaders }));
        });
        res.on("error", (error) => reject(signal.aborted ? new FetchRefused("the server did not answer in time", true) : error));
      });
      req.on("error", (error) => {
        if (error instanceof FetchRefused) return reject(error);
        if (signal.aborted) return reject(new FetchRefused("the server did not answer in time", true));
        reject(new FetchRefused(`it could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message})`));
      });
      req.end(body);
    });
  };
}
