import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { schemaErrors } from "../../../test/helpers/contract.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace } from "../../../test/helpers/spaces.factories.js";
import { DEFAULT_CUSTOMIZATION } from "./customization.model.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function scenario() {
  const base = await createOrgWithSpace(ctx, { title: "Guide" });
  const site = await createSite(ctx, base.owner, base.org.id, { title: "Docs", spaces: [base.space.id] });
  const url = `/v1/orgs/${base.org.id}/sites/${site.id}`;
  const siteSpaces = await ctx.as(base.owner).get(`${url}/site-spaces`);
  const siteSpaceId = siteSpaces.body.items[0].id as string;
  const other = await createOrgWithSpace(ctx, { title: "Theirs" });
  return { ...base, site, url, siteSpaceId, other };
}

const full = (changes: Record<string, unknown> = {}) => ({ ...structuredClone(DEFAULT_CUSTOMIZATION), ...changes });

describe("GET/PUT {site}/customization", () => {
  it("answers Quire's defaults until set, then what was PUT, valid against GitBook's schema", async () => {
    const { owner, url, space } = await scenario();
    const before = await ctx.as(owner).get(`${url}/customization`);
    expect(before.status).toBe(200);
    expect(before.body).toEqual(DEFAULT_CUSTOMIZATION);
    expect(schemaErrors("SiteCustomizationSettings", before.body)).toEqual([]);

    const body = full({
      title: "Acme Docs",
      styling: {
        ...DEFAULT_CUSTOMIZATION.styling,
        primaryColor: { light: "#ff0000", dark: "#00ff00" },
        tint: { color: { light: "#abc", dark: "#123456" } },
      },
      header: {
        preset: "default",
        logo: { light: "https://cdn.example.com/logo.svg", dark: "https://cdn.example.com/logo-dark.svg" },
        links: [
          { title: "Home", style: "button-primary", to: { kind: "url", url: "https://example.com" }, links: [] },
          {
            title: "Guide",
            to: { kind: "space", space: space.id },
            links: [{ title: "Mail", to: { kind: "url", url: "mailto:help@example.com" } }],
          },
        ],
      },
      footer: { groups: [{ title: "More", links: [{ title: "Blog", to: { kind: "url", url: "/blog" } }] }], copyright: "© Acme" },
      announcement: {
        enabled: true,
        message: "New release",
        style: "warning",
        link: { title: "Read", to: { kind: "url", url: "https://example.com/r" } },
      },
      themes: { default: "dark", toggeable: false },
      favicon: { emoji: "🎉" },
      privacyPolicy: { url: "https://example.com/privacy" },
      socialPreview: { url: "https://example.com/og.png" },
    });
    const put = await ctx.as(owner).put(`${url}/customization`, body);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual(body);
    expect(schemaErrors("SiteCustomizationSettings", put.body)).toEqual([]);
    expect((await ctx.as(owner).get(`${url}/customization`)).body).toEqual(body);
  });

  it("fills sections left out with the defaults and drops unknown properties", async () => {
    const { owner, url } = await scenario();
    const put = await ctx
      .as(owner)
      .put(`${url}/customization`, { title: "Only a title", bogus: 1, footer: { groups: [], copyright: "x", extra: true } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(full({ title: "Only a title", footer: { groups: [], copyright: "x" } }));
  });

  it("refuses wrong types, unknown enum values, bad colors and URLs with a 400 naming the field, and keeps what was stored", async () => {
    const { owner, url, other } = await scenario();
    expect((await ctx.as(owner).put(`${url}/customization`, { title: "Kept" })).status).toBe(200);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ themes: { default: "purple", toggeable: true } }, /body\.themes\.default must be one of: "light", "dark"/],
      [{ themes: { default: "dark", toggeable: "yes" } }, /body\.themes\.toggeable must be of type boolean/],
      [
        { styling: { ...DEFAULT_CUSTOMIZATION.styling, primaryColor: { light: "red", dark: "#000" } } },
        /body\.styling\.primaryColor\.light must match/,
      ],
      [
        { header: { preset: "default", links: [], logo: { light: "javascript:alert(1)", dark: "https://a.example" } } },
        /body\.header\.logo\.light must be an http or https URL/,
      ],
      [
        { header: { preset: "default", links: [], logo: { light: "https://u:p@a.example/x.png", dark: "https://a.example" } } },
        /body\.header\.logo\.light must not hold a user name or password/,
      ],
      [{ privacyPolicy: { url: "ftp://example.com" } }, /body\.privacyPolicy\.url must be an http or https URL/],
      [
        { footer: { groups: [{ title: "G", links: [{ title: "x", to: { kind: "url", url: "javascript:alert(1)" } }] }] } },
        /body\.footer\.groups\[0\]\.links\[0\]\.to\.url must be an http or https URL/,
      ],
      [
        { footer: { groups: [{ title: "G", links: [{ title: "x", to: { kind: "page" } }] }] } },
        /body\.footer\.groups\[0\]\.links\[0\]\.to\.page is required/,
      ],
      [
        { footer: { groups: [{ title: "G", links: [{ title: "x", to: { kind: "user", user: "u" } }] }] } },
        /cannot be a link of a published site/,
      ],
      [
        { header: { preset: "default", links: [{ title: "T", to: { kind: "space", space: other.space.id }, links: [] }] } },
        /names space ".*", which does not exist in this organization/,
      ],
      [
        { header: { preset: "default", links: [{ title: "T", to: null, links: [], condition: "visitor.claims.(" }] } },
        /body\.header\.links\[0\]\.condition/,
      ],
      [
        { favicon: { emoji: "🎉", icon: { light: "https://a.example/i.png", dark: "https://a.example/i.png" } } },
        /body\.favicon takes either icon or emoji/,
      ],
      [{ announcement: { enabled: true, message: "x", style: "info" } }, /body\.announcement\.message must be at least 2 characters/],
      [{ footer: { groups: [], copyright: "x".repeat(301) } }, /body\.footer\.copyright must be at most 300 characters/],
      [
        { header: { preset: "default", links: Array.from({ length: 21 }, () => ({ title: "T", to: null, links: [] })) } },
        /body\.header\.links must have at most 20 items/,
      ],
      [{ title: 5 }, /body\.title must be of type string/],
    ];
    for (const [body, message] of cases) {
      const res = await ctx.as(owner).put(`${url}/customization`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await ctx.as(owner).get(`${url}/customization`)).body.title).toBe("Kept");
  });

  it("follows the site's edit policy: readers get 403, guests and other organizations 404", async () => {
    const { owner, members, url, other, outsider } = await scenario();
    expect((await ctx.as(members.create).put(`${url}/customization`, { title: "By creator" })).status).toBe(200);
    expect((await ctx.as(members.edit).get(`${url}/customization`)).status).toBe(403);
    expect((await ctx.as(members.read).put(`${url}/customization`, { title: "Nope" })).status).toBe(403);
    expect((await ctx.as(members.guest).get(`${url}/customization`)).status).toBe(404);
    expect((await ctx.as(outsider).get(`${url}/customization`)).status).toBe(404);
    expect((await ctx.as(other.owner).put(`${url}/customization`, { title: "Theirs" })).status).toBe(404);
    expect((await ctx.anonymous.get(`${url}/customization`)).status).toBe(401);
    expect((await ctx.as(owner).get(`${url}/customization`)).body.title).toBe("By creator");
  });
});

