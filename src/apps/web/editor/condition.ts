/** A conditional block's condition, checked with the expression language the site evaluates it with (src/expr). */
import { ExpressionError, parseExpression } from "../../../expr/index.js";

/** What is wrong with a condition, in the words of the expression language; undefined when it reads. */
export function conditionProblem(expression: string): string | undefined {
  if (!expression.trim()) return 'Write a condition, such as visitor.claims.plan === "pro".';
  try {
    parseExpression(expression);
    return undefined;
  } catch (error) {
    if (error instanceof ExpressionError) return error.message;
    throw error;
  }
}
