/** Merge rules as the API reads and writes them (organization and space settings). */
import Type, { type Static } from "typebox";

const UserIds = Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100, description: "List of user IDs." });

/** One merge rule (`MergeRule`). */
export const MergeRule = Type.Union([
  Type.Object({ rule: Type.Literal("require_specific_reviewers"), users: UserIds }),
  Type.Object({ rule: Type.Literal("require_one_of_specific_reviewers"), users: UserIds }),
  Type.Object({ rule: Type.Literal("allow_bypass"), users: UserIds }),
  Type.Object({
    rule: Type.Enum([
      "require_at_least_one_review",
      "require_all_reviews_approved",
      "require_agent_review",
      "require_up_to_date_change_request",
      "require_change_request_subject",
      "require_change_request_description",
    ]),
  }),
  Type.Object({ rule: Type.Literal("custom"), expression: Type.String({ maxLength: 1024 }) }),
]);
export type MergeRuleValue = Static<typeof MergeRule>;

export const MergeRulesRules = Type.Object({ type: Type.Literal("rules"), rules: Type.Array(MergeRule, { maxItems: 50 }) });
export const MergeRulesNone = Type.Object({ type: Type.Literal("none") });
export const MergeRulesInherit = Type.Object({ type: Type.Literal("inherit") });

/** Organization merge rules: own rules or none (`MergeRulesStandaloneConfiguration`). */
export const OrganizationMergeRules = Type.Union([MergeRulesRules, MergeRulesNone]);
/** Space merge rules: inherit from the organization, own rules, or none. */
export const SpaceMergeRules = Type.Union([MergeRulesInherit, MergeRulesRules, MergeRulesNone]);
export type SpaceMergeRulesValue = Static<typeof SpaceMergeRules>;
export type OrganizationMergeRulesValue = Static<typeof OrganizationMergeRules>;
