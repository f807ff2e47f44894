import { describe, expect, it } from "vitest";
import { blockedMessage, effectiveMergeRules, evaluateMergeRules, type MergeRuleContext } from "./merge-rules.model.js";
import type { MergeRuleValue } from "./merge-rules.schemas.js";

function context(
  overrides: Partial<Omit<MergeRuleContext, "changeRequest">> & { changeRequest?: Partial<MergeRuleContext["changeRequest"]> } = {},
): MergeRuleContext {
  return {
    actorId: "merger",
    reviews: [],
    nameOf: (id) => `@${id}`,
    ...overrides,
    changeRequest: {
      number: 7,
      subject: "Fix typos",
      descriptionText: "",
      outdated: false,
      createdBy: "author",
      ...overrides.changeRequest,
    },
  };
}

const failing = (rules: MergeRuleValue[], ctx: MergeRuleContext) =>
  evaluateMergeRules(rules, ctx).failures.map((f) => `${f.index}:${f.rule}: ${f.reason}`);

describe("evaluateMergeRules", () => {
  it("counts reviews for the review rules", () => {
    const none = context();
    const approved = context({ reviews: [{ reviewerId: "ann", status: "approved" }] });
    const mixed = context({
      reviews: [
        { reviewerId: "ann", status: "approved" },
        { reviewerId: "bob", status: "changes-requested" },
      ],
    });
    expect(failing([{ rule: "require_at_least_one_review" }], none)).toEqual(["0:require_at_least_one_review: it has no review yet"]);
    expect(failing([{ rule: "require_at_least_one_review" }], mixed)).toEqual([]);
    expect(failing([{ rule: "require_all_reviews_approved" }], none)).toEqual([]);
    expect(failing([{ rule: "require_all_reviews_approved" }], approved)).toEqual([]);
    expect(failing([{ rule: "require_all_reviews_approved" }], mixed)).toEqual([
      "0:require_all_reviews_approved: changes are requested by @bob",
    ]);
  });

  it("needs approvals from specific reviewers, never waiting for the creator", () => {
    const rules: MergeRuleValue[] = [{ rule: "require_specific_reviewers", users: ["ann", "bob", "author"] }];
    expect(failing(rules, context({ reviews: [{ reviewerId: "ann", status: "approved" }] }))).toEqual([
      "0:require_specific_reviewers: it needs an approving review from @bob",
    ]);
    expect(
      failing(
        rules,
        context({
          reviews: [
            { reviewerId: "ann", status: "approved" },
            { reviewerId: "bob", status: "changes-requested" },
          ],
        }),
      ),
    ).toEqual(["0:require_specific_reviewers: it needs an approving review from @bob"]);
    expect(
      failing(
        rules,
        context({
          reviews: [
            { reviewerId: "ann", status: "approved" },
            { reviewerId: "bob", status: "approved" },
          ],
        }),
      ),
    ).toEqual([]);

    const oneOf: MergeRuleValue[] = [{ rule: "require_one_of_specific_reviewers", users: ["ann", "bob"] }];
    expect(failing(oneOf, context())).toEqual(["0:require_one_of_specific_reviewers: it needs an approving review from one of @ann, @bob"]);
    expect(failing(oneOf, context({ reviews: [{ reviewerId: "bob", status: "approved" }] }))).toEqual([]);
    // Only the creator listed: nobody can satisfy it, so it does not block.
    expect(failing([{ rule: "require_one_of_specific_reviewers", users: ["author"] }], context())).toEqual([]);
  });

  it("checks freshness, subject and description, and says the agent review cannot pass", () => {
    expect(failing([{ rule: "require_up_to_date_change_request" }], context({ changeRequest: { outdated: true } }))[0]).toMatch(
      /update it first/,
    );
    expect(failing([{ rule: "require_up_to_date_change_request" }], context())).toEqual([]);
    expect(failing([{ rule: "require_change_request_subject" }], context({ changeRequest: { subject: "  " } }))).toEqual([
      "0:require_change_request_subject: it has no subject",
    ]);
    expect(failing([{ rule: "require_change_request_description" }], context())).toEqual([
      "0:require_change_request_description: it has no description",
    ]);
    expect(failing([{ rule: "require_change_request_description" }], context({ changeRequest: { descriptionText: "Why" } }))).toEqual([]);
    expect(failing([{ rule: "require_agent_review" }], context())[0]).toMatch(/Quire does not have/);
  });

  it("reports every failing rule in order, and a bypass names who may merge anyway", () => {
    const rules: MergeRuleValue[] = [
      { rule: "require_change_request_description" },
      { rule: "allow_bypass", users: ["boss"] },
      { rule: "require_at_least_one_review" },
    ];
    const outcome = evaluateMergeRules(rules, context());
    expect(outcome.failures.map((f) => [f.index, f.rule])).toEqual([
      [0, "require_change_request_description"],
      [2, "require_at_least_one_review"],
    ]);
    expect(outcome.bypassed).toBe(false);
    expect(evaluateMergeRules(rules, context({ actorId: "boss" })).bypassed).toBe(true);
    expect(blockedMessage(7, outcome.failures, "organization")).toBe(
      "Change request #7 cannot be merged under the organization's merge rules: rule 1 (require_change_request_description): it has no description; rule 3 (require_at_least_one_review): it has no review yet.",
    );
  });
});

