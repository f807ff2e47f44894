/**
 * SAML providers and sign-in options through GitBook's client against a listening Quire: every
 * response body is validated against @gitbook/api@0.146.0's spec by the contract harness.
 */
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createTestIdp } from "../helpers/saml-idp.js";

const server = useListeningServer();

describe("SAML providers through @gitbook/api", () => {
  it("creates (pending and active), lists, reads, updates and deletes providers, and lists sign-in options", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const idp = createTestIdp("contract");
    const client = contractClient(endpoint, owner.token);
    const team = await client.orgs.createOrganizationTeam(org.id, { title: "Via SSO" });

    const pending = await client.orgs.createOrganizationSamlProvider(org.id, { label: "Later" });
    expect(pending.status).toBe(201);
    expect(pending.data).toMatchObject({ object: "saml-provider", status: "pending" });

    const active = await client.orgs.createOrganizationSamlProvider(org.id, {
      label: "Acme IdP",
      entityID: idp.entityId,
      ssoURL: idp.ssoUrl,
      certificate: idp.certificate,
      defaultTeam: team.data.id,
      defaultRole: null,
    });
    expect(active.data).toMatchObject({ status: "active", defaultRole: null, defaultTeam: { id: team.data.id } });

    const list = await client.orgs.listSamlProvidersInOrganizationById(org.id, { limit: 1 });
    expect(list.data.items.map((p) => p.id)).toEqual([pending.data.id]);
    const nextPage = await client.orgs.listSamlProvidersInOrganizationById(org.id, { limit: 1, page: list.data.next?.page ?? "" });
    expect(nextPage.data.items.map((p) => p.id)).toEqual([active.data.id]);

    const read = await client.orgs.getOrganizationSamlProviderById(org.id, active.data.id);
    expect(read.data.service.acsURL).toBe(`${ctx.config.publicUrl}/saml/${active.data.id}/acs`);
    // Quire's single logout fields are extensions: GitBook's client sends them, and the answer still validates.
    const withSlo = await client.orgs.updateOrganizationSamlProvider(org.id, active.data.id, {
      sloURL: "https://contract.test/slo",
    } as Parameters<typeof client.orgs.updateOrganizationSamlProvider>[2]);
    expect(withSlo.data).toMatchObject({ sloURL: "https://contract.test/slo", service: { sloURL: expect.stringMatching(/\/slo$/) } });
    const updated = await client.orgs.updateOrganizationSamlProvider(org.id, pending.data.id, {
      entityID: idp.entityId,
      ssoURL: idp.ssoUrl,
      certificate: idp.certificate,
    });
    expect(updated.data.status).toBe("active");

    const member = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, member, "read");
    const logins = await contractClient(endpoint, member.token).orgs.listSsoProviderLoginsInOrganization(org.id);
    expect(logins.data.items.map((i) => i.label)).toEqual(["Later", "Acme IdP"]);
    const marked = await client.orgs.setUserAsSsoMemberForOrganization(org.id, member.id);
    expect(marked.data.sso).toBe(true);

    expect((await client.orgs.deleteOrganizationSamlProvider(org.id, pending.data.id)).status).toBe(204);
    expect((await client.orgs.listSamlProvidersInOrganizationById(org.id)).data.count).toBe(1);
  });
});
