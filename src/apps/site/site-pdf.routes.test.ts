/**
 * "Download as PDF" on published pages: the link, and the PDF it serves, for exactly what the
 * reader may read (page conditions, conditional blocks, share keys, visitor tokens), only while the
 * site's customization enables PDF export.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPdf } from "../../../test/fixtures/pdf/pdf-reader.js";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { block, doc, inline, p } from "../../../test/helpers/render-documents.js";
import { createSite, publishWithVisitorAuth } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../test/helpers/spaces.factories.js";
import { saveDocument } from "../../content/revision/storage.js";
import { MAX_READER_RENDERS, readerRenderSlots } from "../../modules/pdf/pdf.service.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const SCHEMA = { type: "object", additionalProperties: false, properties: { beta: { type: "boolean", description: "Beta tester" } } };

async function scenario(visibility = "public") {
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  const plans = await saveDocument(
    ctx.db,
    doc(
      p("Everyone sees this."),
      block("if", { expression: "visitor.claims.beta === true" }, [p("Secret beta tip.")]),
      p("Tester: ", inline("expression", { expression: 'visitor.claims.beta === true ? "yes" : "no"' }), "."),
    ),
  );
  const { content } = await commitContent(ctx, base.space.id, {
    pages: [
      { title: "Welcome", slug: "welcome", paragraphs: ["Start here."] },
      { title: "Plans", slug: "plans", extra: { documentHash: plans } },
      {
        title: "Beta program",
        slug: "beta",
        paragraphs: ["Beta features for testers."],
        extra: { condition: "visitor.claims.beta === true" },
      },
    ],
  });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Handbook", visibility, spaces: [base.space.id] });
  const { url, key } = await publishWithVisitorAuth(ctx, base.owner, base.org.id, site.id, SCHEMA);
  const [welcome, plansPage, beta] = content.pages.map((page) => page.id) as [string, string, string];
  return { ...base, site, url, key, root: `/s/${site.basename}`, ids: { welcome, plans: plansPage, beta } };
}

const sign = (key: string, claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("2h").sign(new TextEncoder().encode(key));

/** The "Download as PDF" address on a page's HTML. */
function pdfLinkOf(html: string): string | undefined {
  return /<a class="q-page-action" href="([^"]+)" type="application\/pdf" download>Download as PDF<\/a>/.exec(html)?.[1];
}

async function pdfText(path: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await ctx.anonymous.get(path, { headers });
  expect(res.status, res.text).toBe(200);
  expect(res.headers["content-type"]).toBe("application/pdf");
  expect(res.headers["content-disposition"]).toMatch(/^attachment; filename\*=UTF-8''/);
  return (await readPdf(res.raw)).text;
}

