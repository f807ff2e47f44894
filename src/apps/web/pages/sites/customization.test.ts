import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../../../test/helpers/app.js";
import { commitContent } from "../../../../../test/helpers/content.factories.js";
import { createSite } from "../../../../../test/helpers/sites.factories.js";
import { createOrgWithSpace } from "../../../../../test/helpers/spaces.factories.js";
import { WebClient } from "../../../../../test/helpers/web.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const signedIn = (user: { id: string }) => WebClient.signedIn(ctx, user);

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  await commitContent(ctx, base.space.id, { pages: [{ title: "Welcome", slug: "welcome", paragraphs: ["Hello."] }] });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Docs", spaces: [base.space.id] });
  expect((await ctx.as(base.owner).post(`/v1/orgs/${base.org.id}/sites/${site.id}/publish`)).status).toBe(200);
  return { ...base, site, page: `/app/o/${base.org.id}/sites/${site.id}`, api: `/v1/orgs/${base.org.id}/sites/${site.id}` };
}

const form = {
  title: "Acme <Docs>",
  primaryLight: "#c2185b",
  primaryDark: "#f48fb1",
  themeDefault: "dark",
  logoLight: "https://cdn.example.com/logo.svg",
  logoDark: "",
  announcementEnabled: "on",
  announcementMessage: "We moved!",
  announcementStyle: "warning",
  copyright: "© Acme",
};

describe("the web app's site customization form", () => {
  it("saves the common fields for editors through the API's rules, with CSRF", async () => {
    const { members, page, api, site } = await scenario();
    const editor = await signedIn(members.create);
    const before = await editor.get(page);
    expect(before.status).toBe(200);
    expect(before.text).toContain(`action="${page}/customization"`);
    expect(before.text).toContain("Never customized");
    const csrf = WebClient.csrfOf(before.text);

    // Without the CSRF token nothing happens.
    expect((await editor.post(`${page}/customization`, form)).status).toBe(403);
    // Bad input is a 400 page naming it, and nothing is stored.
    const badColor = await editor.post(`${page}/customization`, { ...form, primaryLight: "red", _csrf: csrf });
    expect(badColor.status).toBe(400);
    expect(badColor.text).toContain("The primary color (light theme) must be a hex color");
    const badLogo = await editor.post(`${page}/customization`, { ...form, logoLight: "javascript:alert(1)", _csrf: csrf });
    expect(badLogo.status).toBe(400);
    expect(badLogo.text).toContain("body.header.logo.light must be an http or https URL");
    expect(
      (await ctx.db.selectFrom("sites").select("customization").where("id", "=", site.id).executeTakeFirstOrThrow()).customization,
    ).toBe(null);

    const saved = await editor.post(`${page}/customization`, { ...form, _csrf: csrf });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.location).toBe(`${page}?saved=customization#customization`);
    const stored = (await ctx.as(members.create).get(`${api}/customization`)).body;
    expect(stored).toMatchObject({
      title: "Acme <Docs>",
      styling: { primaryColor: { light: "#c2185b", dark: "#f48fb1" } },
      themes: { default: "dark", toggeable: false },
      header: { logo: { light: "https://cdn.example.com/logo.svg", dark: "https://cdn.example.com/logo.svg" } },
      announcement: { enabled: true, message: "We moved!", style: "warning" },
      footer: { copyright: "© Acme" },
    });
    const after = await editor.get(`${page}?saved=customization`);
    expect(after.text).toContain("Saved: readers see it on their next page.");
    expect(after.text).toContain('value="Acme &lt;Docs&gt;"');
    expect(after.text).toMatch(/<option value="dark" selected>/);
    const published = await ctx.anonymous.get(`/s/${site.basename}/`);
    expect(published.text).toContain("<title>Welcome | Acme &lt;Docs&gt;</title>");
    expect(published.text).toContain("We moved!");

    // Emptied fields remove what they set.
    const cleared = await editor.post(`${page}/customization`, {
      ...form,
      title: "",
      logoLight: "",
      announcementEnabled: "",
      announcementMessage: "",
      copyright: "",
      themeToggle: "on",
      _csrf: csrf,
    });
    expect(cleared.status).toBe(303);
    const now = (await ctx.as(members.create).get(`${api}/customization`)).body;
    expect(now.title).toBeUndefined();
    expect(now.header.logo).toBeUndefined();
    expect(now.announcement).toBeUndefined();
    expect(now.footer.copyright).toBeUndefined();
    expect(now.themes).toEqual({ default: "dark", toggeable: true });
  });

  it("sets the theme preset and turns PDF, feedback, edit links and Quire's mark on and off; an older form leaves them", async () => {
    const { members, page, api, site } = await scenario();
    const editor = await signedIn(members.create);
    const before = await editor.get(page);
    expect(before.text).toMatch(/<input type="checkbox" name="pdfEnabled" value="on" checked>/);
    expect(before.text).toMatch(/<input type="checkbox" name="feedbackEnabled" value="on">/);
    const csrf = WebClient.csrfOf(before.text);
    // Checkboxes left unchecked are not sent: the form's marker says they were shown.
    const saved = await editor.post(`${page}/customization`, {
      ...form,
      _csrf: csrf,
      styleTheme: "bold",
      features: "1",
      feedbackEnabled: "on",
      editLinks: "on",
    });
    expect(saved.status, saved.text).toBe(303);
    const stored = (await ctx.as(members.create).get(`${api}/customization`)).body;
    expect(stored).toMatchObject({
      styling: { theme: "bold" },
      pdf: { enabled: false },
      feedback: { enabled: true },
      git: { showEditLink: true },
      trademark: { enabled: false },
    });
    const published = (await ctx.anonymous.get(`/s/${site.basename}/`)).text;
    expect(published).toContain(' data-style-theme="bold"');
    expect(published).toContain("Was this page helpful?");
    expect(published).not.toContain("Download as PDF");
    expect(published).not.toContain("Published with Quire");
    // A post without the marker (a form from before these fields) keeps them.
    expect((await editor.post(`${page}/customization`, { ...form, _csrf: csrf })).status).toBe(303);
    expect((await ctx.as(members.create).get(`${api}/customization`)).body).toMatchObject({
      styling: { theme: "bold" },
      pdf: { enabled: false },
      feedback: { enabled: true },
    });
    expect((await editor.get(page)).text).toContain("Page feedback");
  });

  it("shows readers no form and refuses their posts", async () => {
    const { members, page, site } = await scenario();
    const reader = await signedIn(members.read);
    const view = await reader.get(page);
    expect(view.status).toBe(200);
    expect(view.text).not.toContain(`action="${page}/customization"`);
    expect(view.text).toContain("Only members with the create role, or the edit level on this site, can change how the site looks.");
    const forged = await reader.post(`${page}/customization`, { ...form, _csrf: WebClient.csrfOf(view.text) });
    expect(forged.status).toBe(403);
    expect(
      (await ctx.db.selectFrom("sites").select("customization").where("id", "=", site.id).executeTakeFirstOrThrow()).customization,
    ).toBe(null);
  });
});
