/**
 * Reader access through the real site routes: share links, visitor tokens (and their cookie),
 * adaptive pages appearing with a claim, members with an API token, and the site's MCP server
 * driven by the SDK's client over real HTTP.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent, type TestPage } from "../../../test/helpers/content.factories.js";
import { block, doc, h, inline, p, text } from "../../../test/helpers/render-documents.js";
import { createSite, publishWithVisitorAuth } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { saveDocument } from "../../content/revision/storage.js";

// Listening for the MCP client; the setup gets room for a busy machine (PostgreSQL beside other tests).
const server = {} as { ctx: TestContext; endpoint: string };
beforeAll(async () => {
  server.ctx = await createTestContext();
  server.endpoint = await server.ctx.listen();
}, 180_000);
afterAll(() => server.ctx.close(), 120_000);

const PAGES: TestPage[] = [
  { title: "Welcome", slug: "welcome", paragraphs: ["Start here."] },
  { title: "Install", slug: "install", paragraphs: ["Run the installer, then restart the gateway."] },
  { title: "Beta program", slug: "beta", paragraphs: ["Beta features for testers."], extra: { condition: "visitor.claims.beta === true" } },
  {
    title: "French notes",
    slug: "fr",
    paragraphs: ["Notes en français."],
    extra: { condition: 'visitor.claims.unsigned.language === "fr"' },
  },
];

const SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    beta: { type: "boolean", description: "Beta tester" },
    unsigned: {
      type: "object",
      description: "Unsigned claims of the site visitor.",
      additionalProperties: false,
      properties: { language: { type: "string", enum: ["en", "fr"], description: "Language" } },
    },
  },
};

async function scenario(visibility: string) {
  const { ctx } = server;
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  await commitContent(ctx, base.space.id, { pages: PAGES });
  await ctx.worker.drain();
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", visibility, spaces: [base.space.id] });
  const { url, key } = await publishWithVisitorAuth(ctx, base.owner, base.org.id, site.id, SCHEMA);
  return { ...base, site, url, key, root: `/s/${site.basename}` };
}

const sign = (key: string, claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("2h").sign(new TextEncoder().encode(key));

const cookiesOf = (headers: Record<string, unknown>) =>
  ([] as string[])
    .concat((headers["set-cookie"] as string | string[] | undefined) ?? [])
    .map((c) => c.split(";")[0])
    .join("; ");

describe("reading a share-link site", () => {
  it("opens only with an active key, whose pages link with the key; a deactivated link answers 404 at once", async () => {
    const { ctx } = server;
    const s = await scenario("share-link");
    expect((await ctx.anonymous.get(`${s.root}/`)).status).toBe(404);
    const link = (await ctx.as(s.owner).post(`${s.url}/share-links`, { name: "Partners" })).body;
    const key = link.urls.published.split("/").pop() as string;
    const page = await ctx.anonymous.get(`${s.root}/${key}/`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain("Start here.");
    expect(page.text).toContain(`href="${s.root}/${key}/install"`);
    expect(page.headers["x-robots-tag"]).toBe("noindex");
    expect(String(page.headers["cache-control"])).toContain("private");
    const robots = await ctx.anonymous.get(`${s.root}/${key}/robots.txt`);
    expect(robots.text).toContain("Disallow: /");
    expect((await ctx.anonymous.get(`${s.root}/${key}/install.md`)).text).toContain("Run the installer");
    // The sidebar's branch fragments answer under the key only, and are kept privately.
    await commitContent(ctx, s.space.id, {
      pages: [...PAGES, { id: "shareBranch00000001", title: "Guides", slug: "guides", children: [{ title: "Upgrade", slug: "upgrade" }] }],
    });
    const withBranch = await ctx.anonymous.get(`${s.root}/${key}/`);
    const fragmentBase = /data-nav="([^"]+)"/.exec(withBranch.text)?.[1] as string;
    expect(fragmentBase.startsWith(`${s.root}/${key}/~quire/nav/`)).toBe(true);
    const branchHref = encodeURIComponent(`${s.root}/${key}/guides`);
    const branch = await ctx.anonymous.get(`${fragmentBase}?page=${branchHref}`);
    expect(branch.status).toBe(200);
    expect(branch.text).toContain(`href="${s.root}/${key}/guides/upgrade"`);
    expect(branch.headers["cache-control"]).toBe("private, max-age=31536000, immutable");
    expect((await ctx.anonymous.get(`${fragmentBase.replace(`/${key}/`, "/")}?page=${branchHref}`)).status).toBe(404);
    await ctx.as(s.owner).patch(`${s.url}/share-links/${link.id}`, { active: false });
    expect((await ctx.anonymous.get(`${s.root}/${key}/`)).status).toBe(404);
    expect((await ctx.anonymous.get(`${s.root}/${key}/install.md`)).status).toBe(404);
    // Members who may read the space read it without a key.
    expect((await ctx.as(s.members.read).get(`${s.root}/install`)).status).toBe(200);
  });
});

describe("reading a visitor-auth site", () => {
  it("sends a visitor to the login URL, takes the token into a cookie, and shows pages their claims allow", async () => {
    const { ctx } = server;
    const s = await scenario("visitor-auth");
    const refused = await ctx.anonymous.get(`${s.root}/install`);
    expect(refused.status).toBe(302);
    expect(refused.headers.location).toBe("https://login.example.com/docs?location=install");
    const wrong = await ctx.anonymous.get(`${s.root}/install?jwt_token=${await sign("not-the-key", { beta: true })}`);
    expect(wrong.status).toBe(302);
    expect(wrong.headers.location).toBe("https://login.example.com/docs?location=install");

    const token = await sign(s.key, { beta: true });
    const landing = await ctx.anonymous.get(`${s.root}/install?jwt_token=${token}`);
    expect(landing.status).toBe(302);
    expect(landing.headers.location).toBe(`${s.root}/install`);
    expect(String(landing.headers["set-cookie"])).toMatch(new RegExp(`Path=${s.root}; SameSite=Lax; HttpOnly`));
    const cookie = cookiesOf(landing.headers);
    const page = await ctx.anonymous.get(`${s.root}/install`, { headers: { cookie } });
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain("Run the installer");
    // The claim shows the beta page in the navigation and opens it; without it, it is absent.
    expect(page.text).toContain(`href="${s.root}/beta"`);
    expect((await ctx.anonymous.get(`${s.root}/beta`, { headers: { cookie } })).status).toBe(200);
    const plain = cookiesOf((await ctx.anonymous.get(`${s.root}/install?jwt_token=${await sign(s.key, {})}`)).headers);
    const without = await ctx.anonymous.get(`${s.root}/install`, { headers: { cookie: plain } });
    expect(without.status).toBe(200);
    expect(without.text).not.toContain("Beta program");
    expect((await ctx.anonymous.get(`${s.root}/beta`, { headers: { cookie: plain } })).status).toBe(404);
    expect((await ctx.anonymous.get(`${s.root}/llms.txt`, { headers: { cookie: plain } })).text).not.toContain("beta");
    expect((await ctx.anonymous.get(`${s.root}/llms.txt`, { headers: { cookie } })).text).toContain("Beta program");
  });
});

describe("conditional blocks", () => {
  it("show a block in Markdown, llms-full.txt and MCP only to readers whose claims allow it", async () => {
    const { ctx } = server;
    const s = await scenario("public");
    const documentHash = await saveDocument(
      ctx.db,
      doc(p("Everyone sees this."), block("if", { expression: "visitor.claims.beta === true" }, [p("Secret beta tip.")])),
    );
    await commitContent(ctx, s.space.id, { pages: [...PAGES, { title: "Plans", slug: "plans", extra: { documentHash } }] });
    await ctx.worker.drain();
    const token = await sign(s.key, { beta: true });
    // Search: the index holds the hidden block's text, but neither the result nor its snippet reaches a reader who may not see it.
    const hidden = await ctx.anonymous.get(`${s.root}/~quire/search?q=secret+beta+tip`);
    expect(hidden.status).toBe(200);
    expect(hidden.text).not.toContain("Secret beta tip");
    expect(hidden.text).not.toContain('class="q-results"');
    const shown = await ctx.anonymous.get(`${s.root}/~quire/search?q=secret+beta+tip`, { headers: { authorization: `Bearer ${token}` } });
    expect(shown.text).toContain('class="q-results"');
    expect(shown.text.replace(/<\/?mark>/g, "")).toContain("Secret beta tip");
    const everyone = await ctx.anonymous.get(`${s.root}/~quire/search?q=everyone+sees`);
    expect(everyone.text).toContain('class="q-results"');
    expect(everyone.text).not.toContain("Secret beta tip");
    for (const path of ["plans.md", "llms-full.txt"]) {
      const without = await ctx.anonymous.get(`${s.root}/${path}`);
      expect(without.text, path).toContain("Everyone sees this.");
      expect(without.text, path).not.toContain("Secret beta tip.");
      expect((await ctx.anonymous.get(`${s.root}/${path}`, { headers: { authorization: `Bearer ${token}` } })).text, path).toContain(
        "Secret beta tip.",
      );
    }
    const client = new Client({ name: "quire-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.endpoint}${s.root}/~quire/mcp`)));
    const read = await client.callTool({ name: "read_page", arguments: { path: "plans" } });
    expect(JSON.stringify(read.content)).toContain("Everyone sees this.");
    expect(JSON.stringify(read.content)).not.toContain("Secret beta tip.");
    await client.close();
  });
});

describe("search and conditional blocks", () => {
  const SECRET = "zq7kxv93";
  const document = doc(
    p("Everyone sees the vault instructions."),
    block("if", { expression: "visitor.claims.beta === true" }, [p(`The vault code is ${SECRET} for testers.`)]),
    h(2, "Rotation"),
    p("Rotate the keys monthly."),
    block("if", { expression: "visitor.claims.beta === true" }, [
      h(2, "Ghostline"),
      p("Only beta testers read this."),
      block("if", { expression: 'visitor.claims.unsigned.language === "fr"' }, [p("Nested quokkas for French testers.")]),
    ]),
    p(text("Your plan: "), inline("expression", { expression: 'visitor.claims.beta === true ? "literalsecret" : "standard"' })),
    block("if", { expression: 'space.vars.edition === "pro"' }, [p("Pro edition wombats.")]),
  );

  async function searchScenario() {
    const { ctx } = server;
    const s = await scenario("public");
    const documentHash = await saveDocument(ctx.db, document);
    await commitContent(ctx, s.space.id, { pages: [...PAGES, { title: "Vault", slug: "vault", extra: { documentHash } }] });
    await ctx.worker.drain();
    return { ...s, beta: await sign(s.key, { beta: true }) };
  }

  /** The site's search results for a query: the pages listed (by path) and the results' text (the query itself left out). */
  async function siteSearch(root: string, query: string, headers: Record<string, string> = {}, extra = "") {
    const res = await server.ctx.anonymous.get(`${root}/~quire/search?q=${encodeURIComponent(query)}${extra}`, { headers });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const results = /<ol class="q-results">.*<\/ol>/s.exec(res.text)?.[0] ?? "";
    const listed = [...results.matchAll(/<li><a href="[^"]*\/([^"/]+)"><strong>/g)].map((m) => m[1]);
    return { listed, text: results.replace(/<\/?mark>/g, "") };
  }

  it("lists a page only when what the reader sees matches, and never shows hidden text in a snippet", async () => {
    const s = await searchScenario();
    // A word they see with the first letter of the hidden value: the old way to recover it a prefix at a time.
    for (const query of [
      "everyone z",
      "vault z",
      "vault zq7",
      "zq7kx",
      SECRET,
      `vault ${SECRET}`,
      "ghostline",
      "quokkas",
      "literalsecret",
      "wombats",
    ]) {
      const { listed, text } = await siteSearch(s.root, query);
      expect(listed, query).toEqual([]);
      expect(text, query).not.toContain(SECRET);
    }
    const vault = await siteSearch(s.root, "vault instructions");
    expect(vault.listed).toEqual(["vault"]);
    expect(vault.text).toContain("Everyone sees the vault instructions");
    expect(vault.text).not.toContain(SECRET);
    expect(vault.text).not.toContain("testers");
    // A query matching the section's visible text and its heading: the snippet is the visible text.
    const rotation = await siteSearch(s.root, "rotate keys");
    expect(rotation.listed).toEqual(["vault"]);
    expect(rotation.text).not.toContain("Only beta testers");

    const beta = { authorization: `Bearer ${s.beta}` };
    for (const query of ["vault zq7", SECRET, `vault ${SECRET}`, "ghostline"]) {
      expect((await siteSearch(s.root, query, beta)).listed, query).toEqual(["vault"]);
    }
    expect((await siteSearch(s.root, SECRET, beta)).text).toContain(`The vault code is ${SECRET}`);
    // Nested blocks need both conditions; an unsigned claim from the URL is a claim like another.
    expect((await siteSearch(s.root, "quokkas", beta)).listed).toEqual([]);
    expect((await siteSearch(s.root, "quokkas", beta, "&visitor.language=fr")).listed).toEqual(["vault"]);
    expect((await siteSearch(s.root, "quokkas", {}, "&visitor.language=fr")).listed).toEqual([]);
    // Expressions that depend on the reader, and blocks false for every reader, are never found on the site.
    expect((await siteSearch(s.root, "literalsecret", beta)).listed).toEqual([]);
    expect((await siteSearch(s.root, "wombats", beta)).listed).toEqual([]);

    // Members see every block: the API's search finds them.
    const member = server.ctx.as(s.owner);
    for (const query of [SECRET, "quokkas", "wombats"]) {
      const found = await member.get(`/v1/spaces/${s.space.id}/search?query=${query}`);
      expect(
        found.body.items.map((i: { title: string }) => i.title),
        query,
      ).toEqual(["Vault"]);
    }
  });

  it("gives the header's instant search (search.json) the search page's answers", async () => {
    const s = await searchScenario();
    const json = async (query: string, headers: Record<string, string> = {}) => {
      const res = await server.ctx.anonymous.get(`${s.root}/~quire/search.json?q=${encodeURIComponent(query)}`, { headers });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const results = res.body.results as Array<{ href: string }>;
      // The results' text (the query echoed beside them left out).
      return { listed: results.map((r) => r.href.split("/").pop()), text: JSON.stringify(results) };
    };
    for (const query of ["vault zq7", SECRET, "ghostline", "quokkas", "literalsecret", "wombats", "secret beta tip"]) {
      const { listed, text } = await json(query);
      expect(listed, query).toEqual([]);
      expect(text, query).not.toContain(SECRET);
      expect(text, query).not.toContain("Only beta testers");
    }
    const vault = await json("vault instructions");
    expect(vault.listed).toEqual(["vault"]);
    expect(vault.text).toContain("Everyone sees the vault instructions");
    expect(vault.text).not.toContain(SECRET);
    expect(vault.text).not.toContain("testers");
    // A reader whose claims show the block finds it, its snippet from the text they see.
    const beta = { authorization: `Bearer ${s.beta}` };
    const found = await json(SECRET, beta);
    expect(found.listed).toEqual(["vault"]);
    expect(found.text).toContain(`The vault code is ${SECRET}`);
    expect((await json("quokkas", beta)).listed).toEqual([]);
    // Beta pages (a page condition) too.
    expect((await json("beta features")).listed).toEqual([]);
    expect((await json("beta features", beta)).listed).toEqual(["beta"]);
  });

  it("writes expressions as the reader's value in Markdown, llms-full.txt and MCP, never as their source", async () => {
    const s = await searchScenario();
    const { ctx } = server;
    for (const path of ["vault.md", "llms-full.txt"]) {
      const anonymous = (await ctx.anonymous.get(`${s.root}/${path}`)).text;
      expect(anonymous, path).toContain("Your plan: standard");
      expect(anonymous, path).not.toContain("literalsecret");
      expect(anonymous, path).not.toContain(SECRET);
      const beta = (await ctx.anonymous.get(`${s.root}/${path}`, { headers: { authorization: `Bearer ${s.beta}` } })).text;
      expect(beta, path).toContain("Your plan: literalsecret");
      expect(beta, path).toContain(SECRET);
    }
    const client = new Client({ name: "quire-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.endpoint}${s.root}/~quire/mcp`)));
    const read = JSON.stringify((await client.callTool({ name: "read_page", arguments: { path: "vault" } })).content);
    expect(read).toContain("Your plan: standard");
    expect(read).not.toContain("literalsecret");
    await client.close();
  });

  it("gives the MCP server's search the same answers", async () => {
    const s = await searchScenario();
    const endpoint = `${server.endpoint}${s.root}/~quire/mcp`;
    const search = async (client: Client, query: string) => {
      const result = await client.callTool({ name: "search", arguments: { query } });
      return {
        urls: ((result.structuredContent as { results?: { url: string }[] })?.results ?? []).map((r) => r.url),
        text: JSON.stringify(result.structuredContent ?? {}),
      };
    };
    const anonymous = new Client({ name: "quire-test", version: "1.0.0" });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    for (const query of ["everyone z", "vault zq7", SECRET, "ghostline", "literalsecret"]) {
      const found = await search(anonymous, query);
      expect(found.urls, query).toEqual([]);
      expect(found.text, query).not.toContain(SECRET);
    }
    const visible = await search(anonymous, "vault");
    expect(visible.urls).toEqual([`http://quire.test${s.root}/vault`]);
    expect(visible.text).not.toContain(SECRET);
    const refused = await anonymous.callTool({ name: "search", arguments: { query: "b*" } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("needs at least 3 letters or digits before the *");
    await anonymous.close();

    const beta = new Client({ name: "quire-test", version: "1.0.0" });
    await beta.connect(
      new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${s.beta}` } } }),
    );
    const found = await search(beta, `vault ${SECRET}`);
    expect(found.urls).toEqual([`http://quire.test${s.root}/vault`]);
    expect(found.text).toContain(SECRET);
    await beta.close();
  });
});

describe("adaptive content on a public site", () => {
  it("shows a page for a declared unsigned claim from the URL, kept in a cookie", async () => {
    const { ctx } = server;
    const s = await scenario("public");
    expect((await ctx.anonymous.get(`${s.root}/fr`)).status).toBe(404);
    const withClaim = await ctx.anonymous.get(`${s.root}/fr?visitor.language=fr`);
    expect(withClaim.status, withClaim.text).toBe(200);
    expect(withClaim.text).toContain("Notes en français.");
    const cookie = cookiesOf(withClaim.headers);
    expect((await ctx.anonymous.get(`${s.root}/fr`, { headers: { cookie } })).status).toBe(200);
    expect((await ctx.anonymous.get(`${s.root}/fr?visitor.language=en`)).status).toBe(404);
  });
});

describe("the site's MCP server", () => {
  async function connect(url: string, headers: Record<string, string> = {}) {
    const client = new Client({ name: "quire-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  }
  const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as { text: string }[]).map((c) => c.text).join("\n");

  it("lists, searches and reads what the reader may see, through the real routes", async () => {
    const s = await scenario("visitor-auth");
    const endpoint = `${server.endpoint}${s.root}/~quire/mcp`;
    const visitor = await connect(endpoint, { authorization: `Bearer ${await sign(s.key, {})}` });
    const listed = (await visitor.callTool({ name: "list_pages", arguments: {} })).structuredContent as {
      pages: { title: string; url: string }[];
    };
    expect(listed.pages.map((p) => p.title)).toEqual(["Welcome", "Install"]);
    expect(listed.pages[1]?.url).toBe(`http://quire.test${s.root}/install`);
    const found = await visitor.callTool({ name: "search", arguments: { query: "installer gateway" } });
    const hits = (found.structuredContent as { results: { url: string }[] }).results;
    expect(hits[0]?.url).toBe(`http://quire.test${s.root}/install`);
    const read = await visitor.callTool({ name: "read_page", arguments: { path: hits[0]?.url as string } });
    expect(textOf(read)).toContain("# Install");
    expect(textOf(read)).toContain("Run the installer");
    const hidden = await visitor.callTool({ name: "read_page", arguments: { path: "beta" } });
    expect(hidden.isError).toBe(true);
    expect((await visitor.callTool({ name: "search", arguments: { query: "testers" } })).structuredContent).toBeUndefined();
    await visitor.close();

    const beta = await connect(endpoint, { authorization: `Bearer ${await sign(s.key, { beta: true })}` });
    expect(textOf(await beta.callTool({ name: "read_page", arguments: { path: "beta" } }))).toContain("Beta features for testers.");
    await beta.close();

    const member = await connect(endpoint, { authorization: `Bearer ${s.members.read.token}` });
    expect(textOf(await member.callTool({ name: "read_page", arguments: { path: "install.md" } }))).toContain("Run the installer");
    await member.close();

    // No token: the MCP endpoint is no more open than the site.
    const anonymous = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      redirect: "manual",
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="site"');
    expect((await anonymous.json()).error.message).toContain("Authorization: Bearer");
  });
});