describe("Download as PDF on a published page", () => {
  it("links every page to its PDF, which holds that page as the reader sees it, conditional blocks resolved", async () => {
    const s = await scenario();
    const html = (await ctx.anonymous.get(`${s.root}/plans`)).text;
    const link = pdfLinkOf(html);
    expect(link).toMatch(new RegExp(`^${s.root}/~quire/pdf/[A-Za-z0-9]+/${s.ids.plans}$`));
    const anonymous = await pdfText(link as string);
    expect(anonymous).toContain("Everyone sees this.");
    expect(anonymous).not.toContain("Secret beta tip");
    // Expressions print their value for the reader, not their source.
    expect(anonymous).toContain("Tester: no.");
    expect(anonymous).not.toContain("visitor.claims");
    // One page only: the others are not in it.
    expect(anonymous).not.toContain("Start here.");

    const token = await sign(s.key, { beta: true });
    const tester = await pdfText(link as string, { authorization: `Bearer ${token}` });
    expect(tester).toContain("Secret beta tip.");
    expect(tester).toContain("Tester: yes.");
    // And the anonymous file was not replaced by the tester's (each is cached under what it shows).
    expect(await pdfText(link as string)).not.toContain("Secret beta tip");
    // A new title readers see is printed at once, though the revision is the same.
    expect((await ctx.as(s.owner).put(`${s.url}/customization`, { title: "Field Manual" })).status).toBe(200);
    expect(await pdfText(link as string)).toContain("Field Manual");
  });

  it("tells a reader to retry (429, Retry-After) while every reader render slot is taken, and serves a rendered page meanwhile", async () => {
    const s = await scenario();
    const link = pdfLinkOf((await ctx.anonymous.get(`${s.root}/welcome`)).text) as string;
    const rendered = await pdfText(link);
    for (let n = 0; n < MAX_READER_RENDERS; n++) expect(readerRenderSlots.tryTake()).toBe(true);
    try {
      const refused = await ctx.anonymous.get(link.replace(s.ids.welcome, s.ids.plans));
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toBe("5");
      expect(refused.text).toMatch(/busy right now; try again in a few seconds/);
      expect(await pdfText(link)).toBe(rendered);
    } finally {
      for (let n = 0; n < MAX_READER_RENDERS; n++) readerRenderSlots.giveBack();
    }
    expect(await pdfText(link.replace(s.ids.welcome, s.ids.plans))).toContain("Everyone sees this.");
  });

  it("answers 404 for a page the reader may not read, a page of another site, and an unknown page", async () => {
    const s = await scenario();
    const other = await scenario();
    const html = (await ctx.anonymous.get(`${s.root}/welcome`)).text;
    const link = pdfLinkOf(html) as string;
    const betaLink = link.replace(s.ids.welcome, s.ids.beta);
    expect((await ctx.anonymous.get(betaLink)).status).toBe(404);
    const token = await sign(s.key, { beta: true });
    expect(await pdfText(betaLink, { authorization: `Bearer ${token}` })).toContain("Beta features for testers.");
    expect((await ctx.anonymous.get(link.replace(s.ids.welcome, other.ids.welcome))).status).toBe(404);
    expect((await ctx.anonymous.get(link.replace(s.ids.welcome, "nope"))).status).toBe(404);
    const otherLink = pdfLinkOf((await ctx.anonymous.get(`${other.root}/welcome`)).text) as string;
    // Another site's site space under this site's address.
    expect((await ctx.anonymous.get(otherLink.replace(other.root, s.root))).status).toBe(404);
  });

  it("carries a share link's key, and a visitor token on a visitor-auth site", async () => {
    const shared = await scenario("share-link");
    const created = await ctx.as(shared.owner).post(`${shared.url}/share-links`, { name: "Partners" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = (created.body.urls.published as string).split("/").at(-1) as string;
    const page = await ctx.anonymous.get(`${shared.root}/${key}/welcome`);
    expect(page.status).toBe(200);
    const link = pdfLinkOf(page.text) as string;
    expect(link.startsWith(`${shared.root}/${key}/~quire/pdf/`)).toBe(true);
    expect(await pdfText(link)).toContain("Start here.");
    expect((await ctx.anonymous.get(link.replace(`/${key}`, ""))).status).toBe(404);

    const guarded = await scenario("visitor-auth");
    const token = await sign(guarded.key, {});
    const html = (await ctx.anonymous.get(`${guarded.root}/welcome`, { headers: { authorization: `Bearer ${token}` } })).text;
    const guardedLink = pdfLinkOf(html) as string;
    expect((await ctx.anonymous.get(guardedLink)).status).toBe(302);
    expect(await pdfText(guardedLink, { authorization: `Bearer ${token}` })).toContain("Start here.");
  });

  it("is neither linked nor served when the customization turns PDF export off", async () => {
    const s = await scenario();
    const link = pdfLinkOf((await ctx.anonymous.get(`${s.root}/welcome`)).text) as string;
    expect((await ctx.as(s.owner).put(`${s.url}/customization`, { pdf: { enabled: false } })).status).toBe(200);
    const html = (await ctx.anonymous.get(`${s.root}/welcome`)).text;
    expect(html).not.toContain("Download as PDF");
    expect((await ctx.anonymous.get(link)).status).toBe(404);
  });
});
