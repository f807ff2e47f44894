/**
 * "A page opened in the editor and saved without a change gives the identical document", on real
 * repositories, through the real pieces: each repository is imported through Git (the git-import
 * job), every page of a change request is opened in the block editor in Chromium (the edit page,
 * its bundle, Tiptap, y-prosemirror and every plugin that runs on load), and what a save would send
 * (the editor's snapshot, keys assigned as before a save) is read back as the server reads it
 * (`checkEditorDoc`, `fromEditorDoc`) and compared with the page's stored document. The editor
 * saves over HTTP here: its document comes from the page, as with collaboration it comes from the
 * server's Y.Doc (the same conversion, measured through Yjs by bench/editor-roundtrip.ts).
 *
 *   npx tsx bench/editor-roundtrip-browser.ts [bare repository ...]   (default: every repository in /work/corpus)
 *
 * Prints one row per repository (pages, identical, different, the first differences) and the
 * slowest page to open.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { createLoginLink } from "../src/apps/web/web.queries.js";
import { withHeadingAnchors } from "../src/content/document/anchor.js";
import { checkEditorDoc, fromEditorDoc } from "../src/content/editor/index.js";
import { freePort } from "../test/helpers/ports.js";
import { firstDifference } from "./json-diff.js";
import { benchApp, importRepo } from "./seed.js";

const CORPUS = "/work/corpus";
const repos =
  process.argv.length > 2 ? process.argv.slice(2) : fs.existsSync(CORPUS) ? fs.readdirSync(CORPUS).map((d) => path.join(CORPUS, d)) : [];
if (repos.length === 0) {
  console.error(`usage: tsx bench/editor-roundtrip-browser.ts <bare repository> ... (none given and none in ${CORPUS})`);
  process.exit(2);
}

const sortKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortKeys)
    : value && typeof value === "object"
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
        )
      : value;

interface PageEntry {
  id: string;
  path: string;
}

function documentPages(pages: Array<{ id: string; type: string; path?: string; pages?: unknown[] }>, out: PageEntry[] = []): PageEntry[] {
  for (const page of pages) {
    if (page.type === "document") out.push({ id: page.id, path: page.path ?? page.id });
    if (Array.isArray(page.pages)) documentPages(page.pages as typeof pages, out);
  }
  return out;
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const bench = await benchApp({
    tmpPrefix: "quire-bench-roundtrip-",
    publicUrl: base,
    env: { QUIRE_PUBLIC_URL: base, QUIRE_COLLAB: "false" },
  });
  const { app, handle, organization, token, user } = bench;
  await app.listen({ port, host: "127.0.0.1" });
  const auth = { authorization: `Bearer ${token}` };
  const api = async (method: string, url: string, payload?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...auth, ...(payload ? { "content-type": "application/json" } : {}) },
      body: payload ? JSON.stringify(payload) : null,
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const rows: string[] = [];
  let total = 0;
  let identicalTotal = 0;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    const { token: login } = await createLoginLink(handle.db, user.id);
    await page.goto(`${base}/app/login/link/${login}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/app`);

    for (const repo of repos) {
      const name = path.basename(repo);
      const ref = execFileSync("git", ["-C", repo, "symbolic-ref", "HEAD"], { encoding: "utf8" }).trim();
      const space = await api("POST", `/v1/orgs/${organization.id}/spaces`, { title: name.slice(0, 50) });
      const imported = await importRepo(
        { db: handle.db, dialect: handle.dialect, config: bench.config, secret: bench.secret },
        { spaceId: space.id, actorId: user.id, url: `file://${path.resolve(repo)}`, ref },
      );
      const cr = await api("POST", `/v1/spaces/${space.id}/change-requests`, { subject: "Round trip" });
      const content = await api("GET", `/v1/spaces/${space.id}/change-requests/${cr.id}/content`);
      const pages = documentPages(content.pages);
      let identical = 0;
      const differences: string[] = [];
      let slowest = { ms: 0, path: "" };
      for (const entry of pages) {
        const stored = (await api("GET", `/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${entry.id}`)).document;
        const started = performance.now();
        await page.goto(`${base}/app/o/${organization.id}/s/${space.id}/~/changes/${cr.number}/p/${entry.id}/edit`);
        await page.locator('#quire-editor[data-ready="true"]').waitFor({ timeout: 120_000 });
        // What a save sends, once the plugins that run on load have run (one frame).
        const sent = await page.evaluate(
          () =>
            new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve((window as any).quireEditor.snapshot(true)), 0))),
        );
        const ms = performance.now() - started;
        if (ms > slowest.ms) slowest = { ms, path: entry.path };
        let difference: string | undefined;
        try {
          checkEditorDoc(sent as never);
          // The API adds every heading's anchor (`meta.id`) to what it answers: so does the comparison.
          difference = firstDifference(sortKeys(withHeadingAnchors(fromEditorDoc(sent as never))), sortKeys(stored));
        } catch (error) {
          difference = `refused by the server's check: ${error instanceof Error ? error.message : String(error)}`;
        }
        if (difference) differences.push(`${entry.path}: ${difference}`);
        else identical++;
      }
      total += pages.length;
      identicalTotal += identical;
      rows.push(
        `| ${name} | ${pages.length} | ${identical} | ${pages.length - identical} | ${(imported.ms / 1000).toFixed(1)} s | ${(slowest.ms / 1000).toFixed(2)} s (${slowest.path}) | ${differences
          .slice(0, 3)
          .join("; ")
          .replaceAll("|", "\\|")} |`,
      );
      if (process.env.BENCH_ALL_DIFFERENCES) for (const d of differences) console.error(`  ${d}`);
      console.error(`${name}: ${pages.length} pages, ${identical} identical`);
    }
    if (problems.length) console.log(`script errors in the editor: ${problems.slice(0, 5).join("; ")}`);
  } finally {
    await browser.close();
    await bench.close();
  }
  console.log("| repository | pages | identical | different | Git import | slowest page to open and snapshot | first differences |");
  console.log("|---|---:|---:|---:|---:|---|---|");
  for (const row of rows) console.log(row);
  console.log(`\n${identicalTotal} of ${total} pages opened in the editor and saved without a change give the identical document.`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
