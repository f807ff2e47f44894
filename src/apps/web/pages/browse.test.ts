import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../test/helpers/app.js";
import { createChangeRequest, editContent, mergeChangeRequest } from "../../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../../test/helpers/content.factories.js";
import { addMemberToOrg, createOrganization, createOrgWithRoles, createUser } from "../../../../test/helpers/factories.js";
import { createTestIdp } from "../../../../test/helpers/saml-idp.js";
import { createCollection, createSpace, setDefaultLevel } from "../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../test/helpers/web.js";
import { saveDocument } from "../../../content/revision/storage.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const signedIn = (user: { id: string }) => WebClient.signedIn(ctx, user);

async function ok(browser: WebClient, url: string) {
  const res = await browser.get(url);
  expect(res.status, `${url}: ${res.text.slice(0, 600)}`).toBe(200);
  return res.text;
}

/** An organization with a member per role, a collection holding a space with two pages, and a second revision that edits one. */
async function scenario() {
  const roles = await createOrgWithRoles(ctx);
  const { org, owner } = roles;
  const collection = await createCollection(ctx, owner, org.id, { title: "Handbooks" });
  const space = await createSpace(ctx, owner, org.id, { title: "Engineering <handbook>", parent: collection.id });
  const first = await commitContent(ctx, space.id, {
    pages: [
      { id: "pageintro", title: "Introduction", paragraphs: ["Welcome to <script>alert(1)</script> the handbook."] },
      {
        id: "pagesetup",
        title: "Setup",
        paragraphs: ["Install the tools."],
        children: [{ id: "pagedeep", title: "Deep", paragraphs: ["Below."] }],
      },
    ],
  });
  const second = await commitContent(ctx, space.id, {
    pages: [
      { id: "pageintro", title: "Introduction", paragraphs: ["Welcome to <script>alert(1)</script> the handbook."] },
      {
        id: "pagesetup",
        title: "Setup guide",
        paragraphs: ["Install the tools, then run them."],
        children: [{ id: "pagedeep", title: "Deep", paragraphs: ["Below."] }],
      },
    ],
  });
  return { ...roles, collection, space, first, second };
}

