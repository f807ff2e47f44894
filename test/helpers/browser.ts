/**
 * The browser every page test uses: Debian's Chromium (apt-get install chromium, in .ci/run's
 * list) driven by playwright-core, headless, with nothing it would fetch on its own. One Chromium
 * serves the whole run (launched by test/global-setup.ts on the first request); each test file
 * connects to it and opens its own browser contexts, which share no cookies, storage or cache.
 */
import { type Browser, chromium } from "playwright-core";
import { inject } from "vitest";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

/**
 * A connection to the run's Chromium. `close()` on it disconnects this file and closes the contexts
 * it opened; the browser stays up for the other files. A missing binary fails with the command
 * that installs it.
 */
export async function connectChromium(): Promise<Browser> {
  const broker = inject("chromiumBroker");
  if (!broker) throw new Error("No Chromium broker: run the tests through vitest.config.ts (its globalSetup provides one).");
  const response = await fetch(broker);
  const answer = (await response.json()) as { wsEndpoint?: string; error?: string };
  if (!answer.wsEndpoint) throw new Error(`The run's Chromium could not be started: ${answer.error}`);
  return chromium.connect(answer.wsEndpoint, { timeout: 30_000 });
}
