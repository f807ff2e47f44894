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
  ["::", 127],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  BLOCKED.addSubnet(network, prefix, "ipv6");

/** True for an address a public host can have (not private, loopback, link-local, reserved...). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED.check(address, "ipv4");
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  if (/^::ffff:/i.test(address)) return false;
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
