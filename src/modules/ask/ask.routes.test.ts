import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../../../test/helpers/app.js";
import { commitContent } from "../../../test/helpers/content.factories.js";
import { contractClient, schemaErrors } from "../../../test/helpers/contract.js";
import { createSite } from "../../../test/helpers/sites.factories.js";
import { createOrgWithSpace, createSpace, setDefaultLevel } from "../../../test/helpers/spaces.factories.js";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function setup() {
  const base = await createOrgWithSpace(ctx, { title: "Handbook" });
  await commitContent(ctx, base.space.id, {
    pages: [
      { title: "Welcome", paragraphs: ["Welcome to the handbook of the gateway."] },
      { title: "Proxy", paragraphs: ["Set the HTTP_PROXY variable before installing packages behind a corporate proxy."] },
      { title: "How do I reset my password?", paragraphs: ["Open the account page and choose reset password."] },
    ],
  });
  const secret = await createSpace(ctx, base.owner, base.org.id, { title: "Secret" });
  await setDefaultLevel(ctx, base.owner, { space: secret.id }, null);
  await commitContent(ctx, secret.id, { pages: [{ title: "Proxy secrets", paragraphs: ["The corporate proxy password is hunter2."] }] });
  await ctx.worker.drain();
  return { ...base, secret };
}

/** The events of a server-sent events answer, each `{event, data}`. */
function eventsOf(text: string) {
  return text
    .split("\n\n")
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => ({
      event: /^event: (.*)$/m.exec(chunk)?.[1] ?? "message",
      data: JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? "null"),
    }));
}

