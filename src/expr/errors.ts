/**
 * The only error the expression evaluator throws. Callers map it to a response (400 for the parse
 * codes) or to a failed condition, so nothing else (TypeError, RangeError...) may escape.
 */
export type ExpressionErrorCode =
  /** Not JavaScript, or not a single expression. */
  | "syntax"
  /** Longer than the length limit, or nested deeper than the depth limit. */
  | "too_long"
  /** Valid JavaScript the language leaves out on purpose (assignment, `new`, regex...). */
  | "unsupported"
  /** Failed while evaluating: reading a property of undefined, calling a non-function... */
  | "runtime"
  /** Ran out of steps, depth, or string/array size. */
  | "limit";

export class ExpressionError extends Error {
  constructor(
    readonly code: ExpressionErrorCode,
    message: string,
    /** 0-based offset in the source of the construct the error is about, when there is one. */
    readonly position?: number,
    options?: { cause?: unknown },
  ) {
    super(position === undefined ? message : `${message} at position ${position}`, options);
    this.name = "ExpressionError";
  }
}