describe("site space customization", () => {
  it("overrides fields of the site's, resets them with null, and deletes every override", async () => {
    const { owner, url, siteSpaceId } = await scenario();
    await ctx.as(owner).put(`${url}/customization`, { title: "Site", footer: { groups: [], copyright: "© Site" } });
    const at = `${url}/site-spaces/${siteSpaceId}/customization`;
    expect((await ctx.as(owner).get(at)).body).toMatchObject({ title: "Site", footer: { copyright: "© Site" } });

    const patched = await ctx.as(owner).patch(at, {
      title: "Variant",
      styling: { primaryColor: { light: "#111111", dark: "#eeeeee" }, sidebar: { list: "pill" } },
      themes: { default: "dark" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      title: "Variant",
      styling: { primaryColor: { light: "#111111", dark: "#eeeeee" }, sidebar: { background: "default", list: "pill" }, theme: "clean" },
      themes: { default: "dark", toggeable: true },
      footer: { copyright: "© Site" },
    });
    expect(schemaErrors("SiteCustomizationSettings", patched.body)).toEqual([]);

    const reset = await ctx.as(owner).patch(at, { title: null, styling: { sidebar: { list: null } } });
    expect(reset.body).toMatchObject({ title: "Site", styling: { primaryColor: { light: "#111111" }, sidebar: { list: "default" } } });

    const published = await ctx.as(owner).post(`${url}/publish`, {});
    expect(published.status).toBe(200);
    const content = await ctx.as(owner).get(`${url}/published`);
    expect(content.body.customizations.site).toMatchObject({ title: "Site", footer: { copyright: "© Site" } });
    expect(content.body.customizations.siteSpaces[siteSpaceId]).toMatchObject({ title: "Site", themes: { default: "dark" } });

    expect((await ctx.as(owner).delete(at)).status).toBe(204);
    expect((await ctx.as(owner).get(at)).body).toEqual((await ctx.as(owner).get(`${url}/customization`)).body);
    expect((await ctx.as(owner).delete(at)).status).toBe(204);
  });

  it("guards a site space's overrides as the site's: 401, 403 for readers, 404 for outsiders, and nothing changes", async () => {
    const { owner, members, url, siteSpaceId, other, outsider } = await scenario();
    const at = `${url}/site-spaces/${siteSpaceId}/customization`;
    expect((await ctx.as(owner).patch(at, { title: "Kept" })).status).toBe(200);
    expect((await ctx.anonymous.get(at)).status).toBe(401);
    expect((await ctx.anonymous.delete(at)).status).toBe(401);
    const reader = await ctx.as(members.read).patch(at, { title: "Nope" });
    expect(reader.status).toBe(403);
    expect(reader.body.error.message).toBe(
      "Only members with the create role, or the edit level on this site, can read or change a site's customization.",
    );
    expect((await ctx.as(members.read).delete(at)).status).toBe(403);
    expect((await ctx.as(outsider).get(at)).status).toBe(404);
    expect((await ctx.as(other.owner).patch(at, { title: "Theirs" })).status).toBe(404);
    expect((await ctx.as(other.owner).delete(at)).status).toBe(404);
    expect((await ctx.as(owner).get(at)).body.title).toBe("Kept");
  });

  it("answers 404 for a site space of another site and refuses bad overrides", async () => {
    const { owner, org, url, siteSpaceId } = await scenario();
    const space = await createSpace(ctx, owner, org.id, { title: "Elsewhere" });
    const otherSite = await createSite(ctx, owner, org.id, { title: "Other", spaces: [space.id] });
    const otherSiteSpace = (await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${otherSite.id}/site-spaces`)).body.items[0].id;
    expect((await ctx.as(owner).get(`${url}/site-spaces/${otherSiteSpace}/customization`)).status).toBe(404);
    expect((await ctx.as(owner).patch(`${url}/site-spaces/${otherSiteSpace}/customization`, { title: "Xy" })).status).toBe(404);
    const bad = await ctx.as(owner).patch(`${url}/site-spaces/${siteSpaceId}/customization`, { themes: { default: "sepia" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/body\.themes\.default/);
    const badUrl = await ctx
      .as(owner)
      .patch(`${url}/site-spaces/${siteSpaceId}/customization`, { socialPreview: { url: "data:image/png;base64,AAAA" } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.message).toMatch(/body\.socialPreview\.url must be an http or https URL/);
  });
});
