/**
 * Translations through GitBook's client against a listening Quire: every response body is
 * validated against @gitbook/api@0.146.0's spec by the contract harness. Runs use Apertium.
 */
import { TranslationLanguage } from "@gitbook/api";
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { commitContent } from "../helpers/content.factories.js";
import { contractClient } from "../helpers/contract.js";
import { addMemberToOrg, createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("translations through @gitbook/api", () => {
  it("creates, lists, reads, updates, runs and deletes a translation", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const reader = await createUser(ctx);
    await addMemberToOrg(ctx, org.id, reader, "read");
    const space = await createSpace(ctx, owner, org.id, { title: "Docs" });
    await commitContent(ctx, space.id, { pages: [{ title: "Welcome", paragraphs: ["The cat is big."] }] });
    const client = contractClient(endpoint, owner.token);

    const created = await client.orgs.createTranslation(org.id, {
      language: TranslationLanguage.Es,
      source: { space: space.id, language: TranslationLanguage.En },
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ object: "translation", status: "pending", language: "es" });
    const id = created.data.id;

    await ctx.worker.drain();
    const read = await client.orgs.getTranslation(org.id, id);
    expect(read.data).toMatchObject({ status: "completed", stats: { runs: 1, latestPages: 1, latestWords: 5 } });

    const list = await client.orgs.listTranslations(org.id, { limit: 10 });
    expect(list.data.items.map((t) => t.id)).toEqual([id]);
    const asReader = await contractClient(endpoint, reader.token).orgs.listTranslations(org.id);
    expect(asReader.data.items.map((t) => t.permissions)).toEqual([{ view: true, edit: false }]);

    const updated = await client.orgs.updateTranslation(org.id, id, {
      instructions: {
        object: "document",
        data: {},
        nodes: [
          { object: "block", type: "paragraph", nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Be formal.", marks: [] }] }] },
        ],
      },
    });
    expect(updated.status).toBe(200);

    expect((await client.orgs.runTranslation(org.id, id)).status).toBe(204);
    await ctx.worker.drain();
    expect((await client.orgs.getTranslation(org.id, id)).data.stats.runs).toBe(2);

    await expect(
      client.orgs.createTranslation(org.id, {
        language: TranslationLanguage.Ja,
        source: { space: space.id, language: TranslationLanguage.En },
      }),
    ).rejects.toMatchObject({ code: 400 });
    expect((await client.orgs.deleteTranslation(org.id, id)).status).toBe(204);
    await expect(client.orgs.getTranslation(org.id, id)).rejects.toMatchObject({ code: 404 });
    await expect(client.orgs.runTranslation(org.id, id)).rejects.toMatchObject({ code: 404 });
    expect((await client.orgs.deleteTranslation(org.id, id)).status).toBe(204);
  });
});
