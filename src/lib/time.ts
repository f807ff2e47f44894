/** Timestamps are stored and returned as ISO 8601 UTC strings with millisecond precision,
 * which sort lexicographically in both SQLite and PostgreSQL text columns. */
export function nowIso(): string {
  return new Date().toISOString();
}

export function isoDaysAgo(days: number, from: Date = new Date()): string {
  return new Date(from.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
}
