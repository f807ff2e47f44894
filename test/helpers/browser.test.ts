/**
 * The run's Chromium (test/global-setup.ts, test/helpers/browser.ts): one browser for every browser
 * test file, each connection with browser contexts of its own.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { connectChromium } from "./browser.js";

// A page that sets a cookie, and one that shows the cookies it was sent.
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === "/set") response.writeHead(200, { "set-cookie": "seen=1; Path=/", "content-type": "text/plain" }).end("set");
    else response.writeHead(200, { "content-type": "text/plain" }).end(`cookies: ${request.headers.cookie ?? ""}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const endpoint = async () => ((await (await fetch(inject("chromiumBroker"))).json()) as { wsEndpoint: string }).wsEndpoint;

it("serves every connection from one Chromium, with contexts that share nothing, and outlives a connection that closes", async () => {
  const first = await connectChromium();
  const second = await connectChromium();
  expect(await endpoint()).toBe(await endpoint());
  expect(first.version()).toBe(second.version());

  const mine = await (await first.newContext()).newPage();
  await mine.goto(`${base}/set`);
  await mine.goto(`${base}/get`);
  expect(await mine.textContent("body")).toBe("cookies: seen=1");
  const theirs = await (await second.newContext()).newPage();
  await theirs.goto(`${base}/get`);
  expect(await theirs.textContent("body")).toBe("cookies: ");
  // Another context of the same connection is as separate.
  const again = await (await first.newContext()).newPage();
  await again.goto(`${base}/get`);
  expect(await again.textContent("body")).toBe("cookies: ");

  // A file that finishes disconnects: its contexts go, the browser stays for the others.
  await first.close();
  expect(first.contexts()).toEqual([]);
  await theirs.reload();
  expect(await theirs.textContent("body")).toBe("cookies: ");
  const third = await connectChromium();
  const later = await (await third.newContext()).newPage();
  await later.goto(`${base}/get`);
  expect(await later.textContent("body")).toBe("cookies: ");
  await third.close();
  await second.close();
});
