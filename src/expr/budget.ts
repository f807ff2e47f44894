/**
 * The resources one evaluation may use. Limits count work, never time: a clock would make the same
 * expression pass on an idle server and fail on a busy one, and evaluation must be deterministic.
 */
import { ExpressionError } from "./errors.js";

export interface Limits {
  /** Node evaluations, callback calls and built-in work (one step per element or per CHARS_PER_STEP characters). */
  maxSteps: number;
  /** Nesting of evaluation: syntax depth plus callbacks inside callbacks. */
  maxDepth: number;
  /** Longest string the evaluator may produce, in UTF-16 code units. */
  maxStringLength: number;
  /** Largest array (or object, in keys) the evaluator may produce. */
  maxArrayLength: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxSteps: 10_000,
  maxDepth: 100,
  maxStringLength: 100_000,
  maxArrayLength: 10_000,
});

/** String work is charged per block of characters: scanning 100 characters costs about one node. */
export const CHARS_PER_STEP = 100;

export function resolveLimits(options: Partial<Limits> = {}): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    // A bad limit is a bug in the caller, not in the expression, so it is not an ExpressionError.
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${key} must be a positive integer`);
    limits[key] = value;
  }
  return limits;
}

export class Budget {
  private steps = 0;

  constructor(readonly limits: Limits) {}

  /** One unit of interpreter work: a node or a callback call. */
  step(): void {
    if (++this.steps > this.limits.maxSteps) this.exhausted();
  }

  /** Built-in work proportional to its size (elements visited, characters scanned). */
  charge(units: number): void {
    this.steps += units;
    if (this.steps > this.limits.maxSteps) this.exhausted();
  }

  chargeChars(length: number): void {
    if (length > CHARS_PER_STEP) this.charge(Math.ceil(length / CHARS_PER_STEP));
  }

  get used(): number {
    return this.steps;
  }

  private exhausted(): never {
    throw new ExpressionError("limit", `Expression needs more than ${this.limits.maxSteps} steps`);
  }

  depth(depth: number, position?: number): void {
    if (depth >= this.limits.maxDepth) {
      throw new ExpressionError("limit", `Expression nests deeper than ${this.limits.maxDepth} levels when evaluated`, position);
    }
  }

  /** Checks a length before the string is built, so a huge one is never allocated. */
  checkString(length: number, position?: number): void {
    if (length > this.limits.maxStringLength) {
      throw new ExpressionError("limit", `Expression would make a string longer than ${this.limits.maxStringLength} characters`, position);
    }
  }

  /** checkString, then charges the characters about to be written. */
  newString(length: number, position?: number): void {
    this.checkString(length, position);
    this.chargeChars(length);
  }

  arrayLength(length: number, position?: number): void {
    if (length > this.limits.maxArrayLength) {
      throw new ExpressionError(
        "limit",
        `Expression would make an array or object larger than ${this.limits.maxArrayLength} items`,
        position,
      );
    }
  }
}