describe("custom rules", () => {
  const reviews = [
    { reviewerId: "ann", status: "approved" as const },
    { reviewerId: "bob", status: "changes-requested" as const },
  ];
  const custom = (expression: string, ctx = context({ reviews })) => failing([{ rule: "custom", expression }], ctx);

  it("sees the documented context", () => {
    expect(custom('reviews.filter(r => r.status === "approved").length >= 1')).toEqual([]);
    expect(custom('reviews.filter(r => r.status === "approved").length >= 2')).toEqual([
      '0:custom: `reviews.filter(r => r.status === "approved").length >= 2` is not true',
    ]);
    expect(custom('reviews.some(r => r.status === "changes_requested" && r.reviewer.id === "bob")')).toEqual([]);
    expect(custom('changeRequest.subject.startsWith("Fix") && !changeRequest.outdated && changeRequest.createdBy.id === "author"')).toEqual(
      [],
    );
    expect(custom('actor.id === "merger" && changeRequest.description === ""')).toEqual([]);
  });

  it("fails cleanly on hostile or broken expressions", () => {
    // Reaching outside the context is a runtime error: the rule fails, nothing escapes.
    for (const expression of [
      "constructor.constructor('return process')()",
      "reviews.constructor.constructor('return process')().exit(1)",
      "globalThis.process.exit(1)",
      "this.process",
      "reviews.__proto__.polluted = 1",
      "missing.property",
    ]) {
      const [failure] = custom(expression);
      expect(failure, expression).toMatch(/^0:custom: /);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Work without end runs out of budget instead of hanging the server.
    const ten = "[1,2,3,4,5,6,7,8,9,10]";
    const [heavy] = custom(`${ten}.map(a => ${ten}.map(b => ${ten}.map(c => ${ten}.map(d => reviews.length)))).length > 0`);
    expect(heavy).toMatch(/could not be evaluated: Expression needs more than 10000 steps/);
    const [deep] = custom(
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    );
    expect(deep).toMatch(/^0:custom: /);
  });
});

describe("effectiveMergeRules", () => {
  const rules = JSON.stringify({ type: "rules", rules: [{ rule: "require_at_least_one_review" }] });
  it("takes the space's own rules, its organization's when it inherits, or none", () => {
    expect(effectiveMergeRules(rules, JSON.stringify({ type: "none" }))).toEqual({
      source: "space",
      rules: [{ rule: "require_at_least_one_review" }],
    });
    expect(effectiveMergeRules(JSON.stringify({ type: "inherit" }), rules)).toEqual({
      source: "organization",
      rules: [{ rule: "require_at_least_one_review" }],
    });
    expect(effectiveMergeRules(JSON.stringify({ type: "inherit" }), JSON.stringify({ type: "none" }))).toEqual({
      source: "none",
      rules: [],
    });
    expect(effectiveMergeRules(JSON.stringify({ type: "none" }), rules)).toEqual({ source: "none", rules: [] });
  });
});