describe("signing in", () => {
  it("sends a visitor without a session to sign in, keeping where they were going", async () => {
    const { org, space } = await scenario();
    const url = `/app/o/${org.id}/s/${space.id}`;
    const res = await new WebClient(ctx).get(url);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/app/login?next=${encodeURIComponent(url)}`);
  });
});

describe("organization, collection, space and page", () => {
  it("shows the organization's spaces and collections, with the organization switcher and breadcrumbs", async () => {
    const { org, owner, space, collection } = await scenario();
    const other = await createOrganization(ctx, owner, "Second org");
    const browser = await signedIn(owner);
    const home = await ok(browser, `/app/o/${org.id}`);
    expect(home).toContain(`href="/app/o/${org.id}/s/${space.id}"`);
    expect(home).toContain("Engineering &lt;handbook&gt;");
    expect(home).toContain(`href="/app/o/${org.id}/c/${collection.id}"`);
    expect(home).toContain(`href="/app/o/${other.id}"`);
    const coll = await ok(browser, `/app/o/${org.id}/c/${collection.id}`);
    expect(coll).toContain(`href="/app/o/${org.id}/s/${space.id}"`);
    expect(coll).toMatch(/<nav class="crumbs"[\s\S]*Test Org/);
    // The app's home links each organization the member may use.
    expect((await browser.get("/app")).text).toContain(`href="/app/o/${org.id}"`);
  });

  it("shows a space's page tree and first page, and a page with its history from revisions", async () => {
    const { org, members, space, first, second } = await scenario();
    const browser = await signedIn(members.read);
    const spacePage = await ok(browser, `/app/o/${org.id}/s/${space.id}`);
    expect(spacePage).toContain(`href="/app/o/${org.id}/s/${space.id}/p/pagesetup"`);
    expect(spacePage).toContain(`href="/app/o/${org.id}/s/${space.id}/p/pagedeep"`);
    expect(spacePage).toContain(`href="/app/o/${org.id}/s/${space.id}/~/changes"`);
    // Content is escaped, never run.
    expect(spacePage).toContain("Welcome to &lt;script&gt;alert(1)&lt;/script&gt; the handbook.");
    expect(spacePage).not.toContain("<script>alert(1)");
    // The renderer's stylesheet and script come from fingerprinted, cacheable addresses the CSP allows.
    const css = /<link rel="stylesheet" href="(\/app\/assets\/[0-9a-f]+\/content\.css)">/.exec(spacePage)?.[1] ?? "";
    const asset = await browser.get(css);
    expect(asset.status).toBe(200);
    expect(asset.headers["content-type"]).toContain("text/css");
    expect(asset.headers["cache-control"]).toContain("immutable");
    expect(asset.text).toContain(".q-");
    expect(spacePage).toMatch(/<script defer src="\/app\/assets\/[0-9a-f]+\/content\.js">/);
    expect((await browser.get(css.replace(/assets\/[0-9a-f]+/, "assets/0000"))).status).toBe(404);
    expect((await browser.get(css.replace("content.css", "../../../etc/passwd"))).status).toBe(404);
    // Breadcrumbs go through the collection.
    expect(spacePage).toContain(">Handbooks</a>");

    const setup = await ok(browser, `/app/o/${org.id}/s/${space.id}/p/pagesetup`);
    expect(setup).toContain("Install the tools, then run them.");
    const history = setup.slice(setup.indexOf('id="history"'));
    // The second revision renamed and edited it; the first added it.
    expect(history).toContain(`/revisions/${second.revisionId}"`);
    expect(history).toContain(`/revisions/${first.revisionId}"`);
    expect(history).toMatch(/renamed[\s\S]*content edited/);
    expect(history).toContain("added");

    const deep = await ok(browser, `/app/o/${org.id}/s/${space.id}/p/pagedeep`);
    const deepHistory = deep.slice(deep.indexOf('id="history"'));
    // commitContent takes slugs from titles: the rename of its parent moved it (setup/deep -> setup-guide/deep).
    expect(deepHistory).toContain(`/revisions/${first.revisionId}"`);
    expect(deepHistory).toMatch(new RegExp(`/revisions/${second.revisionId}"[\\s\\S]*?moved`));
    expect(deep).toContain('aria-current="page">Deep');

    const revision = await ok(browser, `/app/o/${org.id}/s/${space.id}/revisions/${second.revisionId}`);
    expect(revision).toContain("Setup guide");
    expect(revision).toMatch(/What changed[\s\S]*Setup guide[\s\S]*renamed/);
    expect(revision).toContain(`href="/app/o/${org.id}/s/${space.id}/revisions/${first.revisionId}"`);

    expect((await browser.get(`/app/o/${org.id}/s/${space.id}/p/nope`)).status).toBe(404);
    expect((await browser.get(`/app/o/${org.id}/s/${space.id}/revisions/nope`)).status).toBe(404);
  });

  it("names the change request a merge revision came from, in the page's history and on the revision", async () => {
    const { org, owner, space } = await scenario();
    const cr = await createChangeRequest(ctx, owner, space.id, { subject: "Clarify setup" });
    await editContent(ctx, owner, space.id, cr.id, [
      { operation: "update_page", page: "pagesetup", document: { markdown: "Install the tools with <npm>.\n" } },
    ]);
    const merged = await mergeChangeRequest(ctx, owner, space.id, cr.id);
    const browser = await signedIn(owner);
    const setup = await ok(browser, `/app/o/${org.id}/s/${space.id}/p/pagesetup`);
    expect(setup).toContain("Install the tools with &lt;npm&gt;.");
    const history = setup.slice(setup.indexOf('id="history"'));
    expect(history).toContain(`/revisions/${merged.revision}"`);
    expect(history).toContain(`href="/app/o/${org.id}/s/${space.id}/~/changes/${cr.number}"`);
    expect(history).toContain(`by Owner`);
    // The untouched page's history does not list the merge.
    const intro = await ok(browser, `/app/o/${org.id}/s/${space.id}/p/pageintro`);
    expect(intro).not.toContain(`/revisions/${merged.revision}"`);
    const revision = await ok(browser, `/app/o/${org.id}/s/${space.id}/revisions/${merged.revision}`);
    expect(revision).toContain(`change request #${cr.number}`);
    expect(revision).toMatch(/What changed[\s\S]*Setup guide[\s\S]*content edited/);
  });

  it("renders page content with links into the app, and never a script URL", async () => {
    const { org, owner, space } = await scenario();
    const text = (t: string) => ({ object: "text", leaves: [{ object: "leaf", text: t, marks: [] }] });
    const link = (ref: unknown, label: string) => ({ object: "inline", type: "link", data: { ref }, nodes: [text(label)] });
    const document = {
      object: "document",
      data: {},
      nodes: [
        {
          object: "block",
          type: "paragraph",
          nodes: [
            text("See "),
            link({ kind: "page", page: "pagesetup" }, "the setup"),
            text(", "),
            link({ kind: "page", page: "gone" }, "a removed page"),
            text(" and "),
            link({ kind: "url", url: "javascript:alert(1)" }, "a trap"),
          ],
        },
      ],
    };
    const documentHash = await saveDocument(ctx.db, document);
    await commitContent(ctx, space.id, {
      pages: [
        { id: "pagelinks", title: "Links", extra: { documentHash } },
        { id: "pagesetup", title: "Setup", paragraphs: ["Install."] },
      ],
    });
    const body = await ok(await signedIn(owner), `/app/o/${org.id}/s/${space.id}/p/pagelinks`);
    const content = body.slice(body.indexOf('class="q-content"'), body.indexOf('id="history"'));
    expect(content).toContain(`href="/app/o/${org.id}/s/${space.id}/p/pagesetup"`);
    expect(content).toContain("a removed page");
    expect(content).not.toContain("/p/gone");
    expect(content).toContain("a trap");
    expect(content).not.toMatch(/href="javascript:/i);
  });

  it("answers 404 where the API does: outsiders, spaces the member cannot read, another organization's ids", async () => {
    const { org, owner, members, outsider, space, collection } = await scenario();
    const outsiderBrowser = await signedIn(outsider);
    for (const url of [`/app/o/${org.id}`, `/app/o/${org.id}/s/${space.id}`, `/app/o/${org.id}/c/${collection.id}`]) {
      const res = await outsiderBrowser.get(url);
      expect(res.status, url).toBe(404);
      expect(res.text).not.toContain("Engineering");
    }
    // A space of this organization under another organization's address: 404 as well.
    const theirs = await createOrganization(ctx, outsider, "Theirs");
    await addMemberToOrg(ctx, theirs.id, owner, "read");
    const ownerBrowser = await signedIn(owner);
    expect((await ownerBrowser.get(`/app/o/${theirs.id}/s/${space.id}`)).status).toBe(404);
    expect((await ownerBrowser.get(`/app/o/${theirs.id}/c/${collection.id}`)).status).toBe(404);

    // A space without default access is hidden from a reader, as in the API.
    const secret = await createSpace(ctx, owner, org.id, { title: "Secret plans" });
    await setDefaultLevel(ctx, owner, { space: secret.id }, null);
    expect((await ctx.as(members.read).get(`/v1/spaces/${secret.id}`)).status).toBe(404);
    const reader = await signedIn(members.read);
    expect((await reader.get(`/app/o/${org.id}/s/${secret.id}`)).status).toBe(404);
    expect(await ok(reader, `/app/o/${org.id}`)).not.toContain("Secret plans");
    expect(await ok(ownerBrowser, `/app/o/${org.id}`)).toContain("Secret plans");
  });

  it("keeps non-admin members of an SSO-only organization out unless they signed in with its single sign-on", async () => {
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner, "Strict");
    const member = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, member, "edit");
    const space = await createSpace(ctx, owner, org.id, { title: "Strict space" });
    const provider = await ctx.as(owner).post(`/v1/orgs/${org.id}/saml`, {
      label: "Corp",
      entityID: "https://idp.corp.test",
      ssoURL: "https://idp.corp.test/sso",
      certificate: createTestIdp("corp").certificate,
    });
    expect(provider.status).toBe(201);
    expect((await ctx.as(owner).patch(`/v1/orgs/${org.id}`, { sso: true })).status).toBe(200);
    const res = await (await signedIn(member)).get(`/app/o/${org.id}/s/${space.id}`);
    expect(res.status).toBe(403);
    expect(res.text).toContain("requires single sign-on");
    await ok(await signedIn(owner), `/app/o/${org.id}/s/${space.id}`);
  });
});

