/**
 * A change request's page tree in the web app, beyond adding and moving: groups, renaming,
 * duplicating a page with its subpages (new block keys, same text), pages that share a title told
 * apart by their trail in the pickers, and the refusals (a reader, a forged form, another
 * organization, a link).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { createChangeRequest, pageKeys, pageTexts } from "../../../../../test/helpers/change-requests.factories.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createOrganization, createUser } from "../../../../../test/helpers/factories.js";
import { createOrgWithSpace } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Tree = { id: string; title: string; kind: string; slug: string; pages?: Tree }[];
const outline = (pages: Tree): string[] =>
  pages.map((p) => `${p.kind === "group" ? "§" : ""}${p.title}${p.pages?.length ? ` [${outline(p.pages).join(", ")}]` : ""}`);

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Docs" });
  const { content } = await commitContent(ctx, space.id, {
    pages: [
      {
        title: "Cloud",
        slug: "cloud",
        paragraphs: ["Clouds."],
        children: [{ title: "Kubernetes", slug: "kubernetes", paragraphs: ["Pods on the cloud.", "Nodes."] }],
      },
      {
        title: "On premises",
        slug: "on-premises",
        paragraphs: ["Racks."],
        children: [{ title: "Kubernetes", slug: "kubernetes", paragraphs: ["Pods at home."] }],
      },
      { title: "Elsewhere", slug: "elsewhere", kind: "link", href: "https://example.com/" },
    ],
  });
  const cr = await createChangeRequest(ctx, roles.members.edit, space.id, { subject: "Tree" });
  const url = `/app/o/${roles.org.id}/s/${space.id}/~/changes/${cr.number}`;
  const api = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  const [cloud, onPrem, link] = content.pages;
  return { ...roles, space, cr, url, api, cloud: cloud!, onPrem: onPrem!, link: link! };
}

describe("a change request's page tree in the web app", () => {
  it("adds a group, renames, and duplicates a page with its subpages: same text, new block keys, right after the original", async () => {
    const s = await setup();
    const crPages = async () => (await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages as Tree;
    const editor = await WebClient.signedIn(ctx, s.members.edit);
    const pagesUrl = `${s.url}/pages`;
    const shown = await editor.get(pagesUrl);
    expect(shown.status).toBe(200);
    // Two pages named Kubernetes: the pickers give each its trail.
    expect(shown.text).toContain("Kubernetes — Cloud / Kubernetes");
    expect(shown.text).toContain("Kubernetes — On premises / Kubernetes");
    const csrf = WebClient.csrfOf(shown.text);

    const group = await editor.post(pagesUrl, { _csrf: csrf, title: "Reference", parent: "", kind: "group" });
    expect(group.status, group.text).toBe(303);
    expect(group.location).toContain("done=group-added");
    expect(outline(await crPages())).toEqual(["Cloud [Kubernetes]", "On premises [Kubernetes]", "Elsewhere", "§Reference"]);
    const reference = (await crPages())[3]!;
    expect((await editor.post(pagesUrl, { _csrf: csrf, title: "API", parent: reference.id })).status).toBe(303);
    expect(outline(await crPages())[3]).toBe("§Reference [API]");

    const renamed = await editor.post(`${s.url}/p/${s.onPrem.id}/rename`, { _csrf: csrf, title: "  Self-hosted " });
    expect(renamed.location).toBe(`${pagesUrl}?done=page-renamed#tree-${s.onPrem.id}`);
    const afterRename = await crPages();
    expect(afterRename[1]!.title).toBe("Self-hosted");
    expect(afterRename[1]!.slug).toBe("on-premises"); // links to the page keep working
    expect((await editor.post(`${s.url}/p/${s.onPrem.id}/rename`, { _csrf: csrf, title: " " })).status).toBe(400);

    const duplicated = await editor.post(`${s.url}/p/${s.cloud.id}/duplicate`, { _csrf: csrf });
    expect(duplicated.status, duplicated.text).toBe(303);
    const tree = await crPages();
    expect(outline(tree)).toEqual([
      "Cloud [Kubernetes]",
      "Cloud (copy) [Kubernetes]",
      "Self-hosted [Kubernetes]",
      "Elsewhere",
      "§Reference [API]",
    ]);
    const [original, copy] = tree;
    expect(duplicated.location).toBe(`${pagesUrl}?done=page-duplicated#tree-${copy!.id}`);
    expect(copy!.id).not.toBe(original!.id);
    expect(copy!.slug).not.toBe(original!.slug);
    const [kube, kubeCopy] = [original!.pages![0]!, copy!.pages![0]!];
    expect(kubeCopy.id).not.toBe(kube.id);
    expect(kubeCopy.slug).toBe("kubernetes");
    expect(await pageTexts(ctx, s.owner, s.api, kubeCopy.id)).toEqual(["Pods on the cloud.", "Nodes."]);
    const keys = await pageKeys(ctx, s.owner, s.api, kube.id);
    const copiedKeys = await pageKeys(ctx, s.owner, s.api, kubeCopy.id);
    expect(copiedKeys).toHaveLength(2);
    expect(copiedKeys.filter((k) => keys.includes(k))).toEqual([]);

    // A group duplicates as a group with its pages.
    expect((await editor.post(`${s.url}/p/${reference.id}/duplicate`, { _csrf: csrf })).status).toBe(303);
    expect(outline(await crPages()).slice(-2)).toEqual(["§Reference [API]", "§Reference (copy) [API]"]);

    // A link is not duplicated, and says so.
    const linkCopy = await editor.post(`${s.url}/p/${s.link.id}/duplicate`, { _csrf: csrf });
    expect(linkCopy.status).toBe(400);
    expect(linkCopy.text).toContain("links are not duplicated");
  });

  it("refuses renaming and duplicating to a reader (403), without the CSRF token (403), and in another organization (404)", async () => {
    const s = await setup();
    const before = JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages);
    const reader = await WebClient.signedIn(ctx, s.members.read);
    const readerCsrf = WebClient.csrfOf((await reader.get(s.url)).text);
    const forms = [
      [`${s.url}/p/${s.cloud.id}/rename`, { title: "Forged" }],
      [`${s.url}/p/${s.cloud.id}/duplicate`, {}],
      [`${s.url}/pages`, { title: "Forged group", kind: "group" }],
    ] as const;
    for (const [url, form] of forms) expect((await reader.post(url, { _csrf: readerCsrf, ...form })).status, url).toBe(403);
    const editor = await WebClient.signedIn(ctx, s.members.edit);
    const csrf = WebClient.csrfOf((await editor.get(`${s.url}/pages`)).text);
    for (const [url, form] of forms) expect((await editor.post(url, { ...form })).status, url).toBe(403);
    const stranger = await createUser(ctx);
    const otherOrg = await createOrganization(ctx, stranger, "Other");
    const elsewhere = `/app/o/${otherOrg.id}/s/${s.space.id}/~/changes/${s.cr.number}`;
    expect((await editor.post(`${elsewhere}/p/${s.cloud.id}/rename`, { _csrf: csrf, title: "X" })).status).toBe(404);
    expect((await editor.post(`${elsewhere}/p/${s.cloud.id}/duplicate`, { _csrf: csrf })).status).toBe(404);
    expect((await editor.post(`${s.url}/p/nope/duplicate`, { _csrf: csrf })).status).toBe(404);
    const long = await editor.post(`${s.url}/p/${s.cloud.id}/rename`, { _csrf: csrf, title: "x".repeat(300) });
    expect(long.status).toBe(400);
    expect(JSON.stringify((await ctx.as(s.owner).get(`${s.api}/content/pages`)).body.pages)).toBe(before);
  });
});
