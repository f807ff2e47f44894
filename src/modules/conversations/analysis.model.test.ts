import { describe, expect, it } from "vitest";
import { generateConversations, measure } from "../../../test/fixtures/conversations/generate.js";
import { analyseConversations } from "./analysis.model.js";
import { redact } from "./redact.model.js";

function analyseLabelled(count: number, seed: number, noise = 0) {
  const set = generateConversations(count, seed, undefined, { noise });
  const result = analyseConversations(
    set.map((c) => ({
      id: c.input.id,
      subject: c.input.subject !== undefined ? redact(c.input.subject) : null,
      parts: c.input.parts.map((p) => ({ role: p.role, body: redact(p.body) })),
    })),
  );
  return { set, result };
}

describe("analyseConversations", () => {
  it("groups a labelled set of 400 conversations of 12 topics into pure clusters", () => {
    const { set, result } = analyseLabelled(400, 3);
    const figures = measure(
      set,
      result.issues.map((i) => ({
        conversationId: i.conversationId,
        position: i.position,
        cluster: i.cluster === null ? null : String(i.cluster),
      })),
    );
    expect(figures.purity).toBeGreaterThan(0.95);
    expect(figures.rightCluster).toBeGreaterThan(0.9);
    expect(figures.splitAccuracy).toBeGreaterThan(0.95);
    expect(figures.clusters).toBeGreaterThanOrEqual(12);
    expect(figures.clusters).toBeLessThanOrEqual(20);
  });

  it("keeps clusters mostly pure when three details in ten are about another topic", () => {
    const { set, result } = analyseLabelled(400, 3, 0.3);
    const figures = measure(
      set,
      result.issues.map((i) => ({
        conversationId: i.conversationId,
        position: i.position,
        cluster: i.cluster === null ? null : String(i.cluster),
      })),
    );
    expect(figures.purity).toBeGreaterThan(0.9);
    expect(figures.rightCluster).toBeGreaterThan(0.85);
  });

  it("is deterministic", () => {
    expect(analyseLabelled(150, 4).result).toEqual(analyseLabelled(150, 4).result);
  });

  it("splits a conversation at a change of topic and takes title, question and summary from it", () => {
    const { issues } = analyseConversations([
      {
        id: "c",
        subject: "Re: SSO login loop",
        parts: [
          {
            role: "user",
            body: "Hi team,\n\nOur SAML single sign-on with Okta redirects back to the login page in a loop. Why does SSO fail?",
          },
          { role: "team-member", body: "Your identity provider certificate expired. Upload the new one." },
          { role: "user", body: "Thanks, that worked!" },
          { role: "user", body: "Also, how do I export the whole space to a PDF file with images?" },
        ],
      },
    ]);
    expect(issues.map((i) => [i.position, i.title, i.question])).toEqual([
      [0, "SSO login loop", "Why does SSO fail?"],
      [1, "How do I export the whole space to a PDF file with images?", "How do I export the whole space to a PDF file with images?"],
    ]);
    expect(issues[0]?.summary).toBe(
      "The user asks: Why does SSO fail? Our SAML single sign-on with Okta redirects back to the login page in a loop. Reply: Your identity provider certificate expired.",
    );
  });

  it("finds no issue in a conversation where the user says nothing of substance", () => {
    const { issues } = analyseConversations([{ id: "c", subject: null, parts: [{ role: "user", body: "Thanks!" }] }]);
    expect(issues).toEqual([]);
  });
});
