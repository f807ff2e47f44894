/** Content reads through GitBook's client; every response is validated against the spec. */
import { describe, expect, it } from "vitest";
import { useListeningServer } from "../helpers/app.js";
import { commitContent, testFile } from "../helpers/content.factories.js";
import { contractClient } from "../helpers/contract.js";
import { createOrganization, createUser } from "../helpers/factories.js";
import { createSpace } from "../helpers/spaces.factories.js";

const server = useListeningServer();

describe("content reads through @gitbook/api", () => {
  it("covers the primary revision, pages, files, paths, revisions and documents", async () => {
    const { ctx, endpoint } = server;
    const owner = await createUser(ctx);
    const org = await createOrganization(ctx, owner);
    const space = await createSpace(ctx, owner, org.id, { title: "Contract content" });
    const client = contractClient(endpoint, owner.token);

    expect((await client.spaces.getCurrentRevision(space.id)).data.pages).toEqual([]);

    const file = await testFile(ctx, "diagram.png", Buffer.from("89504e47", "hex"), "image/png", {
      dimensions: { width: 10, height: 20 },
      git: { oid: "o", path: ".gitbook/assets/diagram.png" },
    });
    const { revisionId, content } = await commitContent(ctx, space.id, {
      pages: [
        {
          title: "Home",
          slug: "readme",
          paragraphs: ["Welcome"],
          extra: { git: { oid: "1", path: "README.md" }, description: "Start here", emoji: "1f44b" },
        },
        {
          title: "Guides",
          kind: "group",
          children: [{ title: "Install", paragraphs: ["Steps"], children: [{ title: "Linux", paragraphs: ["apt"] }] }],
        },
        { title: "Repository", kind: "link", href: "https://example.com/repo" },
      ],
      files: [file],
      variables: { product: "Quire" },
    });
    const [home, guides] = content.pages;
    const install = guides!.children[0]!;

    const revision = await client.spaces.getCurrentRevision(space.id, { metadata: true });
    expect(revision.data.id).toBe(revisionId);
    expect((await client.spaces.listPages(space.id)).data.pages).toHaveLength(3);
    expect((await client.spaces.listFiles(space.id, { limit: 10 })).data.items[0]!.name).toBe("diagram.png");
    expect((await client.spaces.getFileById(space.id, file.id)).data.dimensions).toEqual({ width: 10, height: 20 });
    const page = await client.spaces.getPageById(space.id, home!.id, { format: "document" });
    expect(page.data.title).toBe("Home");
    expect((await client.spaces.getPageByPath(space.id, "guides/install")).data.id).toBe(install.id);
    expect((await client.spaces.getPageByPath(space.id, "guides")).data.title).toBe("Guides");

    expect((await client.spaces.getRevisionById(space.id, revisionId)).data.parents).toEqual([space.revision]);
    expect((await client.spaces.listPagesInRevisionById(space.id, revisionId)).data.pages).toHaveLength(3);
    expect((await client.spaces.listFilesInRevisionById(space.id, revisionId)).data.count).toBe(1);
    expect((await client.spaces.getFileInRevisionById(space.id, revisionId, file.id)).data.id).toBe(file.id);
    expect((await client.spaces.getPageInRevisionById(space.id, revisionId, install.id)).data.title).toBe("Install");
    expect((await client.spaces.getPageDocumentInRevisionById(space.id, revisionId, install.id)).data.object).toBe("document");
    expect((await client.spaces.getPageInRevisionByPath(space.id, revisionId, "readme")).data.id).toBe(home!.id);
    expect((await client.spaces.getDocumentById(space.id, home!.documentHash!)).data.object).toBe("document");
  });
});
