/**
 * Three-way merge of a tree of nodes with stable ids: the page tree (ids) and the blocks of a
 * document (keys) both go through it. A tree is given flat: each node's place (parent id and the
 * child list, or "slot", it sits in) and its own content (everything but its children). Merging
 * flat trees instead of walking them recursively is what lets a node move to another parent on
 * one side while the other side edits it: its place and its content merge independently.
 */
import { mergeOrder } from "./sequence.js";

export interface FlatNode<T> {
  /** `null` for a node at the root. */
  parent: string | null;
  /** Which child list of the parent holds it ("children" for pages; "nodes" or "fragments" for blocks). */
  slot: string;
  own: T;
}

export interface FlatTree<T> {
  /** In reading order (the order only makes the output deterministic). */
  nodes: Map<string, FlatNode<T>>;
  /** Child ids by list (see `listId`), in order. */
  lists: Map<string, string[]>;
}

/** Identifies one child list of a parent. */
export function listId(parent: string | null, slot: string): string {
  return `${parent ?? ""}\u0000${slot}`;
}

export function emptyTree<T>(): FlatTree<T> {
  return { nodes: new Map(), lists: new Map() };
}

/** Adds a node at the end of its list (for building flat trees in reading order). */
export function addNode<T>(tree: FlatTree<T>, id: string, node: FlatNode<T>): void {
  tree.nodes.set(id, node);
  const list = listId(node.parent, node.slot);
  const ids = tree.lists.get(list);
  if (ids) ids.push(id);
  else tree.lists.set(list, [id]);
}

export interface TreeMergeHooks<T> {
  /** Exact equality of own content. */
  equal(a: T, b: T): boolean;
  /** Whether a side's own content counts as an edit of the base's (for delete-vs-edit). */
  edited(base: T, side: T): boolean;
  /** Merges own content present on both sides and different; records its own conflicts. */
  merge(id: string, base: T | undefined, ours: T, theirs: T): T;
  /** Where a node goes when nothing else can place it (breaking a cycle no side's place resolves). */
  rootSlot: string;
}

/**
 * Structural conflicts. `delete-edit` names the deleted node; `related` is the node whose edit,
 * move or insertion collides with that deletion when it is not the deleted node itself.
 */
export type TreeConflict =
  | { kind: "move"; id: string; reason: "parent" | "order" | "cycle" }
  | { kind: "delete-edit"; id: string; deletedBy: "ours" | "theirs"; related?: string };

export interface TreeMerge<T> {
  nodes: Map<string, FlatNode<T>>;
  lists: Map<string, string[]>;
  conflicts: TreeConflict[];
}

/** Merges two trees against their base (see the rules in the module comment of `merge.ts`). */
export function mergeTrees<T>(base: FlatTree<T>, ours: FlatTree<T>, theirs: FlatTree<T>, hooks: TreeMergeHooks<T>): TreeMerge<T> {
  const conflicts: TreeConflict[] = [];
  const reported = new Set<string>();
  const report = (conflict: TreeConflict) => {
    const key = `${conflict.kind}\u0000${conflict.id}\u0000${conflict.kind === "delete-edit" ? (conflict.related ?? "") : ""}`;
    if (reported.has(key)) return;
    reported.add(key);
    conflicts.push(conflict);
  };
  const result = new Map<string, FlatNode<T>>();
  const where = (node: FlatNode<T>) => listId(node.parent, node.slot);

  const ids = new Set<string>([...ours.nodes.keys(), ...theirs.nodes.keys(), ...base.nodes.keys()]);
  for (const id of ids) {
    const b = base.nodes.get(id);
    const o = ours.nodes.get(id);
    const t = theirs.nodes.get(id);
    if (o && t) {
      const own = hooks.equal(o.own, t.own) ? o.own : hooks.merge(id, b?.own, o.own, t.own);
      const [lo, lt] = [where(o), where(t)];
      let place: FlatNode<T> = o;
      if (lo !== lt) {
        if (b && where(b) === lo) place = t;
        else if (!b || where(b) !== lt) report({ kind: "move", id, reason: "parent" });
      }
      result.set(id, { parent: place.parent, slot: place.slot, own });
    } else if (o || t) {
      const kept = (o ?? t)!;
      if (!b) {
        result.set(id, { ...kept });
        continue;
      }
      // Deleted on one side. Losing an edit (or a deliberate move elsewhere) is a conflict; a mere
      // change of sibling position is not worth keeping a page the other side removed.
      const touched = hooks.edited(b.own, kept.own) || where(b) !== where(kept);
      if (touched) report({ kind: "delete-edit", id, deletedBy: o ? "theirs" : "ours" });
      if (o && touched) result.set(id, { ...o });
    }
  }

  repair(result, ours, hooks, report);

  // Sibling order, one list at a time, over the nodes the result puts in it.
  const members = new Map<string, Set<string>>();
  for (const [id, node] of result) {
    const list = where(node);
    const set = members.get(list);
    if (set) set.add(id);
    else members.set(list, new Set([id]));
  }
  const lists = new Map<string, string[]>();
  for (const [list, set] of members) {
    const merged = mergeOrder(base.lists.get(list) ?? [], ours.lists.get(list) ?? [], theirs.lists.get(list) ?? [], set);
    lists.set(list, merged.order);
    for (const id of merged.conflicts) report({ kind: "move", id, reason: "order" });
  }
  return { nodes: result, lists, conflicts };
}

