/**
 * Three-way merge of JSON values (metadata, block `data`): plain objects merge field by field,
 * recursively, so two sides that change different fields both win; anything else is replaced whole.
 */

export type Json = unknown;

/** True for `{...}` values that merge field by field (not arrays, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deep equality of JSON values. A missing property equals an `undefined` one, as they are in stored
 * (canonical) JSON; key order does not matter.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let definedInA = 0;
  for (const key in ra) {
    const va = ra[key];
    if (va === undefined) continue;
    definedInA++;
    if (!jsonEqual(va, rb[key])) return false;
  }
  let definedInB = 0;
  for (const key in rb) if (rb[key] !== undefined) definedInB++;
  return definedInA === definedInB;
}

export interface ValueConflict {
  /** Field path from the merged value's root; empty when the values themselves collide. */
  path: string[];
  base: unknown;
  ours: unknown;
  theirs: unknown;
}

export interface ValueMerge<T> {
  value: T;
  conflicts: ValueConflict[];
}

/**
 * Values that are replaced whole even though they are objects: content references (`{kind, ...}`)
 * would otherwise merge into a reference that neither side wrote (one side's `kind`, the other's id).
 */
export function isAtomicObject(value: Record<string, unknown>): boolean {
  return typeof value.kind === "string";
}

/**
 * Merges `ours` and `theirs` against `base`. A field changed on one side takes that side; changed
 * identically on both is fine; changed differently on both is a conflict whose value is `ours`.
 */
export function mergeValue<T>(base: unknown, ours: T, theirs: T, path: string[] = []): ValueMerge<T> {
  if (jsonEqual(ours, theirs)) return { value: ours, conflicts: [] };
  if (jsonEqual(base, ours)) return { value: theirs, conflicts: [] };
  if (jsonEqual(base, theirs)) return { value: ours, conflicts: [] };
  if (isPlainObject(ours) && isPlainObject(theirs) && !isAtomicObject(ours) && !isAtomicObject(theirs)) {
    const baseRecord = isPlainObject(base) && !isAtomicObject(base) ? base : {};
    const merged = mergeRecord(baseRecord, ours, theirs, path);
    return merged as ValueMerge<T>;
  }
  return { value: ours, conflicts: [{ path, base, ours, theirs }] };
}

/** Field-by-field merge of two records; fields in `ours` order, then fields only `theirs` has. */
export function mergeRecord(
  base: Record<string, unknown>,
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
  path: string[] = [],
): ValueMerge<Record<string, unknown>> {
  const value: Record<string, unknown> = {};
  const conflicts: ValueConflict[] = [];
  for (const key of unionKeys(ours, theirs, base)) {
    const merged = mergeValue(ownField(base, key), ownField(ours, key), ownField(theirs, key), [...path, key]);
    if (merged.value !== undefined) setField(value, key, merged.value);
    conflicts.push(...merged.conflicts);
  }
  return { value, conflicts };
}

/** A record's own field (never an inherited one such as `constructor`, which user data may name). */
export function ownField(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets a field, as data even when it is named `__proto__` (JSON can carry that name). */
export function setField(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** Keys of several records, deduplicated, in first-seen order (deterministic output order). */
export function unionKeys(...records: Record<string, unknown>[]): string[] {
  const keys = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) keys.add(key);
  return [...keys];
}
