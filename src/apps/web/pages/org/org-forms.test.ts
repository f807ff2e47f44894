/**
 * Creating and renaming spaces and collections, and managing members, from the web app: each form
 * goes through the API's checks (who may create where, admins only, the last admin kept), a forged
 * post changes nothing, and another organization's addresses are 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createOrganization, createUser } from "../../../../../test/helpers/factories.js";
import { createCollection, createOrgWithSpace } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Handbook" });
  await commitContent(ctx, space.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Hello."] }] });
  const org = `/app/o/${roles.org.id}`;
  return { ...roles, space, url: org };
}

describe("spaces and collections from the organization page", () => {
  it("creates a blank space, a space from a template and a collection, and renames them, as the API allows", async () => {
    const s = await setup();
    const creator = await WebClient.signedIn(ctx, s.members.create);
    const page = await creator.get(s.url);
    expect(page.text).toContain('id="new-space"');
    const csrf = WebClient.csrfOf(page.text);

    const blank = await creator.post(`${s.url}/spaces`, { _csrf: csrf, title: " Runbooks ", parent: "", template: "" });
    expect(blank.status, blank.text).toBe(303);
    const blankId = blank.location!.split("/s/")[1]!;
    const api = ctx.as(s.members.create);
    expect((await api.get(`/v1/spaces/${blankId}`)).body.title).toBe("Runbooks");
    expect((await api.get(`/v1/spaces/${blankId}/content/pages`)).body.pages).toEqual([]);

    const copied = await creator.post(`${s.url}/spaces`, { _csrf: csrf, title: "Handbook 2", template: s.space.id });
    const copyId = copied.location!.split("/s/")[1]!;
    const pages = (await api.get(`/v1/spaces/${copyId}/content/pages`)).body.pages as { title: string }[];
    expect(pages.map((p) => p.title)).toEqual(["Welcome"]);
    expect((await creator.get(copied.location!)).text).toContain("Hello.");

    // The built-in "Getting started" template: the sample pages, nested as sample/getting-started/pages.json says.
    expect(page.text).toContain('<option value="getting-started"');
    const started = await creator.post(`${s.url}/spaces`, { _csrf: csrf, title: "Lighthouse manual", template: "getting-started" });
    expect(started.status, started.text).toBe(303);
    const startedId = started.location!.split("/s/")[1]!;
    const tree = (await api.get(`/v1/spaces/${startedId}/content/pages`)).body.pages as Array<{
      id: string;
      title: string;
      pages: { title: string }[];
    }>;
    expect(tree.map((p) => p.title)).toEqual([
      "Welcome",
      "Writing pages",
      "Change requests and review",
      "Git sync",
      "Publishing a site",
      "The API",
    ]);
    expect(tree[1]!.pages.map((p) => p.title)).toEqual(["Every kind of block"]);
    const welcome = await api.get(`/v1/spaces/${startedId}/content/page/${tree[0]!.id}`);
    expect(JSON.stringify(welcome.body.document).length).toBeGreaterThan(500);
    // Links between the sample pages point at the new space's own pages.
    const linked = [...JSON.stringify(welcome.body.document).matchAll(/"kind":"page","page":"([^"]+)"/g)].map((m) => m[1]);
    const ids = [...tree.map((p) => p.id), ...tree[1]!.pages.map((p) => (p as unknown as { id: string }).id)];
    expect(linked.length).toBe(6);
    for (const id of linked) expect(ids).toContain(id);
    expect((await creator.get(started.location!)).text).toContain("Writing pages");

    const collection = await creator.post(`${s.url}/collections`, { _csrf: csrf, title: "Operations" });
    expect(collection.status).toBe(303);
    const collectionId = collection.location!.split("/c/")[1]!;
    const inside = await creator.post(`${s.url}/spaces`, { _csrf: csrf, title: "Inside", parent: collectionId });
    const insideId = inside.location!.split("/s/")[1]!;
    expect((await api.get(`/v1/spaces/${insideId}`)).body.parent).toBe(collectionId);

    // The creator administers what they created: rename both.
    expect((await creator.get(`${s.url}/s/${blankId}`)).text).toContain("Save title");
    expect((await creator.post(`${s.url}/s/${blankId}/rename`, { _csrf: csrf, title: "Run books" })).status).toBe(303);
    expect((await api.get(`/v1/spaces/${blankId}`)).body.title).toBe("Run books");
    expect((await creator.post(`${s.url}/c/${collectionId}/rename`, { _csrf: csrf, title: "Ops" })).status).toBe(303);
    expect((await api.get(`/v1/collections/${collectionId}`)).body.title).toBe("Ops");
    expect((await creator.post(`${s.url}/s/${blankId}/rename`, { _csrf: csrf, title: "x".repeat(51) })).status).toBe(400);
    expect((await creator.post(`${s.url}/spaces`, { _csrf: csrf, title: "  " })).status).toBe(400);
  });

  it("refuses creating to an editor (no form, 403), renaming to a non-admin, a forged form, and another organization's template or collection", async () => {
    const s = await setup();
    const editor = await WebClient.signedIn(ctx, s.members.edit);
    const page = await editor.get(s.url);
    expect(page.text).not.toContain('id="new-space"');
    const csrf = WebClient.csrfOf(page.text);
    expect((await editor.post(`${s.url}/spaces`, { _csrf: csrf, title: "Nope" })).status).toBe(403);
    expect((await editor.post(`${s.url}/collections`, { _csrf: csrf, title: "Nope" })).status).toBe(403);
    expect((await editor.get(`${s.url}/s/${s.space.id}`)).text).not.toContain("Save title");
    expect((await editor.post(`${s.url}/s/${s.space.id}/rename`, { _csrf: csrf, title: "Mine" })).status).toBe(403);

    const creator = await WebClient.signedIn(ctx, s.members.create);
    const creatorCsrf = WebClient.csrfOf((await creator.get(s.url)).text);
    expect((await creator.post(`${s.url}/spaces`, { title: "No token" })).status).toBe(403);
    const stranger = await createUser(ctx);
    const other = await createOrgWithSpace(ctx, { title: "Their secrets" });
    const theirCollection = await createCollection(ctx, other.owner, other.org.id, { title: "Theirs" });
    expect((await creator.post(`${s.url}/spaces`, { _csrf: creatorCsrf, title: "Steal", template: other.space.id })).status).toBe(404);
    expect((await creator.post(`${s.url}/spaces`, { _csrf: creatorCsrf, title: "In", parent: theirCollection.id })).status).toBe(404);
    expect((await creator.post(`${s.url}/c/${theirCollection.id}/rename`, { _csrf: creatorCsrf, title: "Mine" })).status).toBe(404);
    const strangerOrg = await createOrganization(ctx, stranger, "Elsewhere");
    expect((await creator.post(`/app/o/${strangerOrg.id}/spaces`, { _csrf: creatorCsrf, title: "X" })).status).toBe(404);
    expect((await ctx.as(s.owner).get(`/v1/orgs/${s.org.id}/spaces`)).body.items.map((x: { title: string }) => x.title)).toEqual([
      "Handbook",
    ]);
  });
});

describe("an organization's members page", () => {
  it("lets admins invite by email, change roles and remove members; others read it; guests and outsiders are refused", async () => {
    const s = await setup();
    const admin = await WebClient.signedIn(ctx, s.members.admin);
    const page = await admin.get(`${s.url}/members`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="invite-form"');
    const csrf = WebClient.csrfOf(page.text);
    const invited = await admin.post(`${s.url}/members/invite`, {
      _csrf: csrf,
      emails: "ada@example.com,\nGrace@Example.com ada@example.com",
      role: "edit",
    });
    expect(invited.status, invited.text).toBe(303);
    const members = async () =>
      (await ctx.as(s.owner).get(`/v1/orgs/${s.org.id}/members?limit=100`)).body.items as {
        role: string | null;
        user: { id: string; email: string };
      }[];
    const ada = (await members()).find((m) => m.user.email === "ada@example.com")!;
    expect(ada.role).toBe("edit");
    expect((await members()).some((m) => m.user.email === "grace@example.com")).toBe(true);
    expect((await admin.get(invited.location!)).text).toContain("Invitations sent");

    const bad = await admin.post(`${s.url}/members/invite`, { _csrf: csrf, emails: "ok@example.com, not-an-address", role: "read" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("not-an-address");
    expect((await members()).some((m) => m.user.email === "ok@example.com")).toBe(false);

    expect((await admin.post(`${s.url}/members/${ada.user.id}/role`, { _csrf: csrf, role: "review" })).status).toBe(303);
    expect((await members()).find((m) => m.user.id === ada.user.id)!.role).toBe("review");
    expect((await admin.post(`${s.url}/members/${ada.user.id}/role`, { _csrf: csrf, role: "owner" })).status).toBe(400);
    expect((await admin.post(`${s.url}/members/${ada.user.id}/remove`, { _csrf: csrf })).status).toBe(303);
    expect((await members()).some((m) => m.user.id === ada.user.id)).toBe(false);
    expect((await admin.post(`${s.url}/members/${ada.user.id}/remove`, { _csrf: csrf })).status).toBe(404);

    // A reader sees the list without the forms, and a forged post is the API's 403.
    const reader = await WebClient.signedIn(ctx, s.members.read);
    const readerPage = await reader.get(`${s.url}/members`);
    expect(readerPage.status).toBe(200);
    expect(readerPage.text).not.toContain('id="invite-form"');
    expect(readerPage.text).not.toContain("Change role");
    const readerCsrf = WebClient.csrfOf(readerPage.text);
    expect((await reader.post(`${s.url}/members/invite`, { _csrf: readerCsrf, emails: "x@example.com", role: "admin" })).status).toBe(403);
    expect((await reader.post(`${s.url}/members/${s.members.edit.id}/role`, { _csrf: readerCsrf, role: "admin" })).status).toBe(403);
    expect((await reader.post(`${s.url}/members/${s.members.edit.id}/remove`, { _csrf: readerCsrf })).status).toBe(403);
    expect((await admin.post(`${s.url}/members/${s.members.edit.id}/role`, { role: "admin" })).status).toBe(403);

    const guest = await WebClient.signedIn(ctx, s.members.guest);
    expect((await guest.get(`${s.url}/members`)).status).toBe(403);
    const outsider = await WebClient.signedIn(ctx, s.outsider);
    expect((await outsider.get(`${s.url}/members`)).status).toBe(404);
  });

  it("keeps the last admin: demoting or removing them is refused with the API's message", async () => {
    const s = await setup();
    const owner = await WebClient.signedIn(ctx, s.owner);
    const csrf = WebClient.csrfOf((await owner.get(`${s.url}/members`)).text);
    // The owner and the admin member are the organization's admins: the owner demotes the other, then cannot demote themself.
    expect((await owner.post(`${s.url}/members/${s.members.admin.id}/role`, { _csrf: csrf, role: "read" })).status).toBe(303);
    const last = await owner.post(`${s.url}/members/${s.owner.id}/role`, { _csrf: csrf, role: "read" });
    expect(last.status).toBe(409);
    expect(last.text).toContain("at least one active admin");
    expect((await owner.post(`${s.url}/members/${s.owner.id}/remove`, { _csrf: csrf })).status).toBe(409);
  });
});