describe("POST /v1/orgs/{organizationId}/ask", () => {
  it("answers from the spaces the caller may read, citing page, section and revision", async () => {
    const { org, owner, members, space, secret } = await setup();
    const question = { query: "How do I set the proxy variable for packages?" };
    const asReader = await ctx.as(members.read).post(`/v1/orgs/${org.id}/ask?format=markdown`, question);
    expect(asReader.status).toBe(200);
    expect(asReader.body.answer.answer.markdown).toContain("Set the HTTP\\_PROXY variable before installing packages");
    expect(asReader.body.answer.sources[0]).toMatchObject({ type: "page", space: space.id });
    expect(asReader.body.answer.sources[0].revision).toMatch(/^\w+$/);
    expect(schemaErrors("SearchAIAnswer", asReader.body.answer)).toEqual([]);
    // The space the reader may not read is not searched: its words are neither quoted nor cited.
    const password = await ctx
      .as(members.read)
      .post(`/v1/orgs/${org.id}/ask?format=markdown`, { query: "What is the corporate proxy password?" });
    expect(JSON.stringify(password.body)).not.toContain("hunter2");
    expect(password.body.answer.sources.map((s: { space: string }) => s.space)).not.toContain(secret.id);
    const asOwner = await ctx.as(owner).post(`/v1/orgs/${org.id}/ask?format=markdown`, { query: "What is the corporate proxy password?" });
    expect(asOwner.body.answer.answer.markdown).toContain("hunter2");
    expect(asOwner.body.answer.sources[0].space).toBe(secret.id);
  });

  it("answers a JSON document by default, and says plainly when the docs do not answer", async () => {
    const { org, owner } = await setup();
    const doc = await ctx.as(owner).post(`/v1/orgs/${org.id}/ask`, { query: "reset my password" });
    expect(doc.body.answer.answer.document.object).toBe("document");
    expect(schemaErrors("SearchAIAnswer", doc.body.answer)).toEqual([]);
    const none = await ctx.as(owner).post(`/v1/orgs/${org.id}/ask?format=markdown`, { query: "Which rockets fly to Jupiter?" });
    expect(none.body.answer).toMatchObject({ answer: { markdown: "The documentation does not answer this question." }, sources: [] });
  });

  it("answers 401, 404 to outsiders, and 400s saying what to change", async () => {
    const { org, owner, outsider } = await setup();
    expect((await ctx.anonymous.post(`/v1/orgs/${org.id}/ask`, { query: "proxy" })).status).toBe(401);
    expect((await ctx.as(outsider).post(`/v1/orgs/${org.id}/ask`, { query: "proxy" })).status).toBe(404);
    const long = await ctx.as(owner).post(`/v1/orgs/${org.id}/ask`, { query: "x".repeat(513) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain("512");
    const blank = await ctx.as(owner).post(`/v1/orgs/${org.id}/ask`, { query: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.error.message).toBe("Ask a question: body.query is empty.");
    expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/ask`, {})).status).toBe(400);
  });
});

describe("streamed answers", () => {
  it("streams an organization answer as SearchAIAnswerStream events, then done", async () => {
    const { org, owner } = await setup();
    const res = await ctx
      .as(owner)
      .get(`/v1/orgs/${org.id}/ask/stream?format=markdown&query=${encodeURIComponent("proxy variable packages")}`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toContain("text/event-stream");
    const events = eventsOf(res.text);
    expect(events.at(-1)?.event).toBe("done");
    const last = events.filter((e) => e.event === "message").at(-1)?.data;
    expect(last.type).toBe("answer");
    expect(last.answer.sources).toHaveLength(1);
    for (const e of events.filter((e) => e.event === "message")) expect(schemaErrors("SearchAIAnswerStream", e.data)).toEqual([]);
    const refused = await ctx.as(owner).get(`/v1/orgs/${org.id}/ask/stream?query=%20`);
    expect(refused.status).toBe(400);
  });

  it("asks in a site's spaces the caller may read, by scope; 400 for a site space the site lacks; 404 for another org's site", async () => {
    const { org, owner, members, space, secret } = await setup();
    const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [space.id, secret.id] });
    const siteSpaces = (await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${site.id}/site-spaces`)).body.items as {
      id: string;
      space: { id: string };
    }[];
    const ask = (user: typeof owner, body: unknown) => ctx.as(user).post(`/v1/orgs/${org.id}/sites/${site.id}/ask?format=markdown`, body);
    const all = await ask(owner, { question: "What is the corporate proxy password?", scope: { mode: "all" } });
    expect(all.status).toBe(200);
    expect(all.text).toContain("hunter2");
    const reader = await ask(members.read, { question: "What is the corporate proxy password?", scope: { mode: "all" } });
    expect(reader.text).not.toContain("hunter2");
    const handbookOnly = siteSpaces.find((s) => s.space.id === space.id)?.id as string;
    const specific = await ask(owner, {
      question: "What is the corporate proxy password?",
      scope: { mode: "specific", siteSpaceIds: [handbookOnly] },
    });
    expect(specific.text).not.toContain("hunter2");
    const bad = await ask(owner, { question: "proxy", scope: { mode: "specific", siteSpaceIds: ["nope"] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('scope.siteSpaceIds: the site has no site space "nope".');
    expect((await ask(owner, { question: "proxy", scope: { mode: "sideways" } })).status).toBe(400);
    const other = await createOrgWithSpace(ctx, { title: "Other" });
    expect(
      (await ctx.as(other.owner).post(`/v1/orgs/${org.id}/sites/${site.id}/ask`, { question: "proxy", scope: { mode: "all" } })).status,
    ).toBe(404);
  });

  it("streams recommended questions from the site's content", async () => {
    const { org, owner, space } = await setup();
    const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [space.id] });
    const res = await ctx.as(owner).get(`/v1/orgs/${org.id}/sites/${site.id}/ask/questions`);
    expect(res.status).toBe(200);
    const questions = eventsOf(res.text)
      .filter((e) => e.event === "message")
      .map((e) => e.data.question);
    expect(questions).toContain("What does the documentation say about Proxy?");
    expect(questions.length).toBeLessThanOrEqual(5);
  });

  it("validates through @gitbook/api (its client reads the streams)", async () => {
    const { org, owner, space } = await setup();
    const site = await createSite(ctx, owner, org.id, { title: "Docs", spaces: [space.id] });
    const client = contractClient(await ctx.listen(), owner.token);
    const asked = await client.orgs.askInOrganization(org.id, { query: "proxy variable" }, { format: "markdown" });
    expect(asked.data.answer?.sources).toHaveLength(1);
    const streamed: unknown[] = [];
    for await (const event of await client.orgs.streamAskInOrganization(org.id, { query: "proxy variable", format: "markdown" }))
      streamed.push(event);
    expect(streamed.length).toBeGreaterThan(0);
    const inSite: unknown[] = [];
    for await (const event of await client.orgs.streamAskInSite(
      org.id,
      site.id,
      { question: "proxy variable", scope: { mode: "default" } },
      {},
    ))
      inSite.push(event);
    expect((inSite.at(-1) as { answer: { sources: unknown[] } }).answer.sources).toHaveLength(1);
    const questions: unknown[] = [];
    for await (const event of await client.orgs.streamRecommendedQuestionsInSite(org.id, site.id, {})) questions.push(event);
    expect(questions.length).toBeGreaterThan(0);
  });
});
