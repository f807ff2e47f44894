/**
 * Where a moved, created or transferred item lands among its new siblings: pure functions over the
 * sibling list, so the rules (invalid position, nothing to change) are tested without a database.
 */
import { conflicting, invalid } from "../../lib/errors.js";
import { type ContentKind, positionsFor, type Sibling, sortSiblings } from "./positions.model.js";

export interface ContentPointer {
  type: "space" | "collection";
  space?: string | undefined;
  collection?: string | undefined;
}

export interface ContentPositionValue {
  before?: ContentPointer | undefined;
  after?: ContentPointer | undefined;
}

/** The sibling a position points at; 400 when the id matching its `type` is missing. */
export function pointerKey(pointer: ContentPointer, field: string): { kind: ContentKind; id: string } {
  const id = pointer.type === "space" ? pointer.space : pointer.collection;
  if (!id) throw invalid(`${field}.${pointer.type} is required when ${field}.type is "${pointer.type}".`);
  return { kind: pointer.type, id };
}

/** "collection "abc"" or "the top level of the organization", for messages. */
export function describeParent(parentId: string | null): string {
  return parentId ? `collection "${parentId}"` : "the top level of the organization";
}

export interface MoveRequest {
  item: { kind: ContentKind; id: string; parentId: string | null };
  destinationParentId: string | null;
  /** Children of the destination (collections and live spaces), the item included when already there. */
  siblings: readonly Sibling[];
  position?: ContentPositionValue | undefined;
}

/**
 * The new keys to write (the item's, or the whole destination's when keys must be renumbered).
 * Throws 400 when the position names something that is not a child of the destination, and 409
 * when the item is already exactly there.
 */
export function planMove(request: MoveRequest): Sibling[] {
  const { item, destinationParentId, position } = request;
  const sameParent = item.parentId === destinationParentId;
  const current = sortSiblings(request.siblings);
  const others = current.filter((s) => !(s.kind === item.kind && s.id === item.id));

  if (position?.before && position.after) {
    throw invalid("Give either position.before or position.after, not both.");
  }
  const pointer = position?.before ?? position?.after;
  let index = others.length;
  if (pointer) {
    const target = pointerKey(pointer, position?.before ? "body.position.before" : "body.position.after");
    if (target.kind === item.kind && target.id === item.id) {
      throw invalid(`Invalid position: a ${item.kind} cannot be placed before or after itself.`);
    }
    const at = others.findIndex((s) => s.kind === target.kind && s.id === target.id);
    if (at < 0) {
      throw invalid(`Invalid position: ${target.kind} "${target.id}" is not in ${describeParent(destinationParentId)}.`);
    }
    index = position?.before ? at : at + 1;
  }

  const moved: Sibling = { kind: item.kind, id: item.id, position: "" };
  const order = [...others.slice(0, index), moved, ...others.slice(index)];
  if (sameParent && order.map(keyOf).join() === current.map(keyOf).join()) {
    throw conflicting(`The ${item.kind} is already at this position in ${describeParent(destinationParentId)}; nothing to change.`);
  }
  return positionsFor(order, moved);
}

function keyOf(s: { kind: string; id: string }): string {
  return `${s.kind}:${s.id}`;
}
