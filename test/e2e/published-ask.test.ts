/**
 * The published site's Ask box in Chromium: the search dropdown's last option asks the question;
 * the answer streams into the dropdown with its sources as links. Both engines: the offline one,
 * and the chat adapter against a tiny OpenAI-compatible server on loopback that builds its
 * completion from the prompt it received (so the answer on screen proves the grounding reached it).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveDocument } from "../../src/content/revision/storage.js";
import { commitContent } from "../helpers/content.factories.js";
import { block, doc, h, p } from "../helpers/render-documents.js";
import { createSite } from "../helpers/sites.factories.js";
import { createOrgWithSpace } from "../helpers/spaces.factories.js";
import { startWebE2E, type WebE2E, watchProblems } from "../helpers/web-e2e.js";

const SECRET = "zq7kxv93";

async function publish(e2e: WebE2E): Promise<string> {
  const { ctx } = e2e;
  const { org, owner, space } = await createOrgWithSpace(ctx, { title: "Ops" });
  const vault = doc(
    p("The vault keeps the cluster's credentials."),
    block("if", { expression: "visitor.claims.beta === true" }, [p(`The vault code is ${SECRET}.`)]),
    h(2, "Rotating the keys"),
    p("Rotate the vault keys every month from the settings screen. Old keys stop working a day later."),
  );
  await commitContent(ctx, space.id, {
    pages: [
      { title: "Overview", slug: "overview", paragraphs: ["Start here."] },
      { title: "Vault", slug: "vault", extra: { documentHash: await saveDocument(ctx.db, vault) } },
    ],
  });
  const site = await createSite(ctx, owner, org.id, { title: "Ops Docs", spaces: [space.id] });
  expect((await ctx.as(owner).post(`/v1/orgs/${org.id}/sites/${site.id}/publish`)).status).toBe(200);
  await ctx.worker.drain();
  return `${e2e.base}/s/${site.basename}`;
}

/** Asks through the header's box; returns the answer panel's text and its sources' links. */
async function askInBox(e2e: WebE2E, root: string, question: string, shot: string) {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  try {
    await page.goto(`${root}/overview`);
    await page.getByRole("combobox", { name: "Search this site" }).fill(question);
    const list = page.getByRole("listbox", { name: "Search results" });
    await list.waitFor({ state: "visible" });
    const option = list.locator(".q-ask-option");
    await option.waitFor();
    expect(await option.textContent()).toBe(`Ask \u201c${question}\u201d`);
    await option.click();
    const panel = list.locator(".q-ask");
    await panel.waitFor();
    await expect.poll(() => panel.getAttribute("aria-busy"), { timeout: 20_000 }).toBeNull();
    const text = (await panel.locator(".q-ask-text").textContent()) ?? "";
    const sources = await panel
      .locator(".q-ask-sources a")
      .evaluateAll((links) => links.map((a) => ({ text: a.textContent, href: a.getAttribute("href") })));
    await e2e.shot(page, shot);
    expect(problems).toEqual([]);
    return { text, sources };
  } finally {
    await context.close();
  }
}

describe("Ask box, offline engine", () => {
  let e2e: WebE2E;
  let root: string;
  beforeAll(async () => {
    e2e = await startWebE2E();
    root = await publish(e2e);
  }, 120_000);
  afterAll(async () => {
    await e2e?.close();
  });

  it("streams the quoted answer with its source, and says when the docs do not answer", async () => {
    const answer = await askInBox(e2e, root, "How do I rotate the vault keys?", "ask-offline");
    expect(answer.text).toContain("Rotate the vault keys every month from the settings screen.");
    expect(answer.text).not.toContain("**");
    expect(answer.text).not.toContain(SECRET);
    expect(answer.sources).toEqual([{ text: "Vault \u203a Rotating the keys", href: expect.stringMatching(/\/vault#rotating-the-keys$/) }]);
    const none = await askInBox(e2e, root, "How do I bake sourdough bread?", "ask-offline-unanswered");
    expect(none.text).toBe("The documentation does not answer this question.");
    expect(none.sources).toEqual([]);
  });
});

describe("Ask box, chat engine", () => {
  let e2e: WebE2E;
  let root: string;
  let model: http.Server;
  const prompts: { model: string; stream: boolean; messages: { role: string; content: string }[] }[] = [];
  beforeAll(async () => {
    // An OpenAI-compatible endpoint: the answer is the first sentence of the first source it was given, streamed in pieces.
    model = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        if (request.url !== "/v1/chat/completions" || request.method !== "POST") {
          response.writeHead(404).end();
          return;
        }
        const prompt = JSON.parse(body);
        prompts.push(prompt);
        const system = prompt.messages.find((m: { role: string }) => m.role === "system")?.content ?? "";
        const first = /\[1\] [^\n]*\n([^.]*\.)/.exec(system)?.[1] ?? "nothing";
        const pieces = ["From the docs: ", first, " [1]"];
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (const piece of pieces) response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
        response.end("data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const { port } = model.address() as AddressInfo;
    e2e = await startWebE2E({
      ask: { engine: "chat", chatUrl: `http://127.0.0.1:${port}`, chatModel: "tiny-test", chatKey: "k-test", chatTimeoutMs: 10_000 },
    });
    root = await publish(e2e);
  }, 120_000);
  afterAll(async () => {
    await e2e?.close();
    await new Promise((resolve) => model?.close(resolve));
  });

  it("streams the model's answer, grounded with the sections the reader may see", async () => {
    const answer = await askInBox(e2e, root, "How do I rotate the vault keys?", "ask-chat");
    expect(answer.text).toBe("From the docs: Rotate the vault keys every month from the settings screen. [1]");
    expect(answer.sources[0]).toEqual({
      text: "Vault \u203a Rotating the keys",
      href: expect.stringMatching(/\/vault#rotating-the-keys$/),
    });
    const prompt = prompts.at(-1);
    expect(prompt).toMatchObject({ model: "tiny-test", stream: true });
    expect(prompt?.messages.at(-1)).toEqual({ role: "user", content: "How do I rotate the vault keys?" });
    expect(JSON.stringify(prompts)).not.toContain(SECRET);
    // No section answers: the model is not asked.
    const asked = prompts.length;
    const none = await askInBox(e2e, root, "How do I bake sourdough bread?", "ask-chat-unanswered");
    expect(none.text).toBe("The documentation does not answer this question.");
    expect(prompts.length).toBe(asked);
  });
});
