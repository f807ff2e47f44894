/** The first place where two JSON values differ, as a path and the two values (cut short). */
export function firstDifference(a: unknown, b: unknown, at = "$"): string | undefined {
  if (a === b) return undefined;
  const show = (v: unknown) => (JSON.stringify(v) ?? "undefined").slice(0, 160);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${at}: ${show(a)} != ${show(b)}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const d = firstDifference(x[k], y[k], `${at}.${k}`);
    if (d) return d;
  }
  return undefined;
}
