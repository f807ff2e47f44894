/**
 * Blocks that a GitBook page puts inside a container that 0.146's document model does not let hold
 * them: a code block in a hint, a table in a tab, an image with a size in a list item, the caption
 * of an embed or a file. The Markdown import keeps the document valid by moving such a block out,
 * just after the container (splitting the container around it). Moved out, it would be written
 * back, and shown, outside: an edited page would lose the structure the repository had.
 *
 * So the block moved out, and each later piece of the split container, carry `partOf`: the type
 * of the container they were part of (a field of the block itself: 0.146 gives some blocks a `meta`
 * that must hold an `id`, and others a closed `data`; a block's own fields are open). Readers that rebuild the page (the Markdown writer, the
 * published page) fold such a block back into the container just before it (`regroupParts`); the
 * stored document, the API and the editor keep the valid split form, and the marker travels with
 * the block (the editor keeps a node's fields it does not know). A marked block whose container no longer comes
 * just before it (a block was inserted between them in the editor) stays where it is.
 */

/** The block's field naming the container type it was moved out of. */
export const PART_OF = "partOf";

/** Container types whose content folds back: those holding their children in `nodes`. */
const NODE_CONTAINERS = new Set([
  "hint",
  "blockquote",
  "list-item",
  "list-ordered",
  "list-unordered",
  "list-tasks",
  "tabs",
  "tabs-item",
  "stepper",
  "stepper-step",
]);

/** Void blocks whose caption (the blocks written inside their tag) folds back, as `parts`. */
const CAPTIONED = new Set(["embed", "file"]);

export function canHoldParts(type: string): boolean {
  return NODE_CONTAINERS.has(type) || CAPTIONED.has(type);
}

type Loose = Record<string, unknown> & { type?: unknown; nodes?: unknown; parts?: unknown };

const isBlock = (value: unknown): value is Loose => typeof value === "object" && value !== null && !Array.isArray(value);

/** The container type a block was moved out of, or undefined. */
export function partOf(block: unknown): string | undefined {
  if (!isBlock(block)) return undefined;
  const value = block[PART_OF];
  return typeof value === "string" && canHoldParts(value) ? value : undefined;
}

/** `block` marked as part of a container of `type` (returns the same object). */
export function markPartOf<T extends object>(block: T, type: string): T {
  (block as Loose)[PART_OF] = type;
  return block;
}

/** `block` without its `partOf` marker (a copy; the same object when it has none). */
function unmarked(block: Loose): Loose {
  if (partOf(block) === undefined) return block;
  const { [PART_OF]: _, ...copy } = block;
  return copy;
}

/**
 * The container of `type` that a block following `last` was moved out of: `last` itself, or the
 * last block of `last`'s children, down the chain (a table moved out of a tab follows the tabs).
 */
function openContainer(last: Loose | undefined, type: string, depth = 0): Loose | undefined {
  if (!last || depth > 200) return undefined;
  if (last.type === type) return last;
  if (!NODE_CONTAINERS.has(String(last.type)) || !Array.isArray(last.nodes)) return undefined;
  const child = last.nodes[last.nodes.length - 1];
  return isBlock(child) ? openContainer(child, type, depth + 1) : undefined;
}

/** Rebuilds the chain from `last` down to `target` with `add` appended to the target's children. */
function appendInto(last: Loose, target: Loose, add: Loose[], depth: number): Loose {
  if (last === target) {
    if (CAPTIONED.has(String(target.type))) {
      const parts = Array.isArray(target.parts) ? (target.parts as Loose[]) : [];
      return { ...target, parts: [...parts, ...add] };
    }
    const nodes = Array.isArray(target.nodes) ? (target.nodes as unknown[]) : [];
    return { ...target, nodes: regroup([...nodes, ...add], depth + 1) };
  }
  const nodes = last.nodes as unknown[];
  const child = nodes[nodes.length - 1] as Loose;
  return { ...last, nodes: [...nodes.slice(0, -1), appendInto(child, target, add, depth + 1)] };
}

function regroup(blocks: readonly unknown[], depth: number): unknown[] {
  if (depth > 200 || !blocks.some((b) => partOf(b) !== undefined)) return blocks as unknown[];
  const out: unknown[] = [];
  for (const block of blocks) {
    const type = partOf(block);
    const last = out[out.length - 1];
    const target = type !== undefined && isBlock(last) ? openContainer(last, type) : undefined;
    if (type === undefined || !target || !isBlock(last)) {
      out.push(block);
      continue;
    }
    const b = block as Loose;
    // A later piece of the split container gives its children; any other block is itself a child.
    const add = b.type === type && NODE_CONTAINERS.has(type) && Array.isArray(b.nodes) ? (b.nodes as Loose[]) : [unmarked(b)];
    out[out.length - 1] = appendInto(last, target, add, depth);
  }
  return out;
}

/**
 * The blocks as the page had them: each marked block folded into the container just before it.
 * Pure: the blocks given are not changed (containers on the way are copied). Embeds and files get
 * their caption as `parts`. Reads any JSON: what is not a well-formed marked block stays as it is.
 */
export function regroupParts<T>(blocks: readonly T[]): T[] {
  return regroup(blocks, 0) as T[];
}

/** The caption blocks `regroupParts` gave an embed or a file. */
export function partsOf(block: unknown): unknown[] {
  return isBlock(block) && Array.isArray(block.parts) ? block.parts : [];
}

/** A copy of a document (or any JSON) without `partOf` markers: what imports stored before them. */
export function withoutParts(value: unknown, depth = 0): unknown {
  if (depth > 400 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => withoutParts(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== PART_OF) out[k] = withoutParts(v, depth + 1);
  return out;
}
