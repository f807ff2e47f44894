/**
 * Docs sites, their structure, share links, adaptive schema and visitor authentication through
 * GitBook's client against a listening Quire: every response body is validated against
 * @gitbook/api@0.146.0's spec by the contract harness.
 */
import { SiteAgentsContext, SiteVisibility } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("sites through @gitbook/api", () => {
  it("creates, lists, changes, publishes and deletes a site", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const space = await createSpace(ctx, owner, org.id, { title: "Guide" });
    const client = contractClient(endpoint, owner.token);

    const created = await client.orgs.createSite(org.id, { title: "Product Docs", spaces: [space.id] });
    expect(created.status).toBe(201);
    const siteId = created.data.id;
    const list = await client.orgs.listSites(org.id, { space: space.id, title: "product", published: false, limit: 10 });
    expect(list.data.items.map((s) => s.id)).toEqual([siteId]);
    const updated = await client.orgs.updateSiteById(org.id, siteId, {
      title: "Developer Docs",
      visibility: SiteVisibility.ShareLink,
      adaptiveContent: { enabled: true },
      agentsContext: SiteAgentsContext.Excluded,
      proxy: "example.com/docs",
    });
    expect(updated.data).toMatchObject({ title: "Developer Docs", proxy: { origin: "example.com/docs" } });
    const published = await client.orgs.publishSite(org.id, siteId);
    expect(published.data).toMatchObject({ published: true });
    expect((await client.orgs.getSiteById(org.id, siteId)).data.urls.published).toMatch(/\/s\//);

    const link = await client.orgs.createSiteShareLink(org.id, siteId, { name: "Partners" });
    expect(link.status).toBe(201);
    const shareKey = String(link.data.urls.published?.split("/").pop());
    const content = await client.orgs.getPublishedContentSite(org.id, siteId, { shareKey });
    expect(content.data.structure.type).toBe("siteSpaces");
    expect((await client.orgs.listSiteShareLinks(org.id, siteId)).data.count).toBe(1);
    expect((await client.orgs.updateSiteShareLinkById(org.id, siteId, link.data.id, { active: false, name: "Old" })).data.active).toBe(
      false,
    );
    expect((await client.orgs.deleteSiteShareLinkById(org.id, siteId, link.data.id)).status).toBe(204);

    expect((await client.orgs.unpublishSite(org.id, siteId)).data.published).toBe(false);
    expect((await client.orgs.deleteSiteById(org.id, siteId)).status).toBe(204);
    await expect(client.orgs.getSiteById(org.id, siteId)).rejects.toMatchObject({ code: 404 });
  });

  it("builds a structure of site spaces, sections and groups, and sorts it", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const guide = await createSpace(ctx, owner, org.id, { title: "Guide" });
    const api = await createSpace(ctx, owner, org.id, { title: "API" });
    const faq = await createSpace(ctx, owner, org.id, { title: "FAQ" });
    const client = contractClient(endpoint, owner.token);
    const siteId = (await client.orgs.createSite(org.id, { spaces: [guide.id] })).data.id;
    await client.orgs.publishSite(org.id, siteId);

    const variant = await client.orgs.addSpaceToSite(org.id, siteId, { spaceId: faq.id });
    expect(variant.status).toBe(201);
    const patched = await client.orgs.updateSiteSpaceById(org.id, siteId, variant.data.id, {
      path: "questions",
      condition: "visitor.claims.unsigned.beta === true",
    });
    expect(patched.data.path).toBe("questions");
    expect((await client.orgs.listSiteSpaces(org.id, siteId, { default: true })).data.items).toHaveLength(1);
    expect((await client.orgs.getSiteStructure(org.id, siteId)).data.type).toBe("siteSpaces");
    const [first] = (await client.orgs.listSiteSpaces(org.id, siteId)).data.items;
    if (!first) throw new Error("no site space");
    expect(
      (
        await client.orgs.moveSiteSpace(org.id, siteId, variant.data.id, {
          position: { before: { type: "site-space", siteSpace: first.id } },
        })
      ).status,
    ).toBe(200);

    const section = await client.orgs.addSectionToSite(org.id, siteId, { spaceId: api.id, title: "Reference", icon: "code" });
    expect(section.status).toBe(201);
    const sectionPatched = await client.orgs.updateSiteSectionById(org.id, siteId, section.data.id, {
      path: "reference",
      description: "Every endpoint",
      condition: null,
    });
    expect(sectionPatched.data.path).toBe("reference");
    const sections = await client.orgs.listSiteSections(org.id, siteId);
    expect(sections.data.count).toBe(2);
    const [home] = sections.data.items;
    if (!home) throw new Error("no section");

    const group = await client.orgs.addSectionGroupToSite(org.id, siteId, { title: "More", sections: [section.data.id] });
    expect(group.status).toBe(201);
    const nested = await client.orgs.addSectionGroupToSite(org.id, siteId, { title: "Nested", parent: group.data.id });
    expect(
      (await client.orgs.updateSiteSectionGroupById(org.id, siteId, nested.data.id, { title: "Deeper", icon: "book" })).data.title,
    ).toBe("Deeper");
    expect((await client.orgs.addSectionToGroup(org.id, siteId, nested.data.id, { sectionId: home.id })).status).toBe(201);
    expect((await client.orgs.listSiteSectionGroups(org.id, siteId)).data.count).toBe(2);
    const structure = await client.orgs.getSiteStructure(org.id, siteId);
    expect(structure.data.type).toBe("sections");
    const published = await client.orgs.getPublishedContentSite(org.id, siteId);
    expect(published.data.structure.type).toBe("sections");

    const sorted = await client.orgs.sortSiteStructure(org.id, siteId, {
      item: { type: "site-section", id: home.id },
      position: { before: { type: "site-section", id: section.data.id } },
    });
    expect(sorted.status).toBe(200);
    expect(
      (
        await client.orgs.moveSiteSectionGroup(org.id, siteId, nested.data.id, {
          position: { after: { type: "site-section-group", id: group.data.id } },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await client.orgs.moveSiteSection(org.id, siteId, home.id, {
          position: { after: { type: "site-section", siteSection: section.data.id } },
        })
      ).status,
    ).toBe(200);
    expect((await client.orgs.removeSectionFromGroup(org.id, siteId, group.data.id, section.data.id)).status).toBe(204);
    expect((await client.orgs.deleteSiteSectionGroupById(org.id, siteId, group.data.id)).status).toBe(204);
    expect((await client.orgs.deleteSiteSpaceById(org.id, siteId, variant.data.id)).status).toBe(204);
    expect((await client.orgs.deleteSiteSectionById(org.id, siteId, section.data.id)).status).toBe(204);
  });

  it("sets an adaptive schema, manages visitor authentication and previews", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const client = contractClient(endpoint, owner.token);
    const siteId = (await client.orgs.createSite(org.id, {})).data.id;

    await expect(client.orgs.getSiteAdaptiveSchema(org.id, siteId)).rejects.toMatchObject({ code: 404 });
    const jsonSchema = {
      type: "object" as const,
      properties: {
        isBetaUser: { type: "boolean" as const, description: "Beta member" },
        unsigned: {
          type: "object" as const,
          description: "Unsigned claims of the site visitor." as const,
          properties: { language: { type: "string" as const, description: "Language", enum: ["fr", "en"] } },
          additionalProperties: false as const,
        },
      },
      additionalProperties: false as const,
    };
    const put = await client.orgs.updateSiteAdaptiveSchema(org.id, siteId, { jsonSchema });
    expect(put.data.jsonSchema).toEqual(jsonSchema);
    expect((await client.orgs.getSiteAdaptiveSchema(org.id, siteId)).data.jsonSchema).toEqual(jsonSchema);
    expect((await client.orgs.listSiteAdaptiveTemplateConditions(org.id, siteId)).data.items).toHaveLength(3);

    const auth = await client.orgs.getSitePublishingAuthById(org.id, siteId);
    expect(auth.data.privateKey).toBeTruthy();
    const patched = await client.orgs.updateSitePublishingAuthById(org.id, siteId, {
      backend: "custom",
      fallbackURL: "https://example.com/login",
    });
    expect(patched.data.fallbackURL).toBe("https://example.com/login");
    const regenerated = await client.orgs.regenerateSitePublishingAuthById(org.id, siteId);
    expect(regenerated.data.privateKey).not.toBe(auth.data.privateKey);
    const preview = await client.orgs.getSitePublishingPreviewById(org.id, siteId, { claims: "(plan:enterprise)" });
    expect(preview.data.url).toMatch(/signature=/);
  });

  it("reads and writes a site's customization and a site space's overrides", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const space = await createSpace(ctx, owner, org.id, { title: "Guide" });
    const client = contractClient(endpoint, owner.token);
    const siteId = (await client.orgs.createSite(org.id, { title: "Styled", spaces: [space.id] })).data.id;

    const current = (await client.orgs.getSiteCustomizationById(org.id, siteId)).data;
    const updated = await client.orgs.updateSiteCustomizationById(org.id, siteId, {
      ...current,
      title: "Styled Docs",
      styling: { ...current.styling, primaryColor: { light: "#C2185B", dark: "#F48FB1" } },
      header: {
        ...current.header,
        logo: { light: "https://cdn.example.com/logo.png", dark: "https://cdn.example.com/logo-dark.png" },
        links: [{ title: "Guide", to: { kind: "space", space: space.id }, links: [] }],
      },
      footer: { groups: [], copyright: "© Styled" },
      announcement: { enabled: true, message: "Hello readers", style: "info" },
      themes: { default: "dark", toggeable: true },
    } as typeof current);
    expect(updated.data).toMatchObject({ title: "Styled Docs", themes: { default: "dark" } });

    const [siteSpace] = (await client.orgs.listSiteSpaces(org.id, siteId)).data.items;
    if (!siteSpace) throw new Error("no site space");
    const overridden = await client.orgs.overrideSiteSpaceCustomizationById(org.id, siteId, siteSpace.id, {
      title: "Guide only",
      footer: { copyright: "© Guide" },
    });
    expect(overridden.data).toMatchObject({ title: "Guide only", footer: { copyright: "© Guide" }, themes: { default: "dark" } });
    expect((await client.orgs.getSiteSpaceCustomizationById(org.id, siteId, siteSpace.id)).data.title).toBe("Guide only");
    await client.orgs.publishSite(org.id, siteId);
    const published = (await client.orgs.getPublishedContentSite(org.id, siteId)).data;
    expect(published.customizations.site.title).toBe("Styled Docs");
    expect(published.customizations.siteSpaces[siteSpace.id]?.footer.copyright).toBe("© Guide");
    expect((await client.orgs.deleteSiteSpaceCustomizationById(org.id, siteId, siteSpace.id)).status).toBe(204);
    expect((await client.orgs.getSiteSpaceCustomizationById(org.id, siteId, siteSpace.id)).data.title).toBe("Styled Docs");
  });
});
