/** Parses a JSON text column; a corrupt value is a bug, so it throws with the column's name. */
export function parseJson<T>(text: string, column: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`Stored JSON in ${column} is not valid`);
  }
}

export function parseJsonOrNull<T>(text: string | null, column: string): T | null {
  return text === null ? null : parseJson<T>(text, column);
}

/** Freezes a parsed JSON value and everything in it, so that it can be shared. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
