/**
 * Git sync end to end: real remotes (bare repositories over file:// and over smart HTTP served by
 * `git http-backend`), the import and export jobs run by the worker, and the content read back.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, storeLegacyPageChain } from "../../../test/helpers/content.factories.js";
import { contractClient } from "../../../test/helpers/contract.js";
import { createOrgWithRoles } from "../../../test/helpers/factories.js";
import { makePng } from "../../../test/helpers/generate-repo.js";
import { commitFiles, createBareRepo, loadFixture, logOf, readRepoFiles, serveGitOverHttp } from "../../../test/helpers/git.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { stripKeys } from "../../content/document/keys.js";
import { listGitRedirects } from "./git-redirects.queries.js";

let ctx: TestContext;
beforeAll(async () => {
  // Test remotes: bare repositories under the temp directory, `git http-backend` on loopback.
  ctx = await createTestContext({ config: { gitAllowFileUrls: true, fetchAllowNetworks: ["127.0.0.0/8"] } });
});
afterAll(() => ctx.close());

type Page = { id: string; title: string; type: string; path?: string; pages?: Page[]; documentId?: string };
const flatten = (pages: Page[]): Page[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Synced" });
  return { ...roles, space };
}

async function importNow(user: Parameters<TestContext["as"]>[0], spaceId: string, body: Record<string, unknown>) {
  const res = await ctx.as(user).post(`/v1/spaces/${spaceId}/git/import`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(204);
  await ctx.worker.drain();
  return (await ctx.as(user).get(`/v1/spaces/${spaceId}/git/info`)).body;
}

describe("POST /v1/spaces/{spaceId}/git/import", () => {
  it("keeps the first 100 warnings of an import, the last saying how many more there were", async () => {
    const { owner, space } = await setup();
    const sections = Array.from({ length: 120 }, (_, i) => `# Section ${i}\n\nText ${i}.\n`).join("\n");
    const repo = createBareRepo({ "README.md": `# Home\n\n${sections}`, "SUMMARY.md": "* [Home](README.md)\n" });
    try {
      const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.lastImport.warnings).toHaveLength(100);
      expect(info.lastImport.warnings[0]).toMatch(/^README\.md: line 3: a second # heading/);
      expect(info.lastImport.warnings[99]).toBe("21 more warnings not shown (120 in all)");
    } finally {
      repo.cleanup();
    }
  });

  it("links to Markdown files of the repository that SUMMARY does not list stay URLs and count as broken, once per link", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo({
      "README.md":
        "# Home\n\n[Listed](other.md), [unlisted](unlisted.md) and [again](./unlisted.md#part).\n\n![used](.gitbook/assets/used.png)\n",
      "SUMMARY.md": "* [Home](README.md)\n* [Other](other.md)\n",
      "other.md": "# Other\n\nBack to [unlisted](unlisted.md).\n",
      "unlisted.md": "# Unlisted\n",
      ".gitbook/assets/used.png": makePng(2, 2),
      ".gitbook/assets/unused.png": makePng(3, 3),
    });
    try {
      const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.lastImport.warnings).toEqual([
        "1 Markdown file(s) are not listed in SUMMARY.md and were ignored: unlisted.md",
        "1 file(s) under .gitbook/assets are not used by any page and were not imported: .gitbook/assets/unused.png",
        "Links to 1 file(s) of the repository that are not imported (outside the content root, or Markdown that SUMMARY.md does not list) stay as written: give the import the repository's web address (repoTreeURL) to link them there: unlisted.md",
      ]);
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
      expect(content.files.map((f: { name: string }) => f.name)).toEqual(["used.png"]);
      const links = (await ctx.as(owner).get(`/v1/spaces/${space.id}/links`)).body;
      // other.md (ok), the image (ok), unlisted.md written three ways in two pages (broken).
      expect(links.stats).toEqual({ total: 5, broken: { total: 3 } });
      const broken = links.items.filter((i: { status: string }) => i.status === "broken");
      expect(broken.map((i: { targetReference: { url: string } }) => i.targetReference.url).sort()).toEqual([
        "./unlisted.md#part",
        "unlisted.md",
      ]);
    } finally {
      repo.cleanup();
    }
  });

  it("records where the pages are in the repository (project directory and .gitbook.yaml root) for edit links", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo({
      "docs/.gitbook.yaml": "root: ./content/\n",
      "docs/content/README.md": "# Home\n\nHello.\n",
      "docs/content/SUMMARY.md": "* [Home](README.md)\n* [Guide](guide/start.md)\n",
      "docs/content/guide/start.md": "# Start\n",
    });
    try {
      const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main", repoProjectDirectory: "docs" });
      expect(info.lastImport.status).toBe("succeeded");
      expect(info.contentRoot).toBe("docs/content");
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
      expect(flatten(content.pages).map((p: Page) => p.title)).toEqual(["Home", "Start"]);
    } finally {
      repo.cleanup();
    }
  });

  it("imports a GitBook repository: page tree from SUMMARY, files, includes, variables, resolved links", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo(loadFixture("gitbook-docs"));
    try {
      const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      expect(info.lastImport).toMatchObject({ status: "succeeded", commit: repo.commit });
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
      expect(content.git).toMatchObject({ oid: repo.commit, createdByService: false, ref: "refs/heads/main" });
      expect(content.pages.map((p: Page) => `${p.type}:${p.title}`)).toEqual([
        "document:Welcome to Example",
        "group:Getting started",
        "group:Guides",
        "group:Reference",
      ]);
      const all = flatten(content.pages);
      const quickstart = all.find((p) => p.title === "Quickstart")!;
      expect(quickstart.path).toBe("start/quickstart"); // the group slug is pinned by its <a id="start"> anchor
      expect(all.find((p) => p.title === "Linux")?.path).toBe("start/installation/linux");
      expect(all.some((p) => p.type === "link" && p.title === "Status page")).toBe(true);
      expect(all.some((p) => p.title === "unlisted")).toBe(false);
      const image = content.files.find((f: { name: string }) => f.name === "image (1).png");
      expect(image).toMatchObject({ contentType: "image/png", git: { path: ".gitbook/assets/image (1).png" } });
      expect(image.dimensions.width).toBeGreaterThan(0);
      expect(content.reusableContents.length).toBeGreaterThan(0);
      expect(Object.keys(content.variables).length).toBeGreaterThan(0);
      // The image reference became a file reference of the revision.
      const page = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${quickstart.id}`)).body;
      expect(JSON.stringify(page.document)).toContain(`"file":"${image.id}"`);
      expect(page.description).toBe("Up and running in five minutes.");
      expect(page.cover?.ref).toMatchObject({ kind: "file" });
    } finally {
      repo.cleanup();
    }
  });

  it("keeps page ids and unchanged documents across re-imports, and skips a commit already imported", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo({
      "README.md": "# Home\n\nHello.\n",
      "SUMMARY.md": "* [Home](README.md)\n* [Guide](guide.md)\n",
      "guide.md": "# Guide\n\nFirst.\n\nSecond.\n",
    });
    try {
      await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      const first = flatten((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages);
      const again = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      expect(again.lastImport).toMatchObject({ status: "skipped", message: expect.stringMatching(/already/) });

      const second = commitFiles(repo.dir, { "guide.md": "# Guide\n\nFirst.\n\nSecond, edited.\n" });
      await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
      expect(content.git.oid).toBe(second);
      const next = flatten(content.pages);
      expect(next.map((p) => p.id)).toEqual(first.map((p) => p.id));
      expect(next[0]!.documentId).toBe(first[0]!.documentId);
      expect(next[1]!.documentId).not.toBe(first[1]!.documentId);
      const before = (await ctx.as(owner).get(`/v1/spaces/${space.id}/revisions/${content.parents[0]}/page/${first[1]!.id}/document`)).body;
      const after = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${first[1]!.id}`)).body.document;
      // The unchanged paragraph keeps its key, so change requests can merge at block level.
      expect(after.nodes[0].key).toBe(before.nodes[0].key);
      expect(stripKeys(after.nodes[0])).toEqual(stripKeys(before.nodes[0]));

      const forced = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main", force: true });
      expect(forced.lastImport.status).toBe("succeeded");
    } finally {
      repo.cleanup();
    }
  });

  it("refuses URLs outside the policy with a 400 naming the reason", async () => {
    const { owner, space } = await setup();
    const noFile = await createTestContext();
    try {
      const { owner: o2, org } = await createOrgWithRoles(noFile);
      const s2 = await noFile.as(o2).post(`/v1/orgs/${org.id}/spaces`, {});
      const res = await noFile.as(o2).post(`/v1/spaces/${s2.body.id}/git/import`, { url: "file:///tmp/x.git", ref: "refs/heads/main" });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/QUIRE_GIT_ALLOW_FILE_URLS=true/);
    } finally {
      await noFile.close();
    }
    const refused: [string, string][] = [
      ["ext::sh -c touch% /tmp/pwned", 'The Git URL "ext::sh -c touch% /tmp/pwned" contains whitespace or control characters'],
      [
        "ssh://git@example.com/x.git",
        'The Git URL scheme "ssh:" is not allowed (only https:// and http://); got "ssh://***@example.com/x.git"',
      ],
      [
        "git@example.com:x.git",
        'The Git URL "git@example.com:x.git" is not an absolute URL (local paths and scp-like "host:path" addresses are not allowed); use an https:// URL',
      ],
      ["-uhello", 'The Git URL "-uhello" must not start with "-"'],
    ];
    for (const [url, message] of refused) {
      const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url, ref: "refs/heads/main" });
      expect(res.status, url).toBe(400);
      expect(res.body.error.message, url).toBe(message);
    }
    const badRef = await ctx
      .as(owner)
      .post(`/v1/spaces/${space.id}/git/import`, { url: "https://example.com/x.git", ref: "main; rm -rf /" });
    expect(badRef.status).toBe(400);
    expect(badRef.body.error.message).toBe(
      'Invalid Git ref "main; rm -rf /": it does not start with refs/heads/ or refs/tags/; expected refs/heads/<branch> or refs/tags/<tag>',
    );
    const escaping = await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, {
      url: "https://example.com/x.git",
      ref: "refs/heads/main",
      repoProjectDirectory: "../../etc",
    });
    expect(escaping.status).toBe(400);
    expect(escaping.body.error.message).toBe('repoProjectDirectory "../../etc" is refused: it contains a ".." segment.');
    expect(
      (await ctx.db.selectFrom("jobs").selectAll().where("kind", "=", "git-import").execute()).filter((j) => j.payload.includes(space.id)),
    ).toEqual([]);
  });

  it("refuses by default remotes on the server's own network, any spelling, and file:// outside the root or an absolute project directory", async () => {
    const defaults = await createTestContext({ config: { gitAllowFileUrls: true } });
    const repo = createBareRepo({ "README.md": "# x\n" });
    try {
      const { owner: o2, org } = await createOrgWithRoles(defaults);
      const s2 = (await defaults.as(o2).post(`/v1/orgs/${org.id}/spaces`, {})).body;
      const server = await serveGitOverHttp(repo.dir);
      const port = new URL(server.url).port;
      try {
        for (const host of [
          "127.0.0.1",
          "[::1]",
          "[::7f00:1]",
          "[::ffff:127.0.0.1]",
          "2130706433",
          "0177.0.0.1",
          "0x7f.1",
          "169.254.169.254",
        ]) {
          const url = `http://user:pw-S3CRET@${host}:${port}/remote.git`;
          const res = await defaults.as(o2).post(`/v1/spaces/${s2.id}/git/import`, { url, ref: "refs/heads/main" });
          expect(res.status, host).toBe(400);
          expect(res.body.error.message, host).toMatch(
            /is refused by policy: .* is not a public address\. Quire connects only to public addresses/,
          );
          expect(res.body.error.message).not.toContain("S3CRET");
        }
      } finally {
        await server.close();
      }
      const outside = await defaults.as(o2).post(`/v1/spaces/${s2.id}/git/import`, { url: "file:///etc", ref: "refs/heads/main" });
      expect(outside.status).toBe(400);
      expect(outside.body.error.message).toBe(
        'The file:// Git URL "file:///etc" is outside the directory file:// remotes must be in (QUIRE_GIT_FILE_ROOT)',
      );
      const absolute = await defaults
        .as(o2)
        .post(`/v1/spaces/${s2.id}/git/import`, { url: repo.url, ref: "refs/heads/main", repoProjectDirectory: "/etc" });
      expect(absolute.status).toBe(400);
      expect(absolute.body.error.message).toBe(
        'repoProjectDirectory "/etc" is refused: it is absolute; give a path relative to the repository\'s top.',
      );
      const relative = await defaults
        .as(o2)
        .post(`/v1/spaces/${s2.id}/git/import`, { url: repo.url, ref: "refs/heads/main", repoProjectDirectory: "./docs/" });
      expect(relative.status).toBe(204);
    } finally {
      repo.cleanup();
      await defaults.close();
    }
  });

  it("a host name on the server's own network fails with the message of any unreachable remote; the reason is only in the log", async () => {
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    const defaults = await createTestContext({ log });
    const repo = createBareRepo({ "README.md": "# x\n" });
    const server = await serveGitOverHttp(repo.dir);
    try {
      const { owner: o2, org } = await createOrgWithRoles(defaults);
      const s2 = (await defaults.as(o2).post(`/v1/orgs/${org.id}/spaces`, {})).body;
      const url = server.urlWith("deploy", "t0ken-S3CRET").replace("127.0.0.1", "localhost");
      const res = await defaults.as(o2).post(`/v1/spaces/${s2.id}/git/import`, { url, ref: "refs/heads/main" });
      expect(res.status).toBe(204);
      await defaults.worker.drain();
      const info = (await defaults.as(o2).get(`/v1/spaces/${s2.id}/git/info`)).body;
      // Retried like a network failure (a name may resolve elsewhere later), with the same message.
      expect(info.lastImport.status).toBe("pending");
      expect(info.lastImport.message).toMatch(/^Retrying after: The remote http:\/\/localhost:\d+\/remote\.git could not be reached: /);
      expect(info.lastImport.message).not.toMatch(/127\.0\.0\.1|::1|resolves/);
      expect(server.requests).toEqual([]);
      const logged = lines.join("\n");
      expect(logged).toMatch(/localhost resolves to .*refused by the address policy/);
      expect(logged).not.toContain("t0ken-S3CRET");
      expect(JSON.stringify(info)).not.toContain("t0ken-S3CRET");
    } finally {
      await server.close();
      repo.cleanup();
      await defaults.close();
    }
  });

  it("uses credentials from the URL without ever storing, logging or returning them", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo({ "README.md": "# Private docs\n" });
    const server = await serveGitOverHttp(repo.dir, { username: "deploy", password: "s3cr3t-t0ken" });
    try {
      const url = server.urlWith("deploy", "s3cr3t-t0ken");
      const res = await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url, ref: "refs/heads/main" });
      expect(res.status).toBe(204);
      const jobs = await ctx.db.selectFrom("jobs").select("payload").where("kind", "=", "git-import").execute();
      expect(JSON.stringify(jobs)).not.toContain("s3cr3t-t0ken");
      await ctx.worker.drain();
      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastImport.status).toBe("succeeded");
      expect(JSON.stringify(info)).not.toContain("s3cr3t");
      const spaceRow = await ctx.db.selectFrom("spaces").select("gitSync").where("id", "=", space.id).executeTakeFirstOrThrow();
      expect(spaceRow.gitSync).not.toContain("s3cr3t");
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages[0].title).toBe("Private docs");

      await importNow(owner, space.id, { url: server.urlWith("deploy", "wrong-password"), ref: "refs/heads/main", force: true });
      const failed = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(failed.lastImport.status).toBe("failed");
      expect(failed.lastImport.message).not.toContain("wrong-password");
    } finally {
      await server.close();
      repo.cleanup();
    }
  });

  it("imports a page of 20 KB of alternating quote and list nesting at the first attempt, flattened with a warning", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo({
      "README.md": `# Deep\n\n${"> - ".repeat(5000)}bottom\n`,
      "SUMMARY.md": "* [Deep](README.md)\n* [Other](other.md)\n",
      "other.md": "# Other\n\nFine.\n",
    });
    try {
      const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      expect(info.lastImport.status, JSON.stringify(info.lastImport)).toBe("succeeded");
      expect(info.lastImport.warnings).toEqual(["README.md: 1 lines nested deeper than GitBook can show were brought back to 50 levels"]);
      const jobs = await ctx.db
        .selectFrom("jobs")
        .select(["state", "attempts"])
        .where("kind", "=", "git-import")
        .where("payload", "like", `%${space.id}%`)
        .execute();
      expect(jobs).toEqual([{ state: "succeeded", attempts: 1 }]);
      const content = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
      const page = flatten(content.pages).find((p: Page) => p.title === "Deep")!;
      const markdown = await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${page.id}?format=markdown`);
      expect(markdown.status).toBe(200);
      expect(markdown.body.markdown).toContain("bottom");
    } finally {
      repo.cleanup();
    }
  });

  it("refuses a page tree deeper than 50 levels (folders or SUMMARY.md) at the first attempt, and keeps the content readable", async () => {
    const { owner, space } = await setup();
    await commitContent(ctx, space.id, { pages: [{ title: "Existing", paragraphs: ["keep me"] }] });
    const folders: Record<string, string> = { "README.md": "# Home\n" };
    for (let dir = "d", i = 0; i < 60; i++, dir += "/d") folders[`${dir}/README.md`] = `# Level ${i + 1}\n`;
    const summary = Array.from({ length: 60 }, (_, i) => `${"  ".repeat(i)}* [P${i}](p${i}.md)`).join("\n");
    const cases: [Record<string, string>, RegExp][] = [
      [
        folders,
        new RegExp(
          `^The folder "${"d/".repeat(49)}d" is 50 folders deep: its pages would be 51 levels deep, more than the 50 levels Quire keeps \\(each folder is a page over its files\\); move it up, or list the pages in a SUMMARY\\.md$`,
        ),
      ],
      [
        { "README.md": "# Home\n", "SUMMARY.md": `${summary}\n` },
        /^SUMMARY\.md line 51 nests pages more than 50 levels deep, the most Quire keeps; list them less deep$/,
      ],
      // One line of 5,000 list markers: refused, not a stack overflow.
      [
        { "README.md": "# Home\n", "SUMMARY.md": `${"* ".repeat(5000)}[x](x.md)\n` },
        /^SUMMARY\.md line 1 nests pages more than 50 levels deep/,
      ],
      // A group adds a level above the lists.
      [
        {
          "README.md": "# Home\n",
          "SUMMARY.md": `## Group\n\n${Array.from({ length: 50 }, (_, i) => `${"  ".repeat(i)}* [P${i}](p${i}.md)`).join("\n")}\n`,
        },
        /^The page tree of SUMMARY\.md is 51 levels deep, more than the 50 levels Quire keeps; nest the pages less deep$/,
      ],
    ];
    for (const [files, message] of cases) {
      const repo = createBareRepo(files);
      try {
        const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
        expect(info.lastImport.status, JSON.stringify(info.lastImport)).toBe("failed");
        expect(info.lastImport.message).toMatch(message);
      } finally {
        repo.cleanup();
      }
    }
    const jobs = await ctx.db
      .selectFrom("jobs")
      .select(["state", "attempts"])
      .where("kind", "=", "git-import")
      .where("payload", "like", `%${space.id}%`)
      .execute();
    expect(jobs).toEqual(cases.map(() => ({ state: "failed", attempts: 1 })));
    const content = await ctx.as(owner).get(`/v1/spaces/${space.id}/content`);
    expect(content.status).toBe(200);
    expect(content.body.pages.map((p: Page) => p.title)).toEqual(["Existing"]);
  }, 120_000);

  it("reads a space whose page tree was stored deeper than 50 levels, and the next good import replaces it", async () => {
    const { owner, space } = await setup();
    const ids = await storeLegacyPageChain(ctx, space.id, 300, (level) => `${"d/".repeat(level)}README.md`);
    for (const path of ["content", "content/pages", `content/page/${ids[299]}`]) {
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/${path}`)).status, path).toBe(200);
    }
    const pages = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages;
    const all = flatten(pages);
    expect(all).toHaveLength(300);
    expect(all.find((p) => p.id === ids[299])).toBeDefined();
    // A good import: the pages of the same Git paths keep their ids.
    const files: Record<string, string> = { "README.md": "# Home\n" };
    for (let dir = "d", i = 0; i < 10; i++, dir += "/d") files[`${dir}/README.md`] = `# Level ${i + 1}\n`;
    const repo = createBareRepo(files);
    try {
      const info = await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main" });
      expect(info.lastImport.status, JSON.stringify(info.lastImport)).toBe("succeeded");
      const after = flatten((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.pages);
      expect(after.map((p) => p.title)).toEqual(["Home", ...Array.from({ length: 10 }, (_, i) => `Level ${i + 1}`)]);
      expect(after[1]!.id).toBe(ids[0]);
    } finally {
      repo.cleanup();
    }
  });

  it("records failures (missing ref, escaping root, symlink out of the repository) and keeps the content", async () => {
    const { owner, space } = await setup();
    await commitContent(ctx, space.id, { pages: [{ title: "Existing", paragraphs: ["keep me"] }] });
    const before = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;
    const cases: [Record<string, unknown> | string, string, RegExp][] = [
      [{ "README.md": "# x\n" }, "refs/heads/does-not-exist", /does-not-exist/],
      ["hostile-root-escape", "refs/heads/main", /root/i],
      ["hostile-symlinks", "refs/heads/main", /symlink|link/i],
    ];
    for (const [files, ref, message] of cases) {
      const repo = createBareRepo(typeof files === "string" ? loadFixture(files) : (files as never));
      try {
        const info = await importNow(owner, space.id, { url: repo.url, ref });
        expect(info.lastImport.status, JSON.stringify(info)).toBe("failed");
        expect(info.lastImport.message).toMatch(message);
      } finally {
        repo.cleanup();
      }
    }
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.id).toBe(before.id);
  });

  it("creates a standalone revision without moving the primary content, and ignores outdated imports", async () => {
    const { owner, space } = await setup();
    const repo = createBareRepo({ "README.md": "# Standalone\n" });
    try {
      await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main", standalone: true });
      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastImport.status).toBe("succeeded");
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}`)).body.revision).toBe(space.revision);
      const standalone = (await ctx.as(owner).get(`/v1/spaces/${space.id}/revisions/${info.lastImport.revision}`)).body;
      expect(standalone.pages[0].title).toBe("Standalone");

      await importNow(owner, space.id, { url: repo.url, ref: "refs/heads/main", timestamp: "2026-06-01T00:00:00.000Z" });
      const older = await importNow(owner, space.id, {
        url: repo.url,
        ref: "refs/heads/main",
        force: true,
        timestamp: "2026-05-01T00:00:00.000Z",
      });
      expect(older.lastImport).toMatchObject({ status: "skipped", message: expect.stringMatching(/newer/) });
    } finally {
      repo.cleanup();
    }
  });

  it("answers 401, 404 to outsiders, 403 to readers and on locked spaces", async () => {
    const { owner, members, outsider, space } = await setup();
    const body = { url: "https://example.com/x.git", ref: "refs/heads/main" };
    expect((await ctx.anonymous.post(`/v1/spaces/${space.id}/git/import`, body)).status).toBe(401);
    expect((await ctx.as(outsider).post(`/v1/spaces/${space.id}/git/import`, body)).status).toBe(404);
    expect((await ctx.as(members.read).post(`/v1/spaces/${space.id}/git/import`, body)).status).toBe(403);
    const noRepo = await ctx.as(members.edit).get(`/v1/spaces/${space.id}/git/info`);
    expect(noRepo.status).toBe(404);
    expect(noRepo.body.error.message).toMatch(/No Git repository is set up/);
    const hidden = await ctx.as(outsider).get(`/v1/spaces/${space.id}/git/info`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe(`No space with id "${space.id}".`);
    await ctx.as(owner).patch(`/v1/spaces/${space.id}`, { editMode: "locked" });
    const locked = await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, body);
    expect(locked.status).toBe(403);
    expect(locked.body.error.message).toMatch(/locked/);
    expect((await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { ref: "refs/heads/main" })).body.error.message).toBe(
      "body.url is required.",
    );
  });
});

describe("POST /v1/spaces/{spaceId}/git/export", () => {
  it("answers 401, 404 to outsiders, 403 to readers, and a precise 400 for a tag or a missing commit message", async () => {
    const { owner, members, outsider, space } = await setup();
    const body = { url: "https://example.com/x.git", ref: "refs/heads/main", commitMessage: "Export" };
    const url = `/v1/spaces/${space.id}/git/export`;
    expect((await ctx.anonymous.post(url, body)).status).toBe(401);
    const hidden = await ctx.as(outsider).post(url, body);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe(`No space with id "${space.id}".`);
    const reader = await ctx.as(members.read).post(url, body);
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe("Only members who can edit the space can synchronise it with Git.");
    const tag = await ctx.as(owner).post(url, { ...body, ref: "refs/tags/v1" });
    expect(tag.status).toBe(400);
    expect(tag.body.error.message).toBe('An export pushes to a branch: ref must be "refs/heads/<branch>", got "refs/tags/v1".');
    const noMessage = await ctx.as(owner).post(url, { url: body.url, ref: body.ref });
    expect(noMessage.status).toBe(400);
    expect(noMessage.body.error.message).toBe("body.commitMessage is required.");
    // Nothing was recorded by the refused requests.
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).status).toBe(404);
  });

  it("writes the primary content as a GitBook repository, makes no commit when nothing changed, and re-imports to the same content", async () => {
    const { owner, org, space } = await setup();
    const source = createBareRepo(loadFixture("gitbook-docs"));
    const target = createBareRepo({});
    try {
      await importNow(owner, space.id, { url: source.url, ref: "refs/heads/main" });
      const original = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body;

      const exported = await ctx
        .as(owner)
        .post(`/v1/spaces/${space.id}/git/export`, { url: target.url, ref: "refs/heads/docs", commitMessage: "Export from Quire" });
      expect(exported.status).toBe(204);
      await ctx.worker.drain();
      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastExport, JSON.stringify(info)).toMatchObject({ status: "succeeded" });
      const files = readRepoFiles(target.dir, "refs/heads/docs");
      expect([...files.keys()]).toEqual(expect.arrayContaining(["README.md", "SUMMARY.md", ".gitbook/assets/image (1).png"]));
      expect(logOf(target.dir, "refs/heads/docs")).toHaveLength(1);
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/content`)).body.git).toMatchObject({
        oid: info.lastExport.commit,
        createdByService: true,
      });

      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/export`, { url: target.url, ref: "refs/heads/docs", commitMessage: "Again" });
      await ctx.worker.drain();
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.lastExport.status).toBe("skipped");
      expect(logOf(target.dir, "refs/heads/docs")).toHaveLength(1);

      // A fresh space importing the export has the same tree and documents.
      const copy = await createSpace(ctx, owner, org.id, { title: "Round trip" });
      await importNow(owner, copy.id, { url: target.url, ref: "refs/heads/docs" });
      const roundTrip = (await ctx.as(owner).get(`/v1/spaces/${copy.id}/content`)).body;
      const shape = (pages: Page[]) => flatten(pages).map((p) => `${p.type}:${p.title}:${p.path ?? ""}`);
      expect(shape(roundTrip.pages).join("\n")).toEqual(shape(original.pages).join("\n"));
      for (const [a, b] of flatten(original.pages).map((p, i) => [p, flatten(roundTrip.pages)[i]!] as const)) {
        if (a.type !== "document") continue;
        const docA = (await ctx.as(owner).get(`/v1/spaces/${space.id}/content/page/${a.id}`)).body.document;
        const docB = (await ctx.as(owner).get(`/v1/spaces/${copy.id}/content/page/${b.id}`)).body.document;
        expect(normalizeRefs(stripKeys(docB)), a.title).toEqual(normalizeRefs(stripKeys(docA)));
      }
    } finally {
      source.cleanup();
      target.cleanup();
    }
  });

  it("writes the kept .gitbook.yaml redirects back: a round trip keeps them, and the branch keeps its root", async () => {
    const { owner, org, space } = await setup();
    // The fixture's content lives under docs/ (.gitbook.yaml: root ./docs/) and has two redirects.
    const source = createBareRepo(loadFixture("gitbook-docs"));
    const target = createBareRepo({});
    const keptBy = async (spaceId: string) => {
      const { pages } = (await ctx.as(owner).get(`/v1/spaces/${spaceId}/content`)).body as { pages: Page[] };
      const pathOf = new Map(flatten(pages).map((p) => [p.id, p.path]));
      return (await listGitRedirects(ctx.db, spaceId)).map((r) => `${r.fromPath} -> ${pathOf.get(r.pageId)}`);
    };
    try {
      await importNow(owner, space.id, { url: source.url, ref: "refs/heads/main" });
      const kept = await keptBy(space.id);
      expect(kept).toEqual(["help -> start/support", "old/quickstart -> start/quickstart"]);

      // To a new branch: the redirects, relative to the root, with the root and structure GitBook reads.
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/export`, { url: target.url, ref: "refs/heads/main", commitMessage: "Export" });
      await ctx.worker.drain();
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.lastExport.status).toBe("succeeded");
      const exported = readRepoFiles(target.dir);
      expect(parseYaml(String(exported.get(".gitbook.yaml")))).toEqual({
        root: "./",
        structure: { readme: "README.md", summary: "SUMMARY.md" },
        redirects: { help: "getting-started/support.md", "old/quickstart": "getting-started/quickstart.md" },
      });
      // Imported again, the redirects are the same, to the same pages.
      const copy = await createSpace(ctx, owner, org.id, { title: "Round trip" });
      const copied = await importNow(owner, copy.id, { url: target.url, ref: "refs/heads/main" });
      expect(copied.lastImport.warnings ?? []).toEqual([]);
      expect(await keptBy(copy.id)).toEqual(kept);

      // Back to the branch it came from: the pages stay under docs/ and .gitbook.yaml keeps saying so.
      // Redirects the import could not keep stay while their target does (notes.txt is no page).
      commitFiles(source.dir, {
        "docs/notes.txt": "Notes, not a page.",
        ".gitbook.yaml":
          "root: ./docs/\nredirects:\n  help: getting-started/support.md\n  /old/quickstart.md: ./getting-started/quickstart.md\n  legacy/notes: notes.txt\n  gone: no-such-file.md\n",
      });
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/export`, { url: source.url, ref: "refs/heads/main", commitMessage: "Back" });
      await ctx.worker.drain();
      expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.lastExport.status).not.toBe("failed");
      const back = readRepoFiles(source.dir);
      expect(parseYaml(String(back.get(".gitbook.yaml")))).toEqual({
        root: "./docs/",
        structure: { readme: "README.md", summary: "SUMMARY.md" },
        redirects: { help: "getting-started/support.md", "old/quickstart": "getting-started/quickstart.md", "legacy/notes": "notes.txt" },
      });
      expect(String(back.get("docs/notes.txt"))).toBe("Notes, not a page.");
      expect(back.has("docs/README.md")).toBe(true);
      expect(back.has("docs/getting-started/support.md")).toBe(true);
      expect(back.has("README.md")).toBe(false);
      const again = await createSpace(ctx, owner, org.id, { title: "Back again" });
      await importNow(owner, again.id, { url: source.url, ref: "refs/heads/main" });
      expect(await keptBy(again.id)).toEqual(kept);
    } finally {
      source.cleanup();
      target.cleanup();
    }
  });

  it("pushes over HTTP with credentials", async () => {
    const { owner, space } = await setup();
    await commitContent(ctx, space.id, { pages: [{ title: "Home", slug: "readme", paragraphs: ["Pushed"] }] });
    const target = createBareRepo({ "README.md": "# Old\n", "notes.txt": "not Quire's" });
    const server = await serveGitOverHttp(target.dir, { username: "ci", password: "push-secret" });
    try {
      await ctx.as(owner).post(`/v1/spaces/${space.id}/git/export`, {
        url: server.urlWith("ci", "push-secret"),
        ref: "refs/heads/main",
        commitMessage: "Update docs",
      });
      await ctx.worker.drain();
      const info = (await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body;
      expect(info.lastExport.status, JSON.stringify(info)).toBe("succeeded");
      const files = readRepoFiles(target.dir);
      expect(files.get("README.md")?.toString()).toContain("Pushed");
      expect(files.get("notes.txt")?.toString()).toBe("not Quire's");
    } finally {
      await server.close();
      target.cleanup();
    }
  });
});

describe("GET git/info and DELETE git/legacy-installation through @gitbook/api", () => {
  it("reports the sync state and disconnects the repository", async () => {
    const { owner, space } = await setup();
    const endpoint = await ctx.listen();
    const client = contractClient(endpoint, owner.token);
    const repo = createBareRepo({ "README.md": "# Hi\n" });
    try {
      await client.spaces.importGitRepository(space.id, {
        url: repo.url,
        ref: "refs/heads/main",
        gitInfo: { provider: "github" as never, url: "https://github.com/acme/docs" },
      });
      await ctx.worker.drain();
      const info = await client.spaces.getSpaceGitInfo(space.id);
      expect(info.data).toMatchObject({ installationProvider: "github", url: "https://github.com/acme/docs" });
      expect((await client.spaces.getSpaceById(space.id)).data.gitSync?.installationProvider).toBe("github");
      await client.spaces.deleteLegacyGitInstallation(space.id);
      await expect(client.spaces.getSpaceGitInfo(space.id)).rejects.toMatchObject({ code: 404 });
    } finally {
      repo.cleanup();
    }
  });

  it("lets only space admins disconnect: 403 to editors, 404 to outsiders, 401 without a token; the state stays", async () => {
    const { owner, members, outsider, space } = await setup();
    await ctx.as(owner).post(`/v1/spaces/${space.id}/git/import`, { url: "https://example.com/x.git", ref: "refs/heads/main" });
    const url = `/v1/spaces/${space.id}/git/legacy-installation`;
    expect((await ctx.anonymous.delete(url)).status).toBe(401);
    const editor = await ctx.as(members.edit).delete(url);
    expect(editor.status).toBe(403);
    expect(editor.body.error.message).toBe("Only admins of the space can disconnect it from its Git repository.");
    const hidden = await ctx.as(outsider).delete(url);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe(`No space with id "${space.id}".`);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/git/info`)).body.remote).toBe("https://example.com/x.git");
  });
});

/** References point at ids of their own revision; compare them by kind only. */
function normalizeRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeRefs);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = ["page", "file", "reusableContent"].includes(k) && typeof v === "string" ? "<id>" : normalizeRefs(v);
    return out;
  }
  return value;
}
