/**
 * Merge rules: which rules apply to a space (its own, its organization's, or none), checking rules
 * when they are saved, and evaluating them when a change request is merged.
 *
 * Every rule is evaluated in order and every failure is reported, so that the merger learns all
 * that is missing at once. An `allow_bypass` rule naming the merger overrides the failures.
 *
 * Choices where GitBook's description is silent:
 * - reviews that count are each reviewer's current one (a newer review or a new request makes the
 *   older ones outdated); the change request's creator cannot review it, so a rule listing the
 *   creator among specific reviewers does not wait for them;
 * - `require_all_reviews_approved` passes with no review at all (combine it with
 *   `require_at_least_one_review` to demand one);
 * - `require_agent_review` cannot pass: Quire has no review agent. The message says so, so that
 *   an organization imported from GitBook knows to drop the rule or allow a bypass;
 * - `custom` expressions see `changeRequest` ({subject, description (its text), outdated,
 *   createdBy: {id}}), `reviews` ([{status: "approved" | "changes_requested", reviewer: {id}}], the
 *   status spelled as GitBook's merge-rule documentation spells it) and `actor` ({id}); a runtime
 *   error makes the rule fail, and running out of the evaluation budget fails it with that reason.
 */
import { ExpressionError, evaluateCondition } from "../../expr/index.js";
import { parseJson } from "../../lib/json.js";
import type { MergeRuleValue, OrganizationMergeRulesValue, SpaceMergeRulesValue } from "./merge-rules.schemas.js";

export interface EffectiveMergeRules {
  /** Where the rules come from: the space's own, its organization's, or none apply. */
  source: "space" | "organization" | "none";
  rules: MergeRuleValue[];
}

/** The rules that apply to a space, from the stored `mergeRules` of the space and of its organization. */
export function effectiveMergeRules(spaceRules: string, organizationRules: string): EffectiveMergeRules {
  const space = parseJson<SpaceMergeRulesValue>(spaceRules, "spaces.merge_rules");
  if (space.type === "rules") return { source: "space", rules: space.rules };
  if (space.type === "none") return { source: "none", rules: [] };
  const organization = parseJson<OrganizationMergeRulesValue>(organizationRules, "organizations.merge_rules");
  return organization.type === "rules" ? { source: "organization", rules: organization.rules } : { source: "none", rules: [] };
}

/** What the rules are evaluated against. */
export interface MergeRuleContext {
  changeRequest: { number: number; subject: string; descriptionText: string; outdated: boolean; createdBy: string };
  /** Each reviewer's current review. */
  reviews: readonly { reviewerId: string; status: "approved" | "changes-requested" }[];
  actorId: string;
  /** A person-readable name for a user id, for messages. */
  nameOf(userId: string): string;
}

export interface RuleFailure {
  /** The rule's name (`require_at_least_one_review`, `custom`...). */
  rule: string;
  /** Position of the rule in the list. */
  index: number;
  /** Why it fails, for a person. */
  reason: string;
}

export interface RulesOutcome {
  failures: RuleFailure[];
  /** The actor is named by an `allow_bypass` rule, so the failures do not block them. */
  bypassed: boolean;
}

export function evaluateMergeRules(rules: readonly MergeRuleValue[], ctx: MergeRuleContext): RulesOutcome {
  const failures: RuleFailure[] = [];
  let bypassed = false;
  rules.forEach((rule, index) => {
    if (rule.rule === "allow_bypass") {
      if (rule.users.includes(ctx.actorId)) bypassed = true;
      return;
    }
    const reason = failureOf(rule, ctx);
    if (reason !== undefined) failures.push({ rule: rule.rule, index, reason });
  });
  return { failures, bypassed };
}

/** Why one rule fails, or undefined when it passes. */
function failureOf(rule: Exclude<MergeRuleValue, { rule: "allow_bypass" }>, ctx: MergeRuleContext): string | undefined {
  const approvers = new Set(ctx.reviews.filter((r) => r.status === "approved").map((r) => r.reviewerId));
  const names = (ids: readonly string[]) => ids.map((id) => ctx.nameOf(id)).join(", ");
  switch (rule.rule) {
    case "require_at_least_one_review":
      return ctx.reviews.length > 0 ? undefined : "it has no review yet";
    case "require_all_reviews_approved": {
      const requesting = ctx.reviews.filter((r) => r.status === "changes-requested").map((r) => r.reviewerId);
      return requesting.length === 0 ? undefined : `changes are requested by ${names(requesting)}`;
    }
    case "require_specific_reviewers": {
      const missing = reviewersWhoCount(rule.users, ctx).filter((id) => !approvers.has(id));
      return missing.length === 0 ? undefined : `it needs an approving review from ${names(missing)}`;
    }
    case "require_one_of_specific_reviewers": {
      const candidates = reviewersWhoCount(rule.users, ctx);
      if (candidates.length === 0 || candidates.some((id) => approvers.has(id))) return undefined;
      return `it needs an approving review from one of ${names(candidates)}`;
    }
    case "require_agent_review":
      return "it needs a review by GitBook's AI agent, which Quire does not have; remove the rule or add an allow_bypass rule";
    case "require_up_to_date_change_request":
      return ctx.changeRequest.outdated
        ? "the primary content changed since it was last updated; update it first (POST .../update)"
        : undefined;
    case "require_change_request_subject":
      return ctx.changeRequest.subject.trim() === "" ? "it has no subject" : undefined;
    case "require_change_request_description":
      return ctx.changeRequest.descriptionText.trim() === "" ? "it has no description" : undefined;
    case "custom":
      return customFailure(rule.expression, ctx);
  }
}

/** Listed reviewers, without the change request's creator (who cannot review their own). */
function reviewersWhoCount(users: readonly string[], ctx: MergeRuleContext): string[] {
  return [...new Set(users)].filter((id) => id !== ctx.changeRequest.createdBy);
}

function customFailure(expression: string, ctx: MergeRuleContext): string | undefined {
  const context = {
    changeRequest: {
      subject: ctx.changeRequest.subject,
      description: ctx.changeRequest.descriptionText,
      outdated: ctx.changeRequest.outdated,
      createdBy: { id: ctx.changeRequest.createdBy },
    },
    reviews: ctx.reviews.map((r) => ({
      status: r.status === "approved" ? "approved" : "changes_requested",
      reviewer: { id: r.reviewerId },
    })),
    actor: { id: ctx.actorId },
  };
  try {
    return evaluateCondition(expression, context, { maxLength: 1024 }) ? undefined : `\`${expression}\` is not true`;
  } catch (error) {
    if (error instanceof ExpressionError) return `\`${expression}\` could not be evaluated: ${error.message}`;
    throw error;
  }
}

/** The 403 message for failures that block a merge: every failing rule, by position and name. */
export function blockedMessage(number: number, failures: readonly RuleFailure[], source: EffectiveMergeRules["source"]): string {
  const where = source === "organization" ? "the organization's merge rules" : "the space's merge rules";
  const list = failures.map((f) => `rule ${f.index + 1} (${f.rule}): ${f.reason}`).join("; ");
  return `Change request #${number} cannot be merged under ${where}: ${list}.`;
}
