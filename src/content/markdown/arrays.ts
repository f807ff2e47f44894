/**
 * Appends `items` to `target` in place. `target.push(...items)` passes every item as an argument,
 * which overflows the stack at about 100,000 items (one paragraph of a hostile page has that many).
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
