import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { contractClient } from "../../../test/helpers/contract.js";
import { createOrgWithSpace, createSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

function headingDoc(parts: [string | null, string][]) {
  const nodes = parts.flatMap(([heading, text], i) => [
    ...(heading
      ? [
          {
            object: "block",
            type: "heading-1",
            key: `h${i}`,
            nodes: [{ object: "text", leaves: [{ object: "leaf", text: heading, marks: [] }] }],
          },
        ]
      : []),
    { object: "block", type: "paragraph", key: `p${i}`, nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }] },
  ]);
  return { object: "document", data: {}, nodes };
}

async function setup() {
  const { space, ...roles } = await createOrgWithSpace(ctx, { title: "Handbook" });
  const { saveDocument } = await import("../../content/revision/storage.js");
  const install = await saveDocument(
    ctx.db,
    headingDoc([
      [null, "How to get started."],
      ["Configure the proxy", "Set the proxy variable before installing packages."],
    ]),
  );
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Welcome", paragraphs: ["Nothing to see here."] },
      { title: "Guides", kind: "group", children: [{ title: "Installation", extra: { documentHash: install } }] },
    ],
  });
  await ctx.worker.drain();
  return { ...roles, space };
}

describe("GET /v1/spaces/{spaceId}/search", () => {
  it("finds pages and sections with paths, ancestors, anchors and snippets", async () => {
    const { owner, space } = await setup();
    const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=proxy`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    const [page] = res.body.items;
    expect(page).toMatchObject({ title: "Installation", path: "guides/installation", ancestors: [{ title: "Guides" }] });
    expect(page.sections[0]).toMatchObject({ title: "Configure the proxy", path: "guides/installation#configure-the-proxy" });
    expect(page.sections[0].body).toContain("proxy");
    expect(page.sections[0].urls.app).toMatch(/#configure-the-proxy$/);
    // stemming and prefix of the last word
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=install`)).body.count).toBe(1);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=wel`)).body.items[0].title).toBe("Welcome");
  });

  it("follows content changes", async () => {
    const { owner, space } = await setup();
    await commitContent(ctx, space.id, { pages: [{ title: "Renamed", paragraphs: ["Entirely new words about kayaks."] }] });
    await ctx.worker.drain();
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=proxy`)).body.count).toBe(0);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=kayaks`)).body.items[0].title).toBe("Renamed");
  });

  it("answers 401, 404 to outsiders, and a precise 400 without words", async () => {
    const { outsider, owner, space } = await setup();
    expect((await ctx.anonymous.get(`/v1/spaces/${space.id}/search?query=x`)).status).toBe(401);
    expect((await ctx.as(outsider).get(`/v1/spaces/${space.id}/search?query=proxy`)).status).toBe(404);
    const missing = await ctx.as(owner).get(`/v1/spaces/${space.id}/search`);
    expect(missing.body.error.message).toBe('query parameter "query" is required.');
    const noWords = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=${encodeURIComponent('"*:')}`);
    expect(noWords.status).toBe(400);
    expect(noWords.body.error.message).toBe("The query has no words to search for (letters or digits).");
    // Query shapes a search refuses rather than runs: each 400 says what to change.
    for (const [query, message] of [
      ["b*", '"b*" is too short a prefix: a word ending in * needs at least 3 letters or digits before the *.'],
      ["-proxy", "The query only excludes words (-word): add at least one word to search for."],
      ["a b c d e f g h i j k l m n o p q", "The query has more than 16 different words; search for at most 16."],
    ]) {
      const refused = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=${encodeURIComponent(query!)}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error).toEqual({ code: 400, message });
    }
    // Exclusions and explicit prefixes, the shapes accepted.
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=${encodeURIComponent("proxy -packages")}`)).body.count).toBe(0);
    expect((await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=${encodeURIComponent("pro* -welcome")}`)).body.count).toBe(1);
    const tooLong = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=${"a".repeat(513)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toBe('query parameter "query" must be at most 512 characters long.');
  });

  it("pages with an opaque cursor and answers a precise 400 for a malformed one", async () => {
    const { owner, space } = await setup();
    await commitContent(ctx, space.id, {
      pages: ["One", "Two", "Three"].map((title) => ({ title, paragraphs: [`${title} kayak tour.`] })),
    });
    await ctx.worker.drain();
    const all = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=kayak`);
    expect(all.body.count).toBe(3);
    expect(all.body.next).toBeUndefined();
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await ctx
        .as(owner)
        .get(`/v1/spaces/${space.id}/search?query=kayak&limit=1${page ? `&page=${encodeURIComponent(page)}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(3);
      seen.push(...res.body.items.map((p: { id: string }) => p.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(all.body.items.map((p: { id: string }) => p.id));
    for (const bad of ["garbage", Buffer.from("[-1]").toString("base64url"), Buffer.from('["1"]').toString("base64url")]) {
      const res = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=proxy&page=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "The `page` parameter is not a cursor returned by this search; pass `next.page` from a previous response.",
      );
    }
  });
});

describe("GET /v1/orgs/{organizationId}/search", () => {
  it("searches only the spaces the caller may read", async () => {
    const { org, owner, members, space } = await setup();
    const secret = await createSpace(ctx, owner, org.id, { title: "Secret" });
    await setDefaultLevel(ctx, owner, { space: secret.id }, null);
    await commitContent(ctx, secret.id, { pages: [{ title: "Proxy secrets", paragraphs: ["The proxy password is hunter2."] }] });
    await ctx.worker.drain();
    const asOwner = await ctx.as(owner).get(`/v1/orgs/${org.id}/search?query=proxy`);
    expect(asOwner.body.items.map((s: { title: string }) => s.title).sort()).toEqual(["Handbook", "Secret"]);
    const asReader = await ctx.as(members.read).get(`/v1/orgs/${org.id}/search?query=proxy`);
    expect(asReader.body.items.map((s: { title: string }) => s.title)).toEqual(["Handbook"]);
    expect(JSON.stringify(asReader.body)).not.toContain("hunter2");
    void space;
  });

  it("pages through spaces in the order of their best page", async () => {
    const { org, owner } = await setup();
    const other = await createSpace(ctx, owner, org.id, { title: "Runbook" });
    await commitContent(ctx, other.id, { pages: [{ title: "Proxy", paragraphs: ["Restart the proxy."] }] });
    await ctx.worker.drain();
    const all = await ctx.as(owner).get(`/v1/orgs/${org.id}/search?query=proxy`);
    expect(all.body.count).toBe(2);
    expect(all.body.next).toBeUndefined();
    const first = await ctx.as(owner).get(`/v1/orgs/${org.id}/search?query=proxy&limit=1`);
    expect(first.body).toMatchObject({ count: 2, items: [{ id: all.body.items[0].id, title: all.body.items[0].title }] });
    const second = await ctx
      .as(owner)
      .get(`/v1/orgs/${org.id}/search?query=proxy&limit=1&page=${encodeURIComponent(first.body.next.page)}`);
    expect(second.body).toMatchObject({ count: 2, items: [{ id: all.body.items[1].id, title: all.body.items[1].title }] });
    expect(second.body.next).toBeUndefined();
    expect(second.body.items[0].pages).toEqual(all.body.items[1].pages);
  });

  it("answers 401, 404 to outsiders, and precise 400s", async () => {
    const { org, outsider, owner } = await setup();
    expect((await ctx.anonymous.get(`/v1/orgs/${org.id}/search?query=x`)).status).toBe(401);
    const hidden = await ctx.as(outsider).get(`/v1/orgs/${org.id}/search?query=proxy`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.message).toBe(`No organization with id "${org.id}" that you are a member of.`);
    const missing = await ctx.as(owner).get(`/v1/orgs/${org.id}/search`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('query parameter "query" is required.');
    const noWords = await ctx.as(owner).get(`/v1/orgs/${org.id}/search?query=${encodeURIComponent("&|!")}`);
    expect(noWords.status).toBe(400);
    expect(noWords.body.error.message).toBe("The query has no words to search for (letters or digits).");
    for (const bad of ["garbage", Buffer.from("[1.5]").toString("base64url"), Buffer.from("[1,2]").toString("base64url")]) {
      const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/search?query=proxy&page=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "The `page` parameter is not a cursor returned by this search; pass `next.page` from a previous response.",
      );
    }
  });

  it("validates through @gitbook/api", async () => {
    const { org, owner, space } = await setup();
    const client = contractClient(await ctx.listen(), owner.token);
    expect((await client.spaces.searchSpaceContent(space.id, { query: "proxy" })).data.items).toHaveLength(1);
    expect((await client.orgs.searchOrganizationContent(org.id, { query: "proxy" })).data.items[0]!.pages).toHaveLength(1);
  });
});