/**
 * Makes the merged places a tree again. Each side is a tree, but combining them can leave a node
 * under a parent that the other side deleted (an orphan), or close a cycle (ours moves A under B,
 * theirs moves B under A). Orphans keep their parent when `ours` has it (resurrected as in `ours`,
 * so nothing published is lost), else go back to `ours`' place, else are dropped with the deleted
 * parent; nodes on a cycle go back to `ours`' place. Every such repair is a conflict.
 */
function repair<T>(
  result: Map<string, FlatNode<T>>,
  ours: FlatTree<T>,
  hooks: TreeMergeHooks<T>,
  report: (conflict: TreeConflict) => void,
): void {
  for (let round = 0; ; round++) {
    if (round > result.size + ours.nodes.size + 8) throw new Error("Tree merge did not converge");
    let changed = false;

    for (const [id, node] of [...result]) {
      if (!result.has(id) || node.parent === null || result.has(node.parent)) continue;
      const parent = node.parent;
      const parentInOurs = ours.nodes.get(parent);
      if (parentInOurs) {
        result.set(parent, { ...parentInOurs });
        report({ kind: "delete-edit", id: parent, deletedBy: "theirs", related: id });
      } else {
        const inOurs = ours.nodes.get(id);
        if (inOurs) result.set(id, { ...node, parent: inOurs.parent, slot: inOurs.slot });
        else result.delete(id);
        report({ kind: "delete-edit", id: parent, deletedBy: "ours", related: id });
      }
      changed = true;
    }

    const cycle = findCycle(result);
    if (cycle) {
      let moved = false;
      for (const id of cycle) {
        const node = result.get(id)!;
        const inOurs = ours.nodes.get(id);
        if (inOurs && (inOurs.parent !== node.parent || inOurs.slot !== node.slot)) {
          result.set(id, { ...node, parent: inOurs.parent, slot: inOurs.slot });
          report({ kind: "move", id, reason: "cycle" });
          moved = true;
        }
      }
      if (!moved) {
        const id = [...cycle].sort()[0]!;
        result.set(id, { ...result.get(id)!, parent: null, slot: hooks.rootSlot });
        report({ kind: "move", id, reason: "cycle" });
      }
      changed = true;
    }
    if (!changed) return;
  }
}

/** The ids of one cycle of parent links, or undefined when the parent links form a forest. */
function findCycle<T>(nodes: Map<string, FlatNode<T>>): string[] | undefined {
  // 1 = on the current path, 2 = known to reach the root.
  const state = new Map<string, 1 | 2>();
  for (const start of nodes.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    let id: string | null = start;
    while (id !== null && nodes.has(id) && !state.has(id)) {
      state.set(id, 1);
      path.push(id);
      id = nodes.get(id)!.parent;
    }
    if (id !== null && state.get(id) === 1) return path.slice(path.indexOf(id));
    for (const done of path) state.set(done, 2);
  }
  return undefined;
}
