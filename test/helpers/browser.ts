/**
 * The browser every page test uses: Debian's Chromium (apt-get install chromium, in .ci/run's
 * list) driven by playwright-core, headless, with nothing it would fetch on its own.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Launches Chromium; a missing binary fails with the command that installs it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run .ci/run's apt-get line (chromium).`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}
