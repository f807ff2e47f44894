/**
 * A real repository read as readers and agents read it: imports a bare repository through the Git
 * import, publishes it, and asks the site for every page (HTML and `.md`), llms.txt, llms-full.txt,
 * and, for each tenth page, a search for its title (which must find it); prints every answer that
 * is not a 200, every page without its <h1> or with empty Markdown, and every search that missed.
 * Meant to find what tidy fixtures do not hold, on repositories written by other people:
 *
 *   npx tsx scripts/site-crawl.ts <bare repository> [<ref>]
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { benchApp, importRepo } from "../bench/seed.js";

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" };
const [repo, givenRef] = process.argv.slice(2);
if (!repo || !fs.existsSync(repo)) {
  console.error("usage: npx tsx scripts/site-crawl.ts <bare repository> [<ref>]");
  process.exit(2);
}

// The repository's own branch when none is given (bare snapshots name theirs in HEAD).
const ref = givenRef ?? execFileSync("git", ["-C", repo, "symbolic-ref", "HEAD"], { encoding: "utf8" }).trim();
const bench = await benchApp({ tmpPrefix: "quire-crawl-", publicUrl: "http://127.0.0.1:9" });
const { app, handle, config, secret, organization, auth } = bench;
try {
  const space = await app.inject({ method: "POST", url: `/v1/orgs/${organization.id}/spaces`, headers: auth, payload: { title: "Docs" } });
  const spaceId = space.json().id as string;
  await importRepo(
    { db: handle.db, dialect: handle.dialect, config, secret },
    { spaceId, actorId: bench.user.id, url: pathToFileURL(repo).href, ref },
  );
  const site = await app.inject({
    method: "POST",
    url: `/v1/orgs/${organization.id}/sites`,
    headers: auth,
    payload: { title: path.basename(repo), spaces: [spaceId] },
  });
  const { id: siteId, basename } = site.json() as { id: string; basename: string };
  const published = await app.inject({ method: "POST", url: `/v1/orgs/${organization.id}/sites/${siteId}/publish`, headers: auth });
  if (published.statusCode >= 300) throw new Error(`publish: ${published.statusCode} ${published.body}`);
  const root = `/s/${basename}`;
  const problems: string[] = [];
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method: "GET", url, headers });
    if (res.statusCode !== 200) problems.push(`${res.statusCode} ${url}: ${res.body.slice(0, 200)}`);
    return res;
  };
  const llms = await get(`${root}/llms.txt`);
  await get(`${root}/llms-full.txt`);
  const paths = [...llms.body.matchAll(/\]\(http:\/\/127\.0\.0\.1:9([^)]+)\.md\)/g)].map((m) => m[1]!);
  let checked = 0;
  for (const [i, p] of paths.entries()) {
    const html = await get(p);
    const md = await get(`${p}.md`);
    if (html.statusCode === 200 && !/<h1[\s>]/.test(html.body)) problems.push(`no <h1> in ${p}`);
    if (md.statusCode === 200 && md.body.trim() === "") problems.push(`empty Markdown for ${p}`);
    if (i % 10 === 0) {
      // The page's own title, searched for, finds the page (among the first ten).
      const title = (/<h1[^>]*>([^<]*)</.exec(html.body)?.[1] ?? "")
        .replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ENTITIES[e]!)
        .trim();
      if (title) {
        await get(`${root}/~quire/search?q=${encodeURIComponent(title)}`);
        const json = await get(`${root}/~quire/search.json?q=${encodeURIComponent(title)}`);
        // The home page is found at the site's root, its canonical address.
        const canonical = /<link rel="canonical" href="https?:\/\/[^/]+([^"]*)"/.exec(html.body)?.[1] ?? p;
        const found = (at: string) => json.body.includes(`"${at}"`) || json.body.includes(`"${at}#`);
        if (json.statusCode === 200 && !found(p) && !found(canonical))
          problems.push(`searching ${JSON.stringify(title)} does not find ${p}`);
      }
    }
    checked++;
  }
  const pagesApi = await app.inject({ method: "GET", url: `/v1/spaces/${spaceId}/content/pages`, headers: auth });
  console.log(
    `${path.basename(repo)}: ${paths.length} pages in llms.txt, ${checked} crawled (HTML + .md), API pages ${pagesApi.statusCode}; ${problems.length} problem(s)`,
  );
  for (const p of problems.slice(0, 50)) console.log(`  ${p}`);
} finally {
  await bench.close();
}
