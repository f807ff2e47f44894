/**
 * Three-way merge of an ordered list of distinct ids (sibling pages, blocks of one container),
 * in the spirit of diff3 but exploiting that ids are unique, which also lets it see moves:
 *
 * 1. Items that keep their base order on both sides (the longest common subsequence of base and
 *    each side) are stable anchors; they are in the same relative order in all three lists.
 * 2. Every other item (inserted, moved here, or reordered by a side) is placed by the side that
 *    changed it, right after the stable anchor that precedes it in that side's list (its "gap").
 * 3. In each gap, the runs placed by both sides are combined; runs that do not share items are
 *    ordered by their first id, so the result does not depend on which side is `ours` (a merge of
 *    clean edits commutes) and is deterministic.
 *
 * Which items are in the list (its members) is decided by the caller; the list only orders them.
 */

const START = "\u0000start";

/**
 * The longest subsequence of `b` that is also a subsequence of `a`, both lists of distinct ids:
 * the longest increasing run of `b`'s positions in `a` (patience sorting, O(n log n)).
 */
export function commonSubsequence(a: readonly string[], b: readonly string[]): Set<string> {
  const positionInA = new Map<string, number>();
  a.forEach((id, i) => {
    positionInA.set(id, i);
  });
  const items: { id: string; pos: number }[] = [];
  for (const id of b) {
    const pos = positionInA.get(id);
    if (pos !== undefined) items.push({ id, pos });
  }
  const tails: number[] = [];
  const previous = new Array<number>(items.length).fill(-1);
  for (let i = 0; i < items.length; i++) {
    const pos = items[i]!.pos;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (items[tails[mid]!]!.pos < pos) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out = new Set<string>();
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) out.add(items[i]!.id);
  return out;
}

export interface OrderMerge {
  order: string[];
  /** Items both sides repositioned differently; they take `ours`' place. */
  conflicts: string[];
}

/** Orders `members` by merging the base, ours and theirs orders (see the module comment). */
export function mergeOrder(
  base: readonly string[],
  ours: readonly string[],
  theirs: readonly string[],
  members: ReadonlySet<string>,
): OrderMerge {
  const o = base.filter((id) => members.has(id));
  const a = ours.filter((id) => members.has(id));
  const b = theirs.filter((id) => members.has(id));
  // Fast path, and the rule the general case reduces to: a side that left the list as it was
  // takes the other side's order (most lists of a large space are untouched on both sides).
  if (sameIds(o, b) && a.length === members.size) return { order: a, conflicts: [] };
  if (sameIds(o, a) && b.length === members.size) return { order: b, conflicts: [] };
  const inBase = new Set(o);
  const inA = new Set(a);
  const keptA = commonSubsequence(o, a);
  const keptB = commonSubsequence(o, b);
  const isStable = (id: string) => keptA.has(id) && keptB.has(id);
  const movedA = new Set(a.filter((id) => !inBase.has(id) || !keptA.has(id)));
  const movedB = new Set(b.filter((id) => !inBase.has(id) || !keptB.has(id)));
  const gapA = gaps(a, isStable);
  const gapB = gaps(b, isStable);

  const conflicts: string[] = [];
  const runsA = new Map<string, string[]>();
  const runsB = new Map<string, string[]>();
  const push = (runs: Map<string, string[]>, gap: string, id: string) => {
    const run = runs.get(gap);
    if (run) run.push(id);
    else runs.set(gap, [id]);
  };
  for (const id of a) {
    if (isStable(id)) continue;
    if (movedA.has(id)) {
      if (movedB.has(id) && gapB.get(id) !== gapA.get(id)) conflicts.push(id);
      push(runsA, gapA.get(id)!, id);
    } else if (!movedB.has(id)) {
      // Kept in place by ours but gone from theirs' list (theirs moved or deleted it and lost a
      // conflict): ours decides where it stays.
      push(runsA, gapA.get(id)!, id);
    }
  }
  for (const id of b) {
    if (isStable(id)) continue;
    if (movedB.has(id)) {
      if (!movedA.has(id) || gapA.get(id) === gapB.get(id)) push(runsB, gapB.get(id)!, id);
    } else if (!movedA.has(id) && !inA.has(id)) {
      push(runsB, gapB.get(id)!, id);
    }
  }

  const order: string[] = [];
  const emitGap = (gap: string) => {
    const merged = mergeRuns(runsA.get(gap) ?? [], runsB.get(gap) ?? []);
    order.push(...merged.order);
    conflicts.push(...merged.conflicts);
  };
  emitGap(START);
  for (const id of o) {
    if (!isStable(id)) continue;
    order.push(id);
    emitGap(id);
  }
  // Members that no list places (a caller moved them here to settle a conflict) go last, sorted.
  if (order.length < members.size) {
    const placed = new Set(order);
    order.push(...[...members].filter((id) => !placed.has(id)).sort());
  }
  return { order, conflicts };
}

function sameIds(x: readonly string[], y: readonly string[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** For each non-stable item of `list`, the stable item right before it (or START). */
function gaps(list: readonly string[], isStable: (id: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  let anchor = START;
  for (const id of list) {
    if (isStable(id)) anchor = id;
    else out.set(id, anchor);
  }
  return out;
}

/**
 * Combines what both sides placed in one gap. Items placed by both (the same move or the same
 * insertion on both sides) anchor the combination; between them, each side's run is kept whole and
 * the runs are ordered by their first id.
 */
export function mergeRuns(a: readonly string[], b: readonly string[]): OrderMerge {
  if (b.length === 0) return { order: [...a], conflicts: [] };
  if (a.length === 0) return { order: [...b], conflicts: [] };
  const inB = new Set(b);
  const shared = a.filter((id) => inB.has(id));
  const inShared = new Set(shared);
  const anchors = commonSubsequence(
    shared,
    b.filter((id) => inShared.has(id)),
  );
  // Placed by both sides but in a different relative order: ours' order wins.
  const conflicts = shared.filter((id) => !anchors.has(id));
  const conflicted = new Set(conflicts);
  const segmentsA = split(a, anchors);
  const segmentsB = split(
    b.filter((id) => !conflicted.has(id)),
    anchors,
  );
  const order: string[] = [];
  for (let i = 0; i < segmentsA.runs.length; i++) {
    const runA = segmentsA.runs[i]!;
    const runB = segmentsB.runs[i]!;
    if (runA.length > 0 && runB.length > 0 && runB[0]! < runA[0]!) order.push(...runB, ...runA);
    else order.push(...runA, ...runB);
    const anchor = segmentsA.anchors[i];
    if (anchor !== undefined) order.push(anchor);
  }
  return { order, conflicts };
}

/** Splits a list at the anchors: runs[i] is what lies before anchors[i] (the last run after the last anchor). */
function split(list: readonly string[], anchors: ReadonlySet<string>): { runs: string[][]; anchors: string[] } {
  const runs: string[][] = [[]];
  const found: string[] = [];
  for (const id of list) {
    if (anchors.has(id)) {
      found.push(id);
      runs.push([]);
    } else runs[runs.length - 1]!.push(id);
  }
  return { runs, anchors: found };
}
