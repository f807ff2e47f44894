import dns from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowingNetworks, FetchRefused, fetchPublicFile, isPublicAddress } from "./public-fetch.js";

describe("isPublicAddress", () => {
  it.each([
    ["8.8.8.8", true],
    ["1.1.1.1", true],
    ["2001:4860:4860::8888", true],
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["192.168.1.1", false],
    ["100.64.0.1", false],
    ["127.0.0.1", false],
    ["169.254.169.254", false],
    ["0.0.0.0", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["::", false],
    ["::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:8.8.8.8", true],
    ["fe80::1", false],
    ["fc00::1", false],
    ["fd12:3456::1", false],
    ["ff02::1", false],
    ["2002:7f00:1::1", false],
    ["64:ff9b::7f00:1", false],
    ["example.com", false],
    // IPv4-compatible, -mapped and -translated forms of loopback and of the metadata address.
    ["::7f00:1", false],
    ["::127.0.0.1", false],
    ["::ffff:7f00:1", false],
    ["0:0:0:0:0:ffff:7f00:1", false],
    ["::ffff:0:7f00:1", false],
    ["::ffff:a9fe:a9fe", false],
    ["::8.8.8.8", false],
    ["64:ff9b::a9fe:a9fe", false],
    ["64:ff9b::10.0.0.1", false],
    ["64:ff9b::808:808", true],
    ["64:ff9b:1::808:808", false],
    ["2002:7f00:1::", false],
    ["2002:808:808::1", false],
    ["2001:0:4136:e378::1", false],
    ["fe80::1%eth0", false],
    ["3fff::1", false],
    // Other spellings of 127.0.0.1 are not addresses (URLs are normalized before they get here).
    ["2130706433", false],
    ["0177.0.0.1", false],
    ["0x7f.1", false],
    ["127.1", false],
  ])("%s → %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    "http://[::7f00:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://2130706433/",
    "http://0177.0.0.1/",
    "http://0x7f.1/",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    "http://[::ffff:169.254.169.254]/",
    "http://0xa9fea9fe/",
  ])("the host of %s, as a URL gives it, is not public", (url) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    expect(isPublicAddress(host)).toBe(false);
  });
});

describe("allowingNetworks", () => {
  it("allows public addresses and those of the operator's networks, nothing else", () => {
    const allowed = allowingNetworks(["127.0.0.0/8", "10.20.0.0/16", "fd00::/8"]);
    expect(["8.8.8.8", "127.0.0.1", "10.20.3.4", "fd12::1", "::ffff:8.8.8.8"].map(allowed)).toEqual([true, true, true, true, true]);
    expect(["10.21.0.1", "192.168.1.1", "169.254.169.254", "::1", "fe80::1", "example.com"].map(allowed)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(allowingNetworks([])).toBe(isPublicAddress);
  });
});

describe("fetchPublicFile", () => {
  let server: http.Server;
  let base: string;
  const loopbackOnly = (address: string) => address === "127.0.0.1";
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/ok") return res.writeHead(200, { "content-type": "image/png; charset=binary" }).end(Buffer.from("png!"));
      if (req.url === "/big") return res.writeHead(200, { "content-length": "2048" }).end(Buffer.alloc(2048));
      if (req.url === "/stream") {
        res.writeHead(200);
        res.write(Buffer.alloc(800));
        res.write(Buffer.alloc(800));
        return res.end();
      }
      if (req.url === "/to-ok") return res.writeHead(302, { location: "/ok" }).end();
      if (req.url === "/to-private") return res.writeHead(302, { location: "http://10.0.0.1/x" }).end();
      if (req.url === "/loop") return res.writeHead(302, { location: "/loop" }).end();
      if (req.url === "/slow") return; // never answers
      if (req.url === "/stalls") return void res.writeHead(200, { "content-type": "application/json" }).write('{"partial":'); // body never ends
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const options = { maxBytes: 1024, timeoutMs: 2000, isAllowed: loopbackOnly };
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FetchRefused);
    return (error as Error).message;
  };

  it("fetches a file and its content type, following a checked redirect", async () => {
    expect(await fetchPublicFile(`${base}/ok`, options)).toEqual({ bytes: Buffer.from("png!"), contentType: "image/png" });
    expect((await fetchPublicFile(`${base}/to-ok`, options)).bytes.toString()).toBe("png!");
  });

  it("refuses what is too large, missing, slow, redirected too often or to a private address", async () => {
    expect(await refusal(fetchPublicFile(`${base}/big`, options))).toBe("the file is larger than 1024 bytes");
    expect(await refusal(fetchPublicFile(`${base}/stream`, options))).toBe("the file is larger than 1024 bytes");
    expect(await refusal(fetchPublicFile(`${base}/missing`, options))).toBe("the server answered 404");
    expect(await refusal(fetchPublicFile(`${base}/slow`, { ...options, timeoutMs: 200 }))).toBe("the server did not answer in time");
    const timedOut = await fetchPublicFile(`${base}/slow`, { ...options, timeoutMs: 200 }).catch((e: FetchRefused) => e);
    expect((timedOut as FetchRefused).timedOut).toBe(true);
    const missing = await fetchPublicFile(`${base}/missing`, options).catch((e: FetchRefused) => e);
    expect((missing as FetchRefused).timedOut).toBe(false);
    const stalled = await fetchPublicFile(`${base}/stalls`, { ...options, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(stalled).toBeInstanceOf(FetchRefused);
    expect(stalled).toMatchObject({ message: "the server did not answer in time", timedOut: true });
    expect(await refusal(fetchPublicFile(`${base}/loop`, options))).toBe("too many redirects (more than 3)");
    expect(await refusal(fetchPublicFile(`${base}/to-private`, options))).toBe("10.0.0.1 is not a public address");
  });

  it("refuses private addresses by default, including host names that resolve to one", async () => {
    const port = (server.address() as AddressInfo).port;
    expect(await refusal(fetchPublicFile(`${base}/ok`, { maxBytes: 1024, timeoutMs: 2000 }))).toBe("127.0.0.1 is not a public address");
    // The machine's own name resolves (through /etc/hosts) to one of its own, non-public addresses:
    // the check happens in the connection's DNS lookup.
    const name = os.hostname();
    const addresses = await dns.promises.lookup(name, { all: true }).catch(() => []);
    if (addresses.length > 0 && !addresses.every((a) => isPublicAddress(a.address))) {
      expect(await refusal(fetchPublicFile(`http://${name}:${port}/ok`, { maxBytes: 1024, timeoutMs: 2000 }))).toMatch(
        new RegExp(`^${name} resolves to .*, which is not a public address$`),
      );
    }
    for (const host of ["[::7f00:1]", "[::ffff:127.0.0.1]", "2130706433", "0177.0.0.1", "0x7f.1", "[64:ff9b::7f00:1]"]) {
      expect(await refusal(fetchPublicFile(`http://${host}:${port}/ok`, { maxBytes: 1024, timeoutMs: 2000 }))).toMatch(
        /is not a public address$/,
      );
    }
    expect(await refusal(fetchPublicFile("ftp://example.com/x", options))).toBe("only http and https URLs can be fetched, not ftp:");
    expect(await refusal(fetchPublicFile("not a url", options))).toBe("it is not a valid URL");
  });
});