describe("Git import and export", () => {
  async function gitForm(browser: WebClient, url: string) {
    const page = await ok(browser, url);
    return { page, csrf: WebClient.csrfOf(page) };
  }

  it("shows Import and Export to editors only, and runs them through the API's permission and checks", async () => {
    const { org, members, space } = await scenario();
    const spaceUrl = `/app/o/${org.id}/s/${space.id}`;
    const reader = await signedIn(members.read);
    const readerPage = await gitForm(reader, spaceUrl);
    expect(readerPage.page).toContain("Git sync");
    expect(readerPage.page).not.toContain(`action="${spaceUrl}/git/import"`);
    const form = { url: "https://git.example.test/acme/docs.git", ref: "refs/heads/main", repoProjectDirectory: "" };
    // A forged post as a reader, with the reader's own valid CSRF token: the API's 403.
    const forged = await reader.post(`${spaceUrl}/git/import`, { ...form, _csrf: readerPage.csrf });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("Only members who can edit the space can synchronise it with Git.");
    expect((await ctx.as(members.read).post(`/v1/spaces/${space.id}/git/import`, form)).status).toBe(403);

    const editor = await signedIn(members.edit);
    const editorPage = await gitForm(editor, spaceUrl);
    expect(editorPage.page).toContain(`action="${spaceUrl}/git/import"`);
    expect(editorPage.page).toContain(`action="${spaceUrl}/git/export"`);
    // Without the CSRF token nothing happens.
    expect((await editor.post(`${spaceUrl}/git/import`, form)).status).toBe(403);
    // Bad input is a 400 with the API's message.
    const bad = await editor.post(`${spaceUrl}/git/import`, { ...form, url: "ftp://nowhere", _csrf: editorPage.csrf });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("ftp");
    const badExport = await editor.post(`${spaceUrl}/git/export`, {
      ...form,
      ref: "refs/tags/v1",
      commitMessage: "x",
      _csrf: editorPage.csrf,
    });
    expect(badExport.status).toBe(400);
    expect(badExport.text).toContain("An export pushes to a branch");
    expect(
      await ctx.db
        .selectFrom("jobs")
        .select("id")
        .where("kind", "in", ["git-import", "git-export"])
        .where("payload", "like", `%${space.id}%`)
        .execute(),
    ).toEqual([]);

    const started = await editor.post(`${spaceUrl}/git/import`, { ...form, _csrf: editorPage.csrf });
    expect(started.status, started.text).toBe(303);
    expect(started.location).toBe(`${spaceUrl}?git=import#git`);
    const jobs = await ctx.db
      .selectFrom("jobs")
      .select(["kind", "payload"])
      .where("kind", "=", "git-import")
      .where("payload", "like", `%${space.id}%`)
      .execute();
    expect(jobs.length).toBe(1);
    expect(JSON.parse(jobs[0]!.payload)).toMatchObject({
      spaceId: space.id,
      remote: form.url,
      ref: "refs/heads/main",
      actorId: members.edit.id,
    });
    const after = await ok(editor, `${spaceUrl}?git=import`);
    expect(after).toContain("Import requested");
    expect(after).toContain("https://git.example.test/acme/docs.git");
    expect((await ctx.as(members.edit).get(`/v1/spaces/${space.id}/git/info`)).body.lastImport).toMatchObject({
      status: expect.any(String),
    });
  });
});

