import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { block, doc, h, p } from "../../../test/helpers/render-documents.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { saveDocument } from "../../content/revision/storage.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** A published site of `pages` (search index built), and its root. */
async function publish(pages: Parameters<typeof commitContent>[2]["pages"]) {
  const base = await createOrgWithSpace(ctx, { title: "Ops" });
  await commitContent(ctx, base.space.id, { pages });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Ops", spaces: [base.space.id] });
  expect((await ctx.as(base.owner).post(`/v1/orgs/${base.org.id}/sites/${site.id}/publish`)).status).toBe(200);
  await ctx.worker.drain();
  return { ...base, root: `/s/${site.basename}` };
}

async function titles(root: string, query: string): Promise<string[]> {
  const res = await ctx.anonymous.get(`${root}/~quire/search.json?q=${encodeURIComponent(query)}`);
  expect(res.status, res.text).toBe(200);
  return res.body.results.map((r: { title: string }) => r.title);
}

describe("published site search: misspelled words", () => {
  it("finds pages by the closest words of the site's vocabulary, titles equal to a correction first", async () => {
    const many = "Kubernetes events, kubernetes pods, kubernetes nodes: kubernetes everywhere.";
    const { root } = await publish([
      { title: "Kubernetes events", slug: "events", paragraphs: [many, many] },
      { title: "Installation", slug: "installation", paragraphs: ["Run the installer on every node."] },
      { title: "Kubernetes", slug: "kubernetes", paragraphs: ["The cluster."] },
      { title: "Helm", slug: "helm", paragraphs: ["Charts package applications."] },
    ]);
    // Swapped letters, a letter missing, one too many, one changed: as typed in the box, and as a
    // whole word on the search page.
    expect(await titles(root, "kubrenetes")).toEqual(["Kubernetes", "Kubernetes events"]);
    expect(await titles(root, "kubernets")).toEqual(["Kubernetes", "Kubernetes events"]);
    expect(await titles(root, "instalation")).toEqual(["Installation"]);
    expect(await titles(root, "packkage")).toEqual(["Helm"]);
    expect(await titles(root, "hekm")).toEqual(["Helm"]);
    // Words shorter than four letters are not corrected (one edit is too many other words), and
    // words too far from any are not either.
    expect(await titles(root, "hlm")).toEqual([]);
    expect(await titles(root, "kbrnts")).toEqual([]);
    // The correction is marked in the snippet like the query's own words; the search page shows it too.
    const json = await ctx.anonymous.get(`${root}/~quire/search.json?q=packkage`);
    const [section] = json.body.results[0].sections;
    expect(section.marks.map(([start, end]: [number, number]) => section.snippet.slice(start, end))).toEqual(["package"]);
    const page = await ctx.anonymous.get(`${root}/~quire/search?q=packkage`);
    expect(page.text).toContain("<strong>Helm</strong>");
    expect(page.text).toContain("<mark>package</mark>");
  });

  it("ranks pages found only through a correction after the pages the query finds as typed", async () => {
    const { root } = await publish([
      // "instills" is one edit from "installs" and is the title: it still ranks after the page that
      // holds "installing", which the engine matches for "installs" as typed (same stem).
      { title: "Instills", slug: "instills", paragraphs: ["It instills calm."] },
      { title: "Setup", slug: "setup", paragraphs: ["Installing the tools."] },
    ]);
    expect(await titles(root, "installs")).toEqual(["Setup", "Instills"]);
    // A word in the vocabulary (or, for the word being typed, the start of one) is never
    // corrected: "instills" and "instil" find their page only.
    expect(await titles(root, "instills")).toEqual(["Instills"]);
    expect(await titles(root, "instil")).toEqual(["Instills"]);
  });

  it("corrects nothing into, and finds nothing of, text the reader may not see", async () => {
    const gated = doc(
      h(1, "Access"),
      p("Ask the admins for access."),
      block("if", { expression: "visitor.claims.beta === true" }, [p("The zeppelin launch code is hidden.")]),
    );
    const { root, space, owner } = await publish([
      { title: "Access", slug: "access", extra: { documentHash: await saveDocument(ctx.db, gated) } },
      { title: "Beta only", slug: "beta", paragraphs: ["Quixotic plans."], extra: { condition: "visitor.claims.beta === true" } },
      { title: "Hidden one", slug: "hidden-one", paragraphs: ["Not listed, a marmalade."], extra: { hidden: true } },
      { title: "Open", slug: "open", paragraphs: ["Everyone reads this."] },
    ]);
    // One edit from a word only in a conditional block, a conditional page or a hidden page: no
    // result, exactly as for a word found nowhere.
    for (const query of ["zepelin", "zeppelim", "quixotik", "marmelade", "zeppelin", "quixotic"]) {
      expect(await titles(root, query), query).toEqual([]);
    }
    // Members search every block: the space's own search finds the hidden word (as typed).
    const members = await ctx.as(owner).get(`/v1/spaces/${space.id}/search?query=zeppelin`);
    expect(members.body.items.map((r: { title: string }) => r.title)).toEqual(["Access"]);
    // The vocabulary holds the text every reader sees, and nothing else.
    const words = (await ctx.db.selectFrom("searchWords").select("word").where("spaceId", "=", space.id).execute()).map((r) => r.word);
    expect(words).toEqual(expect.arrayContaining(["access", "admins", "everyone", "open"]));
    for (const hidden of ["zeppelin", "launch", "quixotic", "marmalade", "beta", "hidden"]) expect(words).not.toContain(hidden);
  });

  it("keeps the vocabulary in step with the content: a word removed is no longer a correction", async () => {
    const { root, space } = await publish([{ title: "Gateway", slug: "gateway", paragraphs: ["Configure the gateway."] }]);
    expect(await titles(root, "gatewya")).toEqual(["Gateway"]);
    await commitContent(ctx, space.id, { pages: [{ title: "Router", slug: "router", paragraphs: ["Configure the router."] }] });
    await ctx.worker.drain();
    expect(await titles(root, "gatewya")).toEqual([]);
    expect(await titles(root, "ruoter")).toEqual(["Router"]);
  });
});
