/** Checks merge rules before they are stored: what they name must exist (the organization's members). */
import type { Executor } from "../../db/database.js";
import { ExpressionError, parseExpression } from "../../expr/index.js";
import { invalid } from "../../lib/errors.js";
import { existingMemberIds } from "../../permissions/memberships.queries.js";
import type { MergeRuleValue } from "./merge-rules.schemas.js";

/**
 * 400 for rules that could never be evaluated: a `custom` expression that does not parse (or is
 * longer than 1,024 characters, or uses what the expression language leaves out), or a user who
 * is not a member of the organization. `field` names the rules in messages (`body.mergeRules.rules`).
 */
export async function checkMergeRules(db: Executor, orgId: string, rules: readonly MergeRuleValue[], field: string): Promise<void> {
  rules.forEach((rule, index) => {
    if (rule.rule !== "custom") return;
    try {
      parseExpression(rule.expression, { maxLength: 1024 });
    } catch (error) {
      if (error instanceof ExpressionError) throw invalid(`${field}[${index}].expression is not a valid expression: ${error.message}.`);
      throw error;
    }
  });
  const named = [...new Set(rules.flatMap((rule) => ("users" in rule ? rule.users : [])))];
  const members = await existingMemberIds(db, orgId, named);
  rules.forEach((rule, index) => {
    const unknown = "users" in rule ? rule.users.find((id) => !members.has(id)) : undefined;
    if (unknown) throw invalid(`${field}[${index}].users names user "${unknown}", who is not a member of this organization.`);
  });
}