describe("sites, OpenAPI specs and topics", () => {
  it("shows a site's structure and published address, a spec's versions, and hides them as the API does", async () => {
    const { org, owner, members, outsider, space } = await scenario();
    const site = await ctx.as(owner).post(`/v1/orgs/${org.id}/sites`, { title: "Public docs", spaces: [space.id] });
    expect(site.status, site.text).toBe(201);
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.body.id}/publish`, {})).status).toBeLessThan(300);
    const spec = await ctx.as(owner).post(`/v1/orgs/${org.id}/openapi`, {
      slug: "petstore",
      source: { text: '{"openapi":"3.0.0","info":{"title":"Pets","version":"1"},"paths":{}}' },
    });
    expect(spec.status, spec.text).toBe(201);
    await ctx.worker.drain();

    const reader = await signedIn(members.read);
    const sitePage = await ok(reader, `/app/o/${org.id}/sites/${site.body.id}`);
    expect(sitePage).toContain("Public docs");
    expect(sitePage).toContain(`http://quire.test/s/${site.body.basename}`);
    expect(sitePage).toContain(`href="/app/o/${org.id}/s/${space.id}"`);
    const specPage = await ok(reader, `/app/o/${org.id}/openapi/petstore`);
    expect(specPage).toContain("petstore");
    expect(specPage).toContain("latest");
    const home = await ok(reader, `/app/o/${org.id}`);
    expect(home).toContain(`href="/app/o/${org.id}/sites/${site.body.id}"`);
    expect(home).toContain(`href="/app/o/${org.id}/openapi/petstore"`);

    // Guests see no site and no topic (as the API); outsiders see nothing.
    const guest = await signedIn(members.guest);
    expect((await ctx.as(members.guest).get(`/v1/orgs/${org.id}/sites/${site.body.id}`)).status).toBe(404);
    expect((await guest.get(`/app/o/${org.id}/sites/${site.body.id}`)).status).toBe(404);
    expect((await (await signedIn(outsider)).get(`/app/o/${org.id}/openapi/petstore`)).status).toBe(404);
    expect((await reader.get(`/app/o/${org.id}/openapi/nope`)).status).toBe(404);
    expect((await reader.get(`/app/o/${org.id}/sites/nope`)).status).toBe(404);
    expect((await reader.get(`/app/o/${org.id}/agent/topics/nope`)).status).toBe(404);
    expect((await guest.get(`/app/o/${org.id}/agent/topics/nope`)).status).toBe(403);
  });
});
