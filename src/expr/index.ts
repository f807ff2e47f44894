/**
 * Safe evaluation of user-written JavaScript expressions: custom merge rules, adaptive-content
 * conditions and inline document expressions (GitBook's `@gitbook/expr` language).
 *
 * Parse once when an expression is saved (`parseExpression`: `syntax`, `too_long`, `unsupported`
 * are the author's mistakes, a 400), keep the ParsedExpression, and evaluate it per use
 * (`evaluate`/`evaluateCondition`: `runtime`, `limit`). Every failure is an ExpressionError.
 */
export { DEFAULT_LIMITS, type Limits } from "./budget.js";
export { isDeterministic } from "./deterministic.js";
export { ExpressionError, type ExpressionErrorCode } from "./errors.js";
export { type EvaluateOptions, evaluate, evaluateCondition } from "./evaluate.js";
export { MAX_FLAT_DEPTH } from "./methods.js";
export { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH, ParsedExpression, type ParseOptions, parseExpression } from "./parse.js";
