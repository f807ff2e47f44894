/**
 * Safe evaluation of user-written JavaScript expressions: custom merge rules, adaptive-content
 * conditions and inline document expressions (GitBook's `@gitbook/expr` language).
 */
export { DEFAULT_LIMITS, type Limits } from "./budget.js";
export { isDeterministic } from "./deterministic.js";
export { ExpressionError, type ExpressionErrorCode } from "./errors.js";
export { evaluate, evaluateCondition, type EvaluateOptions } from "./evaluate.js";
export { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH, ParsedExpression, parseExpression, type ParseOptions } from "./parse.js";
